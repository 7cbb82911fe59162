"""The compiled placement search (ai.jit_movegen) finds exactly game.movegen.generate_raw's placements."""

from __future__ import annotations

import random
from collections import Counter

import pytest

pytest.importorskip("numba", reason="ai.jit_movegen needs numba")

from ai import jit_movegen
from game import movegen
from game.board import PIECE_MASKS, Board
from game.movegen import RawPlacement
from game.movement import Spin
from game.pieces import Piece, Rotation
from game.rotation import build_rotation_system
from game.rules import Rules, SpinRule
from tests.oracle_movegen import LATER_SPIN_ROWS

RULE_SETS = {
    "srs": Rules.named("srs"),
    "srs+180": Rules.named("srs+", allow_180=True),
    "none": Rules.named("none"),
    "nrs": Rules.named("nrs"),
    "srs-allspin": Rules.named("srs", spin_rule=SpinRule.ALL_SPIN),
    "srs-nospin": Rules.named("srs", spin_rule=SpinRule.NONE),
}
FIELDS_PER_RULE_SET = 60


def slotted_field(rng: random.Random) -> int:  # noqa: C901 - four kinds of field from one rng stream, read top to bottom; the draws per seed stay in this order
    """A field built to contain spin slots, no full rows. Four kinds: a random-walk skyline with holes, that
    skyline with bars floating 1-2 rows above it (caves entered by a shift, a tuck or a kick), a filled stack
    with a T-slot (one-cell foot, three-cell waist, roof cell on one side) carved under its top, or random rows
    thinning upwards."""
    kind = rng.randrange(4)
    bits = 0

    def put(x: int, y: int) -> None:
        nonlocal bits
        if 0 <= x < 10 and 0 <= y < 40:
            bits |= 1 << (y * 10 + x)

    def clear(x: int, y: int) -> None:
        nonlocal bits
        if 0 <= x < 10 and 0 <= y < 40:
            bits &= ~(1 << (y * 10 + x))

    if kind < 2:
        height = rng.randint(0, 8)
        skyline = []
        for x in range(10):
            height = max(0, min(12, height + rng.choice((-2, -1, 0, 0, 1, 2))))
            skyline.append(height)
            for y in range(height):
                if rng.random() > 0.12:
                    put(x, y)
        if kind == 1:
            for _ in range(rng.randint(1, 4)):
                x = rng.randrange(10)
                y = skyline[x] + rng.randint(2, 3)
                for dx in range(rng.randint(1, 3)):
                    put(x + dx, y)
    elif kind == 2:
        top = rng.randint(2, 9)
        centre = rng.randint(1, 8)
        for y in range(top + 1):
            for x in range(10):
                if rng.random() > 0.05:
                    put(x, y)
        foot = top - 1
        clear(centre, foot - 1)
        for dx in (-1, 0, 1):
            clear(centre + dx, foot)
        side = rng.choice((-1, 1))
        for x in range(10):  # the row above the waist is open except the roof cell
            if x != centre + side:
                clear(x, top)
        put(centre + side, top)
        for x in range(10) if rng.random() < 0.5 else ():
            if rng.random() < 0.3 and abs(x - centre) > 2:
                put(x, top + 1)
    else:
        rows = rng.randint(3, 11)
        for y in range(rows):
            density = 0.75 - 0.4 * y / rows
            for x in range(10):
                if rng.random() < density:
                    put(x, y)
    for y in range(40):
        if (bits >> (y * 10)) & 1023 == 1023:
            clear(rng.randrange(10), y)
    return bits


def cell_set(piece: Piece, found: list[tuple[int, int, int, int]]) -> set[tuple[int, int]]:
    return {(PIECE_MASKS[piece, Rotation(rot), x, y], spin) for rot, x, y, spin in found}


def python_result(bits: int, piece: Piece, rules: Rules, soft: bool) -> list[tuple[int, int, int, int]]:
    found = movegen.generate_raw(bits, piece, rules, soft_drop=soft)
    return [(r.rotation, r.x, r.y, int(r.spin)) for r in found]


@pytest.mark.parametrize("name", list(RULE_SETS))
def test_same_placements_as_python_on_random_fields(name: str) -> None:
    rules = RULE_SETS[name]
    rng = random.Random(1000 + list(RULE_SETS).index(name))
    spins: Counter = Counter()  # (is T, spin) -> placements found
    both = 0  # cell sets found both without and with a spin (a later arrival recorded as its own placement)
    for _ in range(FIELDS_PER_RULE_SET):
        bits = slotted_field(rng)
        for piece in Piece:
            for soft in (True, False):
                expected = python_result(bits, piece, rules, soft)
                got = jit_movegen.placements(bits, piece, rules, soft)
                where = (name, piece.name, soft, Board(bits))
                assert len(cell_set(piece, got)) == len(got), where  # one entry per (cells, spin)
                assert cell_set(piece, got) == cell_set(piece, expected), where
                # Not required by the contract, but the port keeps game.movegen's representative positions.
                assert set(got) == set(expected), where
                for _rot, _x, _y, spin in got:
                    spins[piece is Piece.T, spin] += 1
                masks = Counter(mask for mask, _spin in cell_set(piece, got))
                both += sum(count > 1 for count in masks.values())
    if rules.spin_rule is SpinRule.NONE:
        assert spins[True, 1] == spins[True, 2] == spins[False, 1] == 0
        return
    # The sample must exercise kicks and spins, or the equality above proves little.
    assert spins[True, int(Spin.FULL)] > 0 and spins[True, int(Spin.MINI)] > 0, (name, spins)
    if rules.rotation.name.lower().startswith("srs"):
        assert both > 0, name
    if rules.spin_rule is SpinRule.ALL_SPIN:
        assert spins[False, int(Spin.MINI)] > 0, (name, spins)
    else:
        assert spins[False, int(Spin.MINI)] == spins[False, int(Spin.FULL)] == 0


def test_generate_raw_wrapper_matches_python() -> None:
    rules = RULE_SETS["srs+180"]
    rng = random.Random(5)
    for _ in range(8):
        board = Board(slotted_field(rng))
        for piece in Piece:
            got = jit_movegen.generate_raw(board, piece, rules)
            expected = movegen.generate_raw(board, piece, rules)
            assert all(isinstance(r, RawPlacement) and r.keys == -1 and isinstance(r.spin, Spin) for r in got)
            # canon is game.movegen's canonical id of the cells.
            assert {(r.rotation, r.x, r.y, r.spin, r.canon) for r in got} == {
                (r.rotation, r.x, r.y, r.spin, r.canon) for r in expected
            }


@pytest.mark.parametrize("soft", [True, False])
def test_empty_field_counts(soft: bool) -> None:
    rules = Rules.named("srs")
    for piece in Piece:
        expected = movegen.generate_raw(0, piece, rules, soft_drop=soft)
        got = jit_movegen.placements(0, piece, rules, soft)
        assert len(got) == len(expected) > 0, piece
        assert cell_set(piece, got) == cell_set(piece, python_result(0, piece, rules, soft))


def test_spawn_blocked_or_outside_gives_nothing() -> None:
    blocked = sum(1 << (20 * 10 + x) for x in range(3, 6))
    assert jit_movegen.placements(blocked, Piece.T, Rules.named("srs")) == []
    assert jit_movegen.generate_raw(blocked, Piece.T, Rules.named("srs")) == []
    outside = Rules.named("srs", spawn_y=60)  # beyond the state encoding: game.movegen finds nothing either
    assert jit_movegen.placements(0, Piece.T, outside) == python_result(0, Piece.T, outside, True) == []


TSD_ROWS = ["XXXX______", "XXX___XXXX", "XXXX_XXXXX"]
TST_ROWS = ["_X________", "XX________", "X_________", "X_XXXXXXXX", "X__XXXXXXX", "X_XXXXXXXX"]
# T WEST at (9, 1) locks three ways: dropped (no spin), rotated in (3 corners, a front one missing: mini) and
# rotated in through the (+-1, +-2) kick, which upgrades that mini to a full spin.
FIN_ROWS = ["___XXX____", "______XXXX", "__________", "X_X_X_____", "__X_XX____", "X_XXXXXXX_"]


@pytest.mark.parametrize(
    ("rows", "wanted"),
    [
        (TSD_ROWS, (Rotation.SOUTH, 4, 1, Spin.FULL)),
        (TST_ROWS, (Rotation.EAST, 1, 1, Spin.FULL)),  # reachable only through the TST kick
        (FIN_ROWS, (Rotation.WEST, 9, 1, Spin.FULL)),
        (FIN_ROWS, (Rotation.WEST, 9, 1, Spin.MINI)),
        (FIN_ROWS, (Rotation.WEST, 9, 1, Spin.NONE)),
        (LATER_SPIN_ROWS, (Rotation.EAST, 5, 8, Spin.MINI)),
        (LATER_SPIN_ROWS, (Rotation.EAST, 5, 8, Spin.NONE)),
    ],
)
def test_spin_fixtures(rows: list[str], wanted: tuple) -> None:
    bits = Board.from_rows(rows).bits
    for rules in (Rules.named("srs"), Rules.named("srs+", allow_180=True)):
        for soft in (True, False):
            got = jit_movegen.placements(bits, Piece.T, rules, soft)
            assert set(got) == set(python_result(bits, Piece.T, rules, soft))
    got = jit_movegen.placements(bits, Piece.T, Rules.named("srs"))
    assert tuple(int(v) for v in wanted) in got


def test_kick_dependent_spins_vanish_without_kicks() -> None:
    """Under the no-kick system the TST slot cannot be entered and the fin upgrade never applies."""
    rules = Rules.named("none")
    cases = ((TST_ROWS, (Rotation.EAST, 1, 1, Spin.FULL)), (FIN_ROWS, (Rotation.WEST, 9, 1, Spin.FULL)))
    for rows, gone in cases:
        bits = Board.from_rows(rows).bits
        got = jit_movegen.placements(bits, Piece.T, rules)
        assert tuple(int(v) for v in gone) not in got
        assert set(got) == set(python_result(bits, Piece.T, rules, True))


def test_custom_kick_table_is_read_as_data() -> None:
    """SRS with every kick list reversed (a rule set nobody ships): the tables come from the rules object."""
    srs = Rules.named("srs").rotation
    kicks: dict[str, dict[str, list[list[int]]]] = {}
    for (piece, transition), tests in srs.table.items():
        kicks.setdefault(piece.name, {})[transition] = [list(test) for test in reversed(tests)]
    rules = Rules(rotation=build_rotation_system({"name": "reversed", "kicks": kicks}), allow_180=True)
    rng = random.Random(17)
    for _ in range(6):
        bits = slotted_field(rng)
        for piece in (Piece.T, Piece.I, Piece.S):
            expected = python_result(bits, piece, rules, True)
            assert set(jit_movegen.placements(bits, piece, rules)) == set(expected)


def test_far_kicks_and_odd_spawns_agree_with_the_reference_search() -> None:
    """Inputs that once broke game.movegen, checked against the reference search (tests/oracle_movegen.py): a
    legal kick file whose offsets make an effective kick of 12 rows (it raised "negative shift count"), and a spawn
    column outside the field (its flood fill read another rotation's column and found a placement)."""
    from tests.oracle_movegen import find_placements

    doc = {
        "name": "far",
        "kicks": {"T": {"R0": [[0, -4]]}},
        "offsets": {"T": {"0": [0, 4], "R": [0, -4], "2": [0, 0], "L": [0, 0]}},
    }
    far = Rules(rotation=build_rotation_system(doc))
    assert far.rotation.tests[Piece.T, Rotation.EAST, Rotation.NORTH] == ((0, -12),)
    cases = [(far, Piece.T, bits) for bits in (0, Board.from_rows(TSD_ROWS).bits)]
    cases.append((Rules.named("srs", spawn_x=33), Piece.L, 0))
    for rules, piece, bits in cases:
        expected = {(m.placement.mask, int(m.placement.spin)) for m in find_placements(bits, piece, rules)}
        assert cell_set(piece, jit_movegen.placements(bits, piece, rules)) == expected
        for soft in (True, False):
            raw = movegen.generate_raw(bits, piece, rules, soft_drop=soft)
            full = movegen.find_moves(bits, piece, rules, soft_drop=soft)
            assert cell_set(piece, [(p.rotation, p.x, p.y, int(p.spin)) for p in raw]) == {
                (m.placement.mask, int(m.placement.spin)) for m in full
            }
        assert {(m.placement.mask, int(m.placement.spin)) for m in movegen.find_moves(bits, piece, rules)} == expected


def test_threads_share_nothing_mutable() -> None:
    """The kernel releases the GIL (nogil) and allocates its own scratch arrays: concurrent calls agree with
    sequential ones."""
    from concurrent.futures import ThreadPoolExecutor

    rules = RULE_SETS["srs"]
    rng = random.Random(23)
    jobs = [(slotted_field(rng), piece) for _ in range(10) for piece in Piece]
    sequential = [jit_movegen.placements(bits, piece, rules) for bits, piece in jobs]
    with ThreadPoolExecutor(max_workers=4) as pool:
        concurrent = list(pool.map(lambda job: jit_movegen.placements(job[0], job[1], rules), jobs))
    assert concurrent == sequential


def test_warm_up_then_tables_are_cached() -> None:
    jit_movegen.warm_up()
    assert jit_movegen._tables(Piece.T, Rules.named("srs")) is jit_movegen._tables(Piece.T, Rules.named("srs"))


def test_tables_by_rules_object_keep_the_most_recently_used() -> None:
    """The identity cache in front of the per-rules tables drops the least recently used Rules object, not all."""
    kept = Rules.named("srs")
    first = jit_movegen._tables(Piece.T, kept)
    for _ in range(3 * jit_movegen._BY_RULES_KEPT):
        jit_movegen._tables(Piece.T, Rules.named("srs"))  # new objects, equal rules
        assert jit_movegen._tables(Piece.T, kept) is first
        assert id(kept) in jit_movegen._BY_RULES
    assert len(jit_movegen._BY_RULES) <= jit_movegen._BY_RULES_KEPT
    assert jit_movegen._build_tables.cache_info().currsize <= 8 * len(Piece)
