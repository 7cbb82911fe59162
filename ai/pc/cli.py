"""`python main.py pc`: perfect-clear solutions or odds for a field and a queue or pattern.

Errors in the input (field, queue, pattern, kick file, lines, limits) print one line ``error: ...`` on stderr
and exit with status 2.

`--percent` work is counted before it starts: the queues are cut to the pieces that matter (the pieces needed,
plus one with hold) and the distinct cut queues are what the solver searches. Above `--max-queues` of them
(default 20,000, about a minute or two) the command refuses at once and says how many there are; a longer run
goes in chunks of queues (memory stays bounded) and shows its progress on stderr when that is a terminal.
The chunks are tasks for a backend (ai.cluster): this process (the default), a local pool (`--workers K`) or Ray
actors (`--backend ray [--address ADDR]`); each chunk's count is exact and the counts are added in chunk order, so
the output is the same on every backend.

Placement coordinates: (x, y) of the rotation cell (TBP / solution-finder convention) in the field as it is when
the piece is placed: y = 0 is the bottom row, rows cleared earlier are gone.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys

from ai import cluster


def add_arguments(parser: argparse.ArgumentParser) -> None:
    field = parser.add_mutually_exclusive_group()
    field.add_argument("--field", metavar="FUMEN", help="the field as a fumen code (default: empty)")
    field.add_argument("--field-file", metavar="FILE", help="a file with a fumen code or text rows (X filled, _ empty)")
    pieces = parser.add_mutually_exclusive_group(required=True)
    pieces.add_argument("--queue", metavar="PIECES", help="piece in play then the queue, e.g. TIJLSZOTIJL")
    pieces.add_argument(
        "--pattern", metavar="PATTERN", help="solution-finder pattern, e.g. '*p7,TIJL' (implies --percent)"
    )
    parser.add_argument("--hold", choices=("use", "avoid"), default="use", help="may hold be used (default: use)")
    parser.add_argument("--held", metavar="PIECE", help="piece already in the hold slot (default: empty)")
    parser.add_argument("--kicks", default="srs", metavar="srs|srs+|none|FILE", help="kick table (default: srs)")
    parser.add_argument(
        "--drop",
        choices=("softdrop", "harddrop", "180"),
        default="softdrop",
        help="softdrop: tucks and spins; harddrop: hard drops only; 180: soft drop and 180 turns",
    )
    parser.add_argument("--lines", type=int, default=4, help="lines to clear, 1..6 (default: 4)")
    parser.add_argument("--all", action="store_true", help="every distinct solution, ranked")
    parser.add_argument(
        "--limit",
        type=int,
        default=1000,
        help=f"at most this many solutions with --all, 1..{MAX_LIMIT:,} (default 1000)",
    )
    parser.add_argument("--percent", action="store_true", help="success rate over the queues of --pattern/--queue")
    parser.add_argument(
        "--max-queues",
        type=int,
        default=DEFAULT_MAX_QUEUES,
        metavar="N",
        help=f"--percent: refuse patterns needing more than N distinct queues searched "
        f"(default {DEFAULT_MAX_QUEUES:,}; at most {MAX_QUEUES_CAP:,})",
    )
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    cluster.add_arguments(parser, with_workers=True)  # --percent only: where the chunks of queues are searched


MAX_LIMIT = 10_000  # --all: the solver's own default cap; far more solutions than anyone reads
DEFAULT_MAX_QUEUES = 20_000  # distinct queues a --percent run searches without being asked (~5 ms each)
MAX_QUEUES_CAP = 2_000_000  # the pattern reader's own cap
PERCENT_CHUNK = 5_040  # distinct queues per solver call: big enough to share work, small enough for memory
# With several workers the chunks shrink so every worker gets some, but not below this (~0.5 s of search: a task
# much shorter than that is mostly the backend's overhead).
PERCENT_MIN_CHUNK = 120
CHUNKS_PER_WAVE = 4  # chunks per worker handed out at a time: the queues in memory stay bounded, no worker idles long
FIELD_FILE_BYTES = 1_000_000
FAILURES_SHOWN = 50  # failed queues listed by the text output (--json lists them all)


class _InputError(Exception):
    pass


def _read_field(args: argparse.Namespace) -> int:
    from game.fumen import FumenError, decode
    from game.textfile import InputFileError, read_text

    text = args.field
    if args.field_file is not None:
        try:
            text = read_text(args.field_file, FIELD_FILE_BYTES, what="field file").strip()
        except InputFileError as error:
            raise _InputError(str(error)) from None
        if not any(tag in text for tag in ("115@", "110@")):
            from ai.pc.field import from_rows

            rows = [r.strip() for r in text.replace("/", "\n").splitlines() if r.strip()]
            if not rows or any(len(r) != 10 or set(r) - set("X_.#IJLOSTZG") for r in rows):
                raise _InputError(f"field file {args.field_file}: expected a fumen code or rows of 10 cells (X/_)")
            return from_rows(rows)
    if text is None:
        return 0
    try:
        field = decode(text, max_pages=1)[0].field  # only the first page is used
        return field.to_board().bits if field is not None else 0
    except (FumenError, ValueError) as error:
        raise _InputError(f"bad fumen: {error}") from None


def _rules(args: argparse.Namespace):
    from game.rotation import KickTableError
    from game.rules import Rules

    try:
        return Rules.named(args.kicks, allow_180=args.drop == "180")
    except KickTableError as error:
        raise _InputError(str(error)) from None


def run(args: argparse.Namespace) -> int:
    from ai.pc.pattern import PatternError
    from ai.pc.search import PCInputError
    from game.pieces import Piece, parse_queue

    try:
        bits = _read_field(args)
        rules = _rules(args)
        if not 1 <= args.lines <= 6:
            raise _InputError(f"--lines must be 1..6, got {args.lines}")
        if not 1 <= args.limit <= MAX_LIMIT:
            raise _InputError(f"--limit must be 1..{MAX_LIMIT:,}, got {args.limit}")
        if not 1 <= args.max_queues <= MAX_QUEUES_CAP:
            raise _InputError(f"--max-queues must be 1..{MAX_QUEUES_CAP:,}, got {args.max_queues}")
        backend_problem = _check_backend(args)
        if backend_problem:
            raise _InputError(backend_problem)
        held = None
        if args.held:
            try:
                held = Piece.from_letter(args.held)
            except ValueError as error:
                raise _InputError(str(error)) from None
        use_hold = args.hold == "use"
        soft = args.drop != "harddrop"
        if args.pattern is not None or args.percent:
            return _run_percent(args, bits, rules, held, use_hold, soft)
        try:
            queue = parse_queue(args.queue)
        except ValueError as error:
            raise _InputError(str(error)) from None
        if not queue:
            raise _InputError("empty queue")
        return _run_solve(args, bits, rules, queue, held, use_hold, soft)
    except (_InputError, PatternError, PCInputError) as error:
        print(f"error: {str(error).splitlines()[0] if str(error) else type(error).__name__}", file=sys.stderr)
        return 2


def _check_backend(args: argparse.Namespace) -> str | None:
    percent = args.pattern is not None or args.percent
    if not percent and (args.backend != "local" or args.workers is not None):
        return "--backend and --workers are for --percent (one queue is searched in this process)"
    return cluster.check_arguments(args, max_local_workers=cluster.MAX_LOCAL_WORKERS)


ENGINE_CHECKED = 20


def _run_solve(args, bits, rules, queue, held, use_hold, soft) -> int:
    from ai.pc.api import solve
    from ai.pc.field import to_rows
    from ai.pc.render import fumen_code, picture
    from ai.pc.search import Problem
    from ai.pc.verify import replay_on_engine

    result = solve(
        bits,
        queue,
        hold=held,
        use_hold=use_hold,
        rules=rules,
        soft_drop=soft,
        lines=args.lines,
        find_all=args.all,
        limit=args.limit,
    )
    problem = Problem(bits, args.lines, tuple(queue), held, use_hold)
    # solve() replayed each solution through the rules; the ones shown are also played on the timed engine.
    for solution in result.solutions[:ENGINE_CHECKED]:
        replay_on_engine(problem, solution, rules, soft)
    if args.json:
        out = {
            "solvable": result.solvable,
            "solutions": [
                {"placements": [s.as_dict() for s in sol.steps], "fumen": fumen_code(problem, sol)}
                for sol in result.solutions
            ],
            "elapsed_ms": round(result.elapsed_ms, 3),
        }
        if args.all:
            out["truncated"] = result.truncated
        print(json.dumps(out))
        return 0
    print("field:")
    print("\n".join("  " + r for r in to_rows(bits, args.lines)))
    if not result.solvable:
        print(f"no perfect clear ({result.elapsed_ms:.1f} ms)")
        return 0
    print(
        f"{len(result.solutions)} solution(s){' (limit reached)' if result.truncated else ''} "
        f"in {result.elapsed_ms:.1f} ms"
        "  (x, y = rotation cell; y counted in the field at that moment, cleared rows removed)"
    )
    for number, sol in enumerate(result.solutions, 1):
        steps = ", ".join(
            f"{'hold>' if s.hold else ''}{p.piece.name} {p.rotation.tbp_name} ({p.x},{p.y}){'' if s.hard else ' soft'}"
            for s in sol.steps
            for p in (s.placement,)
        )
        left = sol.leftover.name if sol.leftover is not None else "-"
        print(f"#{number}: {steps}  [soft {sol.soft_count}, early clears {sol.early_clears}, left {left}]")
        print("\n".join("  " + r for r in picture(problem, sol)))
        code = fumen_code(problem, sol)
        print(f"  https://fumen.zui.jp/?{code}" if code else "  (fumen encoder not available)")
    return 0


def _run_percent(args, bits, rules, held, use_hold, soft) -> int:
    from ai.pc.pattern import parse_pattern
    from ai.pc.search import Problem

    text = args.pattern if args.pattern is not None else args.queue
    pattern = parse_pattern(text)
    pattern.check_size()
    Problem(bits, args.lines, (), held, use_hold).check()
    needed = Problem(bits, args.lines, (), held, use_hold).pieces_needed
    keep = None if needed is None else needed + 1 if use_hold else needed
    cut = _cut(pattern, keep)
    work = cut.size() if keep is not None else 0  # no piece count fills the field: nothing to search
    if work > args.max_queues:
        raise _InputError(
            f"pattern {text!r} needs {work:,} distinct queues searched (a few ms "
            f"each), more than --max-queues {args.max_queues:,}; raise --max-queues to run it anyway"
        )
    shown_failures = None if args.json else FAILURES_SHOWN  # the text output lists only the first ones
    options = dict(hold=held, use_hold=use_hold, rules=rules, soft_drop=soft, lines=args.lines)
    try:
        result = _percent_on_backend(args, bits, pattern, cut, keep, work, options, shown_failures)
    except cluster.BackendError as error:
        print(f"error: {error}", file=sys.stderr)
        return error.exit_status
    except KeyboardInterrupt:
        print("interrupted: the workers are stopped; no result", file=sys.stderr)
        return 130
    failed = ["".join(p.name for p in seq) for seq in result.failed]
    if args.json:
        print(
            json.dumps(
                {
                    "success": result.success,
                    "total": result.total,
                    "rate": result.rate,
                    "failed": failed,
                    "elapsed_ms": round(result.elapsed_ms, 3),
                }
            )
        )
        return 0
    print(f"success: {result.rate * 100:.2f}% ({result.success}/{result.total}) in {result.elapsed_ms:.0f} ms")
    failures = result.total - result.success
    if failures:
        print(f"fail ({failures}): " + " ".join(failed) + (" ..." if failures > len(failed) else ""))
    return 0


def _cut(pattern, keep: int | None):
    """The pattern with every alternative cut after `keep` pieces: its queues are the distinct prefixes the solver
    searches (a draw cut in the middle becomes the shorter draw from the same bag)."""
    from ai.pc.pattern import Draw, Pattern

    if keep is None:
        return pattern
    alternatives = []
    for alt in pattern.alternatives:
        left, draws = keep, []
        for draw in alt:
            if left <= 0:
                break
            draws.append(draw if draw.count <= left else Draw(draw.bag, left))
            left -= draw.count
        alternatives.append(tuple(draws))
    return Pattern(pattern.text, tuple(alternatives))


def _percent_on_backend(args, bits, pattern, cut, keep, work, options, keep_failed):
    """_percent_in_chunks on the backend of --backend/--workers/--address (none started when nothing is searched)."""
    if not work:
        return _percent_in_chunks(bits, pattern, cut, keep, work, options, keep_failed)
    chunks = math.ceil(work / PERCENT_MIN_CHUNK)  # more workers than this would have nothing to do
    with cluster.opened(args.backend, args.workers, args.address, at_most=chunks) as backend:
        return _percent_in_chunks(bits, pattern, cut, keep, work, options, keep_failed, backend)


def percent_task(task: tuple) -> tuple[list[tuple], bool]:
    """Worker entry: the failed queues of one chunk and whether the search was cut short (a task on any backend)."""
    from ai.pc.api import percent

    bits, chunk, options = task
    result = percent(bits, chunk, **options)
    return result.failed, result.truncated


def _chunk_size(work: int, workers: int) -> int:
    if workers == 1:
        return PERCENT_CHUNK
    return min(PERCENT_CHUNK, max(PERCENT_MIN_CHUNK, math.ceil(work / workers)))


def _percent_in_chunks(
    bits, pattern, cut, keep, work, options, keep_failed: int | None = None, backend: cluster.Backend | None = None
):
    """api.percent over the distinct cut queues, in chunks (PERCENT_CHUNK in this process; smaller with several
    workers, so each has some), then every queue of the pattern counted by its prefix. The same counts as one
    api.percent call over the whole pattern; with `keep_failed`, only that many failed queues are kept (memory then
    stays small however many fail). `backend` (default: this process) searches the chunks; they are handed out
    CHUNKS_PER_WAVE per worker at a time (one in this process), so only that many chunks of queues are in memory."""
    import time

    from ai.pc.api import PercentResult

    started = time.perf_counter()
    backend = backend or cluster.LocalBackend(1)
    progress = _Progress(work)
    won: set[tuple] = set()
    truncated = False
    prefixes = cut.iter_sequences() if keep is not None else iter(())
    size = _chunk_size(work, backend.workers)
    per_wave = 1 if backend.workers == 1 else backend.workers * CHUNKS_PER_WAVE
    done = 0

    def searched(index: int, outcome: tuple[list[tuple], bool]) -> None:
        nonlocal done
        done += len(wave[index])
        progress.show(done)

    while wave := [chunk for _ in range(per_wave) if (chunk := _take(prefixes, size))]:
        tasks = [(bits, chunk, options) for chunk in wave]
        for chunk, (lost_queues, cut_short) in zip(wave, backend.map(percent_task, tasks, on_result=searched, batch=1)):
            truncated |= cut_short
            lost = set(lost_queues)
            won.update(seq for seq in chunk if seq not in lost)
    progress.end()
    success, total = 0, 0
    failed: list[tuple] = []  # the failed queues (tuples of pieces)
    for seq in pattern.iter_sequences():
        total += 1
        if (seq if keep is None else seq[:keep]) in won:
            success += 1
        elif keep_failed is None or len(failed) < keep_failed:
            failed.append(seq)
    return PercentResult(success, total, failed, (time.perf_counter() - started) * 1000, truncated)


def _take(prefixes, size: int) -> list[tuple]:
    return list(itertools.islice(prefixes, size))


class _Progress:
    """`percent: 5,040/20,160 queues (25%), about 2 min left` on stderr, only when stderr is a terminal."""

    def __init__(self, total: int) -> None:
        import time

        self.total, self.started, self.clock = total, time.monotonic(), time.monotonic
        try:
            self.on = sys.stderr.isatty() and total > PERCENT_CHUNK
        except (AttributeError, ValueError):
            self.on = False

    def show(self, done: int) -> None:
        if not self.on:
            return
        spent = self.clock() - self.started
        left = spent / done * (self.total - done) if done else 0.0
        eta = f"{left / 60:.0f} min" if left >= 90 else f"{left:.0f} s"
        print(
            f"\rpercent: {done:,}/{self.total:,} queues ({100 * done // self.total}%), about {eta} left   ",
            end="",
            file=sys.stderr,
            flush=True,
        )

    def end(self) -> None:
        if self.on:
            print("\r" + " " * 70 + "\r", end="", file=sys.stderr, flush=True)
