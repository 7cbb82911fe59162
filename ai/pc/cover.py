"""Witness arrangements: a perfect clear found for one queue, kept as its set of placements, and every queue of a
trie that can build the same set.

A PC from a state is a set of placements (piece, cells in the state's own rows) that tiles the empty cells.
Another queue builds the same set when some order of it is playable with that queue and hold (the buffer model of
`ai.pc.search`), each placement being a placement `movegen` offers in the field as it is at that moment (rows
cleared by earlier placements removed). Most queues of a bag share a few arrangements, so `pc_chance` proves most
futures won by checking arrangements it already has, and searches only the futures no arrangement builds.

Every leaf `cover` reports is a real PC (each step is a placement the move generator offers, the field ends
empty); a leaf it does not report may still have a PC with another arrangement.
"""

from __future__ import annotations

from ai.pc.movegen import MoveGenerator
from ai.pc.percent import Node
from game.board import ROW_MASK, WIDTH, Bitboard
from game.pieces import Piece


def leaf_sequence(node: Node, leaf: int) -> tuple[Piece, ...]:
    """The pieces from `node` down to its leaf number `leaf` (local numbering, see ai.pc.percent.Node)."""
    out = []
    while node.children:
        for piece, sub in node.children.items():
            offset = node.offsets[piece]
            if offset <= leaf < offset + sub.count:
                out.append(piece)
                leaf -= offset
                node = sub
                break
        else:  # pragma: no cover - leaf out of range
            raise IndexError(leaf)
    return tuple(out)


def _squeeze(bits: Bitboard, keep_rows: tuple[int, ...]) -> Bitboard:
    """The rows `keep_rows` (in order) of `bits` stacked from row 0: the field after the other rows cleared."""
    out = 0
    for new_y, y in enumerate(keep_rows):
        out |= ((bits >> (y * WIDTH)) & ROW_MASK) << (new_y * WIDTH)
    return out


class Arrangement:
    """Placements (piece, cells in the rows of `bits`) that fill rows 0..h-1 of `bits` exactly.

    Geometry only: which queues build it is asked per trie with `cover` (its memo belongs to one `token`)."""

    def __init__(self, gen: MoveGenerator, bits: Bitboard, h: int, pieces: list[tuple[Piece, Bitboard]]) -> None:
        self.gen = gen
        self.bits = bits
        self.h = h
        self.pieces = tuple(piece for piece, _ in pieces)
        self.masks = tuple(mask for _, mask in pieces)
        self.full = (1 << len(pieces)) - 1
        self.hits = 0  # leaves it won that nothing before it had (the store tries useful ones first)
        self._moves: dict[int, dict[Piece, tuple[int, ...]]] = {}
        self._memo: dict[tuple, int] = {}
        self._token: object = None
        self._use_hold = True

    def counts(self) -> tuple[int, ...]:
        """How many of each piece it uses."""
        out = [0] * 7
        for piece in self.pieces:
            out[piece] += 1
        return tuple(out)

    def signature(self) -> frozenset[tuple[Piece, Bitboard]]:
        return frozenset(zip(self.pieces, self.masks))

    @classmethod
    def from_steps(cls, gen: MoveGenerator, bits: Bitboard, h: int, steps) -> Arrangement:
        """The arrangement of a solution whose step masks are in the field as it was at each step."""
        rows = list(range(h))  # rows of `bits` still present, bottom first
        field = bits
        pieces = []
        for step in steps:
            mask = 0
            m = step.mask
            while m:
                low = m & -m
                index = low.bit_length() - 1
                mask |= 1 << (rows[index // WIDTH] * WIDTH + index % WIDTH)
                m ^= low
            pieces.append((step.piece, mask))
            field |= mask
            rows = [y for y in rows if (field >> (y * WIDTH)) & ROW_MASK != ROW_MASK]
        return cls(gen, bits, h, pieces)

    def index_of(self, piece: Piece, mask: Bitboard) -> int | None:
        """Index of the placement (piece, mask in this field's rows), if it is one of this arrangement's."""
        for i, (p, m) in enumerate(zip(self.pieces, self.masks)):
            if m == mask and p == piece:
                return i
        return None

    def after(self, i: int) -> Arrangement:
        """The rest of the arrangement in the field left after placement `i` (full rows cleared)."""
        bits = self.bits | self.masks[i]
        keep = tuple(y for y in range(self.h) if (bits >> (y * WIDTH)) & ROW_MASK != ROW_MASK)
        rest = [(p, _squeeze(m, keep)) for j, (p, m) in enumerate(zip(self.pieces, self.masks)) if j != i]
        return Arrangement(self.gen, _squeeze(bits, keep), len(keep), rest)

    def _options(self, subset: int) -> dict[Piece, tuple[int, ...]]:
        """Per piece, the indices of the placements not yet made that `movegen` offers after `subset`."""
        found = self._moves.get(subset)
        if found is None:
            bits = self.bits
            for i, mask in enumerate(self.masks):
                if subset >> i & 1:
                    bits |= mask
            keep = tuple(y for y in range(self.h) if (bits >> (y * WIDTH)) & ROW_MASK != ROW_MASK)
            whole = len(keep) == self.h  # no row cleared yet: the cells stay where they are
            field, h = (bits, self.h) if whole else (_squeeze(bits, keep), len(keep))
            reaches = self.gen.reaches
            options: dict[Piece, list[int]] = {}
            for i, (piece, mask) in enumerate(zip(self.pieces, self.masks)):
                if not subset >> i & 1 and reaches(field, h, piece, mask if whole else _squeeze(mask, keep)):
                    options.setdefault(piece, []).append(i)
            found = self._moves[subset] = {piece: tuple(ids) for piece, ids in options.items()}
        return found

    def cover(self, held: Piece | None, node: Node, token: object, use_hold: bool) -> int:
        """Leaves below `node` (local numbering) whose queue builds this arrangement, `held` being the buffer
        piece of the hold model. `token` names the trie (node idents are only unique within one)."""
        if token is not self._token:
            self._token, self._use_hold = token, use_hold
            self._memo.clear()
        return self._cover(held, node, 0)

    def _cover(self, held: Piece | None, node: Node, subset: int) -> int:
        if subset == self.full:
            return node.leaves
        key = (subset, held, node.ident)
        known = self._memo.get(key)
        if known is not None:
            return known
        won = 0
        options = self._options(subset)
        if not node.children:
            if self._use_hold and held is not None:
                for i in options.get(held, ()):
                    if self._cover(None, node, subset | 1 << i):
                        won = node.leaves
                        break
        elif options:
            use_hold = self._use_hold
            for piece, sub in node.children.items():
                got = 0
                leaves = sub.leaves
                if use_hold and held is not None and held != piece:
                    for i in options.get(held, ()):
                        got |= self._cover(piece, sub, subset | 1 << i)
                        if got == leaves:
                            break
                if got != leaves:
                    keep = held if use_hold else None
                    for i in options.get(piece, ()):
                        got |= self._cover(keep, sub, subset | 1 << i)
                        if got == leaves:
                            break
                won |= got << node.offsets[piece]
        self._memo[key] = won
        return won


class ArrangementStore:
    """Arrangements found per field (bits, h), kept between calls under one set of rules: a retry with a longer
    budget, the position after the player's next placement and the next PC from an empty field start from
    what earlier calls found. Each is re-checked by `cover` against the move generator, so the store (and a
    table loaded into it) can only save work, never change an answer."""

    MAX_FIELDS = 2000
    MAX_PER_FIELD = 200

    def __init__(self, gen: MoveGenerator) -> None:
        self.gen = gen
        self._fields: dict[tuple[Bitboard, int], dict[frozenset, Arrangement]] = {}

    def at(self, bits: Bitboard, h: int) -> list[Arrangement]:
        """The arrangements of this field, most useful first."""
        found = self._fields.get((bits, h))
        return sorted(found.values(), key=lambda a: -a.hits) if found else []

    def add(self, arrangement: Arrangement) -> Arrangement:
        """Keep it (or the equal one already kept, which is returned)."""
        key = (arrangement.bits, arrangement.h)
        found = self._fields.get(key)
        if found is None:
            if len(self._fields) >= self.MAX_FIELDS:
                self._fields.clear()
            found = self._fields[key] = {}
        signature = arrangement.signature()
        kept = found.get(signature)
        if kept is not None:
            return kept
        if len(found) >= self.MAX_PER_FIELD:
            weakest = min(found, key=lambda k: found[k].hits)
            del found[weakest]
        found[signature] = arrangement
        return arrangement
