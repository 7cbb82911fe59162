"""Move-generation speed: the fast generator (ai.movegen) against the reference (game.finesse.find_placements).

    python bench/movegen.py [--random N] [--repeat R] [--rules srs|srs+|none] [--180] [--harddrop]

Times every piece on a fixed set of fields (hand-written typical mid-game fields plus N seeded jagged ones) and
prints the median time per piece for both generators, the ratio, and the placements found (which must match).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ai.movegen import generate
from game.board import Board
from game.finesse import find_placements
from game.pieces import Piece
from game.rules import Rules

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
    """A jagged field with holes and overhangs, no full rows (same recipe as the agreement tests)."""
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


def time_per_piece(fn, fields: list[int], rules: Rules, soft: bool, repeat: int) -> tuple[list[float], int]:
    """Per (field, piece) the best of `repeat` runs, in ms; and the total placements found."""
    times = []
    found = 0
    for bits in fields:
        for piece in Piece:
            best = float("inf")
            for _ in range(repeat):
                start = time.perf_counter()
                result = fn(bits, piece, rules, soft_drop=soft)
                best = min(best, time.perf_counter() - start)
            times.append(best * 1000)
            found += len(result)
    return times, found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--random", type=int, default=40, help="seeded jagged fields to add (default 40)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per (field, piece); the best counts")
    parser.add_argument("--rules", default="srs")
    parser.add_argument("--180", dest="allow_180", action="store_true")
    parser.add_argument("--harddrop", action="store_true")
    args = parser.parse_args(argv)
    rules = Rules.named(args.rules, allow_180=args.allow_180)
    soft = not args.harddrop
    rng = random.Random(2024)
    groups = {
        "fixed": [Board.from_rows(rows).bits if rows else 0 for rows in FIELDS.values()],
        "random": [random_field(rng) for _ in range(args.random)],
    }
    for fields in groups.values():  # build the per-piece tables outside the timing
        for piece in Piece:
            generate(fields[0] if fields else 0, piece, rules, soft_drop=soft)
    print(f"rules {rules.rotation.name}{' +180' if args.allow_180 else ''}, {'soft drop' if soft else 'hard drop only'}, "
          f"best of {args.repeat} per (field, piece)")
    print(f"{'fields':<8}{'n':>4}{'placements':>12}{'fast med ms':>13}{'fast p95':>10}{'ref med ms':>12}{'ratio':>8}")
    for name, fields in groups.items():
        fast, found_fast = time_per_piece(generate, fields, rules, soft, args.repeat)
        ref, found_ref = time_per_piece(find_placements, fields, rules, soft, 1)
        if found_fast != found_ref:
            print(f"MISMATCH: fast found {found_fast} placements, reference {found_ref}")
            return 1
        fast_med = statistics.median(fast)
        ref_med = statistics.median(ref)
        p95 = sorted(fast)[int(0.95 * (len(fast) - 1))]
        print(f"{name:<8}{len(fields):>4}{found_fast:>12}{fast_med:>13.3f}{p95:>10.3f}{ref_med:>12.3f}"
              f"{ref_med / fast_med:>7.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
