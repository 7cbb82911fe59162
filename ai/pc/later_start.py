"""The later-start tables: the live PC chance at a later PC's first position (a piece held or none), looked up.

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

A second kind (`TWO_DEALT`, files `two-dealt_<rules>.txt.gz`, lines alike): two of the bag dealt before the piece in
play, which with the next four previews is the bag's last five, the fifth preview the next bag's first piece, any
piece held (the 6th PC of a player who keeps a piece in hold): 7 held pieces, 2,520 orders of the five and 7 first
pieces of the next bag, 123,480 positions of 360 futures (4 of the next bag's other six). Searched under the default
rules they take a median ~30 ms, but a few in a hundred 0.2-0.6 s (`bench/pc.py --groups later-firsts`).
`scripts/make_later_start_table.py --kind two-dealt` makes it.

Two more kinds have hold empty (`later-start-empty`: a bag's last six shown, 5,040 positions of 2,520 futures, the
next bag's first five; `two-dealt-empty`: its last five and the next bag's first, 17,640 positions of 720 futures),
the positions of a player who does not keep a piece (the 6th and 4th PC: ten pieces a PC). Their best placement may
be the next piece's (hold pressed, the piece in play held); they have no answer with hold pressed, which shows a new
piece: another position (after a bag's last six, the two-dealt table's with hold spent). Searched, one in ten to
twenty takes over 200 ms (up to ~0.4 s); under NRS with 180 turns the two-dealt-empty positions take a mean ~185 ms,
up to ~1.7 s, and without kicks (bounded by SRS with 180's) one in three over 200 ms, up to ~3.7 s: every built-in
rule set has both tables.

A fifth (`three-dealt`): three of the bag dealt before the piece in play, which with the next three previews is
the bag's last four, the last two previews the next bag's first two, any piece held: 840 orders of the four, 42 of
the two, 7 held pieces, 246,960 positions of 120 futures (3 of the next bag's other five), with the answer after
hold is pressed as the others. Searched, a few in a hundred take over 200 ms (up to ~0.6 s). A sixth
(`four-dealt`): four of the bag dealt, the previews its last three and the next bag's first three, any piece held:
210 * 210 * 7 = 308,700 positions of 24 futures (the next bag's other four in any order). Searched, a median ~6 ms,
but about one in a thousand takes over 200 ms (22 of 24 kept, every other placement shown to lose three).

A seventh (`bag-start`, `dealt` 7: the bag before dealt whole): the piece in play is a bag's first and the five
previews its next five (its seventh is the piece left in it), any piece held (the 3rd PC of a player who keeps a
piece in hold, and every 7th after it): 5,040 orders of the six and 7 held pieces, 35,280 positions of 210 futures
(the seventh, then the next bag's first three). Searched under the default rules they take ~25 ms, at most ~140 ms
(bench/pc.py --groups later-firsts' offset-0 positions; 300 random ones), so no table is made for them there;
under NRS with 180 turns ~0.2 s, one in five over 200 ms and up to ~2 s, and without kicks up to ~0.5 s, so NRS's
and no kicks' are made.

Four more (`five-dealt`, `six-dealt`, and with hold empty `five-dealt-empty`, `six-dealt-empty`): five or six of
the bag dealt before the piece in play, which with the next one or none is the bag's rest, the other previews the
next bag's first four or five; a piece held (the 7th and 5th PC of a player who keeps one: 7 * 42 * 840 = 246,960
positions of 42 futures, the next bag's last three in order and one of the bag after; 7 * 7 * 2,520 = 123,480 of 84)
or none (the 5th and 3rd PC of one who does not: 35,280 positions of 252 futures, 17,640 of 420). Under the default
rules the search answers the first three within ~90 ms (300 random positions of each, a table generator on both
cores), so they are made only where it does not; six-dealt-empty positions took up to ~240 ms (p99 ~115-170 ms)
under each SRS and SRS+ rule set, so every built-in rule set has that table (the wider rules' count bounded plain
SRS and SRS+ without 180, which took as long: a placement must still win every future one by one). Without kicks
some take 0.3-1.5 s (sampled, a mean 10, 54, 137 and 142 ms), under NRS with 180 turns up to ~4 s (a mean 25,
150, 192 and 219 ms; its held six-dealt table, all 123,480 positions, took ~4.7 hours on 2 cores over three
sessions).

Two more with hold empty (`three-dealt-empty`, `four-dealt-empty`): three or four of the bag dealt, the pieces shown
as the held kinds' (the 2nd and 7th PC of a player who does not keep a piece: 840 * 42 = 35,280 positions of 120
futures, the next bag's other five in order; 210 * 210 = 44,100 of 168, its other four and one of the bag after).
Searched (30 random positions of each, ad hoc), the default rules take a median 13 and 18 ms, at most 129 and 93 ms,
so no table is made for them there; without kicks a mean 64 and 65 ms, up to 0.76 and 0.28 s; under NRS with 180
turns a mean 63 and 225 ms, up to 0.33 and 1.9 s (9 of 30 four-dealt ones over 200 ms).

A table may be made part way (over sessions with `--update`, as no kicks' later-start table was; the generator
searches one position of each mirror-image pair, `mirrored_key`, where the rules' placements reflect): it answers
the positions it holds, and the others are searched as without it, bounded by the wider rules' table where there is
one (`load` reads that too). The two- to four-dealt kinds are made a group at a time (`solve_group`: the positions
with the same piece held and the same pieces left in the bag, in one trie with one memo), where slow positions
share most of their search.
"""

from __future__ import annotations

import gzip
import itertools
import logging
import math
import threading
import zlib
from array import array
from dataclasses import dataclass, replace
from functools import cache, lru_cache
from pathlib import Path

from ai.pc.opening import (
    FUTURES,
    LINES,
    PIECE_NAMED,
    RULES,
    Answer,
    answer_text,
    order_text,
    parse_answer,
    rules_key,
    table_name,
    wider_rules,
    write_whole,
)
from ai.pc.tiling import mirrored
from game.pieces import ALL_PIECES, Piece
from game.rules import Rules

_log = logging.getLogger(__name__)

Key = tuple[Piece | None, tuple[Piece, ...]]  # the held piece (None: hold empty), the six shown (in play first)
Entry = tuple[Answer, Answer | None]  # the first answer, and with hold pressed (None: the first's)


_COUNT_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


@dataclass(frozen=True)
class Kind:
    """One kind of later PC's first position the tables hold: empty field, `dealt` pieces of the bag dealt before
    the piece in play (7: all of it, the piece in play is the next bag's first), a piece held or (`held` False) hold
    empty."""

    dealt: int
    held: bool
    futures: int

    @property
    def name(self) -> str:
        """The tables' file names: <name>_<rules>.txt.gz."""
        base = {1: "later-start", 7: "bag-start"}.get(self.dealt) or f"{_COUNT_WORDS[self.dealt]}-dealt"
        return base if self.held else f"{base}-empty"

    @property
    def what(self) -> str:
        """The position, for the tables' header."""
        hold = "a piece held" if self.held else "hold empty"
        if self.dealt == 1:
            return f"a later PC's first position with {hold}"
        if self.dealt == 7:
            return f"a later PC's first position at a bag's first piece with {hold}"
        return f"a later PC's first position with {_COUNT_WORDS[self.dealt]} of the bag dealt and {hold}"

    @property
    def size(self) -> int:
        """How many positions a whole table holds (len(keys()), without making them)."""
        holds = 7 if self.held else 1
        if self.dealt == 1:
            return math.perm(7, 6) * (6 if self.held else 1)
        return math.perm(7, 7 - self.dealt) * math.perm(7, self.dealt - 1) * holds

    def keys(self) -> list[Key]:
        """Every position of the table."""
        if self.dealt == 1:  # each order of the bag's last six, each of them held (or none)
            orders = [order[1:] for order in itertools.permutations(ALL_PIECES)]
            if not self.held:
                return [(None, shown) for shown in orders]
            return [(held, shown) for shown in orders for held in shown]
        holds: list[Piece | None] = list(ALL_PIECES) if self.held else [None]
        return [  # the bag's last 7 - dealt in order, the next bag's first dealt - 1, any piece held (or none)
            (held, (*last, *first))
            for last in itertools.permutations(ALL_PIECES, 7 - self.dealt)
            for first in itertools.permutations(ALL_PIECES, self.dealt - 1)
            for held in holds
        ]

    def state(self, shown: tuple[Piece, ...]) -> tuple[Piece, ...]:
        """The bag's pieces not dealt after the previews (the 7-bag randomizer's state)."""
        return tuple(piece for piece in ALL_PIECES if piece not in shown[7 - self.dealt :]) if self.dealt > 1 else ()

    def holds(self, key: Key, state: tuple) -> bool:
        """Is this position (the randomizer's state after the previews) one of the table's?"""
        held, shown = key
        if (held is not None) != self.held:
            return False
        if self.dealt == 1:  # (the bag's missing piece held is the opening table's question)
            return not state and len(set(shown)) == 6 and (held is None or held in shown)
        last, first = shown[: 7 - self.dealt], shown[7 - self.dealt :]
        return (
            len(set(last)) == len(last) and len(set(first)) == len(first) and sorted(state) == sorted(self.state(shown))
        )


LATER_START = Kind(1, True, FUTURES)
TWO_DEALT = Kind(2, True, 360)
LATER_START_EMPTY = Kind(1, False, 2520)
TWO_DEALT_EMPTY = Kind(2, False, 720)
THREE_DEALT = Kind(3, True, 120)
FOUR_DEALT = Kind(4, True, 24)
BAG_START = Kind(7, True, 210)
FIVE_DEALT = Kind(5, True, 42)
SIX_DEALT = Kind(6, True, 84)
FIVE_DEALT_EMPTY = Kind(5, False, 252)
SIX_DEALT_EMPTY = Kind(6, False, 420)
THREE_DEALT_EMPTY = Kind(3, False, 120)
FOUR_DEALT_EMPTY = Kind(4, False, 168)
KINDS = (
    LATER_START,
    TWO_DEALT,
    LATER_START_EMPTY,
    TWO_DEALT_EMPTY,
    THREE_DEALT,
    FOUR_DEALT,
    BAG_START,
    FIVE_DEALT,
    SIX_DEALT,
    FIVE_DEALT_EMPTY,
    SIX_DEALT_EMPTY,
    THREE_DEALT_EMPTY,
    FOUR_DEALT_EMPTY,
)


def keys(kind: Kind = LATER_START) -> list[Key]:
    return kind.keys()


def path(name: str, kind: Kind = LATER_START) -> Path:
    return Path(__file__).with_name(f"{kind.name}_{name}.txt.gz")


def format_line(key: Key, entry: Entry) -> str:
    """A table line (the answers written as the opening table's)."""
    held, shown = key
    return f"{_held_text(held)} {order_text(shown)} {answer_text(entry[0])} {answer_text(entry[1])}"


def _held_text(held: Piece | None) -> str:
    return "-" if held is None else held.name


@lru_cache(maxsize=1 << 16)
def _answer(count: str, piece: str, mask: str, futures: int) -> Answer | None:
    """parse_answer, each answer made once (an Answer is frozen): a table's lines repeat few answers (the four-dealt
    table's 617,400 hold 90), and making one costs ~20 times a cache lookup."""
    return parse_answer(count, piece, mask, futures=futures)


def parse_line(line: str, futures: int = FUTURES) -> tuple[Key, Entry]:
    held, shown, *fields = line.split()
    first = _answer(*fields[:3], futures) if len(fields) == 6 else None
    if first is None:
        raise ValueError(f"later-start table line without its answers: {line!r}")
    pressed = _answer(*fields[3:6], futures)
    return (None if held == "-" else PIECE_NAMED[held], tuple(PIECE_NAMED[c] for c in shown)), (first, pressed)


def mirrored_key(key: Key) -> Key:
    """The position reflected left to right (J and L, S and Z swap)."""
    held, shown = key
    return (held and held.mirrored), tuple(piece.mirrored for piece in shown)


def mirrored_entry(entry: Entry) -> Entry:
    """The entry of the reflected position under rules whose placements reflect (Rules.mirror_symmetric): the
    futures reflect one to one, so the counts are the same, and the placements reflect."""

    def reflect(answer: Answer) -> Answer:
        return replace(answer, piece=answer.piece.mirrored, mask=mirrored(answer.mask, LINES))

    first, pressed = entry
    return reflect(first), pressed and reflect(pressed)


def counts(entry: Entry) -> tuple[int, int]:
    """The futures kept as the position is and with hold pressed: what two makings of a table must agree on (the
    placements tying for the best may differ)."""
    first, pressed = entry
    return first.count, (pressed or first).count


def write_table(out: Path, rules: Rules, lines: list[str], kind: Kind = LATER_START) -> None:
    header = [
        f"# The live PC chance at {kind.what} (ai/pc/later_start.py).",
        "# Made by scripts/make_later_start_table.py; do not edit by hand.",
        f"# rules {rules_key(rules)}",
    ]
    write_whole(out, gzip.compress(("\n".join(header + sorted(lines)) + "\n").encode(), mtime=0))


def _body(source: Path, rules: Rules) -> bytes | None:
    """A table file's lines after its header (sorted, as written), or None when it is missing, unreadable or made
    under other rules than `rules` (then these positions are searched, as any other)."""
    try:
        text = gzip.decompress(source.read_bytes())
    except FileNotFoundError:  # not made for these rules (yet): every such position is searched
        return None
    except (OSError, EOFError, zlib.error) as error:
        _log.warning("later-start table %s not used: %s", source.name, error)
        return None
    body = 0
    while text.startswith(b"#", body):  # the header: comments, one naming the rules
        body = text.find(b"\n", body) + 1 or len(text)
    if f"\n# rules {rules_key(rules)}\n".encode() not in b"\n" + text[:body]:
        return None
    return text[body:]


def load_table(source: Path, rules: Rules, kind: Kind = LATER_START) -> dict[Key, Entry]:
    """A table file's entries, parsed whole (the scripts' and the tests' view), or {} (see `_body`)."""
    body = _body(source, rules)
    try:
        return dict(parse_line(line, kind.futures) for line in (body or b"").decode().splitlines() if line)
    except (ValueError, KeyError, TypeError, UnicodeDecodeError) as error:
        _log.warning("later-start table %s not used: %s", source.name, error)
        return {}


class Lines:
    """A table file's lines kept as bytes and found by bisection on their key (the lines are sorted and every key
    is as long), each parsed when asked: as a dict of entries the later-start table took ~450 bytes an entry
    (13.5 MB), the two-dealt one would take ~55 MB and ~0.5 s to read."""

    def __init__(self, body: bytes, kind: Kind, name: str = "") -> None:
        self.body, self.kind, self.name = body, kind, name
        starts = array("I", [0] if body else [])
        at = body.find(b"\n")
        while at != -1 and at + 1 < len(body):
            starts.append(at + 1)
            at = body.find(b"\n", at + 1)
        self.starts = starts

    def __len__(self) -> int:
        return len(self.starts)

    def get(self, key: Key) -> Entry | None:
        held, shown = key
        want = f"{_held_text(held)} {order_text(shown)} ".encode()
        body, starts, size = self.body, self.starts, len(want)
        lo, hi = 0, len(starts)
        while lo < hi:
            mid = (lo + hi) // 2
            if body[starts[mid] : starts[mid] + size] < want:
                lo = mid + 1
            else:
                hi = mid
        if lo == len(starts) or body[starts[lo] : starts[lo] + size] != want:
            return None
        end = body.find(b"\n", starts[lo])
        line = body[starts[lo] : end if end != -1 else len(body)].decode()
        try:
            return parse_line(line, self.kind.futures)[1]
        except (ValueError, KeyError) as error:  # a damaged line: that position is searched
            _log.warning("later-start table %s: line not used: %s", self.name, error)
            return None


_READING = threading.Lock()  # a question asked while the worker's warm-up reads the table waits for the read


def _table(rules: Rules, kind: Kind) -> Lines:
    name = table_name(rules)
    if name is None:
        return Lines(b"", kind)
    with _READING:
        return _read(name, kind)


@cache
def _read(name: str, kind: Kind) -> Lines:
    source = path(name, kind)
    return Lines(_body(source, RULES[name]) or b"", kind, source.name)


def load(rules: Rules) -> int:
    """Read the tables of these rules now, so the first later PC does not pay for it (up to ~0.15 s a kind: the
    three- and four-dealt ones); for a kind these rules have no whole table of, the wider rules' (opening.wider_rules),
    which bounds the search there (ai.pc.chance.pc_chance's `ceiling`). The entries read."""
    wider = wider_rules(rules)
    read = 0
    for kind in KINDS:
        own = len(_table(rules, kind))
        read += own
        if own < kind.size and wider is not None:  # (a table made part way: the rest is bounded)
            read += len(_table(wider, kind))
    return read


def lookup(
    shown: tuple[Piece, ...], hold: Piece | None, rules: Rules, hold_spent: bool, state: tuple = ()
) -> Answer | None:
    """The table's answer at an empty field (ai.pc.opening.lookup checked the rest: 4 lines, 7-bag, soft drop, hold
    used), or None. `shown`: the piece in play and five previews; `state`: the bag's pieces not dealt after them;
    with `hold_spent`, hold was pressed there: the piece in play came from hold, and the key is the position
    before."""
    held: Piece | None = hold
    if hold_spent:
        if hold is None:
            return None
        held, shown = shown[0], (hold, *shown[1:])
    kind = next((kind for kind in KINDS if kind.holds((held, shown), tuple(state))), None)
    if kind is None:
        return None
    entry = _table(rules, kind).get((held, shown))
    if entry is None:
        return None
    first, pressed = entry
    return pressed if hold_spent and pressed is not None else first


def compute(key: Key, rules: Rules, kind: Kind = LATER_START, wider_bound: bool = True) -> Entry:
    """A position's entry, searched (ai.pc.chance.pc_chance without these rules' tables; with `wider_bound`, bounded
    by the wider rules' table where there is one, which ends the search as soon as a placement reaches that count:
    the same counts, sooner)."""
    from ai.pc.chance import pc_chance
    from game.randomizer import make_randomizer

    held, shown = key
    bag = make_randomizer("7bag", 0)
    state, futures = kind.state(shown), kind.futures

    def answer(current: Piece, hold: Piece | None, spent: bool) -> Answer:
        result = pc_chance(
            0,
            current,
            list(shown[1:]),
            hold,
            state,
            bag,
            rules,
            LINES,
            hold_spent=spent,
            table=False,
            wider_bound=wider_bound,
        )
        if result.approximate or result.futures != futures:
            where = f"{_held_text(held)} held, {order_text(shown)} shown"
            raise RuntimeError(f"{where}: no exact chance over {futures} futures")
        best = result.best_placement
        if best is None:
            return Answer(0, current, 0, futures)
        return Answer(round(result.chance * futures), best.piece, best.mask, futures)

    first = answer(shown[0], held, False)
    if held is None or not first.count or first.piece == held:  # (hold empty: pressing it is another position)
        return first, None
    return first, answer(held, shown[0], True)


GroupKey = tuple[Piece, tuple[Piece, ...]]  # the held piece, the bag's last 7 - dealt pieces (sorted)


def grouped(kind: Kind) -> bool:
    """Can `solve_group` make this kind's entries: a piece held, two to four of the bag dealt (the futures within
    the next bag, and any piece may be held)."""
    return kind.held and 2 <= kind.dealt <= 4


def groups(kind: Kind) -> list[GroupKey]:
    """The kind's positions in groups that share their futures' pieces: the held piece and which pieces the bag has
    left (their orders and the next bag's first pieces shown make the group's positions)."""
    return [(held, last) for held in ALL_PIECES for last in itertools.combinations(ALL_PIECES, 7 - kind.dealt)]


def group_of(key: Key, kind: Kind) -> GroupKey:
    held, shown = key
    assert held is not None
    return held, tuple(sorted(shown[: 7 - kind.dealt]))


def mirrored_group(group: GroupKey) -> GroupKey:
    held, last = group
    return held.mirrored, tuple(sorted(piece.mirrored for piece in last))


def solve_group(group: GroupKey, rules: Rules, kind: Kind) -> dict[Key, Entry]:
    """Every entry of a group at once, the counts `compute` finds one by one (tests compare them): one trie over
    all the group's futures, whose positions share the nodes below the pieces they have in common, and one memo
    (ai.pc.seconds.best_per_order). Under NRS with 180 turns, CPU time a position, the group against a few of its
    positions searched one by one: two-dealt, L held with IJLSZ left, 1.1 s against a mean 5.6 s (9 sampled);
    with Z and IJSTZ, all of whose positions keep every future, 0.14 s against 0.15 s (6); three-dealt, S held
    with IJSZ left, 0.37 s against 3.3 s (5). Bounded by the wider rules' table where it has the group, as
    `compute` is."""
    from ai.pc.percent import Trie
    from ai.pc.seconds import best_per_order
    from game.randomizer import make_randomizer

    if not grouped(kind):
        raise ValueError(f"{kind.name} positions are not made in groups")
    held, last = group
    bag = make_randomizer("7bag", 0)
    # the futures after the next bag's first pieces shown, as the randomizer deals them (as pc_chance asks it)
    futures = {
        first: [future for future, _ in bag.sequences(4, kind.state((*last, *first)))]
        for first in itertools.permutations(ALL_PIECES, kind.dealt - 1)
    }
    assert all(len(after) == kind.futures for after in futures.values())
    sequences = [
        (*order, *first, *future)
        for order in itertools.permutations(last)
        for first, after in futures.items()
        for future in after
    ]
    wider = wider_rules(rules)
    above = Lines(b"", kind) if wider is None else _table(wider, kind)

    def bounds(shown_orders: list[tuple[Piece, ...]], pressed: bool) -> dict[tuple[Piece, ...], Answer]:
        out = {}
        for shown in shown_orders:
            entry = above.get((held, shown))
            if entry is not None:
                out[shown] = (entry[1] or entry[0]) if pressed else entry[0]
        return out

    trie = Trie(sequences)
    orders = sorted({sequence[:6] for sequence in sequences})
    firsts = best_per_order(rules, None, 0, trie, held, trie.root, 0, kind.futures, bounds=bounds(orders, False))
    # hold pressed: the held piece in play, the one in play held (see the module docstring's `- - -`)
    wanted = {shown for shown, answer in firsts.items() if answer.count and answer.piece != held}
    pressed: dict[tuple[Piece, ...], Answer] = {}
    if wanted:
        trie = Trie([sequence for sequence in sequences if sequence[:6] in wanted])
        pressed = best_per_order(
            rules, None, 0, trie, held, trie.root, 0, kind.futures, bounds=bounds(sorted(wanted), True), swapped=True
        )
    return {(held, shown): (answer, pressed.get(shown)) for shown, answer in firsts.items()}
