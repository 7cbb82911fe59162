"""Finesse: the shortest key sequence for a placement and the extra presses a player used.

Keys are counted as a player presses them (see game.movegen, which finds every placement with its shortest
sequence): a tap moves one column, holding a direction (DAS) slides to the wall and counts once, a soft drop held
to the floor counts once, each rotation once, and the hard drop ends every sequence.
"""

from __future__ import annotations

from game.board import PIECE_MASKS, Bitboard, Board
from game.movegen import find_moves
from game.placement import Key, Placement
from game.rules import Rules

__all__ = ["Key", "Placement", "finesse_faults", "minimal_keys"]


def minimal_keys(
    board: Board | Bitboard, placement: Placement, rules: Rules, *, soft_drop: bool = True
) -> tuple[Key, ...] | None:
    """The shortest key sequence that puts the piece on the placement's cells, ignoring spin; None if unreachable."""
    piece = placement.piece
    mask = PIECE_MASKS.get((piece, placement.rotation, placement.x, placement.y))
    if mask is None:
        return None
    found = [move.keys for move in find_moves(board, piece, rules, soft_drop=soft_drop) if move.placement.mask == mask]
    return min(found, key=len) if found else None


def finesse_faults(keys_used: int, minimal: tuple[Key, ...] | None) -> int:
    """Extra presses over the minimum for one placement (0 if the placement had no known minimum)."""
    if minimal is None:
        return 0
    return max(0, keys_used - len(minimal))
