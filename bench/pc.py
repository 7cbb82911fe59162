"""Benchmark the perfect-clear solver on the shared solution-finder cases.

    python bench/pc.py [--skip-percent] [--keep-caches]

Prints median / p95 / max time to the first solution per case (all 152 cases, and the 100 empty-field ones
apart), solution-finder's warm median beside ours (and the ratio), and the time of `percent *p7,TIJL` on the
empty field. By default every case starts with empty caches (move and tiling memos), so each number is a cold
search in a warm interpreter, the fair match for solution-finder's warm-JVM figure.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ai.pc import movegen, search, tiling
from ai.pc.api import percent, solve
from game.fumen import decode
from game.pieces import parse_queue
from game.rules import Rules

CASES = ROOT.parent / "shared" / "pc" / "cases.tsv"


def clear_caches() -> None:
    movegen.for_rules.cache_clear()
    search.searcher_for.cache_clear()
    tiling._MEMO.clear()


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-percent", action="store_true")
    parser.add_argument("--keep-caches", action="store_true")
    args = parser.parse_args()
    if not CASES.exists():
        print(f"no cases at {CASES}")
        return 1
    rules = Rules.named("srs")
    rows = list(csv.DictReader(CASES.open(encoding="utf-8"), delimiter="\t"))
    solve(0, parse_queue("IJLOSTZIJL"), rules=rules, verify=False)  # warm-up (imports, tables)
    ours: dict[str, float] = {}
    wrong = []
    for row in rows:
        if not args.keep_caches:
            clear_caches()
        field = decode(row["field_fumen"])[0].field.to_board().bits
        queue = parse_queue(row["queue"])
        started = time.perf_counter()
        result = solve(field, queue, rules=rules, lines=int(row["clear_lines"]), use_hold=row["hold"] == "yes",
                       verify=False)
        ours[row["case_id"]] = (time.perf_counter() - started) * 1000
        if result.solvable != (row["pc"] == "yes"):
            wrong.append(row["case_id"])
    print(f"cases: {len(rows)}, solvability disagreements: {len(wrong)} {wrong if wrong else ''}")
    print(f"{'set':<12}{'n':>5}{'median ms':>12}{'p95 ms':>10}{'max ms':>10}{'sfinder warm median':>22}{'ratio':>8}")
    groups = {"all": rows, "empty": [r for r in rows if r["setup"] == "empty"],
              "setups": [r for r in rows if r["setup"] != "empty"]}
    for name, group in groups.items():
        times = [ours[r["case_id"]] for r in group]
        theirs = [float(r["harness_ms_warm"]) for r in group]
        med, their_med = statistics.median(times), statistics.median(theirs)
        print(f"{name:<12}{len(group):>5}{med:>12.1f}{pct(times, 0.95):>10.1f}{max(times):>10.1f}"
              f"{their_med:>22.3f}{med / their_med:>8.1f}x")
    slow = sorted(ours.items(), key=lambda kv: -kv[1])[:5]
    print("slowest:", ", ".join(f"{k} {v:.0f} ms" for k, v in slow))
    if not args.skip_percent:
        clear_caches()
        started = time.perf_counter()
        result = percent(0, "*p7,TIJL", rules=rules)
        took = time.perf_counter() - started
        print(f"percent *p7,TIJL on the empty field: {result.success}/{result.total} ({result.rate:.2%}) in {took:.1f} s"
              f"  (solution-finder: 100%, 5.3 s on 2 threads)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
