"""Fast placement generation inside a bounded PC field, exact against `game.movegen.find_moves`.

States are the project's one state encoding (`game.movegen.state_of`: rotation << 11 | (x+8) << 6 | (y+8)), here
called sids: a shift is ``sid +- 64``, a row ``+- 1`` and a kick test one precomputed delta; per piece a dict maps
every in-bounds sid to its cell mask.

Reachability (same moves as the reference: shifts, kicked rotations incl. 180 when allowed, soft drop to the
floor, hard drop). Above the field every (rotation, x) is reachable from spawn, so the placements a hard drop
can make are the landings of straight drops ("seeds"). With soft drop, other placements exist only when the
field has an overhang (without one, every fitting, supported position is some seed); then each resting spot no
seed covers is checked by a backward search that stops at a seed. States more than `SKY` rows above the field
are left out (everything there is free air; the agreement with the reference is tested on random fields with
SRS, SRS+, NRS and no kicks, with and without 180 and soft drop). Exotic user tables whose first kick test moves
a piece down in free air could reach spots this misses; it never reports an unreachable one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ai.pc.field import REGION, clear_full_rows, has_overhang
from game.board import WIDTH, Bitboard
from game.movegen import STATE_COL, STATE_ROT, STATE_ROW, state_of, state_parts
from game.pieces import SHAPES, Piece, Rotation
from game.rules import Rules, per_rules

_KERNEL_SHAPES: dict[int, tuple] = {}  # piece -> (cells per sid in rows 0..5, top row per sid) for the kernel
USE_KERNEL = True  # the compiled placements (ai.pc.jit_placements) when numba is there; tests switch it off
SKY = 4  # rows above the field top a state may climb to (kicks upward) and still be expanded
_ROT, _COL, _ROW = STATE_ROT, STATE_COL, STATE_ROW
_P = STATE_COL - 1  # sid & _P: the row index p = y + 8
_MAX_Y = 24


sid_of = state_of  # (rotation, x, y) -> sid
unpack = state_parts  # sid -> (rotation, x, y)


def _build_masks() -> dict[int, dict[int, Bitboard]]:
    table: dict[int, dict[int, Bitboard]] = {}
    for piece in Piece:
        masks: dict[int, Bitboard] = {}
        for rot in Rotation:
            cells = SHAPES[piece, rot]
            for y in range(-3, _MAX_Y):
                for x in range(-3, WIDTH + 3):
                    if all(0 <= x + dx < WIDTH and 0 <= y + dy for dx, dy in cells):
                        masks[sid_of(rot, x, y)] = sum(1 << ((y + dy) * WIDTH + x + dx) for dx, dy in cells)
        table[piece] = masks
    return table


MASKS: dict[int, dict[int, Bitboard]] = _build_masks()
SHAPE_MASKS: dict[int, frozenset[Bitboard]] = {piece: frozenset(masks.values()) for piece, masks in MASKS.items()}
# (piece, rot) -> (lowest cell dy, x values in bounds)
_SHAPE_INFO: dict[tuple[int, int], tuple[int, tuple[int, ...]]] = {
    (piece, rot): (
        min(dy for _, dy in SHAPES[piece, rot]),
        tuple(x for x in range(-3, WIDTH + 3) if all(0 <= x + dx < WIDTH for dx, _ in SHAPES[piece, rot])),
    )
    for piece in Piece
    for rot in Rotation
}


@dataclass(frozen=True, slots=True)
class Child:
    """One placement from a state: the piece's cells in the current field and the state after line clears."""

    mask: Bitboard
    sid: int  # canonical (rotation, x, y) of the cells, as a sid
    hard: bool  # reachable by a hard drop alone (no tuck, no spin)
    field: Bitboard  # after clearing full rows
    h: int  # rows left to clear after this placement
    lines: int  # rows this placement cleared


class MoveGenerator:
    """Placements of each piece in bounded fields under one set of rules, memoised per (field, h, piece).

    The memo belongs to the rules it was built for; `for_rules` hands out one generator per rules key.
    """

    def __init__(self, rules: Rules, soft_drop: bool = True) -> None:
        self.rules = rules
        self.soft_drop = soft_drop
        self._cache: dict[tuple[Bitboard, int, int], tuple[Child, ...]] = {}
        self._masks: dict[tuple[Bitboard, int, int], frozenset[Bitboard]] = {}
        self._compiled: dict[int, tuple | None] = {}  # piece -> (ai.pc.jit_placements, its tables)
        self._out: tuple[Any, Any, Any] | None = None  # output buffers of the compiled kernel (numpy arrays)
        self._work: Any = None  # its work arrays (ai.pc.jit_placements.scratch)
        self._lock: Any = None  # ai.pc.jit_table.KERNEL_LOCK, which guards them
        self._turns, self._into = _kick_deltas(rules)

    def key(self) -> tuple:
        return (self.rules.cache_key(), self.soft_drop)

    def children(self, bits: Bitboard, h: int, piece: int) -> tuple[Child, ...]:
        """Every distinct placement (by cells) of `piece` lying wholly in rows 0..h-1, with its result."""
        key = (bits, h, piece)
        found = self._cache.get(key)
        if found is None:
            if len(self._cache) > 300_000:  # about 1 GB at most; a search rarely needs more
                self._cache.clear()
            found = self._cache[key] = self._generate(bits, h, piece)
        return found

    def mask_set(self, bits: Bitboard, h: int, piece: int) -> frozenset[Bitboard]:
        """The cells of every placement `children` returns, as a set (memoised)."""
        key = (bits, h, piece)
        found = self._masks.get(key)
        if found is None:
            if len(self._masks) > 300_000:
                self._masks.clear()
            known = self._cache.get(key)
            if known is not None:
                found = frozenset(child.mask for child in known)
            else:  # the cells only: no results, line clears or ordering to build
                found = frozenset(self.placements(bits, h, piece))
            self._masks[key] = found
        return found

    def reaches(self, bits: Bitboard, h: int, piece: int, mask: Bitboard) -> bool:
        """Is `mask` (a placement of `piece` inside rows 0..h-1) one of `children`'s? A resting placement with
        nothing above its cells is a straight drop, which every rule set allows (see the module docstring), so
        only covered ones need the placements generated."""
        if mask not in SHAPE_MASKS[piece] or mask & bits or not (mask & 1023 or (mask >> WIDTH) & bits):
            # not the piece's shape (a stretched placement of an arrangement whose row between has not cleared
            # yet), overlapping, or in the air: every placement rests on the floor or a block
            return False
        above = mask
        while above:
            above = (above << WIDTH) & REGION[h]
            if above & bits:
                return mask in self.mask_set(bits, h, piece)
        return True

    def placements(self, bits: Bitboard, h: int, piece: int) -> dict[Bitboard, tuple[int, bool]]:
        """mask -> (canonical sid, hard-drop reachable) for every placement inside rows 0..h-1."""
        if USE_KERNEL and h <= 6:
            kernel = self._kernel_tables(piece)
            if kernel is not None:
                compiled, tables = kernel
                assert self._out is not None  # made with the tables
                out_mask, out_sid, out_hard = self._out
                with self._lock:  # the output and work arrays are this generator's, shared by threads
                    overhang = self.soft_drop and has_overhang(bits, h)
                    n = compiled.placements_into(bits, h, *tables, overhang, out_mask, out_sid, out_hard, self._work)
                    return dict(zip(out_mask[:n].tolist(), zip(out_sid[:n].tolist(), out_hard[:n].tolist())))
        return self.python_placements(bits, h, piece)

    def _kernel_tables(self, piece: int):
        """(ai.pc.jit_placements, its tables for this piece under these rules), None without numba."""
        found = self._compiled.get(piece)
        if found is None and piece not in self._compiled:
            try:
                from ai.pc import jit_placements
                from ai.pc.jit_table import KERNEL_LOCK
            except ImportError:
                self._compiled[piece] = None
                return None
            import numpy as np

            shapes = _KERNEL_SHAPES.get(piece)
            if shapes is None:  # rules-independent: built once per piece
                table_masks = np.zeros(4 * _ROT, np.int64)
                tops = np.full(4 * _ROT, -1, np.int64)
                for sid, mask in MASKS[piece].items():
                    table_masks[sid] = mask & ((1 << 60) - 1)
                    tops[sid] = (mask.bit_length() - 1) // WIDTH
                shapes = _KERNEL_SHAPES[piece] = (table_masks, tops)
            table_masks, tops = shapes
            lows: list[int] = []
            xs_start: list[int] = []
            xs_count: list[int] = []
            xs: list[int] = []
            for rot in range(4):
                low, row = _SHAPE_INFO[piece, rot]
                lows.append(low)
                xs_start.append(len(xs))
                xs_count.append(len(row))
                xs.extend(row)
            turn_start: list[int] = []
            turn_count: list[int] = []
            test_start: list[int] = []
            test_count: list[int] = []
            deltas: list[int] = []
            for rot in range(4):
                turn_start.append(len(test_start))
                turn_count.append(len(self._into[piece, rot]))
                for tests in self._into[piece, rot]:
                    test_start.append(len(deltas))
                    test_count.append(len(tests))
                    deltas.extend(tests)
            arrays = [
                np.array(v, np.int64)
                for v in (lows, xs_start, xs_count, xs, turn_start, turn_count, test_start, test_count, deltas)
            ]
            found = self._compiled[piece] = (jit_placements, (table_masks, tops, *arrays))
            if self._out is None:
                self._out = (np.zeros(1024, np.int64), np.zeros(1024, np.int64), np.zeros(1024, np.bool_))
                self._work = jit_placements.scratch()
                self._lock = KERNEL_LOCK
        return found

    def python_placements(self, bits: Bitboard, h: int, piece: int) -> dict[Bitboard, tuple[int, bool]]:
        """placements() in Python (the reference the compiled kernel is tested against)."""
        masks = MASKS[piece]
        inside = REGION[h]
        result: dict[Bitboard, tuple[int, bool]] = {}
        seeds = []
        for rot in range(4):
            low, xs = _SHAPE_INFO[piece, rot]
            base = rot * _ROT + (h - low + 8) * _ROW
            for x in xs:
                sid = base + (x + 8) * _COL
                below = masks.get(sid - _ROW)
                while below is not None and not below & bits:  # straight down until blocked
                    sid -= _ROW
                    below = masks.get(sid - _ROW)
                seeds.append(sid)
                mask = masks[sid]
                if mask & inside == mask and mask not in result:
                    result[mask] = (sid, True)
        if self.soft_drop and has_overhang(bits, h):
            hidden = self._hidden_spots(bits, h, piece, seeds, result)
            if hidden:
                self._confirm(bits, h, piece, set(seeds), result, hidden)
        return result

    def _confirm(
        self, bits: Bitboard, h: int, piece: int, seeds: set[int], result: dict, hidden: dict[Bitboard, list[int]]
    ) -> None:
        """Keep the hidden spots that some seed reaches. Searching backwards from a spot (undoing shifts, drops
        and kicked turns, over states at most SKY rows above the field) meets a seed iff the reference's moves
        lead from that seed to the spot; the region a spot can be reached from is usually tiny, so this is
        much cheaper than exploring forwards from every seed. States proven unreachable are shared."""
        masks = MASKS[piece]
        top = h + SKY + 8  # the row index p no state may reach
        into = self._into[piece, 0], self._into[piece, 1], self._into[piece, 2], self._into[piece, 3]
        unreachable: set[int] = set()

        def fits(sid: int) -> bool:
            m = masks.get(sid)
            return m is not None and not m & bits

        for mask, sids in hidden.items():
            stack = [sid for sid in sids if sid not in unreachable]
            seen = set(stack)
            found = False
            while stack:
                sid = stack.pop()
                if sid in seeds:
                    found = True
                    break
                before = [sid - _COL, sid + _COL]  # shifted here
                above = sid + _ROW  # dropped here from straight above (only grounded states end a drop)
                if not fits(sid - _ROW):
                    while above & _P < top and fits(above):
                        before.append(above)
                        above += _ROW
                for deltas in into[sid // _ROT]:  # turned here with kick test k: tests 0..k-1 failed
                    for k, delta in enumerate(deltas):
                        start = sid - delta
                        if fits(start) and not any(fits(start + d) for d in deltas[:k]):
                            before.append(start)
                for prev in before:
                    if prev in seen or prev in unreachable or prev & _P >= top or not fits(prev):
                        continue
                    seen.add(prev)
                    stack.append(prev)
            if found:
                result[mask] = (sids[0], False)
            else:
                unreachable |= seen

    @staticmethod
    def _hidden_spots(bits: Bitboard, h: int, piece: int, seeds: list[int], result: dict) -> dict[Bitboard, list[int]]:
        """Cells of resting positions inside the field that no straight drop reaches: the only placements a
        search could add. Usually there are none, and the search is skipped."""
        masks = MASKS[piece]
        inside = REGION[h]
        spots: dict[Bitboard, list[int]] = {}
        for seed in seeds:
            sid = seed - _ROW
            mask = masks.get(sid)
            while mask is not None:
                if not mask & bits and mask & inside == mask and mask not in result:
                    below = masks.get(sid - _ROW)
                    if below is None or below & bits:
                        spots.setdefault(mask, []).append(sid)
                sid -= _ROW
                mask = masks.get(sid)
        return spots

    def _generate(self, bits: Bitboard, h: int, piece: int) -> tuple[Child, ...]:
        out = []
        for mask, (sid, hard) in self.placements(bits, h, piece).items():
            after, lines = clear_full_rows(bits | mask, h)
            out.append(Child(mask, sid, hard, after, h - lines, lines))
        # a cheap, effective move order: plain drops first, then those covering the fewest empty cells, then low
        # placements before high ones (ai.pc.jit_search sorts the same way)
        out.sort(key=lambda child: (not child.hard, holes_under(bits, child.mask), child.mask.bit_length()))
        return tuple(out)


def holes_under(bits: Bitboard, mask: Bitboard) -> int:
    """Empty cells of `bits` under the piece `mask` in its columns: the holes the placement covers."""
    below = 0
    shifted = mask >> WIDTH
    while shifted:
        below |= shifted
        shifted >>= WIDTH
    return (below & ~bits & ~mask).bit_count()


@per_rules()
def _kick_deltas(rules: Rules) -> tuple[dict[tuple[int, int], list[list[int]]], dict[tuple[int, int], list[list[int]]]]:
    """Kick tests as sid deltas, built once per rules key (rule tables, not search state):
    (piece, rot) -> per turn the deltas in test order; (piece, end rot) -> the deltas of every turn ending there
    (for the backward search)."""
    turns_of: dict[tuple[int, int], list[list[int]]] = {}
    turns = (1, -1, 2) if rules.allow_180 else (1, -1)
    for piece in Piece:
        for rot in Rotation:
            options = []
            for t in turns:
                end = rot.turned(t)
                tests = rules.rotation.tests[piece, rot, end]
                options.append([(end - rot) * _ROT + dy * _ROW + dx * _COL for dx, dy in tests])
            turns_of[piece, rot] = options
    into: dict[tuple[int, int], list[list[int]]] = {}
    for piece in Piece:
        for rot in Rotation:
            for t, deltas in zip(turns, turns_of[piece, rot]):
                into.setdefault((piece, rot.turned(t)), []).append(deltas)
    return turns_of, into


@per_rules()
def for_rules(rules: Rules, soft_drop: bool = True) -> MoveGenerator:
    """The shared generator (and memo) for these rules; a change of rules starts a fresh one."""
    return MoveGenerator(rules, soft_drop)
