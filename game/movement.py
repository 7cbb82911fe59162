"""Moving a piece on a board: shifts, kicked rotations, drops and spin detection.

These functions are the single definition of movement: the engine, the finesse/placement search and the AI
all call them, so what the AI suggests is exactly what the game allows.
"""

from __future__ import annotations

from enum import IntEnum
from typing import TYPE_CHECKING

from game.board import PIECE_MASKS, Bitboard, Board
from game.pieces import Piece, Rotation
from game.rules import Rules, SpinRule

if TYPE_CHECKING:  # game.placement imports Spin from here
    from game.placement import Placement


class Spin(IntEnum):
    NONE = 0
    MINI = 1
    FULL = 2


# T-spin corners relative to the T's centre, and which two are "front" (the side the T points to) per state.
_CORNERS = ((-1, 1), (1, 1), (1, -1), (-1, -1))
_FRONT = {
    Rotation.NORTH: ((-1, 1), (1, 1)),
    Rotation.EAST: ((1, 1), (1, -1)),
    Rotation.SOUTH: ((1, -1), (-1, -1)),
    Rotation.WEST: ((-1, -1), (-1, 1)),
}


def fits(bits: Bitboard, piece: Piece, rotation: Rotation, x: int, y: int) -> bool:
    mask = PIECE_MASKS.get((piece, rotation, x, y))
    return mask is not None and not (mask & bits)


def slide(bits: Bitboard, piece: Piece, rotation: Rotation, x: int, y: int, dx: int) -> int:
    """The x after moving in direction dx until blocked (DAS to the wall)."""
    while fits(bits, piece, rotation, x + dx, y):
        x += dx
    return x


def drop_y(bits: Bitboard, piece: Piece, rotation: Rotation, x: int, y: int) -> int:
    """The y after dropping as far as possible (where hard drop or a sonic drop lands)."""
    while fits(bits, piece, rotation, x, y - 1):
        y -= 1
    return y


def try_rotate(
    bits: Bitboard, rules: Rules, piece: Piece, rotation: Rotation, x: int, y: int, turns: int
) -> tuple[Rotation, int, int, int] | None:
    """Turn by `turns` quarter turns clockwise (1, -1 or 2) with the rules' kicks.

    Returns (new rotation, x, y, kick index) for the first kick test that fits, or None if none does
    (or if it is a half turn and 180 degree rotation is off).
    """
    if turns == 2 and not rules.allow_180:
        return None
    end = rotation.turned(turns)
    for index, (dx, dy) in enumerate(rules.rotation.tests[piece, rotation, end]):
        if fits(bits, piece, end, x + dx, y + dy):
            return end, x + dx, y + dy, index
    return None


def kick_offset(rules: Rules, piece: Piece, start: Rotation, end: Rotation, index: int) -> tuple[int, int]:
    """The kick as written in the table (true-centre form), used to recognise the TST/fin kick."""
    transition = start.srs_name + end.srs_name
    written = rules.rotation.table.get((piece, transition))
    if written is None or index >= len(written):
        return rules.rotation.tests[piece, start, end][index]
    return written[index]


def detect_spin(board: Board | Bitboard, rules: Rules, placement: Placement, kick: tuple[int, int] | None) -> Spin:
    """The spin a piece scores when it locks at `placement`, given the kick of its last move (None if the last
    move was not a rotation). `placement.spin` is not read: this works it out.

    T pieces use the 3-corner rule: 3 of the 4 diagonal cells filled (walls and floor count). Both front corners
    filled makes it a full T-spin; otherwise it is a mini, unless the rotation used the (+-1, +-2) "TST/fin" kick,
    which upgrades it to full. Under the all-spin rule, other pieces that cannot move left, right or up after
    their rotation score a mini.
    """
    if kick is None or rules.spin_rule is SpinRule.NONE:
        return Spin.NONE
    bits = board.bits if isinstance(board, Board) else board
    piece, rotation, x, y = placement.piece, placement.rotation, placement.x, placement.y
    if piece is Piece.T:

        def filled(dx: int, dy: int) -> bool:
            cx, cy = x + dx, y + dy
            return not (0 <= cx < 10 and 0 <= cy < 40) or bool(bits >> (cy * 10 + cx) & 1)

        if sum(filled(dx, dy) for dx, dy in _CORNERS) < 3:
            return Spin.NONE
        if all(filled(dx, dy) for dx, dy in _FRONT[rotation]):
            return Spin.FULL
        if abs(kick[0]) == 1 and abs(kick[1]) == 2:
            return Spin.FULL
        return Spin.MINI
    if rules.spin_rule is SpinRule.ALL_SPIN:
        immobile = not (
            fits(bits, piece, rotation, x - 1, y)
            or fits(bits, piece, rotation, x + 1, y)
            or fits(bits, piece, rotation, x, y + 1)
        )
        return Spin.MINI if immobile else Spin.NONE
    return Spin.NONE
