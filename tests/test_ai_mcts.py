"""The MCTS engine answers through the same interface, finds the obvious spin, and is reproducible."""

from __future__ import annotations

from ai.mcts import MctsEngine
from ai.search import Budget, SearchState, make_engine
from game.board import Board
from game.movement import Spin
from game.pieces import Piece, Rotation

TSD = Board.from_rows(["XXXX______", "XXX___XXXX", "XXXX_XXXXX"])


def test_mcts_takes_the_tsd() -> None:
    engine = make_engine("mcts", seed=1)
    assert isinstance(engine, MctsEngine) and engine.name == "mcts"
    # No hold this turn, so spinning the T in now is the only way to score the TSD on this move.
    state = SearchState(TSD, Piece.T, None, (Piece.I, Piece.O), bag_state=(Piece.J, Piece.L), hold_available=False)
    suggestion = engine.suggest(state, Budget(time_ms=None, max_nodes=30))
    p = suggestion.move.placement
    assert (p.rotation, p.x, p.y, p.spin) == (Rotation.SOUTH, 4, 1, Spin.FULL)
    assert suggestion.info["iterations"] == 30


def test_mcts_is_reproducible_and_samples_past_the_queue() -> None:
    board = Board.from_rows(["XX___XXXX_", "XXX_XXXXX_"])
    state = SearchState(board, Piece.S, None, (), bag_state=(Piece.Z, Piece.T, Piece.I))  # nothing previewed
    runs = []
    for _ in range(2):
        engine = MctsEngine(seed=9, rollout_depth=2)
        runs.append([engine.suggest(state, Budget(time_ms=None, max_nodes=12)).move.placement for _ in range(2)])
    assert runs[0] == runs[1]


def test_mcts_stops_when_asked() -> None:
    engine = MctsEngine()
    state = SearchState(TSD, Piece.T, None, (Piece.I,), bag_state=())
    suggestion = engine.suggest(state, Budget(time_ms=None, should_stop=lambda: True))
    assert suggestion is not None and suggestion.info["iterations"] == 0 and suggestion.info["stopped"]
    assert suggestion.move.placement.spin is Spin.FULL  # the best static move when nothing was searched
