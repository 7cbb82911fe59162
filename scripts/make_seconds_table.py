"""Compute the second-position tables (ai/pc/seconds_<rules>.txt.gz): the exact PC chance after every first placement
of a 7-bag game, for every order of the rest of the bag, with the project's own search (ai.pc.seconds.solve_first).

    python scripts/make_seconds_table.py [--rules srs-180] [--jobs 2] [--limit N]
    python scripts/make_seconds_table.py --check 20     # 20 random entries against pc_chance; exit 1 if any differ

Resumable: first placements already in the file are kept, the others are searched likeliest first
(ai.pc.seconds.first_placements) and the file is written again after each one, so stopping it loses only the
placements in progress. A first placement takes 0.5-2 CPU minutes (720 orders); all 162 took 3.1 CPU hours for SRS
with 180, and a table is used for the placements it holds (the others are searched live).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from multiprocessing import Pool
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from ai.pc import opening, seconds  # noqa: E402 - after the path set-up above
from game.pieces import Piece  # noqa: E402


def _solve(job: tuple[str, Piece, int]) -> tuple[Piece, int, list[str], float]:
    name, piece, mask = job
    started = time.process_time()
    answers = seconds.solve_first(opening.RULES[name], piece, mask)
    lines = [seconds.format_line(piece, mask, order, answer) for order, answer in answers.items()]
    return piece, mask, lines, time.process_time() - started


def _check(name: str, out: Path, count: int) -> int:
    from ai.pc.chance import pc_chance
    from game.randomizer import make_randomizer

    rules = opening.RULES[name]
    table = seconds.load_table(out, rules)
    wrong = 0
    for (piece, mask, order), answer in random.Random().sample(sorted(table.items()), min(count, len(table))):
        result = pc_chance(mask, order[0], list(order[1:]), None, (), make_randomizer("7bag", 0), rules, 4, table=False)
        searched = round(result.chance * opening.FUTURES)
        same = searched == answer.count
        wrong += not same
        print(
            f"{piece.name} {mask:#x} {''.join(p.name for p in order)}: table {answer.count}, search {searched}"
            + ("" if same else "  DIFFERENT")
        )
    return 1 if wrong else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--rules", choices=sorted(opening.RULES), default="srs-180")
    parser.add_argument("--out", type=Path, help="default: the table's place in ai/pc")
    parser.add_argument("--limit", type=int, help="search at most this many more first placements")
    parser.add_argument("--check", type=int, metavar="N", help="compare N random entries with the search")
    args = parser.parse_args()
    rules = opening.RULES[args.rules]
    out = args.out or seconds.table_path(args.rules)
    if args.check:
        return _check(args.rules, out, args.check)
    table = seconds.load_table(out, rules)
    lines = [seconds.format_line(*key, answer) for key, answer in table.items()]
    done = {(piece, mask) for piece, mask, _ in table}
    todo = [(p, m) for p, m in seconds.first_placements(rules) if (p, m) not in done][: args.limit]
    total = len(done) + len(todo)
    print(f"{len(done)} first placements in {out.name}, {len(todo)} to search", flush=True)
    with Pool(args.jobs) as pool:
        for piece, mask, new, cpu in pool.imap_unordered(_solve, [(args.rules, p, m) for p, m in todo]):
            lines += new
            seconds.write_table(out, rules, lines)
            done.add((piece, mask))
            print(f"{piece.name} {mask:#x}: {cpu:.0f} s CPU ({len(done)} of {total})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
