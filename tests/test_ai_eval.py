"""Feature values on small hand-computed boards, and the weight files."""

from __future__ import annotations

import tomllib

import pytest

from ai.eval import (
    ALL_FEATURES,
    Evaluator,
    LinearEvaluator,
    WeightSet,
    board_features,
    load_evaluator,
)
from game.board import Board
from game.movement import Spin
from game.pieces import Piece, Rotation
from game.placement import Placement
from game.scoring import lock_piece
from tests.oracle_eval import board_features_by_columns, move_features


def test_tsd_board_features() -> None:
    # heights 3 3 3 3 0 1 2 2 2 2; one hole at (3, 1) under the overhang.
    board = Board.from_rows(["XXXX______", "XXX___XXXX", "XXXX_XXXXX"])
    f = board_features(board.bits)
    assert f["row_transitions"] == 6 + 2 * 17  # each of the 3 rows: 2; the 17 empty rows above: 2 each (walls)
    assert f["column_transitions"] == 12  # column 3: 3, every other column: 1 (floor or top)
    assert f["holes"] == 1
    assert f["hole_depth"] == 1
    assert f["rows_with_holes"] == 1
    assert f["wells"] == 1  # (4, 0): both neighbours filled, depth 1
    assert f["bumpiness"] == 5
    assert f["aggregate_height"] == 21
    assert f["max_height"] == 3
    assert f["tsd_slots"] == 1
    assert f["tst_slots"] == 0


def test_empty_board() -> None:
    f = board_features(0)
    assert f["row_transitions"] == 2 * 20  # every empty row has the two wall transitions
    assert f["column_transitions"] == 10  # floor to empty cell, once per column
    assert f["holes"] == f["wells"] == f["bumpiness"] == f["max_height"] == 0


def test_deep_well_and_stacked_holes() -> None:
    # Column 9 is a 4-deep well; column 0 has two holes under three filled cells.
    board = Board.from_rows(
        [
            "XXXXXXXXX_",
            "XXXXXXXXX_",
            "_XXXXXXXX_",
            "_XXXXXXXX_",
        ]
    )
    f = board_features(board.bits)
    assert f["wells"] == 1 + 2 + 3 + 4
    assert f["holes"] == 2
    assert f["hole_depth"] == 2 + 2
    assert f["rows_with_holes"] == 2
    # Rows: the bottom two have 4 changes (wall|_X...X_|wall), the top two 2.
    assert f["row_transitions"] == 4 + 4 + 2 + 2 + 2 * 16
    # Column 0: floor->empty, empty->filled, filled->empty at top = 3; columns 1-8: 1 each; column 9: 1.
    assert f["column_transitions"] == 3 + 8 + 1


def test_tst_slot_detected() -> None:
    board = Board.from_rows(["_X________", "XX________", "X_________", "X_XXXXXXXX", "X__XXXXXXX", "X_XXXXXXXX"])
    assert board_features(board.bits)["tst_slots"] == 1


def test_move_features_tsd_and_eroded_cells() -> None:
    board = Board.from_rows(["XXXX______", "XXX___XXXX", "XXXX_XXXXX"])
    _, result = lock_piece(board, Placement(piece=Piece.T, rotation=Rotation.SOUTH, x=4, y=1, spin=Spin.FULL), -1, -1)
    f = move_features(Piece.T, Rotation.SOUTH, 4, 1, result, -1)
    assert f["tspin2"] == 1 and f["wasted_t"] == 0 and f["clear2"] == 0
    assert f["eroded_cells"] == 2 * 4  # two lines, all four T cells in them
    assert f["landing_height"] == 0.5  # cells on rows 0 and 1
    assert f["attack"] == 4


def test_move_features_tetris_and_b2b() -> None:
    board = Board.from_rows(["XXXXXXXXX_"] * 4)
    _, result = lock_piece(board, Placement(piece=Piece.I, rotation=Rotation.EAST, x=9, y=2), 0, -1)
    f = move_features(Piece.I, Rotation.EAST, 9, 2, result, 0)
    assert f["clear4"] == 1 and f["b2b_chain"] == 1 and f["perfect_clear"] == 1
    _, single = lock_piece(
        Board.from_rows(["XXXXXX_XXX"]), Placement(piece=Piece.I, rotation=Rotation.EAST, x=6, y=2), 2, -1
    )
    g = move_features(Piece.I, Rotation.EAST, 6, 2, single, 2)
    assert g["clear1"] == 1 and g["b2b_break"] == 1


@pytest.mark.parametrize("name", ["dellacherie", "el-tetris", "bcts", "modern", "modern-hand", "cem-classic"])
def test_weight_sets_load(name: str) -> None:
    evaluator = load_evaluator(name)
    assert isinstance(evaluator, Evaluator)
    assert evaluator.weights.weights and set(evaluator.weights.weights) <= set(ALL_FEATURES)
    # Holes are bad under every set.
    assert evaluator.board(Board.from_rows(["XXXXX_____", "_____XXXXX"]).bits) < evaluator.board(
        Board.from_rows(["XXXXX_____", "XXXXX_____"]).bits
    )


def test_weight_set_round_trip(tmp_path) -> None:
    original = WeightSet("mine", {"holes": -2.5, "landing_height": -1.0}, "test")
    path = tmp_path / "mine.toml"
    path.write_text(original.to_toml())
    assert WeightSet.load(path) == original
    with pytest.raises(ValueError):
        WeightSet.load("no-such-set")


@pytest.mark.parametrize(
    ("name", "description"),
    [
        ("it's mine", 'Dellacherie\'s set, "retuned"'),
        ('say "hi"', "a back\\slash, a tab\tand\na newline"),
        ("café ★", "trained on 2026-11-26 — élite mean 3 472 ✓"),
        ("out/weights.toml", "'''triple''' and \"\"\"triple\"\"\""),
    ],
)
def test_weight_set_toml_round_trips_any_text(tmp_path, name: str, description: str) -> None:
    """`train` names a set after its output file and keeps free text: the TOML written must read back equal."""
    original = WeightSet(name, {"holes": -2.5, "landing_height": -1.0, "tspin2": 3.0}, description)
    text = original.to_toml()
    assert tomllib.loads(text)["description"] == description
    path = tmp_path / "mine.toml"
    path.write_text(text, encoding="utf-8")
    assert WeightSet.load(path) == original


def test_dellacherie_value_by_hand() -> None:
    evaluator = LinearEvaluator(WeightSet.load("dellacherie"))
    board = Board.from_rows(["XXXX______", "XXX___XXXX", "XXXX_XXXXX"])
    # -row(6 + 2 for each of the 17 empty rows) - column(12) - 4 * holes(1) - wells(1)
    assert evaluator.board(board.bits) == -(6 + 34) - 12 - 4 - 1


def test_row_pass_matches_column_definition() -> None:
    """The whole-board features equal the plain column-by-column definitions on random jagged fields (some taller
    than the 20 visible rows)."""
    import random

    rng = random.Random(5)
    for _ in range(300):
        top = rng.randint(0, 24)
        bits = 0
        for x in range(10):
            for y in range(rng.randint(0, top)):
                if rng.random() < 0.8:
                    bits |= 1 << (10 * y + x)
        assert board_features(bits) == board_features_by_columns(bits), Board(bits)


def test_fast_move_value_is_the_weighted_feature_sum() -> None:
    import random

    from game.movegen import generate_raw
    from game.rules import Rules

    rules = Rules.named("srs")
    rng = random.Random(8)
    evaluators = [load_evaluator(name) for name in ("dellacherie", "el-tetris", "bcts", "modern")]
    for _ in range(25):
        bits = 0
        for y in range(rng.randint(0, 5)):
            bits |= (1023 ^ (1 << rng.randrange(10)) ^ (rng.random() < 0.3) << rng.randrange(10)) << (10 * y)
        board = Board(bits)
        for piece in Piece:
            for p in generate_raw(bits, piece, rules):
                b2b = rng.choice((-1, 0, 3))
                rotation = Rotation(p.rotation)
                at = Placement(piece=piece, rotation=rotation, x=p.x, y=p.y, spin=p.spin)
                _, result = lock_piece(board, at, b2b, rng.choice((-1, 2)))
                features = move_features(piece, rotation, p.x, p.y, result, b2b)
                for evaluator in evaluators:
                    expected = sum(w * features[k] for k, w in evaluator.weights.weights.items() if k in features)
                    assert evaluator.move(piece, rotation, p.x, p.y, result, b2b) == pytest.approx(expected)


def test_tslot_shape_being_built() -> None:
    ready = Board.from_rows(["XXXX______", "XXX___XXXX", "XXXX_XXXXX"])
    building = Board.from_rows(["XXXX______", "XXX____XXX", "XXXX_XXXX_"])  # the rows have other gaps still
    assert (board_features(ready.bits)["tsd_slots"], board_features(ready.bits)["tslot_shapes"]) == (1, 0)
    assert (board_features(building.bits)["tsd_slots"], board_features(building.bits)["tslot_shapes"]) == (0, 1)


def test_row_transitions_count_the_empty_rows_of_the_field() -> None:
    """Thiery & Scherrer's definition: all 20 rows, walls filled, so an empty row counts 2. Raising the stack by a
    row whose only transitions are the walls must not change the feature (it used to cost 2 more: only rows up to
    the stack height were counted, a hidden height penalty that made Dellacherie top out early)."""
    low = Board.from_rows(["_XXXXXXXXX"])
    high = Board.from_rows(["_XXXXXXXXX", "_XXXXXXXXX"])
    assert board_features(low.bits)["row_transitions"] == 2 + 2 * 19  # wall|_ then _|X ... X|wall: 2
    assert board_features(high.bits)["row_transitions"] == 2 + 2 + 2 * 18
    # Hand count on a ragged field: rows (bottom up) "X_X_XXXXXX" = 4 (X|_, _|X, X|_, _|X) and "X_________" = 2
    # (X|_, _|wall); 18 empty rows above.
    ragged = Board.from_rows(["X_________", "X_X_XXXXXX"])
    assert board_features(ragged.bits)["row_transitions"] == 4 + 2 + 36
    # A field above the visible 20 rows: no negative empty-row term.
    tall = Board.from_rows(["X_________"] * 22)
    assert board_features(tall.bits)["row_transitions"] == 2 * 22
