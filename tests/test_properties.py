"""Properties of the engine over random inputs and boards (hypothesis)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.board import PIECE_MASKS, Board
from game.config import GameConfig, GravityMode
from game.engine import Game
from game.events import Locked
from game.executor import play_keys
from game.handling import Button, Handling
from game.movegen import find_moves
from game.pieces import Piece
from game.rules import Rules

buttons = st.integers(
    0,
    int(
        Button.HOLD
        | Button.ROTATE_180
        | Button.ROTATE_CCW
        | Button.ROTATE_CW
        | Button.HARD_DROP
        | Button.SOFT_DROP
        | Button.RIGHT
        | Button.LEFT
    ),
)
configs = st.builds(
    GameConfig,
    rules=st.sampled_from(
        [Rules.named("srs"), Rules.named("srs+", allow_180=True), Rules.named("none"), Rules.named("nrs")]
    ),
    randomizer=st.sampled_from(["7bag", "14bag", "random", "nes", "tgm"]),
    handling=st.builds(
        Handling,
        das=st.sampled_from([0, 4, 10]),
        arr=st.sampled_from([0, 0.5, 2]),
        sdf=st.sampled_from([None, 5.0, 20.0]),
        dcd=st.sampled_from([0, 1]),
    ),
    lock_delay=st.sampled_from([1, 15, 30]),
    track_finesse=st.just(False),
)


def boards(max_rows: int = 8) -> st.SearchStrategy[Board]:
    row = st.lists(st.booleans(), min_size=10, max_size=10).filter(lambda r: not all(r))
    return st.lists(row, max_size=max_rows).map(
        lambda rows: Board.from_rows(["".join("X" if c else "_" for c in r) for r in rows]) if rows else Board()
    )


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=configs, seed=st.integers(0, 10**6), inputs=st.lists(buttons, max_size=400))
def test_same_seed_and_inputs_give_the_same_game(config: GameConfig, seed: int, inputs: list[int]) -> None:
    a, b = Game(config, seed), Game(config, seed)
    for buttons_held in inputs:
        assert a.tick(buttons_held) == b.tick(buttons_held)
    assert (a.board, a.active, a.hold, a.stats, a.over) == (b.board, b.active, b.hold, b.stats, b.over)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=configs, seed=st.integers(0, 10**6), inputs=st.lists(buttons, max_size=400))
def test_the_active_piece_never_overlaps(config: GameConfig, seed: int, inputs: list[int]) -> None:
    game = Game(config, seed)
    for buttons_held in inputs:
        game.tick(buttons_held)
        if game.active is not None:
            a = game.active
            mask = PIECE_MASKS.get((a.piece, a.rotation, a.x, a.y))
            assert mask is not None and not (mask & game.board.bits)
        assert not game.board.full_rows()  # full rows never survive a lock


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    board=boards(),
    piece=st.sampled_from(list(Piece)),
    rules=st.sampled_from([Rules.named("srs"), Rules.named("srs+", allow_180=True), Rules.named("none")]),
    handling=st.builds(
        Handling, das=st.sampled_from([0, 6, 10]), arr=st.sampled_from([0, 1, 2]), sdf=st.sampled_from([None, 20.0])
    ),
)
def test_every_placement_found_is_played_exactly_by_its_keys(board, piece, rules, handling) -> None:
    """The finesse search and the engine agree: each placement's keys lock the piece there, with its spin."""
    config = GameConfig(
        rules=rules, handling=handling, gravity_mode=GravityMode.FIXED, gravity=0.0, lock_delay=600, track_finesse=False
    )
    for move in find_moves(board, piece, rules):
        placement = move.placement
        game = Game(config, 0, board=board, queue=[piece])
        lock = next(e for e in play_keys(game, move.keys) if isinstance(e, Locked))
        assert lock.placement == placement and lock.result.spin is placement.spin
        assert lock.keys == len(move.keys)
