"""`ai.pc.tiling`'s exact-cover test compiled with numba: the same search (lowest empty cell column by column, the
same placement table in the same order, the same step budget), on machine words, with an explicit stack.

Fields of up to 6 rows fit in 60 bits, so a state is two int64s: field | h << 60, and the packed piece counts;
the memo is an open-addressing hash table in a numpy array, ai.pc.jit_table (a numba typed dict cost more to
pass in than the search itself). Given the same memo contents it answers exactly as ai.pc.tiling's Python
search (tests compare them on search-like fields), about 10x faster; ai.pc.tiling uses it when numba can be
imported. `_search_hard_drop` is the same for ai.pc.tiling's hard-drop test (the exact cover in an order of row
clears), with a memo of its own that each question starts empty.

A cell's placements only touch the four columns from its own. So on fields of up to WINDOW_LINES rows the
order-free search reads the placements that fit at a cell from tables indexed by those columns' cells (two
look-ups: the lower rows and the upper rows), as the bits of one word, and keeps the pieces left as a mask
(`_window_search`). It used to try each of a cell's 13-35 placements in turn, and the next cell's again at every
placement that fitted (`_scan_search`, which 6-row fields keep: their cells have up to 91 placements; the
hard-drop test scans too): on the tiling questions of wander's slow positions, 45 ms against 95 ms.
"""

from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from ai.pc import jit_table, tiling
from ai.pc.field import COLUMN, MAX_LINES
from ai.pc.jit_table import KERNEL_LOCK, get, kernel, popcount, put, reset, reset_if_half_full
from ai.pc.tiling import MIRROR_OF, ROW_BITS, ROW_SET, _covering, _order_table
from game.board import WIDTH

MEMO_SLOTS = 1 << 16  # 64K states, 1 MB: a small table the caches hold beats a big one that misses (bench/pc.py)
VBITS = 1  # a memo value is 0 (not coverable) or 1 (coverable)
STACK = 17  # frames of the search: at most 15 pieces below the start
WINDOW_LINES = 5  # fields of up to 5 rows: a cell's placements (59 at most) are bits of one word
WINDOW_COLUMNS = 4  # the columns a placement spans from its first cell's
LOW_ROWS = (WINDOW_LINES + 1) // 2  # the window's lower rows, read by one table; the rest by the other
# the layout of the one array of tables (tables_in_one): per (h, y) a block of these parts,
LOW_AT = 0
HIGH_AT = LOW_AT + (1 << (WINDOW_COLUMNS * LOW_ROWS))
PIECES_AT = HIGH_AT + (1 << (WINDOW_COLUMNS * (WINDOW_LINES - LOW_ROWS)))
MASKS_AT = PIECES_AT + 64
WITH_PIECE_AT = MASKS_AT + 64
BLOCK = WITH_PIECE_AT + 128
OUTSIDE_AT = (WINDOW_LINES + 1) * WINDOW_LINES * BLOCK  # then per (h, x) the window's cells past the last column,
REGION_AT = OUTSIDE_AT + (WINDOW_LINES + 1) * WIDTH  # per h the cells of h rows,
COLUMNS_AT = REGION_AT + MAX_LINES + 1  # per h the cells of each column of h rows (and a 0 after),
LISTS_AT = COLUMNS_AT + (MAX_LINES + 1) * (WIDTH + 1)  # per h where its cells' placement lists start (3 numbers)
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
def _search(bits0, h, packed0, need0, budget, tables, memo, fill, stack):
    """1: coverable, 0: not, 2: budget spent (unknown). Mirrors ai.pc.tiling._tileable step for step: the memo's
    answer, else the search, on fields of up to WINDOW_LINES rows through the window tables, else scanning
    (`tables`: tables_in_one)."""
    if need0 == 0:
        return 1
    reset_if_half_full(memo, fill)
    first = get(memo, bits0 | h << 60, packed0, VBITS)
    if first >= 0:
        return first
    if budget < 1:
        return 2
    columns = tables[COLUMNS_AT + (WIDTH + 1) * h : COLUMNS_AT + (WIDTH + 1) * (h + 1)]
    region = tables[REGION_AT + h]
    if h <= WINDOW_LINES:
        return _window_search(bits0, h, packed0, need0, budget, columns, region, tables, memo, fill, stack)
    starts, pieces, masks, count = _lists_at(tables, h)
    return _scan_search(
        bits0,
        h,
        packed0,
        need0,
        budget,
        tables[starts : starts + WIDTH * h + 1],
        tables[pieces : pieces + count],
        tables[masks : masks + count],
        columns,
        region,
        memo,
        fill,
        stack,
    )


@kernel
def _lists_at(tables, h):
    """Where the scanning search's lists for h rows are in tables_in_one (Kernel.tables: starts per cell, pieces,
    cells): (starts, pieces, cells, placements). Kernels without numba's runtime cannot return the slices."""
    at = tables[LISTS_AT + 3 * h]
    return at, tables[LISTS_AT + 3 * h + 1], tables[LISTS_AT + 3 * h + 2], tables[at + WIDTH * h]


@kernel
def _coverable_path(st_bits, st_packed, sp, tag, memo, fill):
    """Frames 0..sp led to a cover: each of their states is coverable."""
    for j in range(sp + 1):
        put(memo, fill, st_bits[j] | tag, st_packed[j], VBITS, 1)
    return 1


@kernel
def _pieces_left(packed):
    """Bit p set when piece p's count (4 bits at 4p) is not 0."""
    left = 0
    for piece in range(7):
        if (packed >> (4 * piece)) & 15:
            left |= 1 << piece
    return left


@kernel
def _fitting(bits, h, x, block, windows):
    """The placements whose first cell is (x, y) that fit in `bits`, as bits of row y's list (`block`: row y's
    tables in tables_in_one): the cells of columns x..x+3 (those past the last column filled) look up the lower
    and the upper rows."""
    window = windows[OUTSIDE_AT + WIDTH * h + x]
    for r in range(h):
        window |= ((bits >> (10 * r + x)) & 15) << (WINDOW_COLUMNS * r)
    split = WINDOW_COLUMNS * ((h + 1) // 2)
    return windows[block + LOW_AT + (window & ((1 << split) - 1))] & windows[block + HIGH_AT + (window >> split)]


@kernel
def _window_search(bits0, h, packed0, need0, budget, columns, region, windows, memo, fill, stack):
    """_scan_search with each cell's fitting placements from the window tables: the same placements in the same
    order, the same memo entries and steps. (From _search: the memo has no answer, the budget is a step at least.)"""
    tag = h << 60
    steps = budget - 1
    st_bits = stack[0]
    st_packed = stack[1]
    st_x = stack[2]
    st_block = stack[3]  # the tables of the cell's row
    st_left = stack[4]  # the pieces left, as a mask (_pieces_left)
    st_options = stack[5]  # the cell's fitting placements not tried yet
    sp = 0
    x, cell = _first_empty(~bits0 & region, columns, 0)
    block = (h * WINDOW_LINES + cell // 10) * BLOCK
    left = _pieces_left(packed0)
    st_bits[0] = bits0
    st_packed[0] = packed0
    st_x[0] = x
    st_block[0] = block
    st_left[0] = left
    st_options[0] = _fitting(bits0, h, x, block, windows) & windows[block + WITH_PIECE_AT + left]
    while sp >= 0:
        options = st_options[sp]
        if options == 0:  # every option failed: this state is dead
            put(memo, fill, st_bits[sp] | tag, st_packed[sp], VBITS, 0)
            sp -= 1
            continue
        st_options[sp] = options & (options - 1)
        option = trailing_zeros(options)
        x = st_x[sp]
        block = st_block[sp]
        piece = windows[block + PIECES_AT + option]
        nbits = st_bits[sp] | (windows[block + MASKS_AT + option] << x)
        npacked = st_packed[sp] - (1 << (4 * piece))
        if need0 - sp - 1 == 0:
            return _coverable_path(st_bits, st_packed, sp, tag, memo, fill)
        nleft = st_left[sp]
        if not (npacked >> (4 * piece)) & 15:
            nleft &= ~(1 << piece)
        # the first empty cell (column-major) left: some piece left must take it (no memo entry, no step)
        empty = ~nbits & region
        x, cell = _first_empty(empty, columns, x)
        block = (h * WINDOW_LINES + cell // 10) * BLOCK
        fits = _fitting(nbits, h, x, block, windows) & windows[block + WITH_PIECE_AT + nleft]
        if fits == 0:
            continue
        if need0 - sp - 1 == 1:  # one piece left: the rest is one of its placements or not
            while fits:
                if windows[block + MASKS_AT + trailing_zeros(fits)] << x == empty:
                    return _coverable_path(st_bits, st_packed, sp, tag, memo, fill)
                fits &= fits - 1
            continue
        known = get(memo, nbits | tag, npacked, VBITS)
        if known == 1:
            return _coverable_path(st_bits, st_packed, sp, tag, memo, fill)
        if known == 0:
            continue
        steps -= 1
        if steps < 0:
            return 2
        sp += 1
        st_bits[sp] = nbits
        st_packed[sp] = npacked
        st_x[sp] = x
        st_block[sp] = block
        st_left[sp] = nleft
        st_options[sp] = fits
    return 0


@kernel
def _scan_search(bits0, h, packed0, need0, budget, starts, pieces, masks, columns, region, memo, fill, stack):
    """1: coverable, 0: not, 2: budget spent (unknown). Mirrors ai.pc.tiling._tileable step for step, trying
    each placement of the cell's list in turn. (From _search: the memo has no answer, the budget is a step at
    least.)"""
    tag = h << 60
    steps = budget - 1
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
                return _coverable_path(st_bits, st_packed, sp, tag, memo, fill)
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
                    return _coverable_path(st_bits, st_packed, sp, tag, memo, fill)
                st_opt[sp] += 1
                continue
            # some piece left must take that cell: checked before the memo, whose look-ups miss the CPU caches
            # (no memo entry, no step, as ai.pc.tiling)
            if not coverable:
                st_opt[sp] += 1
                continue
            known = get(memo, nbits | tag, npacked, VBITS)
            if known == 1:
                return _coverable_path(st_bits, st_packed, sp, tag, memo, fill)
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
def _search_counts(bits, h, counts8, budget, tables, memo, fill, stack):
    """tiling.tileable's work from 8-bit piece counts: parity, the packed counts, reflected to start on the more
    crowded side (tiling._fewer_empty_on_the_right), then the search."""
    need, packed = _packed_counts(bits, h, counts8)
    if need < 0:
        return 0
    columns = tables[COLUMNS_AT + (WIDTH + 1) * h : COLUMNS_AT + (WIDTH + 1) * (h + 1)]
    bits, packed = _crowded_side_first(bits, packed, columns, tables[REGION_AT + h])
    return _search(bits, h, packed, need, budget, tables, memo, fill, stack)


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
    """tiling.mirrored: the field reflected left to right (column: column 0's cells)."""
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


def tables_in_one(by_cell_for) -> np.ndarray:
    """The order-free tiling test's tables for every h, from tiling's placements by first cell (`by_cell_for(h)`),
    in one array: the searches pass them on through several calls per state, and each array more to pass cost
    them more than the look-ups saved (one more array: the trie search's states took twice as long).

    The window search's, for 1 to WINDOW_LINES rows. A row's list is its first cell's (column 0), whose placements
    all fit in the field; cell (x, y)'s list is that one moved x columns right, less the placements that would
    leave the field, in the same order (tiling sorts every list so; checked here). Option o of row y is bit o of a
    word. Row y of h rows has a block at (h * WINDOW_LINES + y) * BLOCK:
    - at LOW_AT + w and HIGH_AT + w: the options that miss the filled cells w of the window's lower and upper
      rows (the window: the 4 columns from the cell's, 4 bits per row; the lower rows are the first (h + 1) // 2);
    - at PIECES_AT + o and MASKS_AT + o: option o's piece and cells (at column 0);
    - at WITH_PIECE_AT + m: the options whose piece is in the mask m (bit p: piece p).
    At OUTSIDE_AT + WIDTH * h + x: the window's cells past the last column, counted as filled.

    Every h's (0 to MAX_LINES): at REGION_AT + h the cells of h rows; from COLUMNS_AT + (WIDTH + 1) * h the cells
    of each column, then 0 (ai.pc.field.COLUMN); and where the scanning search's lists start, at LISTS_AT + 3 * h
    (Kernel.tables: starts per cell, then the pieces and the cells of the placements)."""
    lists = [_lists(by_cell_for(h)) if h else _lists([]) for h in range(MAX_LINES + 1)]
    size = LISTS_AT + 3 * (MAX_LINES + 1) + sum(len(part) for parts in lists for part in parts)
    tables = np.zeros(size, np.int64)
    at = LISTS_AT + 3 * (MAX_LINES + 1)
    for h, parts in enumerate(lists):
        tables[REGION_AT + h] = (1 << (WIDTH * h)) - 1
        if h:
            tables[COLUMNS_AT + (WIDTH + 1) * h : COLUMNS_AT + (WIDTH + 1) * h + WIDTH] = COLUMN[h]
        for k, part in enumerate(parts):
            tables[LISTS_AT + 3 * h + k] = at
            tables[at : at + len(part)] = part
            at += len(part)
    for h in range(1, WINDOW_LINES + 1):
        _window_tables(tables, by_cell_for(h), h)
    return tables


def _lists(by_cell: list[list[tuple[int, int]]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The scanning search's tables: per cell where its placements start (and where the last cell's end), and
    every placement's piece and cells."""
    starts, pieces, masks = [0], [], []
    for options in by_cell:
        for piece, mask in options:
            pieces.append(piece)
            masks.append(mask)
        starts.append(len(pieces))
    return np.array(starts, np.int64), np.array(pieces, np.int64), np.array(masks, np.int64)


def _window_tables(tables: np.ndarray, by_cell: list[list[tuple[int, int]]], h: int) -> None:
    """Write the window search's tables for h rows into `tables` (see tables_in_one)."""
    split = (h + 1) // 2
    for x in range(WIDTH):
        for r in range(h):
            for dx in range(WINDOW_COLUMNS):
                if x + dx >= WIDTH:
                    tables[OUTSIDE_AT + WIDTH * h + x] |= 1 << (WINDOW_COLUMNS * r + dx)
    for y in range(h):
        block = (h * WINDOW_LINES + y) * BLOCK
        options = by_cell[WIDTH * y]
        if len(options) > 63:
            raise ValueError(f"{len(options)} placements at a cell of {h} rows: more than a word holds")
        for x in range(WIDTH):
            inside = [(p, m << x) for p, m in options if all((m >> (10 * r) & 1023) << x < 1024 for r in range(h))]
            if inside != by_cell[WIDTH * y + x]:
                raise ValueError(f"cell ({x}, {y}) of {h} rows: its placements are not its row's moved right")
        lower = np.arange(1 << (WINDOW_COLUMNS * split), dtype=np.int64)
        upper = np.arange(1 << (WINDOW_COLUMNS * (h - split)), dtype=np.int64)
        for o, (piece, mask) in enumerate(options):
            window = 0
            for r in range(h):
                window |= ((mask >> (10 * r)) & 1023) << (WINDOW_COLUMNS * r)
            low_cells = window & ((1 << (WINDOW_COLUMNS * split)) - 1)
            high_cells = window >> (WINDOW_COLUMNS * split)
            at = block + LOW_AT
            tables[at : at + len(lower)] |= ((lower & low_cells) == 0).astype(np.int64) << o
            at = block + HIGH_AT
            tables[at : at + len(upper)] |= ((upper & high_cells) == 0).astype(np.int64) << o
            tables[block + PIECES_AT + o] = piece
            tables[block + MASKS_AT + o] = mask
            for pieces in range(128):
                if (pieces >> piece) & 1:
                    tables[block + WITH_PIECE_AT + pieces] |= 1 << o


class Kernel:
    """Placement tables per h as arrays, and the compiled search's memo: an open-addressing hash table of
    MEMO_SLOTS states (started over when half full)."""

    def __init__(self, by_cell_for) -> None:
        self._by_cell_for = by_cell_for
        self._tables: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]] = {}
        self.memo = jit_table.make(MEMO_SLOTS)
        self.fill = np.zeros(1, np.int64)
        self.stack = np.zeros((6, STACK), np.int64)
        self._in_one: np.ndarray | None = None
        self._order_tables: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}
        self.hard_memo = np.zeros((HARD_SLOTS, 4), np.int64)  # stamp 0: every slot free
        self.hard_stamp = np.zeros(1, np.int64)
        self.hard_stack = np.zeros((6, STACK), np.int64)

    def clear(self) -> None:
        with KERNEL_LOCK:
            reset(self.memo, self.fill)

    def tables(self, h: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
        """The scanning search's tables for h rows, (starts, pieces, cells, columns, region): views of in_one()."""
        found = self._tables.get(h)
        if found is None:
            tables = self.in_one()
            starts_at, pieces_at, masks_at = (int(at) for at in tables[LISTS_AT + 3 * h : LISTS_AT + 3 * h + 3])
            count = int(tables[starts_at + WIDTH * h])
            columns_at = COLUMNS_AT + (WIDTH + 1) * h
            found = self._tables[h] = (
                tables[starts_at : starts_at + WIDTH * h + 1],
                tables[pieces_at : pieces_at + count],
                tables[masks_at : masks_at + count],
                tables[columns_at : columns_at + WIDTH + 1],
                int(tables[REGION_AT + h]),
            )
        return found

    def in_one(self) -> np.ndarray:
        """The tables of every h in one array (tables_in_one), made on first use."""
        if self._in_one is None:
            self._in_one = tables_in_one(self._by_cell_for)
        return self._in_one

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
            return _search_counts(bits, h, counts8, budget, self.in_one(), self.memo, self.fill, self.stack)

    def run(self, bits: int, h: int, packed: int, need: int, budget: int) -> int:
        with KERNEL_LOCK:
            return _search(bits, h, packed, need, budget, self.in_one(), self.memo, self.fill, self.stack)


@kernel
def state_test(bits, h, counts8, budget, soft, tiles, orders):
    """The PC searches' test of a state (1 coverable, 0 not, 2 unknown): order-free with soft drop; with hard
    drops only, in an order of row clears (tiling.hard_drop_tileable_counts8, which implies the order-free one).
    `tiles` (the tables in one array, Kernel.in_one, and the memo) and `orders` (the hard-drop test's tables
    indexed by h and its memo) as ai.pc.jit_search.Kernel passes them."""
    tables, tile_memo, tile_fill, tile_stack = tiles
    if soft:
        return _search_counts(bits, h, counts8, budget, tables, tile_memo, tile_fill, tile_stack)
    starts, pieces, masks, count = _lists_at(tables, h)
    o_rows, o_skipped, o_shadows, o_cover_starts, o_cover_index, hard_memo, hard_stamp, hard_stack = orders
    return _search_hard_drop_counts(
        bits,
        h,
        counts8,
        budget,
        tables[starts : starts + WIDTH * h + 1],
        tables[pieces : pieces + count],
        tables[masks : masks + count],
        tables[COLUMNS_AT + (WIDTH + 1) * h : COLUMNS_AT + (WIDTH + 1) * (h + 1)],
        tables[REGION_AT + h],
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
