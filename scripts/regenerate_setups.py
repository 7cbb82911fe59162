"""Recompute every figure of the set-up library (assets/setups/*.toml) with the project's own code and write it.

    python scripts/regenerate_setups.py            # rewrite the [setup.figures] tables and the README table
    python scripts/regenerate_setups.py --check    # recompute and compare; exit 1 on any difference
    python scripts/regenerate_setups.py --only tki grace --check

Figures per entry (rules: SRS, soft drop, no 180; hold as the entry says):
- build: queues of `bags` that build the shape (ai.pc.setup.build_chance), and the same for the mirrored shape
  and for "the shape or its mirror" (ai.pc.setup.cover) when mirroring is allowed;
- pc: perfect clears over `pc_pattern` from the reference build in the fumen (ai.pc.api.percent, `pc_lines`
  lines); "not computed" with the reason when the pattern is too large or the solver's budget runs out;
- tspin: the full T-spins (not minis) a T can make on the built shape, reachable from spawn under the rules
  (ai.pc.setup.tspin_slots): the best one and how many distinct placements give a full spin.
Hand-written fields are kept as they are; the files are re-emitted in a fixed layout.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

LIBRARY = ROOT / "assets" / "setups"
README = LIBRARY / "README.md"
PC_MAX_QUEUES = 100_000  # PC patterns above this many queues are not computed (a minute or more each)
PC_BUDGET_MS = 240_000  # and a PC search that runs longer than this is reported as not computed
RULES_TEXT = "SRS, soft drop, no 180"

from game.setups import HAND_FIELDS  # noqa: E402 - after the path set-up above


def _entry_field_bits(entry) -> tuple[int, int]:
    """(bits of the reference build in the fumen, its height)."""
    from game.fumen import decode

    field = decode(entry.fumen, max_pages=1)[0].field
    if field is None:  # (decode sets every page's field)
        raise ValueError(f"{entry.key}: the fumen has no field")
    board = field.to_board()
    return board.bits, max(board.height(), 1)


def compute_figures(entry, *, pc_budget_ms: float = PC_BUDGET_MS) -> dict:
    """Every figure of one library entry, as stored in its [setup.figures] table."""
    from ai.pc.api import percent
    from ai.pc.pattern import parse_pattern
    from ai.pc.setup import build_chance, cover, tspin_slots

    shape = entry.shape()
    figures: dict = {"rules": RULES_TEXT + (", hold" if entry.hold else ", no hold")}
    build = build_chance(shape, entry.bags, use_hold=entry.hold)
    figures["build_success"] = build.success
    figures["build_total"] = build.total
    figures["build_rate"] = round(build.rate, 6)
    if entry.mirror and not shape.base:  # with blocks already there, "either" would mean two boards
        mirrored = build_chance(shape.mirrored(), entry.bags, use_hold=entry.hold)
        figures["mirror_build_success"] = mirrored.success
        either = cover(entry.bags, {"shape": shape, "mirror": shape.mirrored()}, use_hold=entry.hold)
        figures["either_build_success"] = either.any_count
        figures["either_build_rate"] = round(either.any_rate, 6)
    bits, height = _entry_field_bits(entry)
    if entry.pc_pattern:
        size = parse_pattern(entry.pc_pattern).size()
        if height > entry.pc_lines:
            figures["pc"] = f"not computed: the set-up is {height} rows high, above the {entry.pc_lines} PC lines"
        elif size > PC_MAX_QUEUES:
            figures["pc"] = f"not computed: {size:,} queues (more than {PC_MAX_QUEUES:,})"
        else:
            result = percent(bits, entry.pc_pattern, use_hold=entry.hold, lines=entry.pc_lines, budget_ms=pc_budget_ms)
            if result.truncated:
                figures["pc"] = f"not computed: the solver's budget of {pc_budget_ms / 1000:.0f} s ran out"
            else:
                figures["pc_success"] = result.success
                figures["pc_total"] = result.total
                figures["pc_rate"] = round(result.rate, 6)
    elif "PC" in entry.finishes:
        figures["pc"] = (
            "not computed: the PC comes after the T-spins and later bags"
            if entry.family == "opener"
            else "not computed: the pieces left for the PC depend on the build (see notes)"
        )
    slots = tspin_slots(bits)
    figures["tspin"] = slots[0].name if slots else "none"
    figures["tspin_placements"] = len(slots)
    return figures


# --- writing the files ------------------------------------------------------------------------------------
def _value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    return json.dumps(str(v), ensure_ascii=False)


def render(header: str, raws: list[dict], figures: dict[str, dict]) -> str:
    lines = [header.rstrip(), ""]
    for raw in raws:
        lines.append("[[setup]]")
        for key in HAND_FIELDS:
            if key in raw:
                lines.append(f"{key} = {_value(raw[key])}")
        lines.append("")
        lines.append("[setup.figures]  # written by scripts/regenerate_setups.py")
        for key, value in figures[raw["key"]].items():
            lines.append(f"{key} = {_value(value)}")
        lines.append("")
    return "\n".join(lines)


def _header(text: str) -> str:
    out = []
    for line in text.splitlines():
        if line.startswith("#"):
            out.append(line)
        else:
            break
    return "\n".join(out)


def _pct(success, total) -> str:
    from ai.protocol import percent_text  # (5039 of 5040 is ">99.9%", as the set-up menu says, not "100.0%")

    return f"{percent_text(success / total, 1)} ({success}/{total})" if total else "-"


def readme_table(entries, figures: dict[str, dict]) -> str:
    rows = [
        "| entry | family | PC / opener | bags | build | with mirror | PC after | T-spin |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for entry in entries:
        f = figures[entry.key]
        where = f"PC {entry.pc}" if entry.family == "pc" else entry.opener
        if entry.family == "pc" and entry.opener:
            where += f" ({entry.opener})"
        either = _pct(f["either_build_success"], f["build_total"]) if "either_build_success" in f else "no mirror"
        if "pc_rate" in f:
            pc = f"{_pct(f['pc_success'], f['pc_total'])} over `{entry.pc_pattern}`"
        else:
            pc = f.get("pc", "-")
        tspin = f"{f['tspin']} ({f['tspin_placements']})" if f["tspin"] != "none" else "none"
        rows.append(
            f"| {entry.name} (`{entry.key}`) | {entry.family} | {where} | `{entry.bags}` | "
            f"{_pct(f['build_success'], f['build_total'])} | {either} | {pc} | {tspin} |"
        )
    return "\n".join(rows)


README_START = "<!-- figures: written by scripts/regenerate_setups.py -->"
README_END = "<!-- end of figures -->"


def main(argv: list[str] | None = None) -> int:
    import tomllib

    from ai.pc.setup import LibraryError, load_library

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing; exit 1 on a difference")
    parser.add_argument("--only", nargs="+", metavar="KEY", help="only these entries (with --check)")
    args = parser.parse_args(argv)
    if args.only and not args.check:
        print("error: --only works with --check (writing recomputes every entry)", file=sys.stderr)
        return 2
    try:
        entries = load_library(LIBRARY)
    except LibraryError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    by_key = {entry.key: entry for entry in entries}
    if args.only:
        unknown = [k for k in args.only if k not in by_key]
        if unknown:
            print(f"error: no library entry {', '.join(unknown)}", file=sys.stderr)
            return 2
    chosen = [by_key[k] for k in args.only] if args.only else entries
    figures: dict[str, dict] = {}
    for entry in chosen:
        started = time.process_time()
        figures[entry.key] = compute_figures(entry)
        print(f"{entry.key}: {time.process_time() - started:.1f} s CPU", file=sys.stderr)
    if args.check:
        differ = 0
        for entry in chosen:
            if entry.figures != figures[entry.key]:
                differ += 1
                print(f"{entry.key}: stored {entry.figures} != computed {figures[entry.key]}")
        print(f"{len(chosen) - differ}/{len(chosen)} entries match")
        return 1 if differ else 0
    for path in sorted(LIBRARY.glob("*.toml")):
        text = path.read_text(encoding="utf-8")
        raws = [{k: v for k, v in raw.items() if k != "figures"} for raw in tomllib.loads(text).get("setup", [])]
        path.write_text(render(_header(text), raws, figures), encoding="utf-8")
    if README.exists():
        text = README.read_text(encoding="utf-8")
        if README_START in text and README_END in text:
            head, rest = text.split(README_START, 1)
            _, tail = rest.split(README_END, 1)
            README.write_text(
                f"{head}{README_START}\n{readme_table(entries, figures)}\n{README_END}{tail}", encoding="utf-8"
            )
    print(f"wrote the figures of {len(entries)} entries")
    return 0


if __name__ == "__main__":
    sys.exit(main())
