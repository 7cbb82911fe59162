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
from ai.pc.search import Step
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
    """Placements (piece, cells in the rows of `bits`) that fill rows 0..h-1 of `bits` exactly."""

    def __init__(self, gen: MoveGenerator, bits: Bitboard, h: int, pieces: list[tuple[Piece, Bitboard]],
                 use_hold: bool) -> None:
        self.gen = gen
        self.bits = bits
        self.h = h
        self.pieces = [piece for piece, _ in pieces]
        self.masks = [mask for _, mask in pieces]
        self.use_hold = use_hold
        self.full = (1 << len(pieces)) - 1
        self._fields: dict[int, tuple[Bitboard, int, tuple[int, ...]]] = {}
        self._ok: dict[int, bool] = {}
        self._memo: dict[tuple, int] = {}

    @classmethod
    def from_steps(cls, gen: MoveGenerator, bits: Bitboard, h: int, steps: tuple[Step, ...],
                   use_hold: bool) -> Arrangement:
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
        return cls(gen, bits, h, pieces, use_hold)

    def _field(self, subset: int) -> tuple[Bitboard, int, tuple[int, ...]]:
        """(field with cleared rows removed, rows left, original indices of those rows) after `subset`."""
        found = self._fields.get(subset)
        if found is None:
            bits = self.bits
            for i, mask in enumerate(self.masks):
                if subset >> i & 1:
                    bits |= mask
            keep = tuple(y for y in range(self.h) if (bits >> (y * WIDTH)) & ROW_MASK != ROW_MASK)
            found = self._fields[subset] = (_squeeze(bits, keep), len(keep), keep)
        return found

    def _placeable(self, subset: int, i: int) -> bool:
        key = subset << 5 | i
        ok = self._ok.get(key)
        if ok is None:
            field, h, keep = self._field(subset)
            ok = self._ok[key] = _squeeze(self.masks[i], keep) in self.gen.mask_set(field, h, self.pieces[i])
        return ok

    def cover(self, held: Piece | None, node: Node, subset: int = 0) -> int:
        """Leaves below `node` (local numbering) whose queue builds the rest of this arrangement from `subset`
        (placements already made), `held` being the buffer piece of the hold model."""
        if subset == self.full:
            return node.leaves
        key = (subset, held, node.ident)
        known = self._memo.get(key)
        if known is not None:
            return known
        won = 0
        pieces = self.pieces
        if not node.children:
            if self.use_hold and held is not None:
                for i in range(len(pieces)):
                    if (not subset >> i & 1 and pieces[i] == held and self._placeable(subset, i)
                            and self.cover(None, node, subset | 1 << i)):
                        won = node.leaves
                        break
        else:
            for piece, sub in node.children.items():
                if self.use_hold:
                    choices = [(held, piece)] if held is not None and held != piece else []
                    choices.append((piece, held))
                else:
                    choices = [(piece, None)]
                got = 0
                for placed, keep in choices:
                    for i in range(len(pieces)):
                        if not subset >> i & 1 and pieces[i] == placed and self._placeable(subset, i):
                            got |= self.cover(keep, sub, subset | 1 << i)
                            if got == sub.leaves:
                                break
                    if got == sub.leaves:
                        break
                won |= got << node.offsets[piece]
        self._memo[key] = won
        return won

