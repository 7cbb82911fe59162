"""The move generator (game.movegen.find_moves) agrees exactly with the reference search (tests/oracle_movegen.py)."""

from __future__ import annotations

import random

import pytest

from game.board import PIECE_MASKS, Board
from game.finesse import Key
from game.movegen import Move, Placement, find_moves, generate_raw
from game.movement import Spin
from game.pieces import Piece, Rotation
from game.rules import Rules, SpinRule
from game.scoring import lock_piece
from tests.oracle_movegen import LATER_SPIN_ROWS, find_placements


def random_field(rng: random.Random) -> int:
    """A field with holes and overhangs, no full rows, from one of three recipes picked at random: a jagged
    stack with holes, that stack with floating roofs over open caves (spin slots reached by a shift or a tuck),
    or dense noise rows (caves everywhere)."""
    recipe = rng.randrange(3)
    bits = 0
    if recipe < 2:
        top = rng.randint(0, 12)
        heights = [rng.randint(0, top) for _ in range(10)]
        for x, height in enumerate(heights):
            for y in range(height):
                if rng.random() < 0.85:
                    bits |= 1 << (y * 10 + x)
        if recipe == 1:
            for _ in range(rng.randint(1, 5)):
                x, width = rng.randrange(10), rng.randint(1, 3)
                y = heights[x] + rng.randint(1, 3)  # 1-3 empty rows under the roof
                for column in range(x, min(10, x + width)):
                    bits |= 1 << (y * 10 + column)
    else:
        height, density = rng.randint(3, 12), rng.uniform(0.4, 0.7)
        for y in range(height):
            for x in range(10):
                if rng.random() < density * (1 - 0.3 * y / height):
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


def summary(moves: list[Move]) -> dict[tuple[int, Spin], int]:
    return {(m.placement.mask, m.placement.spin): len(m.keys) for m in moves}


def longer_spins(moves: list[Move]) -> int:
    """Spin placements needing at least two more keys than the no-spin placement of the same cells.

    With soft drop, a no-spin placement in n keys means its cells are reached (by a soft drop or directly) within
    n moves, so such a spin arrives strictly later than the first arrival there: exactly what a search that
    records each (rotation, x, y) once, at its first arrival, misses."""
    plain = {m.placement.mask: len(m.keys) for m in moves if m.placement.spin is Spin.NONE}
    return sum(
        1 for m in moves if m.placement.spin is not Spin.NONE and len(m.keys) > plain.get(m.placement.mask, 99) + 1
    )


@pytest.mark.parametrize("rules_name", list(RULE_SETS))
def test_agrees_with_reference_on_random_fields(rules_name: str) -> None:
    rules = RULE_SETS[rules_name]
    rng = random.Random(list(RULE_SETS).index(rules_name) + 11)
    exercised = 0
    for _ in range(30):
        bits = random_field(rng)
        for piece in Piece:
            for soft in (True, False):
                expected = find_placements(bits, piece, rules, soft_drop=soft)
                got = find_moves(bits, piece, rules, soft_drop=soft)
                assert summary(got) == summary(expected), (rules_name, piece, soft, Board(bits))
                # The very same placements: same positions, same keys on ties, same order (key count, discovery).
                assert got == expected, (rules_name, piece, soft, Board(bits))
                exercised += longer_spins(expected) if soft else 0
                # The search's generator (a flood fill for pieces that cannot spin) finds the same placements.
                raw = generate_raw(bits, piece, rules, soft_drop=soft)
                raw_set = [(PIECE_MASKS[piece, Rotation(r.rotation), r.x, r.y], r.spin) for r in raw]
                assert len(raw_set) == len(set(raw_set)) and set(raw_set) == set(summary(expected))
                raw_keys = {(PIECE_MASKS[piece, Rotation(r.rotation), r.x, r.y], r.spin): r.keys for r in raw}
                assert all(count in (-1, summary(expected)[key]) for key, count in raw_keys.items())
    if rules.spin_rule is not SpinRule.NONE:
        # The fields must contain spins reachable only by a longer path than the plain drop into the same cells.
        assert exercised > 0, rules_name


def test_longer_rotation_into_cells_reached_by_a_shift() -> None:
    """T EAST at (5, 8): a plain drop reaches it in 3 keys; a longer path ending in a rotation scores a mini.
    Both generators list both placements, with the same key counts."""
    board = Board.from_rows(LATER_SPIN_ROWS)
    rules = Rules.named("srs")
    mask = PIECE_MASKS[Piece.T, Rotation.EAST, 5, 8]
    for generator in (find_placements, find_moves):
        here = {m.placement.spin: m for m in generator(board, Piece.T, rules) if m.placement.mask == mask}
        assert set(here) == {Spin.NONE, Spin.MINI}, generator.__name__
        assert here[Spin.NONE].keys == (Key.RIGHT, Key.CW, Key.HARD_DROP)
        mini = here[Spin.MINI].keys
        assert len(mini) > 3 and mini[-2] in (Key.CW, Key.CCW, Key.FLIP), generator.__name__
    assert find_moves(board, Piece.T, rules) == find_placements(board, Piece.T, rules)
    raw = {(r.rotation, r.x, r.y, r.spin) for r in generate_raw(board, Piece.T, rules)}
    assert {(Rotation.EAST, 5, 8, Spin.NONE), (Rotation.EAST, 5, 8, Spin.MINI)} <= raw


def test_keys_replay_to_the_placement() -> None:
    """Each key sequence, replayed with the game's movement functions, ends at the placement's cells with its spin."""
    from game.movement import detect_spin, drop_y, kick_offset, slide, try_rotate

    for rules in (RULE_SETS["srs+180"], RULE_SETS["srs"]):
        rng = random.Random(7)
        for _ in range(6):
            bits = random_field(rng)
            for piece in Piece:
                for move in find_moves(bits, piece, rules):
                    placement = move.placement
                    rot, x, y = Rotation.NORTH, rules.spawn_x, rules.spawn_y
                    kick = None
                    for key in move.keys:
                        if key is Key.LEFT or key is Key.RIGHT:
                            x += -1 if key is Key.LEFT else 1
                            kick = None
                        elif key is Key.DAS_LEFT or key is Key.DAS_RIGHT:
                            x = slide(bits, piece, rot, x, y, -1 if key is Key.DAS_LEFT else 1)
                            kick = None
                        elif key in (Key.CW, Key.CCW, Key.FLIP):
                            turns = {Key.CW: 1, Key.CCW: -1, Key.FLIP: 2}[key]
                            turned = try_rotate(bits, rules, piece, rot, x, y, turns)
                            assert turned is not None
                            end, x, y, index = turned
                            kick = kick_offset(rules, piece, rot, end, index)
                            rot = end
                        else:
                            landing = drop_y(bits, piece, rot, x, y)
                            if landing != y:
                                kick = None  # falling loses the spin
                            y = landing
                    assert PIECE_MASKS[piece, rot, x, y] == placement.mask
                    at = Placement(piece=piece, rotation=rot, x=x, y=y)
                    assert detect_spin(bits, rules, at, kick) is placement.spin


EMPTY_COUNTS = {"I": 17, "J": 34, "L": 34, "O": 9, "S": 17, "T": 34, "Z": 17}


@pytest.mark.parametrize("soft", [True, False])
def test_empty_field_counts(soft: bool) -> None:
    rules = Rules.named("srs")
    counts = {piece.name: len(find_moves(Board(), piece, rules, soft_drop=soft)) for piece in Piece}
    assert counts == EMPTY_COUNTS


def test_tuck_needs_soft_drop() -> None:
    # A floating overhang over columns 0-3: the cells under it are reached only by soft drop and a shift.
    field = Board.from_rows(["XXXX______", "__________"])
    rules = Rules.named("srs")

    def under(moves: list[Move]) -> list[Move]:
        return [m for m in moves if m.placement.mask & 0b1111]

    full = under(find_moves(field, Piece.I, rules))
    hard = under(find_moves(field, Piece.I, rules, soft_drop=False))
    assert not hard
    assert full and all(Key.SOFT_DROP in p.keys for p in full)


def _clears(board: Board, placement: Placement) -> int:
    _, result = lock_piece(board, placement, -1, -1)
    return result.lines


def test_tsd_found() -> None:
    board = Board.from_rows(["XXXX______", "XXX___XXXX", "XXXX_XXXXX"])
    for name in ("srs", "none"):
        placements = [m.placement for m in find_moves(board, Piece.T, Rules.named(name))]
        found = [p for p in placements if p.spin is Spin.FULL and _clears(board, p) == 2]
        assert any(p.rotation is Rotation.SOUTH and (p.x, p.y) == (4, 1) for p in found), name


def test_tst_needs_the_tst_kick() -> None:
    board = Board.from_rows(["_X________", "XX________", "X_________", "X_XXXXXXXX", "X__XXXXXXX", "X_XXXXXXXX"])

    def triples(rules: Rules) -> list[Placement]:
        placements = [m.placement for m in find_moves(board, Piece.T, rules)]
        return [p for p in placements if p.spin is Spin.FULL and _clears(board, p) == 3]

    found = triples(Rules.named("srs"))
    assert [(p.rotation, p.x, p.y) for p in found] == [(Rotation.EAST, 1, 1)]
    assert not triples(Rules.named("none"))


def test_tspin_mini_only_with_kicks() -> None:
    board = Board.from_rows(["_XXXXXXXXX"])

    def minis(rules: Rules) -> list[Placement]:
        placements = [m.placement for m in find_moves(board, Piece.T, rules)]
        return [p for p in placements if p.spin is Spin.MINI and (p.rotation, p.x, p.y) == (Rotation.EAST, 0, 1)]

    assert minis(Rules.named("srs"))
    assert not minis(Rules.named("none"))


def test_spawn_blocked_gives_nothing() -> None:
    bits = sum(1 << (20 * 10 + x) for x in range(3, 6))
    assert find_moves(bits, Piece.T, Rules.named("srs")) == []
    assert find_placements(bits, Piece.T, Rules.named("srs")) == []
