"""Compute the later-start table (ai/pc/later-start_<rules>.txt.gz): the exact PC chance at a later PC's first
position with a piece held from the bag before, for every order of a bag's last six pieces and each of them held
(30,240 positions; see ai.pc.later_start), with the project's own search (ai.pc.chance.pc_chance).

    python scripts/make_later_start_table.py [--rules srs-180] [--jobs 2]   # ~36 CPU min (default rules)
    python scripts/make_later_start_table.py --update      # go on after a run that was stopped (it saves as it goes)
    python scripts/make_later_start_table.py --check 20    # recompute 20 random entries and compare; 1 if any differ
    python scripts/make_later_start_table.py --kind two-dealt   # two of the bag dealt before (123,480 positions)
    python scripts/make_later_start_table.py --kind later-start-empty   # hold empty (5,040); two-dealt-empty: 17,640
    python scripts/make_later_start_table.py --kind three-dealt   # 246,960 positions; four-dealt: 308,700
    python scripts/make_later_start_table.py --rules nrs-180 --kind bag-start   # 35,280 (NRS and no kicks only)
    python scripts/make_later_start_table.py --rules none-180 --kind five-dealt   # 246,960; six-dealt: 123,480;
        # five-dealt-empty: 35,280; six-dealt-empty: 17,640 (NRS and no kicks only)

A table whose rules have a wider rule set with a table of the same kind (ai.pc.opening.wider_rules: SRS with 180
for no kicks) is made bounded by it (ai.pc.later_start.compute): the same counts, sooner.

Ctrl+C or `kill PID` stops it with the positions done written. Placements tying for the best may differ between
runs; the counts may not. Under rules whose placements reflect left to right (game.rules.Rules.mirror_symmetric: no
kicks, SRS+ without 180 turns) a position's mirror image (J and L, S and Z swapped) has the same count and the
reflected placements, so one of each pair is searched and the other written reflected.
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

from ai.pc import later_start, opening  # noqa: E402 - after the path set-up above
from scripts.stopping import leave_stopping_to_the_main_process, stop_cleanly_on_signals  # noqa: E402


def _kind(name: str) -> later_start.Kind:
    return next(kind for kind in later_start.KINDS if kind.name == name)


def _compute(job: tuple) -> str:
    key, name, kind = job
    started = time.thread_time()
    line = later_start.format_line(key, later_start.compute(key, opening.RULES[name], _kind(kind)))
    return f"{line}\t# {1000 * (time.thread_time() - started):.0f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--rules", choices=sorted(opening.RULES), default="srs-180")
    parser.add_argument("--kind", choices=[kind.name for kind in later_start.KINDS], default="later-start")
    parser.add_argument("--out", type=Path, help="default: the table's place in ai/pc")
    parser.add_argument("--update", action="store_true", help="keep the positions the table has, search the rest")
    parser.add_argument("--check", type=int, metavar="N", help="recompute N random entries and compare")
    parser.add_argument("--save-every", type=int, default=500, metavar="N", help="write the table every N positions")
    args = parser.parse_args()
    rules = opening.RULES[args.rules]
    kind = _kind(args.kind)
    out = args.out or later_start.path(args.rules, kind)
    table = later_start.load_table(out, rules, kind) if args.update or args.check else {}
    if args.check:
        wrong = 0
        for key in random.Random().sample(sorted(table), min(args.check, len(table))):
            stored, computed = later_start.counts(table[key]), later_start.counts(later_start.compute(key, rules, kind))
            wrong += stored != computed
            print(f"{later_start.format_line(key, table[key])}: stored {stored}, searched {computed}")
        print("all equal" if not wrong else f"{wrong} differ")
        return 1 if wrong else 0
    lines = {key: later_start.format_line(key, entry) for key, entry in table.items()}
    todo = [key for key in kind.keys() if key not in table]
    mirror = rules.mirror_symmetric  # a position's answer reflected is its mirror image's: search one of each pair
    if mirror:
        for key in todo:
            if later_start.mirrored_key(key) in table:
                lines[key] = later_start.format_line(
                    key, later_start.mirrored_entry(table[later_start.mirrored_key(key)])
                )
        pairs: dict = {}  # one position of each pair not made, keyed by the pair
        for key in todo:
            if key not in lines:
                pairs.setdefault(frozenset((key, later_start.mirrored_key(key))), key)
        todo = list(pairs.values())
        print(f"{len(lines) - len(table)} positions reflected from the table's, {len(todo)} to search")
    started = time.perf_counter()
    stop_cleanly_on_signals()  # Ctrl+C or SIGTERM: the positions finished are saved, then the workers stopped
    with Pool(args.jobs, initializer=leave_stopping_to_the_main_process, maxtasksperchild=500) as pool:
        jobs = [(key, args.rules, kind.name) for key in todo]
        try:
            for i, (key, line) in enumerate(zip(todo, pool.imap(_compute, jobs, 16))):
                lines[key] = line.split("\t#")[0]
                if mirror:
                    entry = later_start.parse_line(lines[key], kind.futures)[1]
                    lines[later_start.mirrored_key(key)] = later_start.format_line(
                        later_start.mirrored_key(key), later_start.mirrored_entry(entry)
                    )
                if i % 500 == 0:
                    print(f"{i}/{len(todo)} {time.perf_counter() - started:.0f} s  {line}", flush=True)
                if (i + 1) % args.save_every == 0:
                    later_start.write_table(out, rules, list(lines.values()), kind)
        except KeyboardInterrupt:
            later_start.write_table(out, rules, list(lines.values()), kind)
            print(f"stopped: {len(lines)} positions in {out}; --update goes on", file=sys.stderr)
            return 130
    later_start.write_table(out, rules, list(lines.values()), kind)
    print(f"wrote {out} ({len(lines)} positions) in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
