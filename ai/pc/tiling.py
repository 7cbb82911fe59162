"""Order-free feasibility: can the empty cells be covered exactly by the pieces still to come?

A piece placed after some rows have cleared occupies, in today's field, rows that need not be adjacent (the rows
between were full and are gone by then). So besides ordinary placements we allow "stretched" ones: the shape's
rows mapped onto any increasing choice of rows. Covering the lowest empty cell first turns the question into a
small exact-cover search; it ignores order, gravity and reachability, so a "no" is a proof that the state is
dead (a sound pruning rule), a "yes" proves nothing. Answers are memoised per (field, h, piece counts); they do
not depend on the rules, so the memo is global.

For a build of hard drops only, `hard_drop_tileable_counts8` is the same search with the order in which rows can
clear taken into account (see the comment above it): much stronger on the fields straight drops leave, whose
blocks overhang empty cells.
"""

from __future__ import annotations

from itertools import combinations

from ai.pc.field import COLUMN, LEFT_OF, MAX_LINES, REGION
from game.board import WIDTH, Bitboard
from game.pieces import SHAPES, Piece, Rotation


def _first_cell(mask: Bitboard, h: int) -> int:
    """Index (y*10 + x) of the mask's first cell in column-major order (leftmost column, then lowest row).

    Covering cells column by column keeps the search frontier within about four columns, so partial fields
    repeat a lot and the memo pays (row by row the frontier would span the whole width)."""
    for x in range(WIDTH):
        column = mask & COLUMN[h][x]
        if column:
            return (column & -column).bit_length() - 1
    raise ValueError("empty mask")


def _stretched_placements(h: int) -> list[list[tuple[int, Bitboard]]]:
    """by_first_cell[c] = [(piece, mask), ...] of every (possibly stretched) placement whose first cell
    (column-major) is c, sorted by piece, then mask. So a cell's list is its row's first cell's list moved right,
    less what would leave the field: the compiled search finds a cell's placements from one list per row
    (ai.pc.jit_tiling.tables_in_one)."""
    by_cell: list[list[tuple[int, Bitboard]]] = [[] for _ in range(WIDTH * h)]
    for piece in Piece:
        shapes = {SHAPES[piece, rot] for rot in Rotation}
        normalised = set()
        for cells in shapes:
            min_x = min(dx for dx, _ in cells)
            min_y = min(dy for _, dy in cells)
            normalised.add(tuple(sorted((dx - min_x, dy - min_y) for dx, dy in cells)))
        masks = set()
        for cells in normalised:
            shape_rows = sorted({dy for _, dy in cells})
            width = max(dx for dx, _ in cells) + 1
            for rows in combinations(range(h), len(shape_rows)):
                row_of = dict(zip(shape_rows, rows))
                for x in range(WIDTH - width + 1):
                    masks.add(sum(1 << (row_of[dy] * WIDTH + x + dx) for dx, dy in cells))
        for mask in masks:
            by_cell[_first_cell(mask, h)].append((int(piece), mask))
    for options in by_cell:
        options.sort()
    return by_cell


USE_KERNEL = True  # tests switch it off to compare the two searches
_BY_CELL: dict[int, list[list[tuple[int, Bitboard]]]] = {}
_MEMO: dict[int, bool] = {}


def _table(h: int) -> list[list[tuple[int, Bitboard]]]:
    table = _BY_CELL.get(h)
    if table is None:
        table = _BY_CELL[h] = _stretched_placements(h)
    return table


class _Budget(Exception):
    pass


def tileable(bits: Bitboard, h: int, counts: tuple[int, ...], budget: int = 3000) -> bool:
    """True if some choice of the pieces in `counts` (count per Piece) may cover exactly the empty cells of rows
    0..h-1 (stretched placements allowed; extra pieces may be left unused). After `budget` search steps without
    an answer it gives up and says True (unknown), which keeps the test a sound pruning rule."""
    if h > MAX_LINES:
        return True
    empty = WIDTH * h - bits.bit_count()
    if empty % 4:
        return False
    need = empty // 4
    # Counts packed 4 bits per piece; more of a piece than the pieces needed cannot matter, and capping
    # makes more states share a memo entry.
    packed = 0
    for piece, count in enumerate(counts):
        packed |= min(count, need, 15) << (4 * piece)
    if _fewer_empty_on_the_right(bits, h):  # as the compiled entry (jit_tiling._search_counts) does
        bits, packed = mirrored(bits, h), _mirrored_counts(packed)
    kernel = _kernel()
    if kernel is not None:
        key = bits | h << 60 | packed << 64
        known = _ANSWERS.get(key)
        if known is None:
            answer = kernel.run(bits, h, packed, need, budget)  # 2: budget spent, unknown
            if answer == 2:
                return True
            if len(_ANSWERS) > 1_000_000:
                _ANSWERS.clear()
            known = _ANSWERS[key] = answer == 1
        return known
    steps = [budget]
    try:
        return _tileable(bits, h, packed, need, steps, _table(h), COLUMN[h], 0, h << 60)
    except _Budget:
        return True


def tileable_counts8(bits: Bitboard, h: int, counts8: int, budget: int = 3000) -> bool:
    """tileable() with the counts packed 8 bits per piece (piece p in bits 8p..8p+7), as the search keeps them:
    the whole test runs compiled when numba is there."""
    kernel = _kernel()
    if kernel is None or h > MAX_LINES:
        return tileable(bits, h, tuple((counts8 >> (8 * p)) & 255 for p in range(7)), budget)
    key = bits | h << 60 | counts8 << 64
    known = _ANSWERS8.get(key)
    if known is None:
        answer = kernel.run_counts(bits, h, counts8, budget)  # 2: budget spent, unknown
        if answer == 2:
            return True
        if len(_ANSWERS8) > 1_000_000:
            _ANSWERS8.clear()
        known = _ANSWERS8[key] = answer == 1
    return known


_KERNEL: list = []
_ANSWERS: dict[int, bool] = {}  # the compiled search's definite answers to top-level questions (4-bit counts)
_ANSWERS8: dict[int, bool] = {}  # the same for tileable_counts8 (8-bit counts: another key space)


def _kernel():
    """The compiled search (ai.pc.jit_tiling), or None where numba cannot be imported or USE_KERNEL is off."""
    if not USE_KERNEL:
        return None
    if not _KERNEL:
        try:
            from ai.pc.jit_tiling import Kernel
        except ImportError:
            _KERNEL.append(None)
        else:
            _KERNEL.append(Kernel(_table))
    return _KERNEL[0]


def clear_memo() -> None:
    """Forget every memoised answer (the Python and the compiled ones)."""
    _MEMO.clear()
    _ANSWERS.clear()
    _ANSWERS8.clear()
    if _KERNEL and _KERNEL[0] is not None:
        _KERNEL[0].clear()


def _tileable(
    bits: Bitboard,
    h: int,
    packed: int,
    need: int,
    steps: list[int],
    table: list[list[tuple[int, Bitboard]]],
    columns: tuple[Bitboard, ...],
    x: int,
    tag: int,
) -> bool:
    if need == 0:
        return True
    # one int per state: field bits (below bit 60), h (bits 60-62), the packed counts from bit 64
    key = bits | tag | (packed << 64)
    known = _MEMO.get(key)
    if known is not None:
        return known
    steps[0] -= 1
    if steps[0] < 0:
        raise _Budget
    if len(_MEMO) > 1_000_000:
        _MEMO.clear()
    # cells left of column x are all filled already (the search fills column by column)
    x, cell = _first_empty_cell(~bits & REGION[h], columns, x)
    result = False
    for piece, mask in table[cell]:
        if not (packed >> (4 * piece)) & 15 or mask & bits:
            continue
        left = packed - (1 << (4 * piece))
        if need == 1:  # this piece fills the field
            found = True
        elif need == 2:  # one piece left after this one: no memo entry and no step for it (as the kernel)
            found = _last_piece_fits(~(bits | mask) & REGION[h], left, table, columns, x)
        elif not _next_cell_coverable(bits | mask, h, left, table, columns, x):  # no memo entry, no step either
            found = False
        else:
            found = _tileable(bits | mask, h, left, need - 1, steps, table, columns, x, tag)
        if found:
            result = True
            break
    _MEMO[key] = result
    return result


def _first_empty_cell(empty: Bitboard, columns, x: int) -> tuple[int, int]:
    """(column, index) of the first empty cell in column-major order, from column x on (the columns before are
    full); ai.pc.jit_tiling._first_empty is its compiled twin."""
    column = empty & columns[x]
    while not column:
        x += 1
        column = empty & columns[x]
    return x, (column & -column).bit_length() - 1


def _next_cell_coverable(bits: Bitboard, h: int, packed: int, table, columns, x: int) -> bool:
    """Can some piece still in `packed` cover the first empty cell (column-major) of `bits`?"""
    _, cell = _first_empty_cell(~bits & REGION[h], columns, x)
    return any((packed >> (4 * piece)) & 15 and not mask & bits for piece, mask in table[cell])


def _last_piece_fits(rest: Bitboard, packed: int, table: list[list[tuple[int, Bitboard]]], columns, x: int) -> bool:
    """Are the 4 empty cells `rest` one (possibly stretched) placement of a piece still in `packed`?"""
    _, cell = _first_empty_cell(rest, columns, x)
    return any(mask == rest and (packed >> (4 * piece)) & 15 for piece, mask in table[cell])


# The tiling test for a build of hard drops only. The rows of today's field clear one by one (rows clearing at once
# count as any order of them), and every piece of the build lands while its own rows are still there but after
# some other rows have cleared: the rows its stretched shape skips, and, as a hard drop comes straight down, the
# rows of today's blocks above its cells in its columns. (The build's own pieces above it are left out: when they
# land is not known.) So "those rows clear before the piece's rows" must hold for all the pieces at once, without a
# cycle. The search below is `_tileable`'s exact cover carrying that order (a piece that would close a cycle is not
# used); every constraint holds in every hard-drop build, so a "no" still proves the state dead.
_ORDER_TABLES: dict[int, list[list[tuple[int, Bitboard, int, int, Bitboard]]]] = {}
_COVERING: dict[int, list[list[tuple[int, Bitboard, int, int, Bitboard]]]] = {}
ROW_BITS = MAX_LINES  # precedences: the rows before row t in bits ROW_BITS*t.. of one int
ROW_SET = (1 << ROW_BITS) - 1
# MIRROR_OF[piece]: the piece whose placements are this one's reflected left to right
MIRROR_OF = tuple(int(Piece[{"J": "L", "L": "J", "S": "Z", "Z": "S"}.get(piece.name, piece.name)]) for piece in Piece)


def _rows_of(mask: Bitboard, h: int) -> int:
    """The rows (bit y for row y) in which `mask` has cells."""
    rows = 0
    for y in range(h):
        if (mask >> (WIDTH * y)) & 1023:
            rows |= 1 << y
    return rows


def _order_table(h: int) -> list[list[tuple[int, Bitboard, int, int, Bitboard]]]:
    """`_table(h)` with, per placement, its rows, the rows its shape skips, and the cells above it in its
    columns (its shadow): by_first_cell[c] = [(piece, mask, rows, skipped rows, shadow), ...] in the same order."""
    table = _ORDER_TABLES.get(h)
    if table is None:
        table = []
        for options in _table(h):
            entries = []
            for piece, mask in options:
                rows = _rows_of(mask, h)
                span = (1 << rows.bit_length()) - (rows & -rows)
                shadow = 0
                above = mask
                while above:
                    above = (above << WIDTH) & REGION[h]
                    shadow |= above
                entries.append((piece, mask, rows, span & ~rows, shadow & ~mask))
            table.append(entries)
        _ORDER_TABLES[h] = table
    return table


def _after_rows(order: int, h: int, before: int, rows: int) -> int:
    """The precedences `order` (closed: the rows before row t, transitively, in bits ROW_BITS*t..) with every row
    of `before` put before every row of `rows`, closed again; -1 if that makes a cycle."""
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


def hard_drop_tileable_counts8(bits: Bitboard, h: int, counts8: int, budget: int = 3000) -> bool:
    """tileable_counts8 for a build of hard drops only: the pieces must also admit an order of row clears (see
    `_after_rows` and the comment above it). After `budget` steps it says True (unknown). Each question starts
    with an empty memo, so the compiled and the Python search answer alike whatever came before."""
    if h > MAX_LINES:
        return True
    kernel = _kernel()
    if kernel is not None:
        return kernel.run_hard_drop(bits, h, counts8, budget) != 0  # 2: budget spent, unknown
    empty = WIDTH * h - bits.bit_count()
    if empty % 4:
        return False
    need = empty // 4
    packed = 0
    for piece in range(7):
        packed |= min((counts8 >> (8 * piece)) & 255, need, 15) << (4 * piece)
    if _fewer_empty_on_the_right(bits, h):
        bits, packed = mirrored(bits, h), _mirrored_counts(packed)
    if not _every_cell_coverable(bits, h, packed):
        return False
    steps = [budget]
    try:
        return _hard_drop_tileable(bits, h, bits, packed, need, 0, steps, _order_table(h), COLUMN[h], 0, {})
    except _Budget:
        return True


def _fewer_empty_on_the_right(bits: Bitboard, h: int) -> bool:
    """Does the right half hold fewer empty cells than the left? The search covers cells column by column from the
    left, and an open area has many tilings, all tried before a dead spot further right shows (the costly
    questions were of that kind); so the question is reflected to start on the more crowded side, where a dead
    field's contradiction usually lies. Reflected, the answer is the same (about half the steps on E047's fields).
    Both tests do it, the order-free one too (bench/pc.py: no hold max 112 -> 69 ms, the live chance 8% faster)."""
    empty = ~bits & REGION[h]
    left = empty & LEFT_OF[h][WIDTH // 2]
    return left.bit_count() > (empty & ~left).bit_count()


def mirrored(bits: Bitboard, h: int) -> Bitboard:
    """The field reflected left to right."""
    column = COLUMN[h][0]
    out = 0
    for x in range(WIDTH):
        out |= ((bits >> x) & column) << (WIDTH - 1 - x)
    return out


def _mirrored_counts(packed: int) -> int:
    """Counts packed 4 bits per piece, each moved to its mirror piece (J and L, S and Z swap)."""
    out = 0
    for piece in range(7):
        out |= ((packed >> (4 * piece)) & 15) << (4 * MIRROR_OF[piece])
    return out


def _covering(h: int) -> list[list[tuple[int, Bitboard, int, int, Bitboard]]]:
    """by_cell[c]: the entries of `_order_table(h)` whose placement covers cell c, in the table's order."""
    table = _COVERING.get(h)
    if table is None:
        table = [[] for _ in range(WIDTH * h)]
        for options in _order_table(h):
            for entry in options:
                mask = entry[1]
                while mask:
                    table[(mask & -mask).bit_length() - 1].append(entry)
                    mask &= mask - 1
        _COVERING[h] = table
    return table


def _every_cell_coverable(start: Bitboard, h: int, packed: int) -> bool:
    """Does every empty cell lie in a placement of a piece in `packed`, inside the empty cells, that no block above
    it in one of its own rows forbids (that block's row would have to clear before the piece lands, while holding
    the piece)? A cheap first refutation, before the search (ai.pc.jit_tiling._every_cell_coverable is its
    compiled twin); a placement found for one cell serves all of its cells."""
    empty = ~start & REGION[h]
    table = _covering(h)
    while empty:
        cell = (empty & -empty).bit_length() - 1
        for piece, mask, rows, _, shadow in table[cell]:
            if (packed >> (4 * piece)) & 15 and not mask & start and not _rows_of(shadow & start, h) & rows:
                empty &= ~mask
                break
        else:
            return False
    return True


def _with_order(start: Bitboard, h: int, order: int, entry: tuple[int, Bitboard, int, int, Bitboard]) -> int:
    """`order` with the placement `entry` added (-1: a cycle): its skipped rows, and the rows of blocks of the
    start field above it, before its own rows."""
    _, _, rows, skipped, shadow = entry
    before = skipped | _rows_of(shadow & start, h)
    return _after_rows(order, h, before, rows) if before else order


def _hard_drop_tileable(
    bits: Bitboard,
    h: int,
    start: Bitboard,
    packed: int,
    need: int,
    order: int,
    steps: list[int],
    table: list[list[tuple[int, Bitboard, int, int, Bitboard]]],
    columns: tuple[Bitboard, ...],
    x: int,
    memo: dict[tuple[Bitboard, int, int], bool],
) -> bool:
    """`_tileable` carrying the row precedences `order` (ai.pc.jit_tiling._search_hard_drop is its compiled
    twin, step for step). `start` is the field of the question, whose blocks are the ones pieces drop past."""
    if need == 0:
        return True
    key = (bits, packed, order)
    known = memo.get(key)
    if known is not None:
        return known
    steps[0] -= 1
    if steps[0] < 0:
        raise _Budget
    region = REGION[h]
    x, cell = _first_empty_cell(~bits & region, columns, x)
    result = False
    for entry in table[cell]:
        piece, mask = entry[0], entry[1]
        if not (packed >> (4 * piece)) & 15 or mask & bits:
            continue
        placed_order = _with_order(start, h, order, entry)
        if placed_order < 0:
            continue
        placed = bits | mask
        left = packed - (1 << (4 * piece))
        if need == 1:  # this piece fills the field
            found = True
        elif need == 2:  # one piece left: the rest is one of its placements or not (no memo entry, no step)
            rest = ~placed & region
            _, next_cell = _first_empty_cell(rest, columns, x)
            found = any(
                other[1] == rest and (left >> (4 * other[0])) & 15 and _with_order(start, h, placed_order, other) >= 0
                for other in table[next_cell]
            )
        elif not _next_cell_coverable_in_order(placed, h, start, left, placed_order, table, columns, x):
            found = False  # no memo entry, no step (as the compiled search)
        else:
            found = _hard_drop_tileable(placed, h, start, left, need - 1, placed_order, steps, table, columns, x, memo)
        if found:
            result = True
            break
    memo[key] = result
    return result


def _next_cell_coverable_in_order(
    bits: Bitboard, h: int, start: Bitboard, packed: int, order: int, table, columns, x: int
) -> bool:
    """Can some piece still in `packed` cover the first empty cell (column-major) of `bits` without a cycle?"""
    _, cell = _first_empty_cell(~bits & REGION[h], columns, x)
    return any(
        (packed >> (4 * entry[0])) & 15 and not entry[1] & bits and _with_order(start, h, order, entry) >= 0
        for entry in table[cell]
    )
