"""Finesse: the shortest key sequence for a placement and the extra presses a player used.

Keys are counted as a player presses them (see game.movegen, which finds every placement with its shortest
sequence): a tap moves one column, holding a direction (DAS) slides to the wall and counts once, a soft drop held
to the floor counts once, each rotation once, and the hard drop ends every sequence.
"""

from __future__ import annotations

from game.board import PIECE_MASKS, Bitboard, Board
from game.movegen import Key, Placement, find_moves
from game.pieces import Piece, Rotation
from game.rules import Rules

__all__ = ["Key", "Placement", "finesse_faults", "minimal_keys"]


def minimal_keys(
    board: Board | Bitboard, piece: Piece, rotation: Rotation, x: int, y: int, rules: Rules, *, soft_drop: bool = True
) -> tuple[Key, ...] | None:
    """The shortest key sequence that locks the piece at (rotation, x, y), ignoring spin; None if unreachable."""
    mask = PIECE_MASKS.get((piece, rotation, x, y))
    if mask is None:
        return None
    found = [p.keys for p in find_moves(board, piece, rules, soft_drop=soft_drop) if p.mask == mask]
    return min(found, key=len) if found else None


def finesse_faults(keys_used: int, minimal: tuple[Key, ...] | None) -> int:
    """Extra presses over the minimum for one placement (0 if the placement had no known minimum)."""
    if minimal is None:
        return 0
    return max(0, keys_used - len(minimal))
