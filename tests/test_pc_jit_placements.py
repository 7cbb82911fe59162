"""The compiled PC placement generator (ai.pc.jit_placements) returns what the Python one does, in the same
order, under several rule sets, with and without soft drop, on random 1- to 6-line fields."""

from __future__ import annotations

import random

import pytest

from ai.pc import movegen
from ai.pc.field import clear_full_rows
from game.pieces import Piece
from game.rules import Rules

pytest.importorskip("numba")


@pytest.mark.parametrize(
    "rules",
    [Rules.named("srs"), Rules.named("srs+", allow_180=True), Rules.named("none")],
    ids=["srs", "srs+180", "none"],
)
@pytest.mark.parametrize("soft_drop", [True, False])
def test_compiled_placements_equal_python(rules: Rules, soft_drop: bool) -> None:
    rng = random.Random(hash((rules.cache_key(), soft_drop)) & 0xFFFF)
    gen = movegen.MoveGenerator(rules, soft_drop)
    hidden = 0
    for _ in range(150):
        h = rng.randint(1, 6)
        density = rng.choice([0.2, 0.4, 0.6])
        bits = sum(1 << c for c in range(10 * h) if rng.random() < density)
        bits, _ = clear_full_rows(bits, h)
        for piece in Piece:
            expected = gen.python_placements(bits, h, piece)
            assert list(gen.placements(bits, h, piece).items()) == list(expected.items())
            hidden += sum(1 for _, hard in expected.values() if not hard)
    if soft_drop:
        assert hidden > 50  # tucks and spins were part of the comparison
