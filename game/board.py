"""The playfield as a bitboard: one Python int, bit ``y * 10 + x`` set where a block is.

A board is immutable; placing a piece or clearing lines returns a new board, so undo is free and the AI can
share boards between search nodes. Colours (for drawing and fumen) live in a separate, optional tuple.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeAlias

from game.pieces import SHAPES, Piece, Rotation

Bitboard: TypeAlias = int

WIDTH = 10
HEIGHT = 40
VISIBLE_HEIGHT = 20
ROW_MASK: Bitboard = (1 << WIDTH) - 1
FULL_MASK: Bitboard = (1 << (WIDTH * HEIGHT)) - 1
# Column masks over the whole height: bit x of every row.
COLUMN_MASKS: tuple[Bitboard, ...] = tuple(sum(1 << (row * WIDTH + x) for row in range(HEIGHT)) for x in range(WIDTH))

# Cell colour codes: 0 empty, 1..7 = Piece + 1, 8 garbage.
EMPTY = 0
GARBAGE = 8
_CELL_CHARS = "_IJLOSTZX"


def _build_piece_masks() -> dict[tuple[Piece, int, int, int], Bitboard]:
    """Every in-bounds placement of every piece as a bitboard. Built once at import (about 11k ints).

    Keyed by Rotation members; a plain int rotation (0-3, as the search kernels keep it) finds the same entry,
    since an IntEnum member hashes and compares as its value."""
    masks: dict[tuple[Piece, int, int, int], Bitboard] = {}
    for (piece, rotation), cells in SHAPES.items():
        for y in range(-3, HEIGHT + 3):
            for x in range(-3, WIDTH + 3):
                if all(0 <= x + dx < WIDTH and 0 <= y + dy < HEIGHT for dx, dy in cells):
                    masks[piece, rotation, x, y] = sum(1 << ((y + dy) * WIDTH + x + dx) for dx, dy in cells)
    return masks


PIECE_MASKS: dict[tuple[Piece, int, int, int], Bitboard] = _build_piece_masks()
_NO_COLOURS: tuple[int, ...] = (EMPTY,) * (WIDTH * HEIGHT)


def piece_mask(piece: Piece, rotation: Rotation, x: int, y: int) -> Bitboard | None:
    """The piece's cells as a bitboard, or None if any cell is outside the 10x40 field."""
    return PIECE_MASKS.get((piece, rotation, x, y))


# For each 10-bit row, the columns that are set in it.
ROW_COLUMNS: tuple[tuple[int, ...], ...] = tuple(
    tuple(x for x in range(WIDTH) if row >> x & 1) for row in range(1 << WIDTH)
)


def filled_columns(bits: Bitboard) -> list[int]:
    """The board transposed: for each column x, an int with bit y set where (x, y) is filled."""
    filled = [0] * WIDTH
    y = 0
    while bits:
        row = bits & ROW_MASK
        if row:
            bit = 1 << y
            for x in ROW_COLUMNS[row]:
                filled[x] |= bit
        bits >>= WIDTH
        y += 1
    return filled


def row_of(bits: Bitboard, y: int) -> int:
    """Row y as a 10-bit mask (bit x = column x)."""
    return (bits >> (y * WIDTH)) & ROW_MASK


@dataclass(frozen=True, slots=True)
class Board:
    """A 10x40 playfield. `bits` is the occupancy; `colours`, if kept, has one colour code per cell (y*10+x)."""

    bits: Bitboard = 0
    colours: tuple[int, ...] | None = field(default=None, compare=False, repr=False)

    # --- construction -------------------------------------------------------------------------------------
    @classmethod
    def from_rows(cls, rows: list[str] | str) -> Board:
        """Build from text rows, top row first; '_' or '.' or ' ' is empty, anything else filled.

        Letters I J L O S T Z keep their colour, other filled characters are garbage. The last row is y = 0.
        """
        if isinstance(rows, str):
            rows = [line for line in rows.strip("\n").splitlines() if line.strip()]
        if len(rows) > HEIGHT:
            raise ValueError(f"board has {len(rows)} rows; at most {HEIGHT} fit")
        bits = 0
        colours = [EMPTY] * (WIDTH * HEIGHT)
        for index, line in enumerate(rows):
            line = line.rstrip("\n")
            if len(line) != WIDTH:
                raise ValueError(f"board row {index + 1} ({line!r}) has {len(line)} cells; expected {WIDTH}")
            y = len(rows) - 1 - index
            for x, char in enumerate(line):
                if char in "_. ":
                    continue
                bits |= 1 << (y * WIDTH + x)
                upper = char.upper()
                colours[y * WIDTH + x] = _CELL_CHARS.index(upper) if upper in "IJLOSTZ" else GARBAGE
        return cls(bits, tuple(colours))

    @classmethod
    def empty(cls) -> Board:
        """An empty board that keeps the colours of the pieces placed on it."""
        return cls(0, _NO_COLOURS)

    @classmethod
    def from_bits(cls, bits: Bitboard) -> Board:
        return cls(bits & FULL_MASK)

    # --- queries ------------------------------------------------------------------------------------------
    def is_filled(self, x: int, y: int) -> bool:
        if not (0 <= x < WIDTH and 0 <= y < HEIGHT):
            return True  # walls and floor count as filled, as in the T-spin corner rule
        return bool(self.bits >> (y * WIDTH + x) & 1)

    def colour_at(self, x: int, y: int) -> int:
        """Colour code at (x, y): 0 empty, 1..7 piece (Piece + 1), 8 garbage."""
        if not self.is_filled(x, y):
            return EMPTY
        if self.colours is None:
            return GARBAGE
        return self.colours[y * WIDTH + x]

    def fits(self, piece: Piece, rotation: Rotation, x: int, y: int) -> bool:
        mask = PIECE_MASKS.get((piece, rotation, x, y))
        return mask is not None and not (mask & self.bits)

    def row(self, y: int) -> int:
        return row_of(self.bits, y)

    def height(self) -> int:
        """Number of rows up to and including the highest filled one (0 for an empty board)."""
        return (self.bits.bit_length() + WIDTH - 1) // WIDTH

    def column_heights(self) -> tuple[int, ...]:
        heights = []
        for x in range(WIDTH):
            column = self.bits & COLUMN_MASKS[x]
            heights.append((column.bit_length() + WIDTH - 1 - x) // WIDTH if column else 0)
        return tuple(heights)

    def is_empty(self) -> bool:
        return self.bits == 0

    def cell_count(self) -> int:
        return self.bits.bit_count()

    # --- changes ------------------------------------------------------------------------------------------
    def place(self, piece: Piece, rotation: Rotation, x: int, y: int) -> Board:
        """Add the piece's cells (it must fit; ValueError otherwise). Lines are not cleared here."""
        mask = PIECE_MASKS.get((piece, rotation, x, y))
        if mask is None or mask & self.bits:
            raise ValueError(f"{piece.name} {rotation.srs_name} at ({x}, {y}) does not fit")
        colours = None
        if self.colours is not None:
            as_list = list(self.colours)
            for dx, dy in SHAPES[piece, rotation]:
                as_list[(y + dy) * WIDTH + x + dx] = int(piece) + 1
            colours = tuple(as_list)
        return Board(self.bits | mask, colours)

    def full_rows(self) -> list[int]:
        """Indices of full rows, bottom first."""
        bits = self.bits
        return [y for y in range(HEIGHT) if (bits >> (y * WIDTH)) & ROW_MASK == ROW_MASK]

    def clear_lines(self) -> tuple[Board, list[int]]:
        """Remove full rows (rows above fall down); return the new board and the cleared row indices."""
        full = self.full_rows()
        if not full:
            return self, []
        bits = self.bits
        kept_bits = 0
        kept_colours: list[int] = []
        out_row = 0
        for y in range(HEIGHT):
            if y in full:
                continue
            kept_bits |= ((bits >> (y * WIDTH)) & ROW_MASK) << (out_row * WIDTH)
            if self.colours is not None:
                kept_colours.extend(self.colours[y * WIDTH : (y + 1) * WIDTH])
            out_row += 1
        colours = None
        if self.colours is not None:
            kept_colours.extend([EMPTY] * (WIDTH * len(full)))
            colours = tuple(kept_colours)
        return Board(kept_bits, colours), full

    # --- text ---------------------------------------------------------------------------------------------
    def to_rows(self, min_height: int = 0, *, colours: bool = True) -> list[str]:
        """Text rows, top first, from the highest filled row (or min_height) down to y = 0."""
        top = max(self.height(), min_height)
        rows = []
        for y in range(top - 1, -1, -1):
            line = []
            for x in range(WIDTH):
                code = self.colour_at(x, y) if colours else (GARBAGE if self.is_filled(x, y) else EMPTY)
                line.append(_CELL_CHARS[code])
            rows.append("".join(line))
        return rows

    def __str__(self) -> str:
        return "\n".join(self.to_rows(1))
