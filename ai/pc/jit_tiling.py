"""`ai.pc.tiling`'s exact-cover test compiled with numba: the same search (lowest empty cell column by column, the
same placement table in the same order, the same step budget), on machine words, with an explicit stack.

Fields of up to 6 rows fit in 60 bits, so a state is two int64s: field | h << 60, and the packed piece counts;
the memo is an open-addressing hash table in a numpy array, ai.pc.jit_table (a numba typed dict cost more to
pass in than the search itself). Given the same memo contents it answers exactly as ai.pc.tiling's Python
search (tests compare them on search-like fields), about 10x faster; ai.pc.tiling uses it when numba can be
imported.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from ai.pc import jit_table
from ai.pc.field import COLUMN, MAX_LINES
from ai.pc.jit_table import get, popcount, put, reset, reset_if_half_full

MEMO_SLOTS = 1 << 16  # 64K states, 1 MB: a small table the caches hold beats a big one that misses (bench/pc.py)
VBITS = 1  # a memo value is 0 (not coverable) or 1 (coverable)
STACK = 17  # frames of the search: at most 15 pieces below the start


@njit(cache=True, nogil=True)
def _first_empty(empty, columns, x):
    """(column, cell index) of the first empty cell in column-major order, starting at column x (the columns
    before it are full: the search fills column by column)."""
    column = empty & columns[x]
    while column == 0:
        x += 1
        column = empty & columns[x]
    return x, trailing_zeros(column)


@njit(cache=True, nogil=True)
def _search(  # noqa: C901 - a numba kernel: the exact-cover search with an explicit stack in one function
    bits0, h, packed0, need0, budget, starts, pieces, masks, columns, region, memo, fill, stack
):
    """1: coverable, 0: not, 2: budget spent (unknown). Mirrors ai.pc.tiling._tileable step for step."""
    if need0 == 0:
        return 1
    reset_if_half_full(memo, fill)
    tag = h << 60
    first = get(memo, bits0 | tag, packed0, VBITS)
    if first >= 0:
        return first
    steps = budget - 1
    if steps < 0:
        return 2
    st_bits = stack[0]
    st_packed = stack[1]
    st_x = stack[2]
    st_opt = stack[3]
    st_end = stack[4]
    sp = 0
    # open frame 0
    x, cell = _first_empty(~bits0 & region, columns, 0)
    st_bits[0] = bits0
    st_packed[0] = packed0
    st_x[0] = x
    st_opt[0] = starts[cell]
    st_end[0] = starts[cell + 1]
    while sp >= 0:
        i = st_opt[sp]
        if i >= st_end[sp]:  # every option failed: this state is dead
            put(memo, fill, st_bits[sp] | tag, st_packed[sp], VBITS, 0)
            sp -= 1
            if sp >= 0:
                st_opt[sp] += 1
            continue
        piece = pieces[i]
        mask = masks[i]
        bits = st_bits[sp]
        packed = st_packed[sp]
        if (packed >> (4 * piece)) & 15 and not mask & bits:
            nbits = bits | mask
            npacked = packed - (1 << (4 * piece))
            if need0 - sp - 1 == 0:
                for j in range(sp + 1):
                    put(memo, fill, st_bits[j] | tag, st_packed[j], VBITS, 1)
                return 1
            # the first empty cell (column-major) left: placed next, from the (small, cached) placement table
            empty = ~nbits & region
            x, cell = _first_empty(empty, columns, st_x[sp])
            last = need0 - sp - 1 == 1
            coverable = False
            for k in range(starts[cell], starts[cell + 1]):
                if (npacked >> (4 * pieces[k])) & 15 and (masks[k] == empty if last else not masks[k] & nbits):
                    coverable = True
                    break
            if last:  # one piece left: the rest is one of its placements or not (no memo entry, no step)
                if coverable:
                    for j in range(sp + 1):
                        put(memo, fill, st_bits[j] | tag, st_packed[j], VBITS, 1)
                    return 1
                st_opt[sp] += 1
                continue
            # some piece left must take that cell: checked before the memo, whose look-ups miss the CPU caches
            # (no memo entry, no step, as ai.pc.tiling)
            if not coverable:
                st_opt[sp] += 1
                continue
            known = get(memo, nbits | tag, npacked, VBITS)
            if known == 1:
                for j in range(sp + 1):
                    put(memo, fill, st_bits[j] | tag, st_packed[j], VBITS, 1)
                return 1
            if known == 0:
                st_opt[sp] += 1
                continue
            steps -= 1
            if steps < 0:
                return 2
            sp += 1
            st_bits[sp] = nbits
            st_packed[sp] = npacked
            st_x[sp] = x
            st_opt[sp] = starts[cell]
            st_end[sp] = starts[cell + 1]
        else:
            st_opt[sp] += 1
    return 0


@njit(cache=True, nogil=True)
def _search_counts(bits, h, counts8, budget, starts, pieces, masks, columns, region, memo, fill, stack):
    """tiling.tileable's work from 8-bit piece counts (piece p in bits 8p..8p+7): parity, the counts capped
    at the pieces needed (and 15) as the search packs them, then the search."""
    empty = 10 * h - popcount(bits)
    if empty % 4:
        return 0
    need = empty // 4
    packed = 0
    for piece in range(7):
        count = (counts8 >> (8 * piece)) & 255
        if count > need:
            count = need
        if count > 15:
            count = 15
        packed |= count << (4 * piece)
    return _search(bits, h, packed, need, budget, starts, pieces, masks, columns, region, memo, fill, stack)


class Kernel:
    """Placement tables per h as arrays, and the compiled search's memo: an open-addressing hash table of
    MEMO_SLOTS states (started over when half full)."""

    def __init__(self, by_cell_for) -> None:
        self._by_cell_for = by_cell_for
        self._tables: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]] = {}
        self.memo = jit_table.make(MEMO_SLOTS)
        self.fill = np.zeros(1, np.int64)
        self.stack = np.zeros((5, STACK), np.int64)

    def clear(self) -> None:
        reset(self.memo, self.fill)

    def tables(self, h: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
        found = self._tables.get(h)
        if found is None:
            by_cell = self._by_cell_for(h)
            starts, pieces, masks = [0], [], []
            for options in by_cell:
                for piece, mask in options:
                    pieces.append(piece)
                    masks.append(mask)
                starts.append(len(pieces))
            found = self._tables[h] = (
                np.array(starts, np.int64),
                np.array(pieces, np.int64),
                np.array(masks, np.int64),
                np.array(COLUMN[h] + (0,), np.int64),
                (1 << (10 * h)) - 1,
            )
        return found

    def run_counts(self, bits: int, h: int, counts8: int, budget: int) -> int:
        tables = self._tables.get(h) or self.tables(h)
        return _search_counts(bits, h, counts8, budget, *tables, self.memo, self.fill, self.stack)

    def run(self, bits: int, h: int, packed: int, need: int, budget: int) -> int:
        tables = self._tables.get(h) or self.tables(h)
        return _search(bits, h, packed, need, budget, *tables, self.memo, self.fill, self.stack)


assert MAX_LINES <= 6  # 60 field bits + h in bits 60-62


jit_table.forget_stale_cache("jit_tiling", [_first_empty, _search, _search_counts], [__file__, jit_table.__file__])
