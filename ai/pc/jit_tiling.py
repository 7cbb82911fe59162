"""`ai.pc.tiling`'s exact-cover test compiled with numba: the same search (lowest empty cell column by column, the
same placement table in the same order, the same step budget), on machine words, with an explicit stack.

Fields of up to 6 rows fit in 60 bits, so a state is two int64s: field | h << 60, and the packed piece counts.
`tileable` here returns exactly what `ai.pc.tiling.tileable` returns (tested on random fields), about 30x
faster; ai.pc.tiling uses it when numba can be imported.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.typed import Dict

from ai.pc.field import COLUMN, MAX_LINES

_KEY = types.UniTuple(types.int64, 2)
_REGION = tuple((1 << (10 * h)) - 1 for h in range(MAX_LINES + 1))
MEMO_LIMIT = 1_000_000


@njit(cache=True, nogil=True)
def _search(bits0, h, packed0, need0, budget, starts, pieces, masks, columns, region, memo):
    """1: coverable, 0: not, 2: budget spent (unknown). Mirrors ai.pc.tiling._tileable step for step."""
    if need0 == 0:
        return 1
    tag = h << 60
    first = memo.get((bits0 | tag, packed0), -1)
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
            memo[(st_bits[sp] | tag, st_packed[sp])] = 0
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
                    memo[(st_bits[j] | tag, st_packed[j])] = 1
                return 1
            known = memo.get((nbits | tag, npacked), -1)
            if known == 1:
                for j in range(sp + 1):
                    memo[(st_bits[j] | tag, st_packed[j])] = 1
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


class Kernel:
    """Placement tables per h as arrays, and the compiled search's memo (cleared past MEMO_LIMIT states)."""

    def __init__(self, by_cell_for) -> None:
        self._by_cell_for = by_cell_for
        self._tables: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}
        self.memo = Dict.empty(_KEY, types.int64)
        self._calls = 0

    def tables(self, h: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        found = self._tables.get(h)
        if found is None:
            by_cell = self._by_cell_for(h)
            starts, pieces, masks = [0], [], []
            for options in by_cell:
                for piece, mask in options:
                    pieces.append(piece)
                    masks.append(mask)
                starts.append(len(pieces))
            found = self._tables[h] = (np.array(starts, np.int64), np.array(pieces, np.int64),
                                       np.array(masks, np.int64), np.array(COLUMN[h] + (0,), np.int64))
        return found

    def clear(self) -> None:
        self.memo = Dict.empty(_KEY, types.int64)

    def run(self, bits: int, h: int, packed: int, need: int, budget: int) -> int:
        self._calls += 1
        if self._calls & 1023 == 0 and len(self.memo) > MEMO_LIMIT:
            self.memo = Dict.empty(_KEY, types.int64)
        tables = self._tables.get(h) or self.tables(h)
        return _search(bits, h, packed, need, budget, *tables, _REGION[h], self.memo)


assert MAX_LINES <= 6  # 60 field bits + h in bits 60-62
