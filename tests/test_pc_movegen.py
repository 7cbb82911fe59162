"""The bounded PC move generator must agree exactly with the reference search (tests/oracle_movegen.py)."""

from __future__ import annotations

import random

import pytest

from ai.pc.field import REGION, clear_full_rows, from_rows, has_overhang, to_rows, walls_ok
from ai.pc.movegen import MoveGenerator, unpack
from ai.pc.tiling import tileable
from game.pieces import Piece
from game.rules import Rules
from tests.oracle_movegen import find_placements


def _random_field(rng: random.Random, h: int) -> int:
    density = rng.random() * 0.75
    bits = 0
    for y in range(h):
        row = 0
        for x in range(10):
            if rng.random() < density * (1.3 - y / h):
                row |= 1 << x
        if row == 1023:
            row &= ~(1 << rng.randrange(10))
        bits |= row << (10 * y)
    return bits


@pytest.mark.parametrize("kicks", ["srs", "srs+"])
@pytest.mark.parametrize("allow_180", [False, True])
@pytest.mark.parametrize("soft_drop", [True, False])
def test_agrees_with_find_placements_on_random_fields(kicks: str, allow_180: bool, soft_drop: bool) -> None:
    rng = random.Random(hash((kicks, allow_180, soft_drop)) & 0xFFFF)
    rules = Rules.named(kicks, allow_180=allow_180)
    gen = MoveGenerator(rules, soft_drop)
    checked = 0
    for _ in range(14):
        h = rng.choice([2, 3, 4, 4, 6])
        bits = _random_field(rng, h)
        for piece in Piece:
            reference = [m.placement.mask for m in find_placements(bits, piece, rules, soft_drop=soft_drop)]
            expected = {mask for mask in reference if mask < REGION[h]}
            mine = gen.placements(bits, h, piece)
            assert set(mine) == expected, (kicks, allow_180, soft_drop, piece, to_rows(bits, h))
            if soft_drop:
                hard_drops = [m.placement.mask for m in find_placements(bits, piece, rules, soft_drop=False)]
                hard = {mask for mask in hard_drops if mask < REGION[h]}
                assert {m for m, (_, is_hard) in mine.items() if is_hard} == hard
            checked += len(expected)
    assert checked > 100


@pytest.mark.parametrize("kicks", ["none", "nrs"])
def test_agrees_with_find_placements_other_tables(kicks: str) -> None:
    rng = random.Random(len(kicks))
    rules = Rules.named(kicks, allow_180=True)
    gen = MoveGenerator(rules, True)
    for _ in range(8):
        h = rng.choice([2, 4, 6])
        bits = _random_field(rng, h)
        for piece in Piece:
            expected = {m.placement.mask for m in find_placements(bits, piece, rules) if m.placement.mask < REGION[h]}
            assert set(gen.placements(bits, h, piece)) == expected, (kicks, piece, to_rows(bits, h))


def test_canonical_position_has_the_cells() -> None:
    gen = MoveGenerator(Rules.named("srs"))
    bits = from_rows(["XX____XXXX", "XXX__XXXXX"])
    from game.board import PIECE_MASKS

    for piece in Piece:
        for mask, (sid, _) in gen.placements(bits, 2, piece).items():
            rot, x, y = unpack(sid)
            assert PIECE_MASKS[piece, rot, x, y] == mask


def test_tuck_needs_soft_drop() -> None:
    # an overhang at the right: the O slides under it only with soft drop
    bits = from_rows(["XXXXXX__XX", "XXXXXX____", "XXXXXX____"][::1])
    rules = Rules.named("srs")
    soft = MoveGenerator(rules, True).placements(bits, 3, Piece.O)
    hard = MoveGenerator(rules, False).placements(bits, 3, Piece.O)
    assert set(hard) < set(soft)
    assert any(not is_hard for _, is_hard in soft.values())


def test_field_helpers() -> None:
    bits = from_rows(["XXXXXXXXXX", "X_________"])
    after, cleared = clear_full_rows(bits, 2)
    assert cleared == 1 and after == 1
    assert has_overhang(from_rows(["X_________", "__________"]), 2)
    assert not has_overhang(from_rows(["__________", "X_________"]), 2)
    # column 2 filled to the top splits off 2x2 = 4 empty cells on the left: fine; 3 cells: dead
    assert walls_ok(from_rows(["__X_______", "__X_______"]), 2)
    assert not walls_ok(from_rows(["__X_______", "X_X_______"]), 2)


def test_tiling_respects_piece_counts() -> None:
    counts_i = (1, 0, 0, 0, 0, 0, 0)
    assert tileable(from_rows(["XXXXXX____"]), 1, counts_i)
    assert not tileable(from_rows(["XXXXXX____"]), 1, (0, 0, 0, 1, 0, 0, 0))
    # the O fits only across row 1 after the I clears it: a stretched placement
    field = from_rows(["XXXXXXXX__", "____XXXXXX", "XXXXXXXX__"])
    assert tileable(field, 3, (1, 0, 0, 1, 0, 0, 0))
    assert not tileable(field, 3, (1, 0, 0, 0, 0, 0, 1))


@pytest.mark.parametrize("rules", [Rules.named("srs"), Rules.named("none")], ids=["srs", "none"])
@pytest.mark.parametrize("soft_drop", [True, False])
def test_reaches_answers_as_the_placement_set(rules: Rules, soft_drop: bool) -> None:
    """`reaches` (a straight-drop shortcut, else the placements) says yes exactly for the cells `children` has,
    over every in-field cell set of every piece on random fields, and no for stretched ones (the piece's rows
    with an empty row between, as arrangements hold them before that row clears)."""
    from ai.pc.movegen import MASKS

    rng = random.Random(f"reaches{rules.cache_key()}{soft_drop}")
    gen = MoveGenerator(rules, soft_drop)
    yes = 0
    for _ in range(40):
        h = rng.choice([2, 3, 4, 4, 5])
        bits = _random_field(rng, h)
        for piece in Piece:
            expected = {child.mask for child in gen.children(bits, h, piece)}
            shapes = {m for m in MASKS[piece].values() if m & REGION[h] == m}
            stretched = {_stretch(m, rows) for m in shapes for rows in range(1, h) if _stretch(m, rows) & REGION[h]}
            for mask in shapes | {m for m in stretched if m & REGION[h] == m and m not in shapes}:
                answer = gen.reaches(bits, h, piece, mask)
                assert answer == (mask in expected), (to_rows(bits, h), piece, to_rows(mask, h))
                yes += answer
    assert yes > 500


def _stretch(mask: int, row: int) -> int:
    """The mask with the rows from `row` up moved one row higher (an empty row inserted at `row`)."""
    low = mask & REGION[row]
    return low | (mask ^ low) << 10


@pytest.mark.parametrize("rotation", ["srs", "srs+", "none", "nrs"])
@pytest.mark.parametrize("allow_180", [False, True])
def test_placements_reflect_exactly_where_the_rules_data_says_they_do(rotation: str, allow_180: bool) -> None:
    """Rules.mirror_symmetric (read off the kick tests) lets a table write a position's mirror image from its own
    answer: where it says so, every piece's placements on 400 random low fields, reflected, are the mirror piece's
    on the reflected field; where it does not, some field shows a difference (it is not merely cautious)."""
    from ai.pc.tiling import mirrored

    rules = Rules.named(rotation, allow_180=allow_180)
    gen = MoveGenerator(rules)
    rng = random.Random(f"{rotation}{allow_180}")
    differ = 0
    for _ in range(400):
        h = rng.choice([2, 3, 4, 4, 4])
        bits = _random_field(rng, h)
        for piece in Piece:
            reflected = frozenset(mirrored(mask, h) for mask in gen.mask_set(bits, h, piece))
            differ += reflected != gen.mask_set(mirrored(bits, h), h, piece.mirrored)
    assert rules.mirror_symmetric == (differ == 0), differ
    assert rules.mirror_symmetric == ((rotation, allow_180) in {("none", False), ("none", True), ("srs+", False)})
