"""The second-position tables: the live PC chance after any first placement of a 7-bag game, looked up.

A player who opens their own way meets, at the second piece, a position the opening tables (ai.pc.opening) do not
hold: one piece on the empty field, hold empty, the rest of the first bag shown (the piece in play and five
previews) and the four pieces after it not (840 futures). Searched, these take ~0.5 s, up to ~1 s (bench/pc.py
--groups firsts). There are 162 first placements and, for each, 720 orders of the rest of the bag.

`solve_first` answers one first placement for all 720 orders at once: one trie over all their futures (orders
with the same pieces left share their nodes), one memo, and per order the search's own rule: best first by upper
bound, a placement refined by deciding the futures the order's other placements lost first, until the best is
decided and no other can beat it. Sharing makes an order cost ~0.1 s of search instead of ~0.5 s (3.1 CPU hours for
the 116,640 of SRS with 180);
`scripts/make_seconds_table.py` writes the answers to `seconds_<rules>.txt.gz` beside this module, first
placements in the order a player is likeliest to use them (flat on the floor first), and can be stopped and
resumed: a first placement not in the file is searched live, as any other position.

A line of the table: the first piece and its cells, the order of the rest of the bag, then how many of the 840
futures keep a PC after the best next placement, and that placement (piece and cells; hold is pressed when the
piece is not the one in play), as in ai.pc.opening.
"""

from __future__ import annotations

import gzip
import itertools
import logging
from array import array
from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path

from ai.pc.opening import FUTURES, LINES, RULES, Answer, rules_key
from game.board import Bitboard
from game.pieces import ALL_PIECES, Piece
from game.rules import Rules

_log = logging.getLogger(__name__)

Key = tuple[Piece, Bitboard, tuple[Piece, ...]]  # first piece, its cells, the order of the other six


def table_path(name: str) -> Path:
    return Path(__file__).with_name(f"seconds_{name}.txt.gz")


def first_placements(rules: Rules) -> list[tuple[Piece, Bitboard]]:
    """Every (piece, cells) a game's first piece can take, likeliest first: fewest empty cells covered (a piece
    flat on the floor covers none), then by piece and the generator's order."""
    from ai.pc.search import searcher_for

    gen = searcher_for(rules, True).gen
    out = []
    for piece in ALL_PIECES:
        for child in gen.children(0, LINES, piece):
            covered = 0
            for x in range(10):
                column = [(child.mask >> (10 * y + x)) & 1 for y in range(LINES)]
                top = max((y for y in range(LINES) if column[y]), default=-1)
                covered += sum(1 for y in range(top) if not column[y])
            out.append((covered, piece, child.mask))
    out.sort(key=lambda item: (item[0], item[1]))
    return [(piece, mask) for _, piece, mask in out]


def solve_first(rules: Rules, piece: Piece, mask: Bitboard) -> dict[tuple[Piece, ...], Answer]:
    """The exact chance at the second position after `piece` on `mask`, for every order of the other six pieces
    of the bag (see the module docstring)."""
    from ai.pc.percent import Trie, TrieSearch
    from ai.pc.search import searcher_for

    gen = searcher_for(rules, True).gen
    rest = [p for p in ALL_PIECES if p != piece]
    futures = list(itertools.permutations(ALL_PIECES, 4))
    trie = Trie([order + future for order in itertools.permutations(rest) for future in futures])
    (first,) = [child for child in gen.children(0, LINES, piece) if child.mask == mask]
    search = TrieSearch(gen, True)
    block = (1 << FUTURES) - 1
    out: dict[tuple[Piece, ...], Answer] = {}
    for a in rest:
        node = trie.root.children[a]
        for b, sub in node.children.items():
            # the orders starting a, b are this node's blocks of FUTURES leaves, in the trie's (sorted) order
            tails = sorted(itertools.permutations([p for p in rest if p not in (a, b)]))
            # the next placement: the piece in play (b comes next) or, hold pressed, the next piece (a is kept)
            options = [
                (placed, keep, child)
                for placed, keep in ((a, b), (b, a))
                for child in gen.children(first.field, first.h, placed)
            ]
            won = [0] * len(options)
            lost = [0] * len(options)
            for o, (_, keep, child) in enumerate(options):
                if not search.viable(child.field, child.h, sub, keep):
                    lost[o] = sub.leaves
            lost_anywhere = [0] * len(tails)
            answers: list[tuple[int, int] | None] = [None] * len(tails)
            while None in answers:
                wanted = [0] * len(options)
                for i in range(len(tails)):
                    if answers[i] is not None:
                        continue
                    shift = FUTURES * i
                    # the placement with the highest upper bound (then lower bound, then the generator's order)
                    o = max(
                        range(len(options)),
                        key=lambda o: (
                            -((lost[o] >> shift) & block).bit_count(),
                            ((won[o] >> shift) & block).bit_count(),
                            -o,
                        ),
                    )
                    open_leaves = block & ~(won[o] >> shift) & ~(lost[o] >> shift)
                    if not open_leaves:  # decided, and no other placement can do better
                        answers[i] = (((won[o] >> shift) & block).bit_count(), o)
                        continue
                    wanted[o] |= (open_leaves & lost_anywhere[i] or open_leaves) << shift
                for o, want in enumerate(wanted):
                    if want:
                        _, keep, child = options[o]
                        got = search.run(child.field, child.h, keep, sub, want) & want
                        won[o] |= got
                        lost[o] |= want & ~got
                        for i in range(len(tails)):
                            lost_anywhere[i] |= ((want & ~got) >> (FUTURES * i)) & block
            for tail, answer in zip(tails, answers):
                assert answer is not None
                count, o = answer
                placed, _, child = options[o]
                out[(a, b, *tail)] = Answer(count, placed, child.mask) if count else Answer(0, a, 0)
    return out


def format_line(piece: Piece, mask: Bitboard, order: tuple[Piece, ...], answer: Answer) -> str:
    order_text = "".join(p.name for p in order)
    return f"{piece.name} {mask:#x} {order_text} {answer.count} {answer.piece.name} {answer.mask:#x}"


def parse_line(line: str) -> tuple[Key, Answer]:
    piece, mask, order, count, best, best_mask = line.split()
    key = (Piece[piece], int(mask, 16), tuple(Piece[c] for c in order))
    return key, Answer(int(count), Piece[best], int(best_mask, 16))


def header(rules: Rules) -> list[str]:
    return [
        "# The live PC chance at a 7-bag game's second position, after each first placement (ai/pc/seconds.py).",
        "# Made by scripts/make_seconds_table.py; do not edit by hand.",
        f"# rules {rules_key(rules)}",
    ]


def write_table(path: Path, rules: Rules, lines: list[str]) -> None:
    with gzip.open(path, "wt") as out:
        out.write("\n".join(header(rules) + sorted(lines)) + "\n")


_COUNT_BITS, _PIECE_BITS = 10, 3  # an answer packed in one int: count, then piece, then cells


@cache
def _ranks(first: Piece) -> dict[tuple[Piece, ...], int]:
    """Each order of the six pieces other than `first` -> its place among them, sorted."""
    return {order: i for i, order in enumerate(itertools.permutations(p for p in ALL_PIECES if p != first))}


class Table(Mapping[Key, Answer]):
    """A table's entries, compact: per first placement, the answers of its 720 orders packed in an array of int64
    (~6 KB a placement instead of ~250 KB of tuples and Answer objects)."""

    def __init__(self) -> None:
        self._firsts: dict[tuple[Piece, Bitboard], array] = {}
        self._size = 0

    def add(self, key: Key, answer: Answer) -> None:
        piece, mask, order = key
        row = self._firsts.get((piece, mask))
        if row is None:
            row = self._firsts[piece, mask] = array("q", [-1] * 720)
        at = _ranks(piece)[order]
        self._size += row[at] < 0
        row[at] = answer.count | answer.piece << _COUNT_BITS | answer.mask << (_COUNT_BITS + _PIECE_BITS)

    def __getitem__(self, key: Key) -> Answer:
        piece, mask, order = key
        row = self._firsts.get((piece, mask))
        at = _ranks(piece).get(order)
        if row is None or at is None or row[at] < 0:
            raise KeyError(key)
        packed = row[at]
        count = packed & ((1 << _COUNT_BITS) - 1)
        placed = Piece((packed >> _COUNT_BITS) & ((1 << _PIECE_BITS) - 1))
        return Answer(count, placed, packed >> (_COUNT_BITS + _PIECE_BITS))

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Key]:
        for (piece, mask), row in self._firsts.items():
            for order, at in _ranks(piece).items():
                if row[at] >= 0:
                    yield piece, mask, order


def load_table(path: Path, rules: Rules) -> Table:
    """The entries of a table file; empty when it is missing, unreadable or made under other rules."""
    table = Table()
    try:
        with gzip.open(path, "rt") as text:
            lines = text.read().splitlines()
        if f"# rules {rules_key(rules)}" not in lines:
            return table
        for line in lines:
            if line and not line.startswith("#"):
                table.add(*parse_line(line))
    except FileNotFoundError:  # not made for these rules (yet): every second position is searched
        return Table()
    except (OSError, EOFError, ValueError, KeyError) as error:
        _log.warning("second-position table %s not used: %s", path.name, error)
        return Table()
    return table


@cache
def _tables() -> dict[str, Mapping[Key, Answer]]:
    return {rules_key(rules): load_table(table_path(name), rules) for name, rules in RULES.items()}


def load_all() -> int:
    """Read the shipped tables now; the entries read."""
    return sum(len(table) for table in _tables().values())


def lookup(bits: Bitboard, placed: Piece, shown: tuple[Piece, ...], rules: Rules) -> Answer | None:
    """The table's answer at a second position: `bits` the cells of the first piece `placed`, `shown` the piece in
    play and the five previews, the bag's six other pieces, with the bag now empty (ai.pc.opening.lookup checked
    the rest of the question: 4 lines, 7-bag, soft drop, hold empty and not pressed)."""
    table = _tables().get(rules_key(rules))
    if not table or bits.bit_count() != 4:
        return None
    return table.get((placed, bits, shown))
