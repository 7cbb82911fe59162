"""Placement search (perft-like counts) and finesse faults."""

from __future__ import annotations

import pytest

from game.board import Board
from game.config import GameConfig, GravityMode
from game.engine import Game
from game.events import Locked
from game.executor import play_keys
from game.finesse import Key, minimal_keys
from game.movegen import Placement, find_moves
from game.pieces import Piece, Rotation
from game.rules import Rules
from tests.oracle_movegen import LATER_SPIN_ROWS

EMPTY_COUNTS = {Piece.I: 17, Piece.J: 34, Piece.L: 34, Piece.O: 9, Piece.S: 17, Piece.T: 34, Piece.Z: 17}


@pytest.mark.parametrize("piece", list(Piece))
def test_empty_field_counts(piece: Piece) -> None:
    assert len(find_moves(Board(), piece, Rules.named("srs"))) == EMPTY_COUNTS[piece]
    assert len(find_moves(Board(), piece, Rules.named("srs"), soft_drop=False)) == EMPTY_COUNTS[piece]


def _placements(board: Board, piece: Piece, rules: Rules, *, soft_drop: bool = True) -> list[Placement]:
    return [move.placement for move in find_moves(board, piece, rules, soft_drop=soft_drop)]


def test_tucks_need_soft_drop() -> None:
    # An overhang on the left: the O can only get under it by sliding after a soft drop.
    rows = ["XXX_______", "__________", "__________"]
    board = Board.from_rows(rows)
    soft = {(p.x, p.y) for p in _placements(board, Piece.O, Rules.named("srs")) if p.rotation is Rotation.NORTH}
    hard = {(p.x, p.y) for p in _placements(board, Piece.O, Rules.named("srs"), soft_drop=False)}
    assert (0, 0) in soft and (0, 0) not in hard
    keys = next(m.keys for m in find_moves(board, Piece.O, Rules()) if (m.placement.x, m.placement.y) == (0, 0))
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
    placement = Placement(piece=piece, rotation=rotation, x=x, y=y)
    keys = minimal_keys(Board(), placement, Rules.named("srs+", allow_180=True))
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
    assert (lock.placement.x, lock.keys, lock.finesse_faults) == (1, 4, 2)
    assert game.stats.finesse_faults == 2 and game.stats.keys == 6


def test_spin_reached_by_a_longer_path_than_the_plain_drop() -> None:
    """T EAST at (5, 8) is a plain drop in 3 keys and, by a longer path ending in a rotation, a mini: both are
    listed, each with its own shortest keys, and the engine locks each with its spin. minimal_keys ignores spin."""
    from game.board import PIECE_MASKS
    from game.movement import Spin

    board = Board.from_rows(LATER_SPIN_ROWS)
    rules = Rules.named("srs")
    mask = PIECE_MASKS[Piece.T, Rotation.EAST, 5, 8]
    here = {m.placement.spin: m for m in find_moves(board, Piece.T, rules) if m.placement.mask == mask}
    assert set(here) == {Spin.NONE, Spin.MINI}
    assert here[Spin.NONE].keys == (Key.RIGHT, Key.CW, Key.HARD_DROP)
    assert len(here[Spin.MINI].keys) > 3 and here[Spin.MINI].keys[-2] in (Key.CW, Key.CCW, Key.FLIP)
    config = GameConfig(rules=rules, gravity_mode=GravityMode.FIXED, gravity=0.0, lock_delay=600, track_finesse=False)
    for spin, move in here.items():
        game = Game(config, 0, board=board, queue=[Piece.T])
        lock = next(e for e in play_keys(game, move.keys) if isinstance(e, Locked))
        assert lock.placement == Placement(piece=Piece.T, rotation=Rotation.EAST, x=5, y=8, spin=spin)
        assert lock.result.spin is spin
    assert minimal_keys(board, here[Spin.NONE].placement, rules) == here[Spin.NONE].keys


def test_target_search_finds_the_shortest_keys_of_every_reachable_mask() -> None:
    """The early exit of a `target` search never cuts off a shorter way to the target's cells (any spin)."""
    board = Board.from_rows(LATER_SPIN_ROWS)
    rules = Rules.named("srs+", allow_180=True)
    for piece in Piece:
        shortest: dict[int, int] = {}
        for move in find_moves(board, piece, rules):
            shortest[move.placement.mask] = min(shortest.get(move.placement.mask, 99), len(move.keys))
        for move in find_moves(board, piece, rules):
            keys = minimal_keys(board, move.placement, rules)
            assert keys is not None and len(keys) == shortest[move.placement.mask]
