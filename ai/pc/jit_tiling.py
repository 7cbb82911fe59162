"""`ai.pc.tiling`'s exact-cover test compiled with numba: the same search (lowest empty cell column by column, the
same placement table in the same order, the same step budget), on machine words, with an explicit stack.

Fields of up to 6 rows fit in 60 bits, so a state is two int64s: field | h << 60, and the packed piece counts;
the memo is an open-addressing hash table in a numpy array, ai.pc.jit_table (a numba typed dict cost more to
pass in than the search itself). Given the same memo contents it answers exactly as ai.pc.tiling's Python
search (tests compare them on search-like fields), about 10x faster; ai.pc.tiling uses it when numba can be
imported. `_search_hard_drop` is the same for ai.pc.tiling's hard-drop test (the exact cover in an order of row
clears), with a memo of its own that each question starts empty.
"""

from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from ai.pc import jit_table, tiling
from ai.pc.field import COLUMN, MAX_LINES
from ai.pc.jit_table import KERNEL_LOCK, get, kernel, popcount, put, reset, reset_if_half_full
from ai.pc.tiling import MIRROR_OF, ROW_BITS, ROW_SET, _covering, _order_table

MEMO_SLOTS = 1 << 16  # 64K states, 1 MB: a small table the caches hold beats a big one that misses (bench/pc.py)
VBITS = 1  # a memo value is 0 (not coverable) or 1 (coverable)
STACK = 17  # frames of the search: at most 15 pieces below the start
HARD_SLOTS = 1 << 13  # the hard-drop test's memo: twice the states a question of 4,096 steps can store


@kernel
def _first_empty(empty, columns, x):
    """(column, cell index) of the first empty cell in column-major order, starting at column x (the columns
    before it are full: the search fills column by column)."""
    column = empty & columns[x]
    while column == 0:
        x += 1
        column = empty & columns[x]
    return x, trailing_zeros(column)


@kernel
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


@kernel
def _packed_counts(bits, h, counts8):
    """(pieces needed, counts packed 4 bits per piece) for 8-bit piece counts (piece p in bits 8p..8p+7), each
    capped at the pieces needed (and 15) as tiling.tileable packs them; needed -1 when the empty cells are not a
    whole number of pieces."""
    empty = 10 * h - popcount(bits)
    if empty % 4:
        return -1, 0
    need = empty // 4
    packed = 0
    for piece in range(7):
        count = (counts8 >> (8 * piece)) & 255
        if count > need:
            count = need
        if count > 15:
            count = 15
        packed |= count << (4 * piece)
    return need, packed


@kernel
def _search_counts(bits, h, counts8, budget, starts, pieces, masks, columns, region, memo, fill, stack):
    """tiling.tileable's work from 8-bit piece counts: parity, the packed counts, reflected to start on the more
    crowded side (tiling._fewer_empty_on_the_right), then the search."""
    need, packed = _packed_counts(bits, h, counts8)
    if need < 0:
        return 0
    bits, packed = _crowded_side_first(bits, packed, columns, region)
    return _search(bits, h, packed, need, budget, starts, pieces, masks, columns, region, memo, fill, stack)


@kernel
def _crowded_side_first(bits, packed, columns, region):
    """The question reflected when the left half holds more empty cells (tiling._fewer_empty_on_the_right)."""
    empty = ~bits & region
    left = empty & (columns[0] | columns[1] | columns[2] | columns[3] | columns[4])
    if popcount(left) > popcount(empty & ~left):
        return _mirrored(bits, columns[0]), _mirrored_counts(packed)
    return bits, packed


@kernel
def _mirrored(bits, column):
    """tiling._mirrored: the field reflected left to right (column: column 0's cells)."""
    out = 0
    for x in range(10):
        out |= ((bits >> x) & column) << (9 - x)
    return out


@kernel
def _mirrored_counts(packed):
    """tiling._mirrored_counts: each piece's count moved to its mirror piece."""
    out = 0
    for piece in range(7):
        out |= ((packed >> (4 * piece)) & 15) << (4 * MIRROR_OF[piece])
    return out


@kernel
def _rows_of(mask, h):
    """tiling._rows_of: the rows (bit y for row y) in which mask has cells."""
    rows = 0
    for y in range(h):
        if (mask >> (10 * y)) & 1023:
            rows |= 1 << y
    return rows


@kernel
def _with_order(start, h, order, rows, skipped, shadow):
    """tiling._with_order: the row precedences with a placement added (its skipped rows and the rows of start's
    blocks above it, before its own rows; see tiling._after_rows), -1 on a cycle."""
    before = skipped | _rows_of(shadow & start, h)
    if before == 0:
        return order
    earlier = before
    for t in range(h):
        if (before >> t) & 1:
            earlier |= (order >> (ROW_BITS * t)) & ROW_SET
    if earlier & rows:
        return -1
    out = order
    for t in range(h):
        if (rows >> t) & 1 or (order >> (ROW_BITS * t)) & rows:
            out |= earlier << (ROW_BITS * t)
    return out


@kernel
def _every_cell_coverable(start, h, packed, region, pieces, masks, rows, shadows, cover_starts, cover_index):
    """tiling._every_cell_coverable: every empty cell lies in a usable placement of a piece in hand (the
    placements covering cell c are cover_index[cover_starts[c]:cover_starts[c + 1]])."""
    empty = ~start & region
    while empty:
        cell = trailing_zeros(empty)
        found = False
        for j in range(cover_starts[cell], cover_starts[cell + 1]):
            i = cover_index[j]
            if (
                (packed >> (4 * pieces[i])) & 15
                and not masks[i] & start
                and not _rows_of(shadows[i] & start, h) & rows[i]
            ):
                empty &= ~masks[i]
                found = True
                break
        if not found:
            return False
    return True


@kernel
def _hard_slot(memo, now, bits, packed, order):
    """Slot of (bits, packed, order) in the hard-drop memo, or of the free slot where it would go. A slot whose
    stamp is not `now` (the question's) is free: a new question starts with an empty memo at no cost."""
    mask = memo.shape[0] - 1
    i = ((bits * -7046029254386353131) ^ (packed * -4658895280553007687) ^ (order * 0x2545F4914F6CDD1D)) >> 20
    i &= mask
    while True:
        if memo[i, 3] >> 1 != now or (memo[i, 0] == bits and memo[i, 1] == packed and memo[i, 2] == order):
            return i
        i = (i + 1) & mask


@kernel
def _search_hard_drop(  # noqa: C901 - a numba kernel: the exact-cover search with an explicit stack in one function
    start,
    h,
    packed0,
    need0,
    budget,
    starts,
    pieces,
    masks,
    columns,
    region,
    rows,
    skipped,
    shadows,
    cover_starts,
    cover_index,
    memo,
    stamp,
    stack,
):
    """1: coverable in some order of row clears, 0: not, 2: budget spent (unknown). Mirrors
    ai.pc.tiling._hard_drop_tileable step for step; the memo (rows: bits, packed, order, stamp * 2 + answer)
    holds this question's states only."""
    if need0 == 0:
        return 1
    if not _every_cell_coverable(start, h, packed0, region, pieces, masks, rows, shadows, cover_starts, cover_index):
        return 0
    stamp[0] += 1
    now = stamp[0]
    steps = budget - 1
    if steps < 0:
        return 2
    st_bits = stack[0]
    st_packed = stack[1]
    st_x = stack[2]
    st_opt = stack[3]
    st_end = stack[4]
    st_order = stack[5]
    sp = 0
    x, cell = _first_empty(~start & region, columns, 0)
    st_bits[0] = start
    st_packed[0] = packed0
    st_x[0] = x
    st_opt[0] = starts[cell]
    st_end[0] = starts[cell + 1]
    st_order[0] = 0
    while sp >= 0:
        i = st_opt[sp]
        if i >= st_end[sp]:  # every option failed: this state is dead
            slot = _hard_slot(memo, now, st_bits[sp], st_packed[sp], st_order[sp])
            memo[slot, 0] = st_bits[sp]
            memo[slot, 1] = st_packed[sp]
            memo[slot, 2] = st_order[sp]
            memo[slot, 3] = now << 1
            sp -= 1  # the frame below has moved past the option that led here already
            continue
        st_opt[sp] = i + 1  # whatever this option gives, the next one comes after it
        piece = pieces[i]
        mask = masks[i]
        bits = st_bits[sp]
        packed = st_packed[sp]
        if not (packed >> (4 * piece)) & 15 or mask & bits:
            continue
        order = _with_order(start, h, st_order[sp], rows[i], skipped[i], shadows[i])
        if order < 0:
            continue
        nbits = bits | mask
        npacked = packed - (1 << (4 * piece))
        left = need0 - sp - 1
        if left == 0:
            return 1
        empty = ~nbits & region
        x, cell = _first_empty(empty, columns, st_x[sp])
        if left == 1:  # the rest is one placement of a piece left, in order, or not (no memo entry, no step)
            for k in range(starts[cell], starts[cell + 1]):
                if (
                    masks[k] == empty
                    and (npacked >> (4 * pieces[k])) & 15
                    and _with_order(start, h, order, rows[k], skipped[k], shadows[k]) >= 0
                ):
                    return 1
            continue
        coverable = False  # some piece left takes the next cell in order (no memo entry, no step)
        for k in range(starts[cell], starts[cell + 1]):
            if (
                (npacked >> (4 * pieces[k])) & 15
                and not masks[k] & nbits
                and _with_order(start, h, order, rows[k], skipped[k], shadows[k]) >= 0
            ):
                coverable = True
                break
        if not coverable:
            continue
        slot = _hard_slot(memo, now, nbits, npacked, order)
        if memo[slot, 3] >> 1 == now:  # known dead (a live state ends the question)
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
        st_order[sp] = order
    return 0


@kernel
def _search_hard_drop_counts(
    bits,
    h,
    counts8,
    budget,
    starts,
    pieces,
    masks,
    columns,
    region,
    rows,
    skipped,
    shadows,
    cover_starts,
    cover_index,
    memo,
    stamp,
    stack,
):
    """tiling.hard_drop_tileable_counts8's work: parity, the packed counts, reflected to start on the more crowded
    side (tiling._fewer_empty_on_the_right), then the search."""
    need, packed = _packed_counts(bits, h, counts8)
    if need < 0:
        return 0
    bits, packed = _crowded_side_first(bits, packed, columns, region)
    return _search_hard_drop(
        bits,
        h,
        packed,
        need,
        budget,
        starts,
        pieces,
        masks,
        columns,
        region,
        rows,
        skipped,
        shadows,
        cover_starts,
        cover_index,
        memo,
        stamp,
        stack,
    )


class Kernel:
    """Placement tables per h as arrays, and the compiled search's memo: an open-addressing hash table of
    MEMO_SLOTS states (started over when half full)."""

    def __init__(self, by_cell_for) -> None:
        self._by_cell_for = by_cell_for
        self._tables: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]] = {}
        self.memo = jit_table.make(MEMO_SLOTS)
        self.fill = np.zeros(1, np.int64)
        self.stack = np.zeros((5, STACK), np.int64)
        self._order_tables: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}
        self.hard_memo = np.zeros((HARD_SLOTS, 4), np.int64)  # stamp 0: every slot free
        self.hard_stamp = np.zeros(1, np.int64)
        self.hard_stack = np.zeros((6, STACK), np.int64)

    def clear(self) -> None:
        with KERNEL_LOCK:
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

    def order_tables(self, h: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The hard-drop test's tables: per placement of tables(h), in the same order, its rows, the rows it skips
        and its shadow (tiling._order_table); then per cell the placements covering it (tiling._covering), as
        starts per cell into an array of placement indices."""
        found = self._order_tables.get(h)
        if found is None:
            entries = [entry for options in _order_table(h) for entry in options]
            rows, skipped, shadows = (np.array([entry[k] for entry in entries], np.int64) for k in (2, 3, 4))
            index_of = {id(entry): i for i, entry in enumerate(entries)}
            cover_starts, cover_index = [0], []
            for covering in _covering(h):
                cover_index += [index_of[id(entry)] for entry in covering]
                cover_starts.append(len(cover_index))
            found = self._order_tables[h] = (
                rows,
                skipped,
                shadows,
                np.array(cover_starts, np.int64),
                np.array(cover_index, np.int64),
            )
        return found

    def hard_memo_for(self, budget: int) -> np.ndarray:
        """The hard-drop test's memo, grown if a question of `budget` steps could fill more than half of it (each
        step stores one state at most)."""
        if 2 * budget > self.hard_memo.shape[0]:
            self.hard_memo = np.zeros((1 << (2 * budget - 1).bit_length(), 4), np.int64)
            self.hard_stamp[0] = 0
        return self.hard_memo

    # each entry holds jit_table.KERNEL_LOCK: the memos and stacks are the process's
    def run_hard_drop(self, bits: int, h: int, counts8: int, budget: int) -> int:
        with KERNEL_LOCK:
            tables = self._tables.get(h) or self.tables(h)
            memo = self.hard_memo_for(budget)
            return _search_hard_drop_counts(
                bits, h, counts8, budget, *tables, *self.order_tables(h), memo, self.hard_stamp, self.hard_stack
            )

    def run_counts(self, bits: int, h: int, counts8: int, budget: int) -> int:
        with KERNEL_LOCK:
            tables = self._tables.get(h) or self.tables(h)
            return _search_counts(bits, h, counts8, budget, *tables, self.memo, self.fill, self.stack)

    def run(self, bits: int, h: int, packed: int, need: int, budget: int) -> int:
        with KERNEL_LOCK:
            tables = self._tables.get(h) or self.tables(h)
            return _search(bits, h, packed, need, budget, *tables, self.memo, self.fill, self.stack)


@kernel
def state_test(bits, h, counts8, budget, soft, tiles, orders):
    """The PC searches' test of a state (1 coverable, 0 not, 2 unknown): order-free with soft drop; with hard
    drops only, in an order of row clears (tiling.hard_drop_tileable_counts8, which implies the order-free one).
    `tiles` and `orders` are the tables indexed by h with the memos, as ai.pc.jit_search.Kernel passes them."""
    t_starts, t_pieces, t_masks, t_columns, t_region, tile_memo, tile_fill, tile_stack = tiles
    if soft:
        return _search_counts(
            bits,
            h,
            counts8,
            budget,
            t_starts[h],
            t_pieces[h],
            t_masks[h],
            t_columns[h],
            t_region[h],
            tile_memo,
            tile_fill,
            tile_stack,
        )
    o_rows, o_skipped, o_shadows, o_cover_starts, o_cover_index, hard_memo, hard_stamp, hard_stack = orders
    return _search_hard_drop_counts(
        bits,
        h,
        counts8,
        budget,
        t_starts[h],
        t_pieces[h],
        t_masks[h],
        t_columns[h],
        t_region[h],
        o_rows[h],
        o_skipped[h],
        o_shadows[h],
        o_cover_starts[h],
        o_cover_index[h],
        hard_memo,
        hard_stamp,
        hard_stack,
    )


assert MAX_LINES <= 6  # 60 field bits + h in bits 60-62


# tiling: ROW_BITS, ROW_SET and MIRROR_OF
jit_table.forget_stale_cache(__name__, [__file__, jit_table.__file__, tiling.__file__])
