"""Where a piece comes to rest, as one value every module passes on: `Placement` (piece, rotation, x, y, spin),
its cells worked out on demand, and `Move`, a placement with the keys that play it.

(x, y) is the cell the piece rotates about (game.pieces: the TBP / fumen convention) in the field as it is when
the piece locks. Search kernels keep plain ints inside and build these values only for what they hand back.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from game.board import PIECE_MASKS, WIDTH, Bitboard
from game.movement import Spin
from game.pieces import Piece, Rotation


class Key(str, Enum):  # noqa: UP042 - StrEnum would change str() and f-strings of members; kept (compared, pickled, printed)
    LEFT = "left"
    RIGHT = "right"
    DAS_LEFT = "das_left"
    DAS_RIGHT = "das_right"
    CW = "cw"
    CCW = "ccw"
    FLIP = "180"
    SOFT_DROP = "soft_drop"
    HARD_DROP = "hard_drop"


@dataclass(frozen=True, slots=True)
class Placement:
    """A piece at rest: its kind, rotation, rotation-cell (x, y) and the spin it locks with."""

    piece: Piece
    rotation: Rotation
    x: int
    y: int
    spin: Spin = Spin.NONE

    @property
    def mask(self) -> Bitboard:
        """The piece's cells as a bitboard (game.board's layout). KeyError if part of it is off the board."""
        return PIECE_MASKS[self.piece, self.rotation, self.x, self.y]

    def cells(self) -> list[tuple[int, int]]:
        """The piece's cells (x, y), bottom row first."""
        mask = self.mask
        return [(i % WIDTH, i // WIDTH) for i in range(mask.bit_length()) if mask >> i & 1]


@dataclass(frozen=True, slots=True)
class Move:
    """A placement and the shortest keys that play it (ending with HARD_DROP), after a HOLD if `hold`."""

    placement: Placement
    keys: tuple[Key, ...]
    hold: bool = False
