"""Move-generation speed: the move generator (game.movegen.find_moves) against the reference (tests/oracle_movegen.py).

    python bench/movegen.py [--random N] [--repeat R] [--rules srs|srs+|none] [--180] [--harddrop]
                            [--against FILE]

Times every piece on a fixed set of fields (hand-written typical mid-game fields, N seeded jagged ones and N
seeded cave-rich ones; the first two groups are the same fields as before the cave group was added) and
prints the median time per piece for both generators, the ratio, and the placements found (the two lists
must be equal, placement for placement).

A second table puts the search's pure-Python generator (game.movegen.generate_raw) beside the compiled port
(ai.jit_movegen.placements, Python wrapper included) on the same fields; their (cells, spin) sets must be equal.
It is preceded by the jit warm-up time (a compile, or a load from numba's cache) and by the cost of three ways
of handing the board to a kernel. `--no-reference` skips the slow first table.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from game.board import FULL_MASK, PIECE_MASKS, Board, filled_columns
from game.movegen import find_moves, generate_raw
from game.pieces import Piece, Rotation
from game.rules import Rules
from tests.oracle_movegen import find_placements

FIELDS: dict[str, list[str]] = {
    "empty": [],
    "tsd": ["XXXX______", "XXX___XXXX", "XXXX_XXXXX"],
    "tst": ["_X________", "XX________", "X_________", "X_XXXXXXXX", "X__XXXXXXX", "X_XXXXXXXX"],
    "flat4-well": ["XXXXXXXXX_"] * 4,
    "midgame": ["X_________", "XX___X__XX", "XXX_XXX_XX", "XXXXXXXX_X", "XXXXXXX_XX", "XXXXXX_XXX"],
    "bumpy": ["X____X____", "XX__XX___X", "XX_XXXX_XX", "XXXXXXX_XX", "XXXX_XXXXX"],
    "cheese": ["_XXXXXXXXX", "XXXX_XXXXX", "XXXXXXX_XX", "XX_XXXXXXX", "XXXXX_XXXX", "XXXXXXXX_X"],
    "overhangs": ["XXX___XXX_", "______X___", "X_XX__XX_X", "XXXX_XXXXX"],
    "pco": ["XX____XXXX", "XXX___XXXX", "XXXX__XXXX"],
    "tall": ["XX________", "XXX_______", "XXXX__X___", "XXXXX_XX__", "XXXXX_XXX_"] + ["XXXXXXXXX_"] * 9,
    "stairs": ["X_________", "XX________", "XXX_______", "XXXX______", "XXXXX_____", "XXXXXX____", "XXXXXXX___"],
    "garbage-high": ["X__XX___XX"] + ["XXXX_XXXXX"] * 10,
}


def random_field(rng: random.Random) -> int:
    """A jagged field with holes and overhangs, no full rows (one of the agreement tests' recipes)."""
    top = rng.randint(0, 12)
    heights = [rng.randint(0, top) for _ in range(10)]
    bits = 0
    for x, height in enumerate(heights):
        for y in range(height):
            if rng.random() < 0.85:
                bits |= 1 << (y * 10 + x)
    for y in range(40):
        if (bits >> (y * 10)) & 1023 == 1023:
            bits &= ~(1 << (y * 10 + rng.randrange(10)))
    return bits


def overhang_field(rng: random.Random) -> int:
    """A field rich in caves (the agreement tests' other recipes): a jagged stack with floating roofs over open
    caves, or dense noise rows. Here spins are often reached by longer paths than the plain drop into the same
    cells, the case where the search records more than one arrival per position."""
    bits = 0
    if rng.random() < 0.5:
        top = rng.randint(0, 12)
        heights = [rng.randint(0, top) for _ in range(10)]
        for x, height in enumerate(heights):
            for y in range(height):
                if rng.random() < 0.85:
                    bits |= 1 << (y * 10 + x)
        for _ in range(rng.randint(1, 5)):
            x, width = rng.randrange(10), rng.randint(1, 3)
            y = heights[x] + rng.randint(1, 3)
            for column in range(x, min(10, x + width)):
                bits |= 1 << (y * 10 + column)
    else:
        height, density = rng.randint(3, 12), rng.uniform(0.4, 0.7)
        for y in range(height):
            for x in range(10):
                if rng.random() < density * (1 - 0.3 * y / height):
                    bits |= 1 << (y * 10 + x)
    for y in range(40):
        if (bits >> (y * 10)) & 1023 == 1023:
            bits &= ~(1 << (y * 10 + rng.randrange(10)))
    return bits


def time_per_piece(fns: list, fields: list[int], rules: Rules, soft: bool, repeat: int) -> tuple[list, list]:
    """Per function, per (field, piece): the best of `repeat` runs in ms (the functions take turns, so a busy
    machine slows them alike), and the results of the first function (to compare)."""
    times: list[list[float]] = [[] for _ in fns]
    results = []
    for bits in fields:
        for piece in Piece:
            best = [float("inf")] * len(fns)
            for turn in range(repeat):
                order = list(enumerate(fns))
                for i, fn in order if turn % 2 == 0 else order[::-1]:
                    start = time.perf_counter()
                    result = fn(bits, piece, rules, soft_drop=soft)
                    best[i] = min(best[i], time.perf_counter() - start)
                    if i == 0:
                        kept = result
            for i, value in enumerate(best):
                times[i].append(value * 1000)
            results.append(kept)
    return times, results


def percentile95(values: list[float]) -> float:
    return sorted(values)[int(0.95 * (len(values) - 1))]


def load_generate(path: str):
    """`find_moves` (or the older name `generate`) from another version of the generator, e.g.
    `git show HEAD:game/movegen.py > /tmp/old.py`."""
    spec = importlib.util.spec_from_file_location("movegen_against", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the file runs
    spec.loader.exec_module(module)
    return getattr(module, "find_moves", None) or module.generate


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--random", type=int, default=40, help="seeded jagged and cave-rich fields to add (40 each)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per (field, piece); the best counts")
    parser.add_argument("--rules", default="srs")
    parser.add_argument("--180", dest="allow_180", action="store_true")
    parser.add_argument("--harddrop", action="store_true")
    parser.add_argument("--against", metavar="FILE", help="also time another movegen.py, taking turns with this one")
    parser.add_argument("--no-reference", action="store_true", help="skip the table against find_placements")
    args = parser.parse_args(argv)
    other = load_generate(args.against) if args.against else None
    rules = Rules.named(args.rules, allow_180=args.allow_180)
    soft = not args.harddrop
    rng = random.Random(2024)
    groups = {
        "fixed": [Board.from_rows(rows).bits if rows else 0 for rows in FIELDS.values()],
        "random": [random_field(rng) for _ in range(args.random)],
    }
    groups["overhang"] = [overhang_field(random.Random(7 + i)) for i in range(args.random)]
    print(
        f"rules {rules.rotation.name}{' +180' if args.allow_180 else ''}, {'soft drop' if soft else 'hard drop only'}, "
        f"best of {args.repeat} per (field, piece)"
    )
    if not args.no_reference and reference_table(groups, rules, soft, args.repeat, other):
        return 1
    return compare_jit(groups, rules, soft, args.repeat)


def reference_table(groups: dict[str, list[int]], rules: Rules, soft: bool, repeat: int, other) -> int:
    """The first table: game.movegen.find_moves (and --against) against the reference. Returns 1 on a mismatch."""
    for fields in groups.values():  # build the per-piece tables outside the timing
        for piece in Piece:
            for fn in (find_moves, other) if other else (find_moves,):
                fn(fields[0] if fields else 0, piece, rules, soft_drop=soft)
    header = f"{'fields':<9}{'n':>4}{'placements':>12}{'fast med ms':>13}{'fast p95':>10}{'ref med ms':>12}{'ratio':>8}"
    print(header + (f"{'other med ms':>14}{'other p95':>11}" if other else ""))
    for name, fields in groups.items():
        fns = [find_moves, other] if other else [find_moves]
        (fast, *rest), results_fast = time_per_piece(fns, fields, rules, soft, repeat)
        (ref,), results_ref = time_per_piece([find_placements], fields, rules, soft, 1)
        if results_fast != results_ref:
            bad = sum(a != b for a, b in zip(results_fast, results_ref))
            print(f"MISMATCH: {name}: the generators differ on {bad} (field, piece) pairs")
            return 1
        found_fast = sum(len(result) for result in results_fast)
        fast_med = statistics.median(fast)
        ref_med = statistics.median(ref)
        line = (
            f"{name:<9}{len(fields):>4}{found_fast:>12}{fast_med:>13.3f}{percentile95(fast):>10.3f}"
            f"{ref_med:>12.3f}{ref_med / fast_med:>7.1f}x"
        )
        if rest:
            line += f"{statistics.median(rest[0]):>14.3f}{percentile95(rest[0]):>11.3f}"
        print(line)
    return 0


def board_input_costs(fields: list[int], loops: int = 2000) -> dict[str, float]:
    """Microseconds per board for ways of handing a field to a kernel, each including a call of the same trivial
    jitted function: the 52 bytes object as it is (what ai.jit_movegen passes), those bytes viewed by numpy, or
    the board transposed in Python (game.board.filled_columns) into an int64 array."""
    import numpy as np
    from numba import njit

    @njit(nogil=True)
    def touch(board):
        return board[0]

    ways = {
        "bytes": lambda bits: touch((bits & FULL_MASK).to_bytes(52, "little")),
        "bytes+frombuffer": lambda bits: touch(np.frombuffer((bits & FULL_MASK).to_bytes(52, "little"), np.uint8)),
        "filled_columns+np.array": lambda bits: touch(np.array(filled_columns(bits), dtype=np.int64)),
    }
    costs = {}
    rounds = loops // len(fields) + 1
    for name, convert in ways.items():
        convert(fields[0])  # compiles touch for this argument type
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            for _ in range(rounds):
                for bits in fields:
                    convert(bits)
            best = min(best, time.perf_counter() - start)
        costs[name] = best / (rounds * len(fields)) * 1e6
    return costs


def compare_jit(groups: dict[str, list[int]], rules: Rules, soft: bool, repeat: int) -> int:
    """The second table: game.movegen.generate_raw against ai.jit_movegen.placements. Returns 1 on a mismatch."""
    try:
        from ai import jit_movegen
    except ImportError as error:
        print(f"jit: skipped ({error})")
        return 0
    start = time.perf_counter()
    jit_movegen.warm_up()
    print(f"jit warm-up {time.perf_counter() - start:.2f} s (compile, or load from numba's cache)")
    for fields in groups.values():  # per-piece tables for both, outside the timing
        for piece in Piece:
            generate_raw(fields[0] if fields else 0, piece, rules, soft_drop=soft)
            jit_movegen.placements(fields[0] if fields else 0, piece, rules, soft)
    every = [bits for fields in groups.values() for bits in fields]
    costs = board_input_costs(every)
    print("board to kernel (us, with a trivial call): " + ", ".join(f"{k} {v:.2f}" for k, v in costs.items()))
    print(
        f"{'fields':<9}{'n':>4}{'py found':>10}{'jit found':>11}{'py raw med ms':>15}{'jit med ms':>12}"
        f"{'jit p95':>9}{'ratio':>8}"
    )
    fns: list[Callable[..., object]] = [generate_raw, jit_movegen.placements]
    for name, fields in groups.items():
        (py, jit), results_py = time_per_piece(fns, fields, rules, soft, repeat)
        found_py = found_jit = 0
        for result, (bits, piece) in zip(results_py, [(bits, piece) for bits in fields for piece in Piece]):
            expected = {(PIECE_MASKS[piece, Rotation(r.rotation), r.x, r.y], int(r.spin)) for r in result}
            got = jit_movegen.placements(bits, piece, rules, soft)
            cells = {(PIECE_MASKS[piece, Rotation(rot), x, y], spin) for rot, x, y, spin in got}
            if cells != expected or len(got) != len(cells):
                print(f"MISMATCH: {name}: jit differs from generate_raw for {piece.name} on\n{Board(bits)}")
                return 1
            found_py += len(result)
            found_jit += len(got)
        py_med, jit_med = statistics.median(py), statistics.median(jit)
        print(
            f"{name:<9}{len(fields):>4}{found_py:>10}{found_jit:>11}{py_med:>15.3f}{jit_med:>12.4f}"
            f"{percentile95(jit):>9.4f}{py_med / jit_med:>7.1f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
