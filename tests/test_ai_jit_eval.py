"""ai.jit_eval against ai.eval: identical board features and board values on random, hand-built and played fields."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numba", reason="ai.jit_eval needs numba")

from ai import jit_eval
from ai.eval import BOARD_FEATURES, WEIGHTS_DIR, Evaluator, LinearEvaluator, WeightSet, board_features
from game.board import PIECE_MASKS, Board
from game.movement import Spin, drop_y
from game.pieces import Piece, Rotation
from game.placement import Placement
from game.scoring import lock_piece

WEIGHT_FILES = sorted(p.stem for p in Path(WEIGHTS_DIR).glob("*.toml"))


def expected(bits: int) -> list[int]:
    features = board_features(bits)
    return [features[key] for key in BOARD_FEATURES]


def rows_to_bits(rows: list[int]) -> int:
    """rows[y] = 10-bit row y (bottom first)."""
    return sum(row << (10 * y) for y, row in enumerate(rows))


# --- field generators ---------------------------------------------------------------------------------------------
def profile_field(rng: random.Random, height: int) -> int:
    """Columns filled up to random heights, then holes punched and overhangs added."""
    heights = [rng.randint(0, height) for _ in range(10)]
    bits = 0
    for x, h in enumerate(heights):
        for y in range(h):
            if rng.random() > 0.12:  # holes
                bits |= 1 << (10 * y + x)
    for _ in range(rng.randint(0, 3)):  # overhangs: a cell sticking out over a lower neighbour
        x = rng.randrange(10)
        y = heights[x] + rng.randint(0, 2)
        if y < 40:
            bits |= 1 << (10 * y + x)
    return bits


def garbage_field(rng: random.Random, height: int) -> int:
    """Rows full except one to three holes, often with a shared column (wells, T-slots, Tetris-ready stacks)."""
    column = rng.randrange(10)
    rows = []
    for _ in range(height):
        if rng.random() < 0.6:
            row = 1023 ^ (1 << column)
        else:
            row = 1023
            for _ in range(rng.randint(1, 3)):
                row &= ~(1 << rng.randrange(10))
        rows.append(row)
    if rows and rng.random() < 0.5:  # a ragged surface above
        rows.append(rng.getrandbits(10))
    return rows_to_bits(rows)


def noise_field(rng: random.Random, height: int) -> int:
    density = rng.random()
    return rows_to_bits([sum(1 << x for x in range(10) if rng.random() < density) for _ in range(height)])


def tslot_field(rng: random.Random, height: int) -> int:
    """A TSD or TST slot (sometimes spoiled by one flipped cell) on garbage, with a random surface above."""
    rows = [1023 ^ (1 << rng.randrange(10)) for _ in range(rng.randint(0, max(0, height - 5)))]
    x = rng.randint(1, 8)
    if rng.random() < 0.5:  # TSD: stem row, the T's row, a roof corner
        roof = rng.getrandbits(10) & ~(1 << x) | (1 << (x + rng.choice((-1, 1))))
        rows += [1023 ^ (1 << x), 1023 ^ (7 << (x - 1)), roof]
    else:  # TST: the T vertical at x with its stem towards `side`, the overhang two rows up on the other side
        side = rng.choice((-1, 1))
        roof = rng.getrandbits(10) & ~(1 << x) | (1 << (x - side))
        rows += [1023 ^ (1 << x), 1023 ^ (1 << x) ^ (1 << (x + side)), 1023 ^ (1 << x), roof]
    rows += [rng.getrandbits(10) & rng.getrandbits(10) for _ in range(rng.randint(0, 2))]
    bits = rows_to_bits(rows)
    if rng.random() < 0.3:
        bits ^= 1 << rng.randrange(10 * len(rows))
    return bits


def tall_field(rng: random.Random) -> int:
    """Stacks reaching rows 33-39, including sparse high cells far above empty cells (holes far below the top)."""
    kind = rng.randrange(3)
    if kind == 0:
        return noise_field(rng, rng.randint(34, 40))
    if kind == 1:
        return profile_field(rng, 40)
    low = noise_field(rng, rng.randint(0, 6))
    return low | (rng.getrandbits(10) << (10 * rng.randint(30, 39)))


def played_fields(rng: random.Random, count: int) -> list[int]:
    """Fields after each lock of random pieces hard-dropped at random columns (lines cleared by lock_piece)."""
    out = []
    board = Board()
    while len(out) < count:
        piece = rng.choice(list(Piece))
        rotation = rng.choice(list(Rotation))
        x = rng.randint(-1, 10)
        if (piece, rotation, x, 22) not in PIECE_MASKS or board.bits >> 200:
            if board.bits >> 200:
                board = Board()  # topped out: start again
            continue
        y = drop_y(board.bits, piece, rotation, x, 22)
        board, _ = lock_piece(board, Placement(piece=piece, rotation=rotation, x=x, y=y), -1, -1)
        out.append(board.bits)
    return out


def random_fields(seed: int, count: int) -> list[int]:
    rng = random.Random(seed)
    makers = (profile_field, garbage_field, noise_field, tslot_field)
    return [makers[i % len(makers)](rng, rng.randint(0, 22)) for i in range(count)]


HAND_FIELDS = {
    # name: (rows top first, the feature this field is about, its value)
    "tsd": (["XXXX______", "XXX___XXXX", "XXXX_XXXXX"], "tsd_slots", 1),
    "tst": (["_X________", "XX________", "X_________", "X_XXXXXXXX", "X__XXXXXXX", "X_XXXXXXXX"], "tst_slots", 1),
    "tst_mirrored": (
        ["________X_", "________XX", "_________X", "XXXXXXXX_X", "XXXXXXX__X", "XXXXXXXX_X"],
        "tst_slots",
        1,
    ),
    "t_shape_building": (["XX________", "X___XX____", "XX_XXXXX__"], "tslot_shapes", 1),
    "tetris_ready": (["XXXXXXXXX_"] * 5, "well_depth", 4),
    "deep_well_and_holes": (["XXXXXXXXX_", "XXXXXXXXX_", "_XXXXXXXX_", "_XXXXXXXX_"], "wells", 10),
}


# --- features -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(HAND_FIELDS))
def test_hand_built_fields(name: str) -> None:
    rows, feature, value = HAND_FIELDS[name]
    bits = Board.from_rows(rows).bits
    assert board_features(bits)[feature] == value  # the field really exercises that feature
    got = jit_eval.feature_vector(bits)
    assert got.dtype == np.int64 and got.shape == (len(BOARD_FEATURES),)
    assert got.tolist() == expected(bits)


def test_random_fields_match_board_features() -> None:
    fields = random_fields(seed=7, count=600)
    mismatches = [(bits, jit_eval.feature_vector(bits).tolist(), expected(bits)) for bits in fields]
    mismatches = [m for m in mismatches if m[1] != m[2]]
    assert not mismatches, mismatches[:3]
    # The corpus must exercise every feature, T-slots and Tetris wells included, or the comparison proves little.
    vectors = np.array([expected(bits) for bits in fields])
    nonzero = dict(zip(BOARD_FEATURES, (vectors != 0).sum(axis=0).tolist()))
    assert all(count >= 3 for count in nonzero.values()), nonzero


def test_played_fields_match_board_features() -> None:
    fields = played_fields(random.Random(3), 300)
    assert any(bits.bit_length() > 100 for bits in fields)  # the stacks grew past row 10
    for bits in fields:
        assert jit_eval.feature_vector(bits).tolist() == expected(bits), Board(bits)


def test_empty_and_tall_fields() -> None:
    rng = random.Random(11)
    full_to_39 = rows_to_bits([1023 ^ (1 << (y % 10)) for y in range(40)])
    fields = [
        0,
        1,  # one cell
        rows_to_bits([1023] * 40),  # every cell
        full_to_39,  # the stack reaches row 39: column transitions count the row above the field
        1 << 399,  # a lone cell in the top-right corner
        1 << (10 * 35),  # a lone high cell 35 rows above the floor: beyond board_features' 32-row smear
        rows_to_bits([0b1111111110] * 3 + [0] * 30 + [1023] * 5),  # holes under a far overhang
    ] + [tall_field(rng) for _ in range(200)]
    for bits in fields:
        assert jit_eval.feature_vector(bits).tolist() == expected(bits), Board(bits)


def test_input_outside_the_field_is_refused() -> None:
    with pytest.raises(OverflowError):
        jit_eval.feature_vector(1 << 400)
    with pytest.raises(OverflowError):
        jit_eval.feature_vector(-1)


# --- values -------------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def value_fields() -> list[int]:
    rng = random.Random(5)
    hand = [Board.from_rows(rows).bits for rows, _, _ in HAND_FIELDS.values()]
    return hand + random_fields(seed=9, count=150) + played_fields(rng, 60) + [tall_field(rng) for _ in range(20)] + [0]


@pytest.mark.parametrize("name", WEIGHT_FILES)
def test_board_value_equals_linear_evaluator(name: str, value_fields: list[int]) -> None:
    weights = WeightSet.load(name)
    pure = LinearEvaluator(weights)
    vector = jit_eval.weight_vector(weights)
    jit = jit_eval.JitLinearEvaluator(weights)
    want = [pure.board(bits) for bits in value_fields]
    for bits, value in zip(value_fields, want):
        assert jit_eval.board_value(bits, vector) == pytest.approx(value, rel=1e-9, abs=1e-9)
        assert jit.board(bits) == pytest.approx(value, rel=1e-9, abs=1e-9)
    batch = jit_eval.board_values(value_fields, vector)
    assert batch.dtype == np.float64 and batch.shape == (len(value_fields),)
    assert batch.tolist() == pytest.approx(want, rel=1e-9, abs=1e-9)
    assert jit.board_many(value_fields) == pytest.approx(want, rel=1e-9, abs=1e-9)
    assert jit.board_many([]) == []


def test_weight_vector_order_and_missing_features() -> None:
    weights = WeightSet("partial", {"holes": -2.5, "well_depth": 3.0, "landing_height": -1.0})
    vector = jit_eval.weight_vector(weights)
    assert vector.dtype == np.float64
    assert vector.tolist() == [{"holes": -2.5, "well_depth": 3.0}.get(k, 0.0) for k in BOARD_FEATURES]
    bits = Board.from_rows(["XXXXXXXXX_"] * 4 + ["X_XXXXXXXX"]).bits  # a Tetris-ready well over one hole
    features = board_features(bits)
    assert (features["holes"], features["well_depth"]) == (1, 4)
    assert jit_eval.board_value(bits, vector) == -2.5 * 1 + 3.0 * 4
    with pytest.raises(ValueError):
        jit_eval.board_value(bits, vector[:-1])


def test_jit_evaluator_interface() -> None:
    weights = WeightSet.load("modern")
    pure = LinearEvaluator(weights)
    jit = jit_eval.JitLinearEvaluator(weights)
    assert isinstance(jit, Evaluator)
    assert jit.name == pure.name == "modern"
    assert jit.linear_moves == getattr(LinearEvaluator, "linear_moves", False)
    board = Board.from_rows(["XXXX______", "XXX___XXXX", "XXXX_XXXXX"])
    _, result = lock_piece(board, Placement(piece=Piece.T, rotation=Rotation.SOUTH, x=4, y=1, spin=Spin.FULL), 0, -1)
    args = (Piece.T, Rotation.SOUTH, 4, 1, result, 0)
    assert jit.move(*args) == pure.move(*args)
