"""`python main.py review REPLAY_OR_RUN_ID... [--json] [--png FILE]`: the coach's review of games, headless.

REPLAY_OR_RUN_ID is a replay file, the number of a run in the history (its replay is replays/<id>.json in the
data folder, which STACKCOACH_DATA_DIR moves), or a folder of replays (every ``*.json`` in it, in natural order:
``game-2`` before ``game-10``). The analysis is ai.review's, the graph ai.review_plot's (the same the review screen
draws). Every replay is read before any work starts: one that cannot be read is one line ``error: ...`` and exit
status 2.

One replay gets the full report. Several (or a folder) are a batch: each replay is a task on a backend (ai.cluster:
this process, a local pool with --workers K, or Ray actors with --backend ray), and the rows come out in the order
given, as soon as every earlier one is done, so the output is the same on every backend. The text output is one
row per replay and a total; --json is one JSON object per line, ``{"replay": PATH, "review": {...}}``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

from ai import cluster

MAX_DEPTH = 6
MAX_REPLAYS = 100_000  # a batch larger than this is a mistake (a wrong folder), not a review


class _InputError(Exception):
    pass


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "targets",
        nargs="+",
        metavar="REPLAY_OR_RUN_ID",
        help="replay files, run numbers from the history, or folders of replays (several: one summary row each)",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="per placement: played, best, loss, class, missed; for the game: accuracy and the counts per class "
        "(several replays: one JSON object per line)",
    )
    parser.add_argument("--png", metavar="FILE", help="also write the evaluation graph as a PNG (one replay only)")
    parser.add_argument(
        "--depth",
        type=int,
        default=None,
        help=f"pieces searched per placement, 1..{MAX_DEPTH} "
        f"(default {MAX_DEPTH}: the piece in play and five previews)",
    )
    parser.add_argument("--no-pc", action="store_true", help="skip the missed-perfect-clear check (faster)")
    cluster.add_arguments(parser, with_workers=True)


def _data_dir() -> Path:
    override = os.environ.get("STACKCOACH_DATA_DIR", "").strip()
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("stackcoach"))


def replay_file(target: str) -> Path:
    """The replay a target names: a run number is looked up in the data folder's replays/."""
    if target.isdigit() and not Path(target).exists():
        return _data_dir() / "replays" / f"{int(target)}.json"
    return Path(target)


def _natural(path: Path) -> list:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", path.name)]


def replay_paths(targets: list[str]) -> list[Path]:
    """The replay files the targets name, in the order given (a folder's replays in natural order)."""
    paths: list[Path] = []
    for target in targets:
        path = replay_file(target)
        if path.is_dir():
            found = sorted((p for p in path.glob("*.json") if p.is_file()), key=_natural)
            if not found:
                raise _InputError(f"{path} has no replays (*.json)")
            paths.extend(found)
        elif target.isdigit() and not path.exists():
            raise _InputError(f"run {target} has no replay ({path} does not exist)")
        else:
            paths.append(path)
        if len(paths) > MAX_REPLAYS:
            raise _InputError(f"more than {MAX_REPLAYS:,} replays in one review")
    return paths


def review_task(task: tuple) -> dict[str, Any]:
    """Worker entry: the review of one whole replay as a dict (a task of `run`, on any backend)."""
    from ai.review import review_replay

    replay, depth, check_pc = task
    return review_replay(replay, depth=depth, check_pc=check_pc).to_dict()


def _check(args: argparse.Namespace, depth: int) -> str | None:
    if not 1 <= depth <= MAX_DEPTH:
        return f"--depth must be 1..{MAX_DEPTH}, got {depth}"
    return cluster.check_arguments(args, max_local_workers=cluster.MAX_LOCAL_WORKERS)


def run(args: argparse.Namespace) -> int:
    from ai.review import DEFAULT_DEPTH
    from game.replay import Replay, ReplayError

    depth = DEFAULT_DEPTH if args.depth is None else args.depth
    try:
        problem = _check(args, depth)
        if problem:
            raise _InputError(problem)
        paths = replay_paths(args.targets)
        batch = len(paths) > 1 or any(replay_file(target).is_dir() for target in args.targets)
        if batch and args.png:
            raise _InputError("--png draws the graph of one replay; give one replay file or run number")
        replays = []
        for path in paths:
            try:
                replays.append(Replay.load(path))
            except ReplayError as error:
                raise _InputError(f"{path}: {error}") from None
    except _InputError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    tasks = [(replay, depth, not args.no_pc) for replay in replays]
    report = _BatchReport(paths, as_json=args.json) if batch else None
    try:
        reviews = _review_all(args, tasks, report)
    except cluster.BackendError as error:
        print(f"error: {error}", file=sys.stderr)
        return error.exit_status
    except KeyboardInterrupt:
        done = report.printed if report is not None else 0
        print(f"interrupted: the workers are stopped; {done} of {len(tasks)} replays reported", file=sys.stderr)
        return 130
    if report is not None:
        report.end()
        return 0
    return _single_report(args, reviews[0])


def _review_all(args: argparse.Namespace, tasks: list[tuple], report: _BatchReport | None) -> list[dict[str, Any]]:
    """Every replay's review, in the order given, on the chosen backend; a batch's rows printed as they are ready."""
    progress = cluster.Progress(len(tasks), "review", unit="replay", enabled=report is not None)
    in_order = cluster.InOrder(report.add if report is not None else lambda index, data: None)

    def on_result(index: int, data: dict[str, Any]) -> None:
        progress.update()
        in_order(index, data)

    with cluster.opened(args.backend, args.workers, args.address, at_most=len(tasks), progress=progress) as backend:
        return backend.map(review_task, tasks, on_result=on_result, batch=1)


def _single_report(args: argparse.Namespace, data: dict[str, Any]) -> int:
    if args.png:
        from ai.review_plot import graph_model, render, write_png

        try:
            write_png(render(graph_model(data)), args.png)
        except OSError as error:
            print(f"error: cannot write {args.png}: {error.strerror or error}", file=sys.stderr)
            return 2
    if args.json:
        print(json.dumps(data))
        return 0
    print(text_report(data))
    return 0


class _BatchReport:
    """A batch's output: a row per replay (a JSON line with --json) as soon as it is its turn, then the total."""

    def __init__(self, paths: list[Path], *, as_json: bool) -> None:
        self.paths, self.as_json = paths, as_json
        self.printed = 0
        self.placed = 0
        self.rated = 0
        self.accuracy_sum = 0.0  # accuracy x rated placements, summed: the total is the mean over placements
        self.counts: dict[str, int] = {}
        self.width = min(60, max(len(str(path)) for path in paths))
        if not as_json:
            print(f"{'replay':<{self.width}}  {'placements':>10}  {'accuracy':>8}  {_COUNT_HEADER}")

    def add(self, index: int, data: dict[str, Any]) -> None:
        self.printed += 1
        rated = sum(data["counts"].values())
        self.placed += data["placements_total"]
        self.rated += rated
        self.accuracy_sum += (data["accuracy"] or 0.0) * rated
        for name, count in _row_counts(data).items():
            self.counts[name] = self.counts.get(name, 0) + count
        if self.as_json:
            print(json.dumps({"replay": str(self.paths[index]), "review": data}), flush=True)
            return
        self._row(str(self.paths[index]), data["placements_total"], data["accuracy"], _row_counts(data))

    def end(self) -> None:
        if self.as_json:
            return
        accuracy = self.accuracy_sum / self.rated if self.rated else None
        self._row(f"all {self.printed} replays", self.placed, accuracy, self.counts)

    def _row(self, name: str, placed: int, accuracy: float | None, counts: dict[str, int]) -> None:
        shown = name if len(name) <= self.width else "..." + name[-(self.width - 3) :]
        print(
            f"{shown:<{self.width}}  {placed:>10}  "
            f"{'-' if accuracy is None else f'{accuracy:.1f}%':>8}  "
            + "  ".join(f"{counts.get(column, 0):>{len(column)}}" for column in _COUNT_COLUMNS),
            flush=True,
        )


_COUNT_COLUMNS = ("best", "good", "inaccuracy", "mistake", "blunder", "tspin", "pc", "finesse")
_COUNT_HEADER = "  ".join(_COUNT_COLUMNS)


def _row_counts(data: dict[str, Any]) -> dict[str, int]:
    """The classes, the missed T-spins and PCs and the finesse faults of one review."""
    return {**data["counts"], **data["missed"], "finesse": data["finesse"]}


def text_report(data: dict) -> str:
    accuracy = data["accuracy"]
    lines = [
        f"accuracy {accuracy:.1f}%" if accuracy is not None else "accuracy: no placement could be rated",
        "  ".join(f"{name} {count}" for name, count in data["counts"].items()),
        f"missed T-spins {data['missed']['tspin']}  missed PCs {data['missed']['pc']}  "
        f"finesse faults {data['finesse']}",
    ]
    for phase, summary in data["phases"].items():
        if summary["placements"]:
            lines.append(f"{phase:9} {summary['placements']:4} placements  accuracy {summary['accuracy']:.1f}%")
    for p in data["placements"]:
        if p["class"] in ("inaccuracy", "mistake", "blunder") or p["missed"]:
            played, best = p["played"], p["best"] or {}
            lines.append(
                f"#{p['index'] + 1:<4} {p['piece']} {p['class'] or 'unrated':10} loss {p['loss']:>9}  "
                f"played {_where(played)}  best {_where(best) if best else '-'}"
                + (f"  missed {', '.join(p['missed'])}" if p["missed"] else "")
            )
    return "\n".join(lines)


def _where(move: dict) -> str:
    return f"{'hold, ' if move.get('hold') else ''}{move['piece']} {move['orientation']} x{move['x']} y{move['y']}"
