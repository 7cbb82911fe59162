"""Compute the second-position tables (ai/pc/<family>_<rules>.txt.gz): the exact PC chance after every first placement
of a 7-bag game (seconds), after the first piece held and each placement of the second (seconds-held), after each
first placement and hold pressed at the second (seconds-holding), at a later PC's second position whose first
piece was a bag's first, a piece held (seconds-boundary), or with hold pressed there where the boundary table's
best was the piece in play (seconds-boundary-holding: made from the boundary table, which must hold the group), for
every order of the pieces shown then, with the project's own search (ai.pc.seconds).

    python scripts/make_seconds_table.py [--rules srs-180] [--family seconds-held] [--jobs 2] [--limit N]
    python scripts/make_seconds_table.py [--family F] --check 20   # random entries against pc_chance; 1 if any differ

Resumable: groups (first placements; with hold, held piece and placement) already in the file are kept, the others
are searched likeliest first (ai.pc.seconds.Family.groups) and the file is written again once a minute and when it
stops (Ctrl+C or SIGTERM too), so stopping it loses only the groups in progress. A first placement takes 0.5-2 CPU
minutes (720 orders); all 162 took 3.1 CPU hours for SRS with 180. A group with hold takes 2-30 CPU seconds (840
orders; 1,440 at the boundary). A table is used for the groups it holds (the others are searched live).
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
from game.pieces import ALL_PIECES  # noqa: E402
from scripts.stopping import leave_stopping_to_the_main_process, stop_cleanly_on_signals  # noqa: E402


def _solve(job: tuple[str, str, tuple]) -> tuple[tuple, list[str], float]:
    name, family_name, group = job
    family = _FAMILIES[family_name]
    started = time.process_time()
    answers = family.solve(opening.RULES[name], group)
    lines = [seconds.format_line(*group, order, answer) for order, answer in answers.items()]
    return group, lines, time.process_time() - started


_FAMILIES = {family.name: family for family in seconds.FAMILIES}
WRITE_EVERY_S = 60


def _check(name: str, family: seconds.Family, out: Path, count: int) -> int:
    from ai.pc.chance import pc_chance
    from game.randomizer import make_randomizer

    rules = opening.RULES[name]
    table = seconds.load_table(out, rules, family)
    wrong = 0
    for key, answer in random.Random().sample(sorted(table.items()), min(count, len(table))):
        *group, order = key
        hold = None if family is seconds.SECONDS else group[0]
        current = order[0]
        if family.swapped:  # hold pressed: the held piece came into play, the one in play went to hold
            current, hold = hold, current
        # after the first bag's pieces, the next bag is whole (no hold) or has dealt its first piece (hold); the
        # bag is shown whole at the boundary family's positions
        state = tuple(p for p in ALL_PIECES if p != order[5]) if hold is not None and not family.whole_bag else ()
        result = pc_chance(
            group[-1],
            current,
            list(order[1:]),
            hold,
            state,
            make_randomizer("7bag", 0),
            rules,
            4,
            hold_spent=family.hold_spent,
            table=False,
        )
        searched = round(result.chance * family.futures)
        same = searched == answer.count and result.futures == family.futures
        wrong += not same
        print(f"{seconds.format_line(*key, answer)}: search {searched}" + ("" if same else "  DIFFERENT"))
    return 1 if wrong else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--rules", choices=sorted(opening.RULES), default="srs-180")
    parser.add_argument("--out", type=Path, help="default: the table's place in ai/pc")
    parser.add_argument("--limit", type=int, help="search at most this many more groups")
    parser.add_argument("--check", type=int, metavar="N", help="compare N random entries with the search")
    parser.add_argument(
        "--family",
        choices=sorted(_FAMILIES),
        default=seconds.SECONDS.name,
        help="seconds: after a first placement; seconds-held: the first piece held, the second placed; "
        "seconds-holding: the first placed, hold pressed at the second; seconds-boundary: a later PC's second "
        "position, its first piece a bag's first and a piece held; seconds-boundary-holding: hold pressed there",
    )
    args = parser.parse_args()
    family = _FAMILIES[args.family]
    rules = opening.RULES[args.rules]
    out = args.out or family.path(args.rules)
    if args.check:
        return _check(args.rules, family, out, args.check)
    table = seconds.load_table(out, rules, family)
    lines = [seconds.format_line(*key, answer) for key, answer in table.items()]
    done = {tuple(key[:-1]) for key in table}
    todo = [group for group in family.groups(rules) if group not in done][: args.limit]
    total = len(done) + len(todo)
    print(f"{len(done)} groups in {out.name}, {len(todo)} to search", flush=True)
    written, stopped = time.monotonic(), False
    stop_cleanly_on_signals()  # Ctrl+C or SIGTERM: the groups finished are written, then the workers stopped
    with Pool(args.jobs, initializer=leave_stopping_to_the_main_process) as pool:
        jobs = [(args.rules, family.name, group) for group in todo]
        try:
            for group, new, cpu in pool.imap_unordered(_solve, jobs):
                lines += new
                done.add(group)
                # a big table takes seconds to sort and compress: written once a minute, not after every group
                if time.monotonic() - written > WRITE_EVERY_S:
                    seconds.write_table(out, rules, lines, family)
                    written = time.monotonic()
                *pieces, mask = group
                name = "".join(p.name for p in pieces)
                print(f"{name} {mask:#x}: {cpu:.0f} s CPU ({len(done)} of {total})", flush=True)
        except KeyboardInterrupt:
            stopped = True
        finally:  # stopped (Ctrl+C, SIGTERM) or not: the groups finished are kept
            seconds.write_table(out, rules, lines, family)
    if stopped:
        print(f"stopped: {len(done)} of {total} groups in {out.name}; run it again to go on", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
