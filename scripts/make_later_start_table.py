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

The two-, three- and four-dealt kinds are made a group at a time (ai.pc.later_start.solve_group: the positions with
the same piece held and the same pieces left in the bag share one trie and one memo): the same counts, up to 5-9
times sooner under NRS with 180 turns where positions are slow (see solve_group). A group the table has in part is
searched whole, and its positions the table had keep their lines. `--one-by-one` searches each position alone, as
the other kinds are.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
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


def _solve_group(job: tuple) -> tuple[list[str], float]:
    group, name, kind = job
    started = time.process_time()
    entries = later_start.solve_group(group, opening.RULES[name], _kind(kind))
    return [later_start.format_line(key, entry) for key, entry in entries.items()], time.process_time() - started


def _written(out: Path, rules, kind: later_start.Kind, lines: dict, started: float, stopped: bool = False) -> int:
    """Write the table and say so: the exit status (130 where the run was stopped)."""
    later_start.write_table(out, rules, list(lines.values()), kind)
    if stopped:
        print(f"stopped: {len(lines)} positions in {out}; --update goes on", file=sys.stderr)
        return 130
    print(f"wrote {out} ({len(lines)} positions) in {time.perf_counter() - started:.0f} s")
    return 0


def _group_worker() -> None:
    """A pool worker making groups: the stopping rules (first: a stop while it starts ends it quietly), and a memo
    large enough for a group's shared states."""
    leave_stopping_to_the_main_process()
    from ai.pc import jit_trie

    jit_trie.size_memo(*jit_trie.GENERATOR_MEMO)


def _make_in_groups(args, rules, kind: later_start.Kind, out: Path, table: dict, lines: dict) -> int:
    """The positions not in the table, a group at a time (later_start.solve_group: the same counts, in a fifth of the
    time or less where positions are slow); a group the table has in part is searched whole, its lines kept."""
    mirror = rules.mirror_symmetric
    todo, seen = [], set()
    for group in later_start.groups(kind):
        if mirror and later_start.mirrored_group(group) in seen:
            continue
        seen.add(group)
        todo.append(group)
    have = Counter(later_start.group_of(key, kind) for key in table)
    size = kind.size // len(later_start.groups(kind))
    todo = [
        group
        for group in todo
        if have.get(group, 0) < size or (mirror and have.get(later_start.mirrored_group(group), 0) < size)
    ]
    print(f"{len(todo)} groups of {size} positions to search" + (" (and their mirror images)" if mirror else ""))
    todo = todo[: args.limit]
    started = time.perf_counter()
    stop_cleanly_on_signals()  # Ctrl+C or SIGTERM: the groups finished are saved, then the workers stopped
    with Pool(args.jobs, initializer=_group_worker, maxtasksperchild=20) as pool:
        jobs = [(group, args.rules, kind.name) for group in todo]
        unsaved = 0
        try:
            for i, (made, cpu) in enumerate(pool.imap_unordered(_solve_group, jobs)):
                for line in made:  # (the positions the table had keep their lines: ties may name other placements)
                    key, entry = later_start.parse_line(line, kind.futures)
                    lines.setdefault(key, line)
                    if mirror:
                        mirrored = later_start.mirrored_key(key)
                        lines.setdefault(mirrored, later_start.format_line(mirrored, later_start.mirrored_entry(entry)))
                print(
                    f"{i + 1}/{len(todo)} groups {time.perf_counter() - started:.0f} s  (this one {cpu:.0f} CPU s)",
                    flush=True,
                )
                unsaved += len(made)
                if unsaved >= args.save_every:
                    later_start.write_table(out, rules, list(lines.values()), kind)
                    unsaved = 0
        except KeyboardInterrupt:
            return _written(out, rules, kind, lines, started, stopped=True)
    return _written(out, rules, kind, lines, started)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--rules", choices=sorted(opening.RULES), default="srs-180")
    parser.add_argument("--kind", choices=[kind.name for kind in later_start.KINDS], default="later-start")
    parser.add_argument("--out", type=Path, help="default: the table's place in ai/pc")
    parser.add_argument("--update", action="store_true", help="keep the positions the table has, search the rest")
    parser.add_argument("--check", type=int, metavar="N", help="recompute N random entries and compare")
    parser.add_argument("--save-every", type=int, default=500, metavar="N", help="write the table every N positions")
    parser.add_argument("--limit", type=int, metavar="N", help="search at most N more groups (or positions)")
    parser.add_argument(
        "--one-by-one", action="store_true", help="search each position alone, not a group at a time (the same counts)"
    )
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
    if later_start.grouped(kind) and not args.one_by_one:
        return _make_in_groups(args, rules, kind, out, table, lines)
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
    todo = todo[: args.limit]
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
            return _written(out, rules, kind, lines, started, stopped=True)
    return _written(out, rules, kind, lines, started)


if __name__ == "__main__":
    sys.exit(main())
