"""The seven tetrominoes, their rotation states and colours: the shape data every part of Stack Coach reads.

Coordinates: x grows to the right (0..9), y grows upwards (0 = bottom row). A piece's position (x, y) is the
cell it rotates about in SRS's *basic* rotation (the TBP and fumen convention): for T/J/L/S/Z the centre of the
3x3 box, for I the second cell of its flat row in spawn state, for O the bottom-left cell in spawn state.
Rotating a shape clockwise maps each cell offset (dx, dy) to (dy, -dx).
"""

from __future__ import annotations

from enum import IntEnum

Cell = tuple[int, int]


class Piece(IntEnum):
    """A tetromino kind. The order (alphabetical) is the order pieces are listed in a fresh bag."""

    I = 0  # noqa: E741 - the tetromino's name
    J = 1
    L = 2
    O = 3  # noqa: E741 - the tetromino's name
    S = 4
    T = 5
    Z = 6

    @property
    def letter(self) -> str:
        return self.name

    @property
    def mirrored(self) -> Piece:
        """The piece whose shape is this one's reflected left to right (J and L, S and Z swap)."""
        return _MIRRORED.get(self, self)

    @classmethod
    def from_letter(cls, letter: str) -> Piece:
        """Parse one piece letter (case-insensitive); raises ValueError naming the bad letter."""
        try:
            return cls[letter.strip().upper()]
        except KeyError:
            raise ValueError(f"unknown piece {letter!r}: expected one of I, J, L, O, S, T, Z") from None


ALL_PIECES: tuple[Piece, ...] = tuple(Piece)
_MIRRORED = {Piece.J: Piece.L, Piece.L: Piece.J, Piece.S: Piece.Z, Piece.Z: Piece.S}


class Rotation(IntEnum):
    """Rotation state: 0 (spawn), R (one turn clockwise), 2 (half turn), L (one turn counter-clockwise)."""

    NORTH = 0
    EAST = 1
    SOUTH = 2
    WEST = 3

    @property
    def srs_name(self) -> str:
        return "0R2L"[self]

    @property
    def tbp_name(self) -> str:
        return ("north", "east", "south", "west")[self]

    def turned(self, quarter_turns: int) -> Rotation:
        """The state after `quarter_turns` clockwise quarter turns (negative: counter-clockwise)."""
        return Rotation((self + quarter_turns) % 4)

    @classmethod
    def parse(cls, text: str) -> Rotation:
        """Accept 0/R/2/L, north/east/south/west and fumen's spawn/right/reverse/left."""
        key = text.strip().lower()
        for rotation in cls:
            names = (rotation.srs_name.lower(), rotation.tbp_name, _FUMEN_NAMES[rotation], rotation.name.lower())
            if key in names:
                return rotation
        raise ValueError(
            f"unknown rotation {text!r}: expected 0/R/2/L, north/east/south/west or spawn/right/reverse/left"
        )


_FUMEN_NAMES = ("spawn", "right", "reverse", "left")

# Spawn-state cells around the rotation cell (see the module docstring).
SPAWN_SHAPES: dict[Piece, tuple[Cell, ...]] = {
    Piece.I: ((-1, 0), (0, 0), (1, 0), (2, 0)),
    Piece.J: ((-1, 1), (-1, 0), (0, 0), (1, 0)),
    Piece.L: ((1, 1), (-1, 0), (0, 0), (1, 0)),
    Piece.O: ((0, 0), (1, 0), (0, 1), (1, 1)),
    Piece.S: ((-1, 0), (0, 0), (0, 1), (1, 1)),
    Piece.T: ((-1, 0), (0, 0), (1, 0), (0, 1)),
    Piece.Z: ((-1, 1), (0, 1), (0, 0), (1, 0)),
}

# Guideline colours (RGB), used by the UI and by text/fumen exports.
COLOURS: dict[Piece, tuple[int, int, int]] = {
    Piece.I: (0, 200, 230),
    Piece.J: (30, 80, 230),
    Piece.L: (240, 140, 20),
    Piece.O: (240, 210, 20),
    Piece.S: (60, 200, 60),
    Piece.T: (170, 50, 200),
    Piece.Z: (230, 40, 50),
}
GARBAGE_COLOUR = (130, 130, 130)


def _rotate_cw(cells: tuple[Cell, ...]) -> tuple[Cell, ...]:
    return tuple((dy, -dx) for dx, dy in cells)


def _build_shapes() -> dict[tuple[Piece, Rotation], tuple[Cell, ...]]:
    table: dict[tuple[Piece, Rotation], tuple[Cell, ...]] = {}
    for piece, cells in SPAWN_SHAPES.items():
        for rotation in Rotation:
            table[piece, rotation] = tuple(sorted(cells))
            cells = _rotate_cw(cells)
    return table


# (piece, rotation) -> the four cell offsets of the basic rotation, sorted.
SHAPES: dict[tuple[Piece, Rotation], tuple[Cell, ...]] = _build_shapes()


def cells_of(piece: Piece, rotation: Rotation, x: int, y: int) -> tuple[Cell, ...]:
    """The four board cells a piece covers at position (x, y)."""
    return tuple((x + dx, y + dy) for dx, dy in SHAPES[piece, rotation])


def parse_queue(text: str) -> list[Piece]:
    """Parse a queue string such as "TIJLSZO" (spaces and commas ignored); ValueError says which letter is bad."""
    pieces: list[Piece] = []
    for index, char in enumerate(text):
        if char in " ,\t":
            continue
        if char.upper() not in "IJLOSTZ":
            raise ValueError(
                f"bad piece {char!r} at position {index + 1} of queue {text!r}: expected I, J, L, O, S, T or Z"
            )
        pieces.append(Piece[char.upper()])
    return pieces
