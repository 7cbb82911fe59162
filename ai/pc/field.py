"""The bounded perfect-clear field: the rows still to be cleared, as one int (bit ``y*10 + x``, as in game.board).

A PC search state is ``(bits, h)``: ``h`` rows remain to be cleared and every block lies in rows ``0..h-1``.
Lines clear as soon as they fill, so a state never holds a full row; after a clear the rows above fall down and
``h`` shrinks. These helpers are small pure functions on ints; the search calls them millions of times.
"""

from __future__ import annotations

from game.board import ROW_MASK, WIDTH, Bitboard

MAX_LINES = 6

# REGION[h]: every cell of rows 0..h-1.
REGION: tuple[Bitboard, ...] = tuple((1 << (WIDTH * h)) - 1 for h in range(MAX_LINES + 8))
# COLUMN[h][x]: column x over rows 0..h-1.
COLUMN: tuple[tuple[Bitboard, ...], ...] = tuple(
    tuple(sum(1 << (y * WIDTH + x) for y in range(h)) for x in range(WIDTH)) for h in range(MAX_LINES + 8)
)
# LEFT_OF[h][x]: columns 0..x-1 over rows 0..h-1.
LEFT_OF: tuple[tuple[Bitboard, ...], ...] = tuple(
    tuple(sum(COLUMN[h][c] for c in range(x)) for x in range(WIDTH + 1)) for h in range(MAX_LINES + 8)
)


def clear_full_rows(bits: Bitboard, h: int) -> tuple[Bitboard, int]:
    """Remove the full rows among rows 0..h-1 (rows above fall); return the new bits and the rows cleared."""
    cleared = 0
    out = 0
    out_row = 0
    for y in range(h):
        row = (bits >> (y * WIDTH)) & ROW_MASK
        if row == ROW_MASK:
            cleared += 1
        else:
            out |= row << (out_row * WIDTH)
            out_row += 1
    return out, cleared


def has_overhang(bits: Bitboard, h: int) -> bool:
    """True if some empty cell in rows 0..h-2 has a block directly above it (only then can soft drop matter)."""
    return bool((bits >> WIDTH) & ~bits & REGION[h - 1]) if h > 1 else False


def walls_ok(bits: Bitboard, h: int) -> bool:
    """Column argument: a column filled in all h rows stays filled until the PC (rows leave whole, and pieces
    never cross it), so the empty cells on its left must be a whole number of pieces."""
    columns = COLUMN[h]
    for x in range(1, WIDTH - 1):
        if bits & columns[x] == columns[x]:
            left_empty = h * x - (bits & LEFT_OF[h][x]).bit_count()
            if left_empty % 4:
                return False
    return True


def to_rows(bits: Bitboard, h: int) -> list[str]:
    """Text rows, top first ('X' filled, '_' empty), for messages and tests."""
    return ["".join("X" if bits >> (y * WIDTH + x) & 1 else "_" for x in range(WIDTH)) for y in range(h - 1, -1, -1)]


def from_rows(rows: list[str]) -> Bitboard:
    """Inverse of to_rows: top row first, any of '_.' empty, anything else filled."""
    bits = 0
    for index, line in enumerate(rows):
        y = len(rows) - 1 - index
        for x, char in enumerate(line):
            if char not in "_. ":
                bits |= 1 << (y * WIDTH + x)
    return bits
