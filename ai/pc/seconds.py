"""The second-position tables: the live PC chance after any first placement of a 7-bag game, looked up.

A player who opens their own way meets, at the second piece, a position the opening tables (ai.pc.opening) do not
hold: one piece on the empty field, hold empty, the rest of the first bag shown (the piece in play and five
previews) and the four pieces after it not (840 futures). Searched, these take ~0.5 s, up to ~1 s (bench/pc.py
--groups firsts). There are 162 first placements and, for each, 720 orders of the rest of the bag (SECONDS).
A player who holds the first piece and places the second their own way meets the other kind (HELD): the first
piece in hold, the second on the field, the bag's other five shown and then the next bag's first piece, whose
next three are not (120 futures; searched ~0.3 s median, bench/pc.py --groups held). There are 972 such groups
(held piece, piece placed, its cells) and, for each, 840 orders of the pieces shown. A player who places the first
piece their own way and then presses hold meets the third kind (HOLDING): the same pieces and futures, but hold
is spent, so the next placement is the piece in play's (searched ~0.13 s median, often over 0.2 s). A later PC whose
first piece is a bag's first, with a piece held from the bag before (the 3rd PC of the loop), meets the fourth kind
at its second piece (BOUNDARY): that piece placed, or the held one placed and the bag's first held, the bag's six
others shown and the next bag's first three not (210 futures; searched up to ~0.4 s, the slowest positions of
bench/pc.py --groups spots). There are 1,134 groups (held piece, piece placed, its cells; the two may be the same
piece) and, for each, the orders of the bag less the piece placed and of the bag less the one held (1,440, or 720).
A player who presses hold there meets the fifth kind (BOUNDARY_HOLDING): the held piece comes into play, the one in
play goes to hold, hold is spent. Where the boundary table's best was the held piece's (or no placement made a PC),
that answer stands (ai.pc.opening.lookup), as it does where the piece in play is the held piece's kind; the
others, where its best was the piece in play's (a quarter of the entries under the default rules: 371,641 in 1,015
groups), are this table's, keyed by the position before the press.

`best_per_order` answers all the positions of a group at once: one trie over all their futures (orders with the
same pieces left share their nodes), one memo, and per order the search's own rule: best first by upper bound, a
placement refined by deciding the futures the order's other placements lost first, until the best is decided and no
other can beat it. Sharing makes a position cost ~0.1 s of search instead of ~0.5 s (3.1 CPU hours for the 116,640
second positions of SRS with 180), and ~0.02 s instead of ~0.3 s with hold.
`scripts/make_seconds_table.py [--family NAME]` writes the answers to `<family>_<rules>.txt.gz` beside this module,
groups in the order a player is likeliest to use them (flat on the floor first), and can be stopped and resumed: a
group not in the file is searched live, as any other position.

A line of a table: the group (first piece, or held piece and piece placed, then the cells), the order of the pieces
shown, then how many of the futures keep a PC after the best next placement, and that placement (piece and cells;
hold is pressed when the piece is not the one in play), as in ai.pc.opening.
"""

from __future__ import annotations

import gzip
import itertools
import logging
import threading
import zlib
from array import array
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ai.pc.opening import FUTURES, LINES, RULES, Answer, rules_key, table_name, wider_rules, write_whole
from game.board import Bitboard
from game.pieces import ALL_PIECES, Piece
from game.rules import Rules

_log = logging.getLogger(__name__)

Key = tuple  # the position's group (pieces and cells, see Family), then the order of the six pieces shown


@dataclass(frozen=True)
class Family:
    """One kind of second position. A group is what was played before it: (first piece, its cells) without hold,
    (held piece, piece placed, its cells) with hold pressed at the first piece; an order is the six pieces shown
    then (the piece in play and five previews); each answer counts `futures` equally likely futures."""

    name: str  # the tables' file names: <name>_<rules>.txt.gz
    futures: int
    held: bool  # a piece is in hold: groups start with it
    what: str  # the position, for the tables' header
    hold_spent: bool = False  # hold pressed for the piece in play: the next placement is its own
    whole_bag: bool = False  # the six shown are a bag less the piece placed or less the one held (BOUNDARY)
    # hold pressed with a piece held (BOUNDARY_HOLDING): the held piece is placed next, the one in play kept; a key
    # is the position before the press, and only those whose boundary answer was the piece in play's are stored
    # (the orders `bounds` names)
    swapped: bool = False

    @property
    def group_size(self) -> int:
        """Fields of a group: (held piece,) piece placed, its cells."""
        return 3 if self.held else 2

    def path(self, rules_name: str) -> Path:
        return Path(__file__).with_name(f"{self.name}_{rules_name}.txt.gz")

    def groups(self, rules: Rules) -> list[tuple]:
        """Every group, likeliest first (see first_placements); with hold, each held piece in turn (the same piece
        as the one placed too, when the bag before dealt it)."""
        if not self.held:
            return list(first_placements(rules))
        return [
            (held, piece, mask)
            for piece, mask in first_placements(rules)
            for held in ALL_PIECES
            if held != piece or self.whole_bag
        ]

    def orders(self, group: tuple) -> dict[tuple[Piece, ...], int]:
        """The orders of the pieces shown after `group` -> their rank (sorted, the trie's leaf order)."""
        return _orders(self.whole_bag, *group[: self.group_size - 1])

    def ranks_by_text(self, group: tuple) -> dict[str, int]:
        """`orders` by the orders' text in a table line."""
        return _ranks_by_text(self.whole_bag, *group[: self.group_size - 1])

    def solve(self, rules: Rules, group: tuple) -> dict[tuple[Piece, ...], Answer]:
        if not self.held:
            piece, mask = group
            return solve_first(rules, piece, mask, bounds=self.bounds(rules, group))
        held, piece, mask = group
        if self.whole_bag:
            return solve_boundary(rules, held, piece, mask, self.bounds(rules, group), self.swapped)
        return solve_held(rules, held, piece, mask, self.hold_spent)

    def entries(self, rules: Rules) -> int:
        """The entries of a whole table: every order of every group (swapped: those `bounds` names; that reads the
        boundary table whole)."""
        if self.swapped:
            return sum(len(self.bounds(rules, group)) for group in self.groups(rules))
        return sum(len(self.orders(group)) for group in self.groups(rules))

    def bounds(self, rules: Rules, group: tuple) -> dict[tuple[Piece, ...], Answer]:
        """The wider rules' answers for the group's orders, where their table holds it (ai.pc.opening.wider_rules): each
        bounds the order's count from above, and its placement is tried first. Swapped: exactly the orders such a
        table holds, those whose boundary answer was a PC with the piece in play (the one going to hold), each
        bounded by that count (its placement, which the press rules out, is not tried) or by the wider rules'
        answer where that is lower."""
        wider = wider_rules(rules)
        table = None if wider is None else _table(self, wider)
        above = _answers(table, self, group)
        if not self.swapped:
            return above
        before = _answers(_table(BOUNDARY, rules), BOUNDARY, group)
        if len(before) != len(self.orders(group)):
            raise LookupError(f"{_group_text(group)!r}: the boundary table does not hold this group: make it first")
        held = group[0]
        out: dict[tuple[Piece, ...], Answer] = {}
        for order, answer in before.items():
            if answer.count and answer.piece == order[0] != held:
                wide = above.get(order)
                out[order] = answer if wide is None or wide.count > answer.count else wide
        return out


# no hold: the first piece placed, the other six of the bag shown, the next bag's four pieces not (840 futures)
SECONDS = Family("seconds", FUTURES, False, "after each first placement")
# the first piece held and the second placed: the bag's other five shown, then the next bag's first piece, and
# that bag's next three not (120 futures)
HELD = Family("seconds-held", 120, True, "after the first piece held and the second placed")
# the first piece placed and hold pressed at the second: the same pieces shown, hold spent (120 futures)
HOLDING = Family("seconds-holding", 120, True, "after the first piece placed and hold pressed at the second", True)
# a later PC whose first piece is a bag's first, with a piece in hold (the 3rd PC of the loop, the 10th, ...): that
# piece placed and the one held from before (or the held one placed and the bag's first held), the bag's six others
# shown and its next three not (210 futures; searched up to ~0.4 s, bench/pc.py --groups spots)
BOUNDARY = Family(
    "seconds-boundary", 210, True, "at a later PC whose first piece was a bag's first, a piece held", whole_bag=True
)
# hold pressed at such a position where the boundary table's best was the piece in play's: the held piece placed
# next, the one that was in play kept (210 futures; searched up to ~0.25 s, bench/pc.py --groups spots-hold)
BOUNDARY_HOLDING = Family(
    "seconds-boundary-holding",
    210,
    True,
    "at a later PC's second position, hold pressed where the boundary table's best was the piece in play",
    hold_spent=True,
    whole_bag=True,
    swapped=True,
)
FAMILIES = (SECONDS, HELD, HOLDING, BOUNDARY, BOUNDARY_HOLDING)


def first_placements(rules: Rules) -> list[tuple[Piece, Bitboard]]:
    """Every (piece, cells) a game's first piece can take, likeliest first: fewest empty cells covered (a piece
    flat on the floor covers none), then nearest a wall (openers start at one), then by piece and the generator's
    order. Every piece is as likely to come first, so a table made in part holds each piece's likeliest spots, not
    all of one piece's before the next's."""
    from ai.pc.search import searcher_for

    gen = searcher_for(rules, True).gen
    out = []
    for piece in ALL_PIECES:
        for child in gen.children(0, LINES, piece):
            covered, occupied = 0, []
            for x in range(10):
                column = [(child.mask >> (10 * y + x)) & 1 for y in range(LINES)]
                top = max((y for y in range(LINES) if column[y]), default=-1)
                covered += sum(1 for y in range(top) if not column[y])
                if top >= 0:
                    occupied.append(x)
            wall_gap = min(occupied[0], 9 - occupied[-1])
            out.append((covered, wall_gap, piece, child.mask))
    out.sort(key=lambda item: item[:3])
    return [(piece, mask) for _, _, piece, mask in out]


def solve_first(
    rules: Rules, piece: Piece, mask: Bitboard, bounds: Mapping[tuple[Piece, ...], Answer] | None = None
) -> dict[tuple[Piece, ...], Answer]:
    """The exact chance at the second position after `piece` on `mask`, for every order of the other six pieces
    of the bag (see the module docstring). `bounds`: an upper bound on an order's count (see best_per_order)."""
    from ai.pc.percent import Trie

    rest = [p for p in ALL_PIECES if p != piece]
    futures = list(itertools.permutations(ALL_PIECES, 4))
    trie = Trie([order + future for order in itertools.permutations(rest) for future in futures])
    out: dict[tuple[Piece, ...], Answer] = {}
    for a, node in trie.root.children.items():  # hold empty: the piece in play is the buffer piece (ai.pc.search)
        out.update(best_per_order(rules, piece, mask, trie, a, node, trie.root.offsets[a], FUTURES, bounds=bounds))
    return out


def solve_held(
    rules: Rules, held: Piece, piece: Piece, mask: Bitboard, hold_spent: bool = False
) -> dict[tuple[Piece, ...], Answer]:
    """The exact chance with `held` in hold and `piece` played on `mask` (the first piece held and the second
    placed; or, `hold_spent`, the first placed and hold pressed at the second), for every order of the bag's other
    five pieces and every first piece of the next bag (840 positions of 120 futures each)."""
    from ai.pc.percent import Trie

    rest = [p for p in ALL_PIECES if p not in (held, piece)]
    sequences = [
        order + (next_first, *future)
        for order in itertools.permutations(rest)
        for next_first in ALL_PIECES
        for future in itertools.permutations([p for p in ALL_PIECES if p != next_first], 3)
    ]
    trie = Trie(sequences)
    return best_per_order(rules, piece, mask, trie, held, trie.root, 0, HELD.futures, hold_spent)


def solve_boundary(
    rules: Rules,
    held: Piece,
    piece: Piece,
    mask: Bitboard,
    bounds: Mapping[tuple[Piece, ...], Answer] | None = None,
    pressed: bool = False,
) -> dict[tuple[Piece, ...], Answer]:
    """The exact chance with `held` in hold and `piece` on `mask` at a PC's second position where the bag is shown
    whole: its first piece placed (the six others shown, `held` from the bag before) or held (`piece` was the held
    one: the bag less `held` shown), for every order of the six shown (720 positions, 1,440 when both can be), each
    over the 210 orders of the next bag's first three pieces. `bounds`: an upper bound on an order's count (see
    best_per_order). `pressed`: hold pressed there (BOUNDARY_HOLDING), for the orders `bounds` names only (see
    Family.bounds)."""
    from ai.pc.percent import Trie

    futures = list(itertools.permutations(ALL_PIECES, 3))
    orders = [order for order in _orders(True, held, piece) if not pressed or order in (bounds or {})]
    if not orders:
        return {}
    trie = Trie([order + future for order in orders for future in futures])
    return best_per_order(
        rules, piece, mask, trie, held, trie.root, 0, BOUNDARY.futures, bounds=bounds, swapped=pressed
    )


def _after(gen, piece: Piece | None, mask: Bitboard) -> tuple[Bitboard, int]:
    """The field and its rows after `piece` on `mask` (None: the empty field)."""
    if piece is None:
        return 0, LINES
    (first,) = [child for child in gen.children(0, LINES, piece) if child.mask == mask]
    return first.field, first.h


def best_per_order(
    rules: Rules,
    piece: Piece | None,
    mask: Bitboard,
    trie,
    held: Piece,
    node,
    base: int,
    block: int,
    hold_spent: bool = False,
    bounds: Mapping[tuple[Piece, ...], Answer] | None = None,
    swapped: bool = False,
) -> dict[tuple[Piece, ...], Answer]:
    """The best next placement's count for every position below `node` of `trie` (leaves from `base` in the root's
    numbering) after `piece` on `mask` (None: on the empty field, a later PC's first positions, as
    ai.pc.later_start.solve_group asks), `held` the buffer piece: a position is an order of the six pieces shown,
    its futures the next `block` leaves (`hold_spent`: the next placement is the piece in play's; `swapped` too:
    hold was pressed with `held` in hold, so `held` is in play and the first piece shown is kept). Per position the
    live chance's own rule (best first by upper bound, a placement refined by first deciding the futures the
    position's other placements lost), for all positions at once: one memo, and one trie search per placement and
    round for every position that wants that placement refined. `bounds`: per position, an answer whose count
    bounds its own from above (wider rules'): its placement is tried first, and a placement winning that many
    futures is the best."""
    from ai.pc.percent import TrieSearch
    from ai.pc.search import searcher_for

    gen = searcher_for(rules, True).gen
    field, h = _after(gen, piece, mask)
    search = TrieSearch(gen, True)
    full = (1 << block) - 1
    out: dict[tuple[Piece, ...], Answer] = {}
    for c, sub in node.children.items():
        start = base + node.offsets[c]
        orders = [trie.sequences[start + block * i][:6] for i in range(sub.leaves.bit_count() // block)]
        # the next placement: the buffer piece (c comes next and is kept) or, hold pressed, c (the buffer is kept)
        pairs = ((held, c),) if swapped else ((c, held),) if hold_spent else ((held, c), (c, held))
        options = [(placed, keep, child) for placed, keep in pairs for child in gen.children(field, h, placed)]
        won = [0] * len(options)
        lost = [0] * len(options)
        for o, (_, keep, child) in enumerate(options):
            if child.h == 0:
                won[o] = sub.leaves
            elif not search.viable(child.field, child.h, sub, keep):
                lost[o] = sub.leaves
        lost_anywhere = [0] * len(orders)
        answers: list[tuple[int, int] | None] = [None] * len(orders)
        cap, hint = [block] * len(orders), [-1] * len(orders)
        option_of = {(placed, child.mask): o for o, (placed, _, child) in enumerate(options)}
        for i, order in enumerate(orders):
            above = (bounds or {}).get(order)
            if above is not None:
                cap[i], hint[i] = above.count, option_of.get((above.piece, above.mask), -1)
        while None in answers:
            wanted = [0] * len(options)
            for i in range(len(orders)):
                if answers[i] is not None:
                    continue
                shift = block * i
                # the placement with the highest upper bound (then lower bound, the bound's placement, the
                # generator's order)
                o = max(
                    range(len(options)),
                    key=lambda o: (
                        min(block - ((lost[o] >> shift) & full).bit_count(), cap[i]),
                        ((won[o] >> shift) & full).bit_count(),
                        o == hint[i],
                        -o,
                    ),
                )
                open_leaves = full & ~(won[o] >> shift) & ~(lost[o] >> shift)
                count = ((won[o] >> shift) & full).bit_count()
                if not open_leaves or count >= cap[i]:  # decided (at the bound the rest is lost): none does better
                    answers[i] = (count, o)
                    continue
                wanted[o] |= (open_leaves & lost_anywhere[i] or open_leaves) << shift
            for o, want in enumerate(wanted):
                if want:
                    _, keep, child = options[o]
                    got = search.run(child.field, child.h, keep, sub, want) & want
                    won[o] |= got
                    lost[o] |= want & ~got
                    for i in range(len(orders)):
                        lost_anywhere[i] |= ((want & ~got) >> (block * i)) & full
        for order, answer in zip(orders, answers):
            assert answer is not None
            count, o = answer
            placed, _, child = options[o]
            out[order] = Answer(count, placed, child.mask, block) if count else Answer(0, order[0], 0, block)
    return out


def format_line(*key_and_answer) -> str:
    """A table line: the group's pieces and cells, the order shown, the count, the best placement (see Family)."""
    *pieces, mask, order, answer = key_and_answer
    before = "".join(f"{p.name} " for p in pieces)
    return f"{before}{mask:#x} {''.join(p.name for p in order)} {answer.count} {answer.piece.name} {answer.mask:#x}"


def header(rules: Rules, family: Family = SECONDS) -> list[str]:
    return [
        f"# The live PC chance at a 7-bag game's second position, {family.what} (ai/pc/seconds.py).",
        "# Made by scripts/make_seconds_table.py; do not edit by hand.",
        f"# rules {rules_key(rules)}",
    ]


def write_table(path: Path, rules: Rules, lines: list[str], family: Family = SECONDS) -> None:
    """Write a table, lines sorted (Table finds a group by bisection), replacing the old one whole (write_whole)."""
    write_whole(path, gzip.compress(("\n".join(header(rules, family) + sorted(lines)) + "\n").encode()))


_COUNT_BITS, _PIECE_BITS = 10, 3  # an answer packed in one int: count, then piece, then cells
_PIECE_OF = {int(p): p for p in ALL_PIECES}  # (Piece(value) is slow, and a table holds millions)


def _unpack(packed: int, futures: int) -> Answer:
    count = packed & ((1 << _COUNT_BITS) - 1)
    placed = _PIECE_OF[(packed >> _COUNT_BITS) & ((1 << _PIECE_BITS) - 1)]
    return Answer(count, placed, packed >> (_COUNT_BITS + _PIECE_BITS), futures)


@cache
def _orders(whole_bag: bool, *before: Piece) -> dict[tuple[Piece, ...], int]:
    """The orders of the pieces shown after `before` was played -> their place among them, sorted. One piece
    before: the other six of the bag; two (held, placed): the other five, then any first piece of the next bag;
    `whole_bag`: the bag less the piece placed, or less the one held."""
    if whole_bag:
        orders = {order for missing in before for order in itertools.permutations(set(ALL_PIECES) - {missing})}
    elif len(before) == 1:
        orders = set(itertools.permutations(p for p in ALL_PIECES if p not in before))
    else:
        rest = [p for p in ALL_PIECES if p not in before]
        orders = {order + (p,) for order in itertools.permutations(rest) for p in ALL_PIECES}
    return {order: i for i, order in enumerate(sorted(orders))}


@cache
def _ranks_by_text(whole_bag: bool, *before: Piece) -> dict[str, int]:
    """_orders by the orders' text in a table line."""
    return {"".join(p.name for p in order): at for order, at in _orders(whole_bag, *before).items()}


class Table(Mapping[Key, Answer]):
    """A table's entries, compact: per group, the answers of its orders packed in an array of int64 (~6 KB a group
    instead of ~250 KB of tuples and Answer objects). Read from a file (load_table), a group is parsed when first
    asked (~1 ms): the file's lines are sorted, so a group's lines are found by bisection in its text. A worker
    just started used to parse every line before its first answer (~2 s with the held table); reading a whole
    table with hold (816,480 lines) takes ~0.15 s and keeps its text in memory (28 MB), parsing it all ~0.6 s."""

    def __init__(self, family: Family = SECONDS, text: bytes = b"", start: int = 0) -> None:
        self.family = family
        self._groups: dict[tuple, array] = {}
        # a file's text and where its entry lines (sorted) start; groups not parsed yet are read from it (_row)
        self._text, self._start = text, start
        self._dropped: set[bytes] = set()  # the text of groups found damaged
        # each answer made once (an Answer is frozen): a table's ~1.5 million entries hold ~17,000 distinct ones, and
        # making an Answer costs ~20 times a dict lookup (a boundary table's every answer: ~6 -> ~2.4 s)
        self._answers: dict[int, Answer] = {}
        body = len(text) - start
        self._size = text.count(b"\n", start) + (body > 0 and not text.endswith(b"\n"))  # one entry a line

    def add_lines(self, lines: list[str]) -> None:
        """Add lines (see format_line; comments and blank lines skipped)."""
        self._size += self._parse(lines)

    def _parse(self, lines: list[str]) -> int:
        """Parse lines into their groups' rows; the entries new to the table. A group's text is parsed once and its
        orders are looked up by their text, with no Answer made per line."""
        piece_bits = {p.name: int(p) << _COUNT_BITS for p in ALL_PIECES}  # plain ints: IntEnum arithmetic is slow
        shift = _COUNT_BITS + _PIECE_BITS
        by_text: dict[str, tuple[array, dict[str, int]]] = {}
        size = 0
        for line in lines:
            if not line or line[0] == "#":
                continue
            before, order, count, best, best_mask = line.rsplit(" ", 4)
            known = by_text.get(before)
            if known is None:
                group_text = before.split()
                if len(group_text) != self.family.group_size:
                    raise ValueError(f"not a {self.family.name} table line: {line!r}")
                group = _group_of(group_text)
                rank_of = self.family.ranks_by_text(group)
                row = self._groups.setdefault(group, array("q", [-1] * len(rank_of)))
                known = by_text[before] = (row, rank_of)
            row, rank_of = known
            at = rank_of[order]
            size += row[at] < 0
            row[at] = int(count) | piece_bits[best] | int(best_mask, 16) << shift
        return size

    def _row(self, group: tuple) -> array | None:
        row = self._groups.get(group)
        if row is None and self._text:
            self._parse_text(_group_lines(self._text, _group_text(group), self._start))
            row = self._groups.get(group)
        return row

    def _parse_text(self, chunk: bytes) -> None:
        """Parse one group's lines of the file; a damaged group is dropped (and searched live), the others kept."""
        before = _line_group(chunk, 0)
        if not chunk or before in self._dropped:
            return
        try:
            self._parse(chunk.decode("ascii").splitlines())
        except (ValueError, KeyError) as error:  # (UnicodeDecodeError is a ValueError)
            self._dropped.add(before)
            _log.warning("%s table: group %r not used: %s", self.family.name, before, error)
            self._size -= chunk.count(b"\n") + (not chunk.endswith(b"\n"))
            try:  # its lines before the damaged one were parsed
                self._groups.pop(_group_of(before.decode("ascii").split()), None)
            except (KeyError, ValueError):  # the group's own text is damaged: nothing of it was parsed
                pass

    def _parse_all(self) -> None:
        if not self._text:
            return
        text, self._text = self._text, b""
        start = self._start
        while start < len(text):  # group by group, each line range found as _row finds it
            prefix = _line_group(text, start) + b" "
            chunk = _group_lines(text, prefix, start)
            self._parse_text(chunk)
            start += len(chunk)

    def __getitem__(self, key: Key) -> Answer:
        *group, order = key
        row = self._row(tuple(group))
        if row is None:
            raise KeyError(key)
        at = self.family.orders(tuple(group)).get(order)
        if at is None or row[at] < 0:
            raise KeyError(key)
        return self._answer(row[at])

    def _answer(self, packed: int) -> Answer:
        answer = self._answers.get(packed)
        if answer is None:
            answer = self._answers[packed] = _unpack(packed, self.family.futures)
        return answer

    def answers(self, group: tuple) -> dict[tuple[Piece, ...], Answer]:
        """The group's entries by order (none where the table does not hold it): its row read once, not a key
        built and looked up per order (a whole table's twice as fast, and Family.bounds's)."""
        row = self._row(group)
        if row is None:
            return {}
        made, answer = self._answers, self._answer  # (this loop reads every entry of a table: kept lean)
        return {
            order: made.get(packed) or answer(packed)
            for order, at in self.family.orders(group).items()
            if (packed := row[at]) >= 0
        }

    def groups_held(self) -> Iterator[tuple]:
        """Every group the table holds (the whole file parsed first)."""
        self._parse_all()
        return iter(list(self._groups))

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Key]:
        self._parse_all()
        for group, row in self._groups.items():
            for order, at in self.family.orders(group).items():
                if row[at] >= 0:
                    yield (*group, order)


def _answers(table: Mapping[Key, Answer] | None, family: Family, group: tuple) -> dict[tuple[Piece, ...], Answer]:
    """A table's answers for a group's orders: a Table's row read once, another mapping's (a test's) key by key."""
    if not table:
        return {}
    if isinstance(table, Table):
        return table.answers(group)
    found = {order: table.get((*group, order)) for order in family.orders(group)}
    return {order: answer for order, answer in found.items() if answer is not None}


def _group_of(group_text: list[str]) -> tuple:
    """A group from its text in a table line, split (see format_line)."""
    *names, mask = group_text
    return (*(Piece[name] for name in names), int(mask, 16))


def _line_group(text: bytes, at: int) -> bytes:
    """The group's text of the line of `text` starting at `at`: the line less its order and answer (format_line)."""
    return text[at : text.find(b"\n", at) + 1 or len(text)].rstrip(b"\n").rsplit(b" ", 4)[0]


def _group_text(group: tuple) -> bytes:
    *pieces, mask = group
    return ("".join(f"{p.name} " for p in pieces) + f"{mask:#x} ").encode("ascii")


def _group_lines(text: bytes, prefix: bytes, lo: int) -> bytes:
    """The lines of `text`, sorted from `lo` on, that start with `prefix` (a group's text and a space): they are
    contiguous, from the first line not below `prefix` to the first not below it with its space raised to "!"."""
    start = _first_line_from(text, prefix, lo)
    end = _first_line_from(text, prefix[:-1] + b"!", start)
    return text[start:end]


def _first_line_from(text: bytes, key: bytes, lo: int = 0) -> int:
    """Where the first line of sorted `text` not below `key` starts, from `lo` (a line's start); len(text): none."""
    hi = len(text)
    while lo < hi:  # lines before lo are below key; the line at hi, if any, is not
        mid = (lo + hi) // 2
        start = text.rfind(b"\n", lo, mid) + 1 or lo
        end = text.find(b"\n", mid, hi) + 1 or hi
        if text[start:end].rstrip(b"\n") < key:
            lo = end
        else:
            hi = start
    return lo


def load_table(path: Path, rules: Rules, family: Family = SECONDS) -> Table:
    """The entries of a table file; empty when it is missing, unreadable, of the other kind or made under other
    rules. The file is read at once (~0.15 s for a table with hold) and its groups parsed when first asked. It is
    decompressed in one buffer, kept as bytes: read as text, the copies on the way doubled the worker's memory."""
    try:
        text = gzip.decompress(path.read_bytes())
    except FileNotFoundError:  # not made for these rules (yet): every such position is searched
        return Table(family)
    except (OSError, EOFError, zlib.error) as error:
        _log.warning("second-position table %s not used: %s", path.name, error)
        return Table(family)
    body = 0
    while text.startswith(b"#", body):  # the header: comments, one naming the rules
        body = text.find(b"\n", body) + 1 or len(text)
    if f"\n# rules {rules_key(rules)}\n".encode() not in b"\n" + text[:body]:
        return Table(family)
    first = _line_group(text, body)
    if first.strip() and len(first.split()) != family.group_size:
        _log.warning("second-position table %s not used: not a %s table", path.name, family.name)
        return Table(family)
    return Table(family, text, body)


# one lock per table, held while it is read
_READING = {(family.name, name): threading.Lock() for family in FAMILIES for name in RULES}


def _table(family: Family, rules: Rules) -> Mapping[Key, Answer] | None:
    """The shipped table of this kind for these rules, or for rules with the same placements
    (ai.pc.opening.table_name; None: none is made for them), read on first use (~0.02 s for a table without hold,
    ~0.15 s with hold; its groups are parsed when asked, see Table). A question asked while another thread reads it
    (the worker's warm-up, just started) waits for the read."""
    name = table_name(rules)
    if name is None:
        return None
    with _READING[family.name, name]:
        return _read(family, name)


@cache
def _read(family: Family, name: str) -> Table:
    return load_table(family.path(name), RULES[name], family)


def load_all(rules: Rules | None = None) -> int:
    """Read the shipped tables now, those without hold first (the first a player meets); the entries read.
    `rules`: only that rule set's (a worker holds the tables of the rules it plays; another set's are read when
    first asked, ~0.4 s once), and for a kind of table it has not made whole (or not at all), the wider rules'
    (ai.pc.opening.wider_rules), which bounds the search at the groups it lacks; None: every rule set's."""
    if rules is None:
        return sum(len(_table(family, each) or ()) for family in FAMILIES for each in RULES.values())
    wider = wider_rules(rules)
    read = 0
    for family in FAMILIES:
        own = len(_table(family, rules) or ())
        read += own
        if wider is not None and wants_wider(family, rules, own):
            read += len(_table(family, wider) or ())
    return read


def wants_wider(family: Family, rules: Rules, own: int) -> bool:
    """Whether the wider rules' table of this kind is read beside these rules' own of `own` entries: when the own
    is not whole. (The swapped kind's whole count needs the boundary table parsed whole, ~8 s: only an empty one
    counts as not whole.)"""
    return not own if family.swapped else own < family.entries(rules)


def first_placement_worth(rules: Rules) -> dict[tuple[Piece, Bitboard], float]:
    """Each first placement on an empty field (piece, cells) -> the futures it keeps on average: the mean count of
    its group in the table after a first placement, over the 720 orders of the rest of the bag (these rules' table,
    else the wider rules'; {} without either). The live chance tries the likeliest of an empty field's placements
    first with it (ai.pc.chance.pc_chance): an order only, so the chance is the same, but where one placement wins
    every future, trying it first ends the search early. Read whole on first use (~0.2-0.6 s): the worker's
    warm-up does that (ai.pc.api.warm_up)."""
    name = table_name(rules)
    if name is None or not _table(SECONDS, rules):
        wider = wider_rules(rules)
        name = None if wider is None else table_name(wider)
    return {} if name is None else _worth(name)


@cache
def _worth(name: str) -> dict[tuple[Piece, Bitboard], float]:
    table = _table(SECONDS, RULES[name])
    worth: dict[tuple[Piece, Bitboard], float] = {}
    if not isinstance(table, Table):
        return worth
    for group in SECONDS.groups(RULES[name]):
        answers = table.answers(group)
        if answers:
            worth[group] = sum(answer.count for answer in answers.values()) / len(answers)
    return worth


def lookup(bits: Bitboard, placed: Piece, shown: tuple[Piece, ...], rules: Rules) -> Answer | None:
    """The table's answer at a second position: `bits` the cells of the first piece `placed`, `shown` the piece in
    play and the five previews, the bag's six other pieces, with the bag now empty (ai.pc.opening.lookup checked
    the rest of the question: 4 lines, 7-bag, soft drop, hold empty and not pressed)."""
    table = _table(SECONDS, rules)
    if not table or bits.bit_count() != 4:
        return None
    return table.get((placed, bits, shown))


def lookup_boundary(
    bits: Bitboard, held: Piece, shown: tuple[Piece, ...], rules: Rules, pressed: bool = False
) -> Answer | None:
    """The table's answer at a later PC's second position with `held` in hold and one piece on the field (`bits`
    its cells), `shown` the piece in play and five previews, the bag's six others, with the bag now empty: its
    seventh was placed or is the one held (ai.pc.opening.lookup checked the rest of the question: 4 lines, 7-bag,
    soft drop, hold not pressed; `pressed`: hold pressed there, this the position before the press)."""
    table = _table(BOUNDARY_HOLDING if pressed else BOUNDARY, rules)
    if not table or bits.bit_count() != 4 or len(set(shown)) != 6:
        return None
    (missing,) = set(ALL_PIECES) - set(shown)
    # the piece on the field is known by its cells only: a group is (held, placed, cells), so each piece is tried
    for placed in (missing,) if missing != held else ALL_PIECES:
        answer = table.get((held, placed, bits, shown))
        if answer is not None:
            return answer
    return None


def lookup_held(
    bits: Bitboard, held: Piece, shown: tuple[Piece, ...], randomizer_state: tuple, rules: Rules, hold_spent: bool
) -> Answer | None:
    """The table's answer with a piece in hold and one on the field (the first held and the second placed; or,
    `hold_spent`, the first placed and hold pressed at the second): `bits` its cells, `shown` the piece in play and
    five previews (the bag's five others, then the next bag's first piece), the next bag's six others left in it
    (ai.pc.opening.lookup checked the rest: 4 lines, 7-bag, soft drop)."""
    table = _table(HOLDING if hold_spent else HELD, rules)
    if not table or bits.bit_count() != 4:
        return None
    this_bag = {held, *shown[:5]}
    if len(this_bag) != 6 or sorted(randomizer_state) != sorted(set(ALL_PIECES) - {shown[5]}):
        return None
    (placed,) = set(ALL_PIECES) - this_bag
    return table.get((held, placed, bits, shown))
