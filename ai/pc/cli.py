"""`python main.py pc`: perfect-clear solutions or odds for a field and a queue or pattern.

Errors in the input (field, queue, pattern, kick file, lines) print one line ``error: ...`` on stderr and
exit with status 2. Placement coordinates: (x, y) of the rotation cell (TBP / solution-finder convention) in
the field as it is when the piece is placed: y = 0 is the bottom row, rows cleared earlier are gone.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    field = parser.add_mutually_exclusive_group()
    field.add_argument("--field", metavar="FUMEN", help="the field as a fumen code (default: empty)")
    field.add_argument("--field-file", metavar="FILE", help="a file with a fumen code or text rows (X filled, _ empty)")
    pieces = parser.add_mutually_exclusive_group(required=True)
    pieces.add_argument("--queue", metavar="PIECES", help="piece in play then the queue, e.g. TIJLSZOTIJL")
    pieces.add_argument("--pattern", metavar="PATTERN", help="solution-finder pattern, e.g. '*p7,TIJL' (implies --percent)")
    parser.add_argument("--hold", choices=("use", "avoid"), default="use", help="may hold be used (default: use)")
    parser.add_argument("--held", metavar="PIECE", help="piece already in the hold slot (default: empty)")
    parser.add_argument("--kicks", default="srs", metavar="srs|srs+|none|FILE", help="kick table (default: srs)")
    parser.add_argument("--drop", choices=("softdrop", "harddrop", "180"), default="softdrop",
                        help="softdrop: tucks and spins; harddrop: hard drops only; 180: soft drop and 180 turns")
    parser.add_argument("--lines", type=int, default=4, help="lines to clear, 1..6 (default: 4)")
    parser.add_argument("--all", action="store_true", help="every distinct solution, ranked")
    parser.add_argument("--limit", type=int, default=1000, help="at most this many solutions with --all (default 1000)")
    parser.add_argument("--percent", action="store_true", help="success rate over the queues of --pattern/--queue")
    parser.add_argument("--json", action="store_true", help="machine-readable output")


class _InputError(Exception):
    pass


def _read_field(args: argparse.Namespace) -> int:
    from game.fumen import FumenError, decode

    text = args.field
    if args.field_file is not None:
        try:
            text = Path(args.field_file).read_text("utf-8").strip()
        except (OSError, UnicodeDecodeError) as error:
            raise _InputError(f"cannot read field file {args.field_file}: {getattr(error, 'strerror', None) or error}")
        if not any(tag in text for tag in ("115@", "110@")):
            from ai.pc.field import from_rows

            rows = [r.strip() for r in text.replace("/", "\n").splitlines() if r.strip()]
            if not rows or any(len(r) != 10 or set(r) - set("X_.#IJLOSTZG") for r in rows):
                raise _InputError(f"field file {args.field_file}: expected a fumen code or rows of 10 cells (X/_)")
            return from_rows(rows)
    if text is None:
        return 0
    try:
        pages = decode(text)
    except FumenError as error:
        raise _InputError(f"bad fumen: {error}")
    return pages[0].field.to_board().bits


def _rules(args: argparse.Namespace):
    from game.rotation import KickTableError
    from game.rules import Rules

    try:
        return Rules.named(args.kicks, allow_180=args.drop == "180")
    except KickTableError as error:
        raise _InputError(str(error))


def run(args: argparse.Namespace) -> int:
    from ai.pc.pattern import PatternError
    from ai.pc.search import PCInputError
    from game.pieces import Piece, parse_queue

    try:
        bits = _read_field(args)
        rules = _rules(args)
        if not 1 <= args.lines <= 6:
            raise _InputError(f"--lines must be 1..6, got {args.lines}")
        held = None
        if args.held:
            try:
                held = Piece.from_letter(args.held)
            except ValueError as error:
                raise _InputError(str(error))
        use_hold = args.hold == "use"
        soft = args.drop != "harddrop"
        if args.pattern is not None or args.percent:
            return _run_percent(args, bits, rules, held, use_hold, soft)
        try:
            queue = parse_queue(args.queue)
        except ValueError as error:
            raise _InputError(str(error))
        if not queue:
            raise _InputError("empty queue")
        return _run_solve(args, bits, rules, queue, held, use_hold, soft)
    except (_InputError, PatternError, PCInputError) as error:
        print(f"error: {str(error).splitlines()[0] if str(error) else type(error).__name__}", file=sys.stderr)
        return 2


ENGINE_CHECKED = 20


def _run_solve(args, bits, rules, queue, held, use_hold, soft) -> int:
    from ai.pc.api import solve
    from ai.pc.field import to_rows
    from ai.pc.render import fumen_code, picture
    from ai.pc.search import Problem
    from ai.pc.verify import replay_on_engine

    result = solve(bits, queue, hold=held, use_hold=use_hold, rules=rules, soft_drop=soft, lines=args.lines,
                   find_all=args.all, limit=args.limit)
    problem = Problem(bits, args.lines, tuple(queue), held, use_hold)
    # solve() replayed each solution through the rules; the ones shown are also played on the timed engine.
    for solution in result.solutions[:ENGINE_CHECKED]:
        replay_on_engine(problem, solution, rules, soft)
    if args.json:
        out = {
            "solvable": result.solvable,
            "solutions": [{"placements": [s.as_dict() for s in sol.steps], "fumen": fumen_code(problem, sol)}
                          for sol in result.solutions],
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
    print(f"{len(result.solutions)} solution(s){' (limit reached)' if result.truncated else ''} in {result.elapsed_ms:.1f} ms"
          "  (x, y = rotation cell; y counted in the field at that moment, cleared rows removed)")
    for number, sol in enumerate(result.solutions, 1):
        steps = ", ".join(f"{'hold>' if s.hold else ''}{s.piece.name} {s.rotation.tbp_name} ({s.x},{s.y})"
                          f"{'' if s.hard else ' soft'}" for s in sol.steps)
        left = sol.leftover.name if sol.leftover is not None else "-"
        print(f"#{number}: {steps}  [soft {sol.soft_count}, early clears {sol.early_clears}, left {left}]")
        print("\n".join("  " + r for r in picture(problem, sol)))
        code = fumen_code(problem, sol)
        print(f"  https://fumen.zui.jp/?{code}" if code else "  (fumen encoder not available)")
    return 0


def _run_percent(args, bits, rules, held, use_hold, soft) -> int:
    from ai.pc.api import percent

    text = args.pattern if args.pattern is not None else args.queue
    result = percent(bits, text, hold=held, use_hold=use_hold, rules=rules, soft_drop=soft, lines=args.lines)
    failed = ["".join(p.name for p in seq) for seq in result.failed]
    if args.json:
        print(json.dumps({"success": result.success, "total": result.total, "rate": result.rate,
                          "failed": failed, "elapsed_ms": round(result.elapsed_ms, 3)}))
        return 0
    print(f"success: {result.rate * 100:.2f}% ({result.success}/{result.total}) in {result.elapsed_ms:.0f} ms")
    if failed:
        shown = failed[:50]
        print(f"fail ({len(failed)}): " + " ".join(shown) + (" ..." if len(failed) > len(shown) else ""))
    return 0
