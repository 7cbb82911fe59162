"""The later-start table: the live PC chance at a later PC's first position with a piece held, looked up.

A player who keeps a piece in hold through the 7-bag loop starts the 8th PC (and the 15th, 22nd, ...) on an empty
field with a bag's last six pieces shown (the piece in play and five previews; its first piece went down in the PC
before) and the next bag not (840 futures). When the held piece is that bag's missing first piece, the opening
table answers (ai.pc.opening.lookup); otherwise the held piece came from the bag before and is one of the six shown,
and this table does: 6 held pieces for each of the 5,040 orders, 30,240 positions. Searched under the default rules
they take a median ~45 ms, but a few in 30 take 0.6-1.4 s (838 of 840 futures kept: every other placement must be
shown to lose three).

A line: the held piece, the six shown (in play first), the count of the 840 futures kept after the best next
placement and that placement (piece and cells; hold is pressed when it is the held piece's), then the same with
hold pressed there (the held piece in play, the one that was in play held, hold spent), or `- - -` where that is
the first answer: when the first's placement is the held piece's (pressing hold and placing it is that same
placement, and pressing takes the other choice away) or no placement makes a PC.
`scripts/make_later_start_table.py --rules NAME` makes a table with the project's own search.
"""

from __future__ import annotations

import gzip
import itertools
import logging
import threading
from functools import cache
from pathlib import Path

from ai.pc.opening import (
    FUTURES,
    LINES,
    RULES,
    Answer,
    answer_text,
    order_text,
    parse_answer,
    rules_key,
    table_name,
    write_whole,
)
from game.pieces import ALL_PIECES, Piece
from game.rules import Rules

_log = logging.getLogger(__name__)

Key = tuple[Piece, tuple[Piece, ...]]  # the held piece, the six shown (the piece in play first)
Entry = tuple[Answer, Answer | None]  # the first answer, and with hold pressed (None: the first's)


def keys() -> list[Key]:
    """Every position of the table: each order of the bag's last six, each of them held."""
    return [(held, order[1:]) for order in itertools.permutations(ALL_PIECES) for held in order[1:]]


def path(name: str) -> Path:
    return Path(__file__).with_name(f"later-start_{name}.txt.gz")


def format_line(key: Key, entry: Entry) -> str:
    """A table line (the answers written as the opening table's)."""
    held, shown = key
    return f"{held.name} {order_text(shown)} {answer_text(entry[0])} {answer_text(entry[1])}"


def parse_line(line: str) -> tuple[Key, Entry]:
    held, shown, *fields = line.split()
    first = parse_answer(*fields[:3])
    if first is None or len(fields) != 6:
        raise ValueError(f"later-start table line without its answers: {line!r}")
    return (Piece[held], tuple(Piece[c] for c in shown)), (first, parse_answer(*fields[3:6]))


def counts(entry: Entry) -> tuple[int, int]:
    """The futures kept as the position is and with hold pressed: what two makings of a table must agree on (the
    placements tying for the best may differ)."""
    first, pressed = entry
    return first.count, (pressed or first).count


def write_table(out: Path, rules: Rules, lines: list[str]) -> None:
    header = [
        "# The live PC chance at a later PC's first position with a piece held (ai/pc/later_start.py).",
        "# Made by scripts/make_later_start_table.py; do not edit by hand.",
        f"# rules {rules_key(rules)}",
    ]
    write_whole(out, gzip.compress(("\n".join(header + sorted(lines)) + "\n").encode(), mtime=0))


def load_table(source: Path, rules: Rules) -> dict[Key, Entry]:
    """A table file's entries, or {} when it is missing, unreadable or made under other rules than `rules` (then
    these positions are searched, as any other)."""
    try:
        data = source.read_bytes()
    except FileNotFoundError:  # not made for these rules (yet): every such position is searched
        return {}
    except OSError as error:
        _log.warning("later-start table %s not used: %s", source.name, error)
        return {}
    try:
        text = gzip.decompress(data).decode().splitlines()
        if f"# rules {rules_key(rules)}" not in text:
            return {}
        return dict(parse_line(line) for line in text if line and not line.startswith("#"))
    except (OSError, ValueError, KeyError, TypeError, EOFError) as error:
        _log.warning("later-start table %s not used: %s", source.name, error)
        return {}


_READING = threading.Lock()  # a question asked while the worker's warm-up reads the table waits for the read


def _table(rules: Rules) -> dict[Key, Entry]:
    name = table_name(rules)
    if name is None:
        return {}
    with _READING:
        return _read(name)


@cache
def _read(name: str) -> dict[Key, Entry]:
    return load_table(path(name), RULES[name])


def load(rules: Rules) -> int:
    """Read the table of these rules now (~0.1 s), so the first later PC does not pay for it; the entries read."""
    return len(_table(rules))


def lookup(shown: tuple[Piece, ...], hold: Piece, rules: Rules, hold_spent: bool) -> Answer | None:
    """The table's answer at an empty field whose bag is empty after the previews (ai.pc.opening.lookup checked the
    rest: 4 lines, 7-bag, soft drop, hold used), or None. `shown`: the piece in play and five previews; with
    `hold_spent`, hold was pressed there: the piece in play came from hold, and the key is the position before."""
    if hold_spent:
        held, shown = shown[0], (hold, *shown[1:])
    else:
        held = hold
    if len(set(shown)) != 6 or held not in shown:
        return None
    entry = _table(rules).get((held, shown))
    if entry is None:
        return None
    first, pressed = entry
    return pressed if hold_spent and pressed is not None else first


def compute(key: Key, rules: Rules) -> Entry:
    """A position's entry, searched (ai.pc.chance.pc_chance without the tables)."""
    from ai.pc.chance import pc_chance
    from game.randomizer import make_randomizer

    held, shown = key
    bag = make_randomizer("7bag", 0)

    def answer(current: Piece, hold: Piece, spent: bool) -> Answer:
        result = pc_chance(0, current, list(shown[1:]), hold, (), bag, rules, LINES, hold_spent=spent, table=False)
        if result.approximate or result.futures != FUTURES:
            raise RuntimeError(f"{held.name} held, {order_text(shown)} shown: no exact chance over {FUTURES} futures")
        best = result.best_placement
        return Answer(round(result.chance * FUTURES), best.piece, best.mask) if best else Answer(0, current, 0)

    first = answer(shown[0], held, False)
    if not first.count or first.piece == held:
        return first, None
    return first, answer(held, shown[0], True)
