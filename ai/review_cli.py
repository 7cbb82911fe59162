"""`python main.py review REPLAY_OR_RUN_ID [--json] [--png FILE]`: the coach's review of a game, headless.

REPLAY_OR_RUN_ID is a replay file, or the number of a run in the history (its replay is replays/<id>.json in the
data folder, which STACKCOACH_DATA_DIR moves). The analysis is ai.review's, the graph ai.review_plot's (the same
the review screen draws). A replay that cannot be read is one line ``error: ...`` and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

MAX_DEPTH = 6


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", metavar="REPLAY_OR_RUN_ID", help="a replay file, or a run number from the history")
    parser.add_argument(
        "--json",
        action="store_true",
        help="per placement: played, best, loss, class, missed; for the game: accuracy and the counts per class",
    )
    parser.add_argument("--png", metavar="FILE", help="also write the evaluation graph as a PNG")
    parser.add_argument(
        "--depth",
        type=int,
        default=None,
        help=f"pieces searched per placement, 1..{MAX_DEPTH} "
        f"(default {MAX_DEPTH}: the piece in play and five previews)",
    )
    parser.add_argument("--no-pc", action="store_true", help="skip the missed-perfect-clear check (faster)")


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


def run(args: argparse.Namespace) -> int:
    from ai.review import DEFAULT_DEPTH, review_replay
    from game.replay import Replay, ReplayError

    depth = DEFAULT_DEPTH if args.depth is None else args.depth
    if not 1 <= depth <= MAX_DEPTH:
        print(f"error: --depth must be 1..{MAX_DEPTH}, got {depth}", file=sys.stderr)
        return 2
    path = replay_file(args.target)
    if args.target.isdigit() and not path.exists():
        print(f"error: run {args.target} has no replay ({path} does not exist)", file=sys.stderr)
        return 2
    try:
        replay = Replay.load(path)
    except ReplayError as error:
        print(f"error: {path}: {error}", file=sys.stderr)
        return 2
    review = review_replay(replay, depth=depth, check_pc=not args.no_pc)
    data = review.to_dict()
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
