"""`python main.py setup`: ways to build a target shape from the queues of a pattern, and `--cover`.

The shape (see ai.pc.setup for the exact rules) comes from `--field FUMEN` or `--field-file FILE` (`-` reads
standard input). A text file has rows top first: `X` already filled, `*` must be filled, `+` may be filled
(margin), `_` stays empty. In a fumen, as in solution-finder's `setup`, cells of the `--fill` colour (default
I, cyan) must be filled, cells of the `--margin` colour (default O, yellow) may be, every other colour (grey
included) is already filled. A library entry's key (assets/setups) is accepted as a shape too.

`--cover SETUP...` takes library keys (add `/mirror` for the mirrored shape), fumen codes or files, and says for
each queue of the pattern which of them it builds and how often at least one can be built.

Bad input prints one line ``error: ...`` on stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import sys

FILE_BYTES = 1_000_000
DEFAULT_MAX_QUEUES = 200_000
MAX_LIMIT = 100


def add_arguments(parser: argparse.ArgumentParser) -> None:
    shape = parser.add_mutually_exclusive_group()
    shape.add_argument("--field", metavar="FUMEN|KEY", help="the target shape as a fumen code or a library key")
    shape.add_argument(
        "--field-file",
        metavar="FILE",
        help="the target shape in a file: text rows (X * + _) or a fumen code; - reads stdin",
    )
    parser.add_argument(
        "--pattern",
        metavar="PATTERN",
        required=True,
        help="queues in solution-finder syntax, e.g. '*p7' (first piece = the piece in play)",
    )
    parser.add_argument("--hold", choices=("use", "avoid"), default="use", help="may hold be used (default: use)")
    parser.add_argument("--held", metavar="PIECE", help="piece already in the hold slot (default: empty)")
    parser.add_argument(
        "--drop",
        choices=("softdrop", "harddrop", "180"),
        default="softdrop",
        help="softdrop: tucks and spins; harddrop: hard drops only; 180: soft drop and 180 turns",
    )
    parser.add_argument("--kicks", default="srs", metavar="srs|srs+|none|FILE", help="kick table (default: srs)")
    parser.add_argument("--fill", default="I", metavar="COLOUR", help="fumen colour of must-fill cells (default I)")
    parser.add_argument(
        "--margin",
        default="O",
        metavar="COLOUR",
        help="fumen colour of may-fill cells (default O; 'none' for no margin)",
    )
    parser.add_argument("--mirror", action="store_true", help="use the mirrored shape")
    parser.add_argument("--placements", action="store_true", help="list a way to build it for every queue")
    parser.add_argument(
        "--limit",
        type=int,
        default=1,
        metavar="N",
        help=f"with --placements: up to N ways per queue, 1..{MAX_LIMIT} (default 1)",
    )
    parser.add_argument(
        "--cover",
        nargs="+",
        metavar="SETUP",
        help="library keys (KEY or KEY/mirror), fumen codes or files: which each queue builds",
    )
    parser.add_argument(
        "--max-queues",
        type=int,
        default=DEFAULT_MAX_QUEUES,
        metavar="N",
        help=f"refuse patterns of more than N queues (default {DEFAULT_MAX_QUEUES:,})",
    )
    parser.add_argument("--json", action="store_true", help="machine-readable output")


class SetupInputError(ValueError):
    """Bad command-line input; the message is the one line shown."""


def _rules(args: argparse.Namespace):
    from game.rotation import KickTableError
    from game.rules import Rules

    try:
        return Rules.named(args.kicks)
    except KickTableError as error:
        raise SetupInputError(str(error)) from None


def _shape_from_text(text: str, where: str, args: argparse.Namespace):
    from ai.pc.setup import Shape

    text = text.strip()
    if "115@" in text or "110@" in text:
        code = text[text.find("v1") :] if "v1" in text else text
        return Shape.from_fumen(
            code.split()[0], fill=args.fill, margin=None if args.margin.lower() == "none" else args.margin
        )
    if not text:
        raise SetupInputError(f"{where}: empty")
    return Shape.from_text(text)


def _shape(spec: str, args: argparse.Namespace, *, is_file: bool = False):
    """A shape from a library key (KEY or KEY/mirror), a fumen code, or (is_file / an existing path) a file."""
    import os

    from game.textfile import InputFileError, read_text

    if not is_file:
        key, _, variant = spec.partition("/")
        entry = _library().get(key)
        if entry is not None:
            if variant not in ("", "mirror"):
                raise SetupInputError(f"{spec!r}: after the key only '/mirror' may follow")
            if variant and not entry.mirror:
                raise SetupInputError(f"{key!r} may not be mirrored (mirror = false in the library)")
            return entry.shape(mirror=bool(variant))
        if "115@" in spec or "110@" in spec:
            return _shape_from_text(spec, "fumen", args)
        if not os.path.exists(spec):
            raise SetupInputError(f"{spec!r} is neither a library key, a fumen code nor a file")
    try:
        text = read_text(spec, FILE_BYTES, what="shape file")
    except InputFileError as error:
        raise SetupInputError(str(error)) from None
    return _shape_from_text(text, "standard input" if spec == "-" else f"shape file {spec}", args)


_LIB = None


def _library():
    global _LIB
    if _LIB is None:
        from ai.pc.setup import LibraryError, load_library

        try:
            _LIB = {entry.key: entry for entry in load_library()}
        except LibraryError:
            _LIB = {}
    return _LIB


def run(args: argparse.Namespace) -> int:
    from ai.pc.pattern import PatternError, parse_pattern
    from ai.pc.setup import ShapeError
    from game.pieces import Piece

    try:
        if not 1 <= args.limit <= MAX_LIMIT:
            raise SetupInputError(f"--limit must be 1..{MAX_LIMIT}, got {args.limit}")
        if not 1 <= args.max_queues <= 2_000_000:
            raise SetupInputError(f"--max-queues must be 1..2,000,000, got {args.max_queues}")
        rules = _rules(args)
        held = None
        if args.held:
            try:
                held = Piece.from_letter(args.held)
            except ValueError as error:
                raise SetupInputError(str(error)) from None
        use_hold = args.hold == "use"
        if held is not None and not use_hold:
            raise SetupInputError("--held needs hold (--hold use)")
        pattern = parse_pattern(args.pattern)
        size = pattern.size()
        if size > args.max_queues:
            raise SetupInputError(
                f"pattern {args.pattern!r} stands for {size:,} queues, more than --max-queues {args.max_queues:,}"
            )
        sequences = pattern.sequences()
        options = {"hold": held, "use_hold": use_hold, "rules": rules, "drop": args.drop}
        if args.cover:
            if args.field is not None or args.field_file is not None:
                raise SetupInputError("--cover takes its shapes as arguments; leave out --field/--field-file")
            if args.mirror or args.placements:
                raise SetupInputError("--mirror and --placements are for --field; with --cover name KEY/mirror")
            shapes = {}
            for spec in args.cover:
                shapes[spec] = _shape(spec, args)
            return _run_cover(args, sequences, shapes, options)
        if args.field is None and args.field_file is None:
            raise SetupInputError("give the shape with --field or --field-file (or use --cover)")
        shape = _shape(args.field, args) if args.field is not None else _shape(args.field_file, args, is_file=True)
        if args.mirror:
            shape = shape.mirrored()
        return _run_setup(args, sequences, shape, options)
    except (SetupInputError, ShapeError, PatternError) as error:
        print(f"error: {str(error).splitlines()[0] if str(error) else type(error).__name__}", file=sys.stderr)
        return 2


def _letters(seq) -> str:
    return "".join(p.name for p in seq)


def _run_setup(args, sequences, shape, options) -> int:
    import time

    from ai.pc.setup import finder

    started = time.perf_counter()
    search = finder(shape, queues=sequences, **{k: v for k, v in options.items() if k != "hold"}, hold=options["hold"])
    success, failed, per_queue = 0, [], []
    for seq in sequences:
        ok = search.buildable(seq, options["hold"])
        success += ok
        if not ok:
            failed.append(seq)
        if args.placements:
            ways = search.ways(seq, options["hold"], args.limit) if ok else []
            per_queue.append((seq, ways))
    elapsed = (time.perf_counter() - started) * 1000
    total = len(sequences)
    rate = success / total if total else 0.0
    if args.json:
        out = {
            "success": success,
            "total": total,
            "rate": rate,
            "failed": [_letters(s) for s in failed],
            "elapsed_ms": round(elapsed, 3),
        }
        if args.placements:
            out["queues"] = [
                {"queue": _letters(seq), "buildable": bool(ways), "ways": [w.as_dict() for w in ways]}
                for seq, ways in per_queue
            ]
        print(json.dumps(out))
        return 0
    print("shape (X filled, * must fill, + may fill, _ empty):")
    print("\n".join("  " + row for row in shape.to_text().splitlines()))
    print(f"build chance: {rate * 100:.2f}% ({success}/{total}) in {elapsed:.0f} ms")
    if failed:
        shown = [_letters(s) for s in failed[:50]]
        print(f"fail ({len(failed)}): " + " ".join(shown) + (" ..." if len(failed) > len(shown) else ""))
    for seq, ways in per_queue:
        if not ways:
            print(f"{_letters(seq)}: cannot be built")
        for number, way in enumerate(ways, 1):
            steps = ", ".join(
                f"{'hold>' if s.hold else ''}{p.piece.name} {p.rotation.tbp_name} ({p.x},{p.y})"
                f"{'' if s.hard else ' soft'}"
                for s in way.placements
                for p in (s.placement,)
            )
            print(f"{_letters(seq)} #{number}: {steps}")
    return 0


def _run_cover(args, sequences, shapes, options) -> int:
    from ai.pc.setup import cover

    result = cover(sequences, shapes, **options)
    counts = result.counts()
    total = result.total
    if args.json:
        print(
            json.dumps(
                {
                    "total": total,
                    "any": {"success": result.any_count, "rate": result.any_rate},
                    "setups": [
                        {"setup": name, "success": counts[name], "rate": counts[name] / total if total else 0.0}
                        for name in result.names
                    ],
                    "queues": [{"queue": _letters(seq), "builds": list(names)} for seq, names in result.per_queue],
                    "elapsed_ms": round(result.elapsed_ms, 3),
                }
            )
        )
        return 0
    for name in result.names:
        share = counts[name] / total * 100 if total else 0.0
        print(f"{share:6.2f}% ({counts[name]}/{total})  {name}")
    print(f"at least one: {result.any_rate * 100:.2f}% ({result.any_count}/{total}) in {result.elapsed_ms:.0f} ms")
    none = [_letters(seq) for seq, names in result.per_queue if not names]
    if none:
        print(f"none ({len(none)}): " + " ".join(none[:50]) + (" ..." if len(none) > 50 else ""))
    return 0
