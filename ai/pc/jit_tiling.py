"""`ai.pc.tiling`'s exact-cover test compiled with numba: the same search (lowest empty cell column by column, the
same placement table in the same order, the same step budget), on machine words, with an explicit stack.

Fields of up to 6 rows fit in 60 bits, so a state is two int64s: field | h << 60, and the packed piece counts;
the memo is an open-addressing hash table in numpy arrays (a numba typed dict cost more to pass in than the
search itself). Given the same memo contents it answers exactly as ai.pc.tiling's Python search (tests compare
them on search-like fields), about 10x faster; ai.pc.tiling uses it when numba can be imported.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from ai.pc.field import COLUMN, MAX_LINES

MEMO_SLOTS = 1 << 21  # 2M states, 34 MB


@njit(cache=True, nogil=True)
def _slot(table_a, table_b, a, b):
    """Index of key (a, b) in the open-addressing table, or of the empty slot where it would go."""
    size = table_a.shape[0]
    i = ((a * -7046029254386353131) ^ (b * -4658895280553007687)) >> 20
    i &= size - 1
    while True:
        if table_a[i] == -1 or (table_a[i] == a and table_b[i] == b):
            return i
        i = (i + 1) & (size - 1)


@njit(cache=True, nogil=True)
def _get(table_a, table_b, values, a, b):
    i = _slot(table_a, table_b, a, b)
    return -1 if table_a[i] == -1 else values[i]


@njit(cache=True, nogil=True)
def _put(table_a, table_b, values, fill, a, b, value):
    i = _slot(table_a, table_b, a, b)
    if table_a[i] == -1:
        table_a[i] = a
        table_b[i] = b
        fill[0] += 1
    values[i] = value


@njit(cache=True, nogil=True)
def _search(  # noqa: C901 - a numba kernel: the exact-cover search with an explicit stack in one function
    bits0, h, packed0, need0, budget, starts, pieces, masks, columns, region, table_a, table_b, values, fill
):
    """1: coverable, 0: not, 2: budget spent (unknown). Mirrors ai.pc.tiling._tileable step for step."""
    if need0 == 0:
        return 1
    if fill[0] * 2 > table_a.shape[0]:  # half full: start over
        table_a[:] = -1
        fill[0] = 0
    tag = h << 60
    first = _get(table_a, table_b, values, bits0 | tag, packed0)
    if first >= 0:
        return first
    steps = budget - 1
    if steps < 0:
        return 2
    st_bits = np.zeros(need0 + 1, np.int64)
    st_packed = np.zeros(need0 + 1, np.int64)
    st_x = np.zeros(need0 + 1, np.int64)
    st_opt = np.zeros(need0 + 1, np.int64)
    st_end = np.zeros(need0 + 1, np.int64)
    sp = 0
    # open frame 0
    empty = ~bits0 & region
    x = 0
    column = empty & columns[x]
    while column == 0:
        x += 1
        column = empty & columns[x]
    cell = trailing_zeros(column)
    st_bits[0] = bits0
    st_packed[0] = packed0
    st_x[0] = x
    st_opt[0] = starts[cell]
    st_end[0] = starts[cell + 1]
    while sp >= 0:
        i = st_opt[sp]
        if i >= st_end[sp]:  # every option failed: this state is dead
            _put(table_a, table_b, values, fill, st_bits[sp] | tag, st_packed[sp], 0)
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
                    _put(table_a, table_b, values, fill, st_bits[j] | tag, st_packed[j], 1)
                return 1
            known = _get(table_a, table_b, values, nbits | tag, npacked)
            if known == 1:
                for j in range(sp + 1):
                    _put(table_a, table_b, values, fill, st_bits[j] | tag, st_packed[j], 1)
                return 1
            if known == 0:
                st_opt[sp] += 1
                continue
            steps -= 1
            if steps < 0:
                return 2
            empty = ~nbits & region
            x = st_x[sp]
            column = empty & columns[x]
            while column == 0:
                x += 1
                column = empty & columns[x]
            cell = trailing_zeros(column)
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
def _search_counts(bits, h, counts8, budget, starts, pieces, masks, columns, region, table_a, table_b, values, fill):
    """tiling.tileable's work from 8-bit piece counts (piece p in bits 8p..8p+7): parity, the counts capped
    at the pieces needed (and 15) as the search packs them, then the search."""
    filled = 0
    v = bits
    while v:
        v &= v - 1
        filled += 1
    empty = 10 * h - filled
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
    return _search(
        bits, h, packed, need, budget, starts, pieces, masks, columns, region, table_a, table_b, values, fill
    )


class Kernel:
    """Placement tables per h as arrays, and the compiled search's memo: an open-addressing hash table of
    MEMO_SLOTS states (started over when half full)."""

    def __init__(self, by_cell_for) -> None:
        self._by_cell_for = by_cell_for
        self._tables: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]] = {}
        self._table_a = np.full(MEMO_SLOTS, -1, np.int64)
        self._table_b = np.zeros(MEMO_SLOTS, np.int64)
        self._values = np.zeros(MEMO_SLOTS, np.int8)
        self._fill = np.zeros(1, np.int64)

    def clear(self) -> None:
        self._table_a[:] = -1
        self._fill[0] = 0

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
        return _search_counts(bits, h, counts8, budget, *tables, self._table_a, self._table_b, self._values, self._fill)

    def run(self, bits: int, h: int, packed: int, need: int, budget: int) -> int:
        tables = self._tables.get(h) or self.tables(h)
        return _search(bits, h, packed, need, budget, *tables, self._table_a, self._table_b, self._values, self._fill)


assert MAX_LINES <= 6  # 60 field bits + h in bits 60-62
