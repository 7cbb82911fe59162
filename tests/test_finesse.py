"""Placement search (perft-like counts) and finesse faults."""

from __future__ import annotations

import pytest

from game.board import Board
from game.config import GameConfig, GravityMode
from game.engine import Game
from game.events import Locked
from game.executor import play_keys
from game.finesse import Key, find_placements, minimal_keys
from game.pieces import Piece, Rotation
from game.rules import Rules

EMPTY_COUNTS = {Piece.I: 17, Piece.J: 34, Piece.L: 34, Piece.O: 9, Piece.S: 17, Piece.T: 34, Piece.Z: 17}


@pytest.mark.parametrize("piece", list(Piece))
def test_empty_field_counts(piece: Piece) -> None:
    assert len(find_placements(Board(), piece, Rules.named("srs"))) == EMPTY_COUNTS[piece]
    assert len(find_placements(Board(), piece, Rules.named("srs"), soft_drop=False)) == EMPTY_COUNTS[piece]


def test_tucks_need_soft_drop() -> None:
    # An overhang on the left: the O can only get under it by sliding after a soft drop.
    rows = ["XXX_______", "__________", "__________"]
    board = Board.from_rows(rows)
    soft = {(p.x, p.y) for p in find_placements(board, Piece.O, Rules.named("srs")) if p.rotation is Rotation.NORTH}
    hard = {(p.x, p.y) for p in find_placements(board, Piece.O, Rules.named("srs"), soft_drop=False)}
    assert (0, 0) in soft and (0, 0) not in hard
    keys = next(p.keys for p in find_placements(board, Piece.O, Rules()) if (p.x, p.y) == (0, 0))
    assert Key.SOFT_DROP in keys


@pytest.mark.parametrize(
    ("piece", "rotation", "x", "y", "expected"),
    [
        (Piece.T, Rotation.NORTH, 4, 0, 1),  # hard drop
        (Piece.T, Rotation.NORTH, 1, 0, 2),  # DAS left, hard drop
        (Piece.T, Rotation.NORTH, 2, 0, 3),  # DAS left, tap right, hard drop
        (Piece.T, Rotation.SOUTH, 4, 1, 2),  # 180, hard drop
        (Piece.I, Rotation.EAST, 9, 2, 3),  # cw, DAS right, hard drop
        (Piece.O, Rotation.NORTH, 0, 0, 2),  # DAS left, hard drop
        (Piece.L, Rotation.WEST, 5, 1, 3),  # ccw, tap right, hard drop
    ],
)
def test_minimal_key_counts(piece: Piece, rotation: Rotation, x: int, y: int, expected: int) -> None:
    keys = minimal_keys(Board(), piece, rotation, x, y, Rules.named("srs+", allow_180=True))
    assert keys is not None and len(keys) == expected


def test_finesse_faults_are_counted_per_piece() -> None:
    config = GameConfig(gravity_mode=GravityMode.FIXED, gravity=0.0, lock_delay=600)
    game = Game(config, seed=1, queue=[Piece.T, Piece.T, Piece.O])
    # Clean: DAS left then drop.
    events = play_keys(game, [Key.DAS_LEFT, Key.HARD_DROP])
    assert next(e for e in events if isinstance(e, Locked)).finesse_faults == 0
    # Wasteful: three taps to x = 1 where DAS left + drop (2 keys) does it: 4 keys, 2 faults.
    events = play_keys(game, [Key.LEFT, Key.LEFT, Key.LEFT, Key.HARD_DROP])
    lock = next(e for e in events if isinstance(e, Locked))
    assert (lock.x, lock.keys, lock.finesse_faults) == (1, 4, 2)
    assert game.stats.finesse_faults == 2 and game.stats.keys == 6
