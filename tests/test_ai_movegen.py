"""The fast move generator agrees exactly with the reference search (game.finesse.find_placements)."""

from __future__ import annotations

import random

import pytest

from ai.movegen import generate, generate_raw
from game.board import PIECE_MASKS, Board
from game.finesse import Key, find_placements
from game.movement import Spin
from game.pieces import Piece, Rotation
from game.rules import Rules, SpinRule
from game.scoring import lock_piece


def random_field(rng: random.Random) -> int:
    """A jagged field with holes and overhangs, no full rows."""
    top = rng.randint(0, 12)
    heights = [rng.randint(0, top) for _ in range(10)]
    bits = 0
    for x, height in enumerate(heights):
        for y in range(height):
            if rng.random() < 0.85:
                bits |= 1 << (y * 10 + x)
    for y in range(40):
        if (bits >> (y * 10)) & 1023 == 1023:
            bits &= ~(1 << (y * 10 + rng.randrange(10)))
    return bits


RULE_SETS = {
    "srs": Rules.named("srs"),
    "srs-nospin": Rules.named("srs", spin_rule=SpinRule.NONE),
    "srs+180": Rules.named("srs+", allow_180=True),
    "none": Rules.named("none"),
    "srs-allspin-180": Rules.named("srs", allow_180=True, spin_rule=SpinRule.ALL_SPIN),
}


def summary(placements) -> dict[tuple[int, Spin], int]:
    return {(p.mask, p.spin): len(p.keys) for p in placements}


@pytest.mark.parametrize("rules_name", list(RULE_SETS))
def test_agrees_with_reference_on_random_fields(rules_name: str) -> None:
    rules = RULE_SETS[rules_name]
    rng = random.Random(list(RULE_SETS).index(rules_name) + 11)
    for _ in range(30):
        bits = random_field(rng)
        for piece in Piece:
            for soft in (True, False):
                expected = find_placements(bits, piece, rules, soft_drop=soft)
                got = generate(bits, piece, rules, soft_drop=soft)
                assert summary(got) == summary(expected), (rules_name, piece, soft, Board(bits))
                # Order is by key count, like the reference.
                assert [len(p.keys) for p in got] == sorted(len(p.keys) for p in got)
                # The search's generator (a flood fill for pieces that cannot spin) finds the same placements.
                raw = generate_raw(bits, piece, rules, soft_drop=soft)
                raw_set = [(PIECE_MASKS[piece, Rotation(r.rotation), r.x, r.y], r.spin) for r in raw]
                assert len(raw_set) == len(set(raw_set)) and set(raw_set) == set(summary(expected))


def test_keys_replay_to_the_placement() -> None:
    """Each key sequence, replayed with the game's movement functions, ends at the placement's cells."""
    from game.movement import drop_y, slide, try_rotate

    rules = RULE_SETS["srs+180"]
    rng = random.Random(7)
    for _ in range(6):
        bits = random_field(rng)
        for piece in Piece:
            for placement in generate(bits, piece, rules):
                rot, x, y = Rotation.NORTH, rules.spawn_x, rules.spawn_y
                for key in placement.keys:
                    if key is Key.LEFT or key is Key.RIGHT:
                        x += -1 if key is Key.LEFT else 1
                    elif key is Key.DAS_LEFT or key is Key.DAS_RIGHT:
                        x = slide(bits, piece, rot, x, y, -1 if key is Key.DAS_LEFT else 1)
                    elif key in (Key.CW, Key.CCW, Key.FLIP):
                        turns = {Key.CW: 1, Key.CCW: -1, Key.FLIP: 2}[key]
                        turned = try_rotate(bits, rules, piece, rot, x, y, turns)
                        assert turned is not None
                        rot, x, y, _ = turned
                    else:
                        y = drop_y(bits, piece, rot, x, y)
                assert PIECE_MASKS[piece, rot, x, y] == placement.mask


EMPTY_COUNTS = {"I": 17, "J": 34, "L": 34, "O": 9, "S": 17, "T": 34, "Z": 17}


@pytest.mark.parametrize("soft", [True, False])
def test_empty_field_counts(soft: bool) -> None:
    rules = Rules.named("srs")
    counts = {piece.name: len(generate(Board(), piece, rules, soft_drop=soft)) for piece in Piece}
    assert counts == EMPTY_COUNTS


def test_tuck_needs_soft_drop() -> None:
    # A floating overhang over columns 0-3: the cells under it are reached only by soft drop and a shift.
    field = Board.from_rows(["XXXX______", "__________"])
    rules = Rules.named("srs")
    under = lambda placements: [p for p in placements if p.mask & 0b1111]
    full = under(generate(field, Piece.I, rules))
    hard = under(generate(field, Piece.I, rules, soft_drop=False))
    assert not hard
    assert full and all(Key.SOFT_DROP in p.keys for p in full)


def _clears(board: Board, placement) -> int:
    _, result = lock_piece(board, placement.piece, placement.rotation, placement.x, placement.y, placement.spin, -1, -1)
    return result.lines


def test_tsd_found() -> None:
    board = Board.from_rows(["XXXX______", "XXX___XXXX", "XXXX_XXXXX"])
    for name in ("srs", "none"):
        found = [p for p in generate(board, Piece.T, Rules.named(name)) if p.spin is Spin.FULL and _clears(board, p) == 2]
        assert any(p.rotation is Rotation.SOUTH and (p.x, p.y) == (4, 1) for p in found), name


def test_tst_needs_the_tst_kick() -> None:
    board = Board.from_rows(["_X________", "XX________", "X_________", "X_XXXXXXXX", "X__XXXXXXX", "X_XXXXXXXX"])

    def triples(rules: Rules) -> list:
        return [p for p in generate(board, Piece.T, rules) if p.spin is Spin.FULL and _clears(board, p) == 3]

    found = triples(Rules.named("srs"))
    assert [(p.rotation, p.x, p.y) for p in found] == [(Rotation.EAST, 1, 1)]
    assert not triples(Rules.named("none"))


def test_tspin_mini_only_with_kicks() -> None:
    board = Board.from_rows(["_XXXXXXXXX"])
    minis = lambda rules: [
        p for p in generate(board, Piece.T, rules) if p.spin is Spin.MINI and (p.rotation, p.x, p.y) == (Rotation.EAST, 0, 1)
    ]
    assert minis(Rules.named("srs"))
    assert not minis(Rules.named("none"))


def test_spawn_blocked_gives_nothing() -> None:
    bits = sum(1 << (20 * 10 + x) for x in range(3, 6))
    assert generate(bits, Piece.T, Rules.named("srs")) == []
    assert find_placements(bits, Piece.T, Rules.named("srs")) == []
