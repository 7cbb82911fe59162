"""Randomizers: the sequences they deal, and their exact models of the future."""

from __future__ import annotations

import csv
from collections import Counter
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.pieces import ALL_PIECES, Piece
from game.randomizer import RANDOMIZERS, BagRandomizer, make_randomizer

SHARED = Path(__file__).resolve().parents[2] / "shared"


def deal(key: str, seed: int, count: int) -> list[Piece]:
    randomizer = make_randomizer(key, seed)
    return [randomizer.draw() for _ in range(count)]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), bags=st.integers(1, 6))
def test_every_7_bag_holds_each_piece_once(seed: int, bags: int) -> None:
    pieces = deal("7bag", seed, 7 * bags)
    for start in range(0, len(pieces), 7):
        assert sorted(pieces[start : start + 7]) == list(ALL_PIECES)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), bags=st.integers(1, 4))
def test_every_14_bag_holds_each_piece_twice(seed: int, bags: int) -> None:
    pieces = deal("14bag", seed, 14 * bags)
    for start in range(0, len(pieces), 14):
        assert Counter(pieces[start : start + 14]) == {piece: 2 for piece in ALL_PIECES}


@settings(max_examples=30, deadline=None)
@given(key=st.sampled_from(sorted(RANDOMIZERS)), seed=st.integers(0, 2**32))
def test_draws_follow_the_model(key: str, seed: int) -> None:
    """Every drawn piece has a positive probability in the model, and the model's state tracks the draws."""
    randomizer = make_randomizer(key, seed)
    for _ in range(40):
        outcomes = randomizer.outcomes(randomizer.state)
        assert sum(p for _, p, _ in outcomes) == pytest.approx(1.0)
        possible = {piece for piece, p, _ in outcomes if p > 0}
        assert randomizer.draw() in possible


def test_same_seed_same_pieces_other_seed_other_pieces() -> None:
    for key in RANDOMIZERS:
        assert deal(key, 11, 50) == deal(key, 11, 50)
        assert deal(key, 11, 50) != deal(key, 12, 50)


def test_bag_knowledge() -> None:
    bag = BagRandomizer(3)
    seen = [bag.draw() for _ in range(3)]
    assert bag.bag_position() == 3
    sequences = list(bag.sequences(4))
    assert len(sequences) == 24 and sum(p for _, p in sequences) == pytest.approx(1.0)
    assert {frozenset(s) for s, _ in sequences} == {frozenset(ALL_PIECES) - set(seen)}


def test_nes_repeats_are_rarer_and_tgm_starts_without_s_z_o() -> None:
    nes = make_randomizer("nes", 1)
    nes.draw()
    last = nes.state
    probabilities = {piece: p for piece, p, _ in nes.outcomes(last)}
    assert probabilities[last] == pytest.approx(2 / 8 / 7)
    others = [p for piece, p, _ in nes.outcomes(last) if piece != last]
    assert all(p == pytest.approx(1 / 8 + 2 / 8 / 7) for p in others)
    for seed in range(30):
        assert deal("tgm", seed, 1)[0] not in (Piece.S, Piece.Z, Piece.O)


def test_tgm_history_makes_repeats_rare() -> None:
    pieces = deal("tgm", 5, 3000)
    repeats = sum(a == b for a, b in pairwise(pieces))
    # A piece in the 4-piece history survives 6 rolls with probability (k/7)^5/7 <= (4/7)^5/7, about 0.9%.
    assert repeats / len(pieces) < 0.03


def test_mid_bag_start_deals_the_rest_of_that_bag() -> None:
    bag = BagRandomizer(9)
    bag.state = (Piece.I, Piece.T)
    assert sorted(bag.draw() for _ in range(2)) == [Piece.I, Piece.T]
    assert sorted(bag.draw() for _ in range(7)) == list(ALL_PIECES)


@pytest.mark.skipif(not (SHARED / "pc" / "cases.tsv").exists(), reason="../shared/pc/cases.tsv is not present")
def test_reproduces_the_shared_case_stream() -> None:
    """The PC cases were drawn as a 7-bag stream from random.Random(20261125): our 7-bag deals the same."""
    with open(SHARED / "pc" / "cases.tsv", newline="") as handle:
        first = next(row for row in csv.DictReader(handle, delimiter="\t") if row["case_id"] == "E000")
    pieces = "".join(p.name for p in deal("7bag", 20261125, 11))
    assert pieces == first["queue"]
