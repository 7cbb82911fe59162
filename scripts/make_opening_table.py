"""Compute the opening tables (ai/pc/opening_<rules>.txt): the exact PC chance at the first two positions of
every 7-bag game, one line per order of the first bag, with the project's own search (ai.pc.chance.pc_chance).

    python scripts/make_opening_table.py [--rules srs-180] [--jobs 2]   # all 5,040 bags (about 15 CPU minutes)
    python scripts/make_opening_table.py --update       # search only the answers the table lacks (and go on
                                                        # after a run that was stopped: it saves as it goes)
    python scripts/make_opening_table.py --check 20     # recompute 20 random entries and compare; exit 1 if any differ
    python scripts/make_opening_table.py --rules nrs-180 --first-only   # each order's first answer alone (--update
                                                        # later adds the others to the orders that lack them)
    python scripts/make_opening_table.py --rules none-180 --update --no-second   # add the hold-pressed answers
                                                        # only (the table after a first placement has the rest)

The positions (see ai.pc.opening): empty field, 4 lines, hold empty and not pressed, the first piece in play and
the next five shown, so the bag's seventh piece is known and the four pieces after it (840 futures) are not; then
the position after the advised placement when it does not hold. Soft drop; the rules by name
(ai.pc.opening.RULES). A table is what the search answers, so it can only be as right as the search; tests check
entries against the search and against an independent count for the placement it names.
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import time
from multiprocessing import Pool
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from ai.pc import opening  # noqa: E402 - after the path set-up above
from game.pieces import ALL_PIECES  # noqa: E402
from game.rules import Rules  # noqa: E402
from scripts.stopping import leave_stopping_to_the_main_process, stop_cleanly_on_signals  # noqa: E402


def _compute(job: tuple) -> tuple[tuple, str]:
    order, name, keep, first_only, second = job
    started = time.thread_time()
    entry = opening.compute_entry(order, opening.RULES[name], keep, first_only, second)
    return order, f"{opening.format_entry(entry)}\t# {1000 * (time.thread_time() - started):.0f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--check", type=int, metavar="N", help="recompute N random entries and compare")
    parser.add_argument("--rules", choices=sorted(opening.RULES), default="srs-180")
    parser.add_argument("--out", type=Path, help="default: the table's place in ai/pc")
    parser.add_argument("--update", action="store_true", help="keep the answers the table has, search the rest")
    parser.add_argument("--save-every", type=int, default=250, metavar="N", help="write the table every N orders")
    parser.add_argument(
        "--first-only",
        action="store_true",
        help="search only the first position's answer of the orders not kept (the others are searched live)",
    )
    parser.add_argument(
        "--no-second",
        action="store_true",
        help="no answer for the position after the first placement (ai.pc.seconds' table answers it)",
    )
    args = parser.parse_args()
    rules = opening.RULES[args.rules]
    out = args.out or opening.table_path(args.rules)
    orders = list(itertools.permutations(ALL_PIECES))
    if args.check:
        table = opening.load_table(out, rules)
        wrong = 0
        for order in random.Random().sample(orders, args.check):
            stored = table.get(order)
            # an entry made first-only, or without the second answer, is checked as made
            first_only = stored is not None and stored.held is None
            without_second = stored is not None and stored.second is None
            entry = opening.compute_entry(order, rules, first_only=first_only, second=not without_second)
            counts = [
                (e.first.count, e.second and e.second.count, e.held and e.held.count)
                for e in (stored, entry)
                if e is not None
            ]
            # placements tying for the best may differ; the chances may not
            same = len(counts) == 2 and counts[0][0::2] == counts[1][0::2]
            if same and stored is not None and stored.first == entry.first:
                same = counts[0] == counts[1]
            wrong += not same
            print(f"{opening.order_text(order)} stored {counts[0] if stored else None} computed {counts[-1]}")
        print("all equal" if not wrong else f"{wrong} differ")
        return 1 if wrong else 0
    done: dict[tuple, str] = {}
    started = time.perf_counter()
    kept = opening.load_table(out, rules) if args.update else {}
    stop_cleanly_on_signals()  # Ctrl+C or SIGTERM: the orders finished are saved, then the workers stopped
    with Pool(args.jobs, initializer=leave_stopping_to_the_main_process, maxtasksperchild=200) as pool:
        jobs = [(order, args.rules, kept.get(order), args.first_only, not args.no_second) for order in orders]
        try:
            for i, (order, line) in enumerate(pool.imap(_compute, jobs, chunksize=8)):
                done[order] = line.split("\t#")[0]
                if i % 100 == 0:
                    print(f"{i}/{len(orders)} {time.perf_counter() - started:.0f} s  {line}", flush=True)
                if (i + 1) % args.save_every == 0:
                    # a run killed part way loses at most the last N orders: `--update` goes on from the saved table
                    _save(out, rules, done, kept)
        except KeyboardInterrupt:
            _save(out, rules, done, kept)
            print(f"stopped: {len(done)} orders searched, saved in {out}; --update goes on", file=sys.stderr)
            return 130
    _save(out, rules, done, kept)
    print(f"wrote {out} ({len(done)} entries) in {time.perf_counter() - started:.0f} s")
    return 0


def _save(out: Path, rules: Rules, done: dict[tuple, str], kept: dict) -> None:
    """The entries searched so far and the kept ones not reached yet (a table without some orders is read as it is:
    those are searched)."""
    rest = [opening.format_entry(entry) for order, entry in kept.items() if order not in done]
    opening.write_table(out, rules, [*done.values(), *rest])


if __name__ == "__main__":
    sys.exit(main())
