"""Search picks the obvious attack, is deterministic for a seed, stops on request, and locks like the engine."""

from __future__ import annotations

import random

import pytest

from ai.search import BeamEngine, Budget, SearchState, make_engine
from game.board import Board
from game.movegen import generate_raw
from game.movement import Spin
from game.pieces import Piece, Rotation
from game.placement import Placement
from game.rules import Rules
from game.scoring import lock_piece

TSD = Board.from_rows(["XXXX______", "XXX___XXXX", "XXXX_XXXXX"])
WELL = Board.from_rows(["XXXXXXXXX_"] * 4)


@pytest.mark.parametrize("evaluator", ["modern", "bcts"])
def test_takes_the_tetris(evaluator: str) -> None:
    engine = BeamEngine(evaluator=evaluator)
    state = SearchState(WELL, Piece.I, None, (Piece.O, Piece.T, Piece.L, Piece.J, Piece.S), bag_state=(Piece.Z,))
    suggestion = engine.suggest(state, Budget(time_ms=None, depth=2))
    p = suggestion.move.placement
    assert (p.piece, p.rotation in (Rotation.EAST, Rotation.WEST)) == (Piece.I, True)
    _, result = lock_piece(WELL, p, -1, -1)
    assert result.lines == 4 and not suggestion.move.hold


def test_takes_the_tsd_even_from_hold() -> None:
    engine = BeamEngine(evaluator="modern")
    # T is in hold; the current piece is an O: the best move is to swap and spin the T in.
    state = SearchState(TSD, Piece.O, Piece.T, (Piece.I, Piece.L, Piece.J, Piece.S, Piece.Z), bag_state=())
    suggestion = engine.suggest(state, Budget(time_ms=None, depth=1))
    assert suggestion.move.hold
    p = suggestion.move.placement
    assert (p.piece, p.rotation, p.x, p.y, p.spin) == (Piece.T, Rotation.SOUTH, 4, 1, Spin.FULL)
    assert suggestion.move.keys[-1].value == "hard_drop"


def test_deterministic_with_seed() -> None:
    board = Board.from_rows(["XX___XXXX_", "XXX_XXXXX_"])
    state = SearchState(board, Piece.S, None, (Piece.Z, Piece.T, Piece.I, Piece.O, Piece.J), bag_state=(Piece.L,))
    answers = []
    for _ in range(2):
        engine = BeamEngine(seed=42, width=3)
        answers.append([engine.suggest(state, Budget(time_ms=None, depth=2)).move for _ in range(3)])
    assert answers[0] == answers[1]


def test_should_stop_returns_best_so_far() -> None:
    calls = []

    def stop() -> bool:
        calls.append(1)
        return True

    engine = BeamEngine()
    state = SearchState(TSD, Piece.T, None, (Piece.I, Piece.O), bag_state=())
    suggestion = engine.suggest(state, Budget(time_ms=None, depth=6, should_stop=stop))
    assert calls and suggestion.info["depth"] == 1 and suggestion.info["stopped"]
    assert suggestion.move.placement.spin is Spin.FULL


def test_expectation_over_unknown_pieces() -> None:
    # No previews: depth 2 has to average over the pieces the bag can still give.
    engine = BeamEngine(evaluator="bcts", use_hold=False)
    state = SearchState(Board(), Piece.I, None, (), bag_state=(Piece.O, Piece.S))
    suggestion = engine.suggest(state, Budget(time_ms=None, depth=2))
    assert suggestion.info["depth"] == 2
    assert suggestion.move.placement.piece is Piece.I


def test_no_placement_gives_none() -> None:
    bits = sum(1 << (20 * 10 + x) for x in range(3, 6))
    state = SearchState(Board(bits), Piece.T, None, (), bag_state=())
    assert BeamEngine(use_hold=False).suggest(state) is None


def test_make_engine_by_name() -> None:
    assert make_engine("beam").name == "beam"
    with pytest.raises(ValueError):
        make_engine("nope")


@pytest.mark.parametrize("accelerate", [True, False])
def test_search_locks_like_lock_piece_and_values_like_the_evaluator(accelerate: bool) -> None:
    """What search records for each placement (field after, B2B and combo chains, lock-out, move value, field value)
    equals lock_piece and the evaluator itself, clears or not (quiet locks take a table, clears the full lock)."""
    from ai.eval import load_evaluator
    from ai.search import _Node

    rules = Rules.named("srs")
    engine = BeamEngine(rules, "modern", accelerate=accelerate, panic_evaluator=None)
    evaluator = load_evaluator("modern")
    rng = random.Random(3)
    checked = clears = 0
    for _ in range(30):
        bits = 0
        for y in range(rng.randint(0, 6)):
            bits |= (1023 ^ (1 << rng.randrange(10))) << (10 * y)
        for piece in Piece:
            b2b, combo = rng.choice((-1, 0, 2)), rng.choice((-1, 0, 3))
            template = engine._template(_Node(0.0, 0.0, bits, None, 0, b2b, combo, None), piece)
            assert len(template) == len(generate_raw(bits, piece, rules))
            for (rot, x, y, spin), after, chain, combo_after, move, dead, value in template:
                at = Placement(piece=piece, rotation=Rotation(rot), x=x, y=y, spin=Spin(spin))
                board, result = lock_piece(Board(bits), at, b2b, combo)
                assert (after, chain, combo_after, dead) == (board.bits, result.b2b, result.combo, result.lock_out)
                assert move == pytest.approx(evaluator.move(piece, Rotation(rot), x, y, result, b2b), abs=1e-9)
                assert value == pytest.approx(evaluator.board(after), rel=1e-12, abs=1e-9)
                checked += 1
                clears += result.lines > 0
    assert checked > 1000 and clears > 50


def test_panic_mode_switches_weights_on_a_high_field() -> None:
    engine = BeamEngine(evaluator="modern", panic_height=10, panic_evaluator="bcts")
    high = Board.from_rows(["XXXXXXXXX_"] * 2 + ["XXXX_XXXXX"] * 9)
    low = Board.from_rows(["XXXXXXXXX_"] * 2)
    for board, panic, name in ((high, True, "bcts"), (low, False, "modern")):
        state = SearchState(board, Piece.I, None, (Piece.O,), bag_state=())
        info = engine.suggest(state, Budget(time_ms=None, depth=1)).info
        assert (info["panic"], info["evaluator"]) == (panic, name)
    never = BeamEngine(evaluator="modern", panic_evaluator=None)
    assert not never.suggest(SearchState(high, Piece.I, None, (), bag_state=()), Budget(time_ms=None, depth=1)).info[
        "panic"
    ]


def test_classic_top_out_is_checked_before_the_lines_clear() -> None:
    """Research rule: a piece must lie within rows 0..19 when it locks. J pointing down at (8, 20) fills row 19's
    last cell and clears it, after which the rest of the J would sit inside the field; it still ends the game."""
    from ai.search import DEAD

    rules = Rules.named("srs", hold=False)
    field = Board.from_rows(["XXXXXXXXX_"] + ["XXXXXXXX_X"] * 19)
    placements = {(p.rotation, p.x, p.y) for p in generate_raw(field.bits, Piece.J, rules, soft_drop=False)}
    assert (Rotation.SOUTH, 8, 20) in placements
    after, result = lock_piece(field, Placement(piece=Piece.J, rotation=Rotation.SOUTH, x=8, y=20), -1, -1)
    assert result.lines == 1 and not after.bits >> 200  # inside the field only after the clear
    engine = BeamEngine(
        rules, "dellacherie", use_hold=False, soft_drop=False, top_out_row=20, depth=1, panic_evaluator=None
    )
    suggestion = engine.suggest(SearchState(field, Piece.J, randomizer="random"), Budget(time_ms=None, depth=1))
    assert suggestion is not None and suggestion.score < DEAD / 2


def test_classic_hard_drops_from_spawn_reach_every_column_and_rotation() -> None:
    """The classic bench moves pieces with SRS at the spawn row (20) and hard-drops them; the research benchmark
    drops every (rotation, column) straight down. With row 20 empty (otherwise the game is over) the two give the
    same placements inside rows 0..19, on random ragged fields with holes up to row 19."""
    from game.board import PIECE_MASKS
    from game.movement import drop_y

    rules = Rules.named("srs", hold=False)
    rng = random.Random(11)
    for _ in range(60):
        bits = 0
        for x in range(10):
            for y in range(rng.randint(0, 19)):
                if rng.random() < 0.9:
                    bits |= 1 << (10 * y + x)
        for y in range(20):
            if (bits >> (10 * y)) & 1023 == 1023:
                bits &= ~(1023 << (10 * y))  # no full rows on a real field
        for piece in Piece:
            dropped = set()
            for rot in Rotation:
                for x in range(-3, 13):
                    start = PIECE_MASKS.get((piece, rot, x, 24))
                    if start is None or start & bits:
                        continue
                    mask = PIECE_MASKS[piece, rot, x, drop_y(bits, piece, rot, x, 24)]
                    if not mask >> 200:
                        dropped.add(mask)
            moved = {
                PIECE_MASKS[piece, Rotation(p.rotation), p.x, p.y]
                for p in generate_raw(bits, piece, rules, soft_drop=False)
            }
            assert {m for m in moved if not m >> 200} == dropped, (Board(bits), piece)


@pytest.mark.parametrize("accelerate", [True, False])
def test_options_are_one_piece_values_of_every_placement(accelerate: bool) -> None:
    """options(): each hard-drop placement once, its field after the lock, move + board value, and dead above the
    top-out row; the compiled and the pure-Python kernels give the same list."""
    from ai.eval import load_evaluator
    from game.board import PIECE_MASKS

    rules = Rules.named("srs", hold=False)
    engine = BeamEngine(
        rules,
        "dellacherie",
        use_hold=False,
        soft_drop=False,
        top_out_row=20,
        panic_evaluator=None,
        accelerate=accelerate,
    )
    evaluator = load_evaluator("dellacherie")
    options = engine.options(WELL.bits, Piece.I)
    assert len(options) == len(generate_raw(WELL.bits, Piece.I, rules, soft_drop=False))
    for (rot, x, y, spin), after, value, dead in options:
        at = Placement(piece=Piece.I, rotation=Rotation(rot), x=x, y=y, spin=Spin(spin))
        board, result = lock_piece(WELL, at, -1, -1)
        assert after == board.bits and not dead
        expected = evaluator.move(Piece.I, Rotation(rot), x, y, result, -1) + evaluator.board(after)
        assert value == pytest.approx(expected, rel=1e-9, abs=1e-9)
    best = max(options, key=lambda option: option[2])
    assert best[1] == 0  # the vertical I in the well clears all four rows
    high = Board.from_rows(["XXXX_XXXXX"] * 18 + ["XXXXXXXXX_"] * 1)
    dead = [option for option in engine.options(high.bits, Piece.O) if option[3]]
    assert dead and all(PIECE_MASKS[(Piece.O,) + option[0][:3]] >> 200 for option in dead)


def test_classic_games_are_seeded_and_end_at_the_board_height() -> None:
    from ai.bench import play_classic

    first = play_classic("dellacherie", seed=5, max_pieces=3000, height=6)
    again = play_classic("dellacherie", seed=5, max_pieces=3000, height=6)
    assert (first.lines, first.pieces) == (again.lines, again.pieces)
    assert first.topped_out and first.pieces < 3000  # a 6-row board ends a game within a few hundred pieces
    # Cells in, cells out: every piece adds 4 cells and every line removes 10, and the game ends with a stack
    # below the top, so lines can't exceed (4 * pieces) / 10.
    assert 0 < first.lines <= 4 * first.pieces // 10
    pure = play_classic("dellacherie", seed=5, max_pieces=3000, height=6, accelerate=False)
    assert (pure.lines, pure.pieces) == (first.lines, first.pieces)
