"""Perfect-clear search: the shared solution-finder cases, hold, soft drop, kicks, percent and chance."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from ai.pc.api import percent, solve
from ai.pc.chance import bag_position_of_current, pc_chance, pc_number
from ai.pc.field import from_rows
from ai.pc.render import unique_key
from ai.pc.search import PCInputError, Problem
from ai.pc.verify import ReplayError, replay
from game.pieces import Piece, parse_queue
from game.randomizer import make_randomizer
from game.rules import Rules

SHARED = Path(__file__).resolve().parents[2] / "shared"
CASES = SHARED / "pc" / "cases.tsv"
SRS = Rules.named("srs")


def _cases() -> list[dict[str, str]]:
    if not CASES.exists():
        return []
    with CASES.open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def _field(case: dict[str, str]) -> int:
    from game.fumen import decode

    return decode(case["field_fumen"])[0].field.to_board().bits


needs_shared = pytest.mark.skipif(not CASES.exists(), reason="../shared/pc/cases.tsv is absent (bare checkout)")


@needs_shared
def test_every_shared_case_agrees_with_solution_finder() -> None:
    """All 152 cases (about 10-20 s): same solvability; every solution found replays to an empty board
    (solve() replays each one through find_moves + lock_piece before returning it)."""
    cases = _cases()
    assert len(cases) == 152
    for case in cases:
        queue = parse_queue(case["queue"])
        result = solve(_field(case), queue, use_hold=case["hold"] == "yes", rules=SRS, lines=int(case["clear_lines"]))
        assert result.solvable == (case["pc"] == "yes"), case["case_id"]


@needs_shared
def test_setup_solution_counts_match_path_unique() -> None:
    """With --all we list orders too; grouping by final arrangement gives solution-finder's path --unique count."""
    for case in _cases():
        if case["n_solutions_path_unique"] == "NA":
            continue
        field = _field(case)
        queue = tuple(parse_queue(case["queue"]))
        result = solve(field, queue, rules=SRS, find_all=True, verify=False)
        problem = Problem(field, 4, queue)
        assert len({unique_key(problem, s) for s in result.solutions}) == int(case["n_solutions_path_unique"]), case[
            "case_id"
        ]


@needs_shared
def test_shared_solution_replays() -> None:
    """solution-finder's own solutions are PCs under our rules too (a check of our replay and conventions)."""
    from ai.pc.search import Solution, Step
    from game.pieces import Rotation
    from game.placement import Placement

    for case in _cases()[::7]:
        if case["pc"] != "yes":
            continue
        problem = Problem(_field(case), 4, tuple(parse_queue(case["queue"])))
        placements = []
        for op in case["solution_ops"].split(";"):
            letter, rot, x, y = op.split(",")
            placements.append(Placement(piece=Piece[letter], rotation=Rotation.parse(rot), x=int(x), y=int(y)))
        from ai.pc.search import real_hold_flags

        flags, leftover = real_hold_flags(problem, [p.piece for p in placements])
        steps = [Step(placement=p, hold=f, hard=True, lines=0) for p, f in zip(placements, flags)]
        replay(problem, Solution(steps=tuple(steps), leftover=leftover), SRS)


def test_two_line_pc_with_and_without_hold() -> None:
    box = from_rows(["XXXXXX____", "XXXXXX____"])
    assert solve(box, parse_queue("OO"), lines=2).solvable
    # T first: without hold it must go into the 2x4 box, leaving no O-shaped hole
    assert not solve(box, parse_queue("TOO"), lines=2, use_hold=False).solvable
    with_hold = solve(box, parse_queue("TOO"), lines=2)
    assert with_hold.solvable
    assert [s.piece for s in with_hold.solutions[0].steps] == [Piece.O, Piece.O]
    assert with_hold.solutions[0].steps[0].hold and with_hold.solutions[0].leftover == Piece.T


def test_four_line_pc_from_empty_field() -> None:
    result = solve(0, parse_queue("IJLOSTZ" + "IJL"), lines=4)
    assert result.solvable
    steps = result.solutions[0].steps
    assert len(steps) == 10 and sum(s.lines for s in steps) == 4


def test_tuck_found_with_soft_drop_only() -> None:
    # the second Z must slide under the block at (7, 1)
    field = from_rows(["XXX____XXX", "XXXX____XX"])
    soft = solve(field, parse_queue("ZZ"), lines=2, use_hold=False)
    assert soft.solvable and soft.solutions[0].soft_count == 1
    assert not solve(field, parse_queue("ZZ"), lines=2, use_hold=False, soft_drop=False).solvable


def test_t_spin_double_needs_soft_drop() -> None:
    # a T-spin double slot under an overhang (3 lines: the top row is finished by the last pieces)
    field = from_rows(["XXXX____XX", "XXX___XXXX", "XXXX_XXXXX"])
    queue = parse_queue("TI")
    found = solve(field, queue, lines=3, use_hold=False)
    assert found.solvable
    t_step = found.solutions[0].steps[0]
    assert t_step.piece is Piece.T and not t_step.hard
    assert not solve(field, queue, lines=3, use_hold=False, soft_drop=False).solvable


def test_kick_tables_differ() -> None:
    """The I can be kicked under the overhang with SRS's I kicks but not with SRS+'s (found by a random search
    over small fields; the reference move search agrees)."""
    from game.board import PIECE_MASKS
    from game.movegen import find_moves
    from game.pieces import Rotation

    field = from_rows(["XXXX__XXXX", "______XXXX"])
    queue = parse_queue("IO")
    assert solve(field, queue, rules=SRS, lines=2, use_hold=False).solvable
    assert not solve(field, queue, rules=Rules.named("srs+"), lines=2, use_hold=False).solvable
    tucked = PIECE_MASKS[Piece.I, Rotation.NORTH, 1, 0]
    assert any(m.placement.mask == tucked for m in find_moves(field, Piece.I, SRS))
    assert not any(m.placement.mask == tucked for m in find_moves(field, Piece.I, Rules.named("srs+")))


def test_180_kicks_matter() -> None:
    field = from_rows(["XXXXX__XXX", "______XXXX"])
    queue = parse_queue("IS")
    srs_180 = Rules.named("srs", allow_180=True)
    plus_180 = Rules.named("srs+", allow_180=True)
    assert (
        solve(field, queue, rules=srs_180, lines=2, use_hold=False).solvable
        != solve(field, queue, rules=plus_180, lines=2, use_hold=False).solvable
    )


def test_all_solutions_are_ranked_and_distinct() -> None:
    field = from_rows(["XXXXX_____", "XXXXXX____", "XXXXXXX___", "XXXXXX____"])
    result = solve(field, parse_queue("IOISJ"), find_all=True)
    keys = [s.rank_key() for s in result.solutions]
    assert keys == sorted(keys) and len(set(keys)) == len(keys) > 1


def test_bad_problems_raise() -> None:
    with pytest.raises(PCInputError):
        solve(from_rows(["X_________"] * 5), parse_queue("IIII"), lines=4)
    with pytest.raises(PCInputError):
        solve(from_rows(["XXXXXXXXXX"]), parse_queue("I"), lines=1)


def test_replay_rejects_a_wrong_solution() -> None:
    box = from_rows(["XXXXXX____", "XXXXXX____"])
    problem = Problem(box, 2, (Piece.O, Piece.O), None, True)
    solution = solve(box, problem.queue, lines=2).solutions[0]
    with pytest.raises(ReplayError):
        replay(Problem(box, 2, (Piece.T, Piece.O), None, False), solution, SRS)


@pytest.mark.parametrize("pattern", ["I,*p4", "[SZO]p2,*p3", "[^TI]p2,T,*p2"])
def test_percent_matches_brute_force(pattern: str) -> None:
    field = from_rows(["XXXXX_____", "XXXXXX____", "XXXXXXX___", "XXXXXX____"])
    result = percent(field, pattern)
    from ai.pc.pattern import parse_pattern

    sequences = parse_pattern(pattern).sequences()
    brute = [seq for seq in sequences if not solve(field, seq, verify=False).solvable]
    assert result.total == len(sequences)
    assert result.success == len(sequences) - len(brute)
    assert result.failed == brute


def test_percent_without_hold_and_two_lines() -> None:
    box = from_rows(["XXXXXX____", "XXXXXX____"])
    result = percent(box, "[OIT]p2", lines=2, use_hold=False)
    # only O,O could fill it; no queue of two different pieces can
    assert result.success == 0 and result.total == 6
    assert percent(box, "[OIT]p3", lines=2).success == 0  # one O at most
    assert percent(box, "O,O", lines=2).rate == 1.0


def test_pc_number_of_the_bag_loop() -> None:
    assert [pc_number(p) for p in (0, 3, 6, 2, 5, 1, 4)] == [1, 2, 3, 4, 5, 6, 7]
    rng = make_randomizer("7bag", 3)
    for _ in range(6):  # piece in play + 5 previews: all from the first bag
        rng.draw()
    assert bag_position_of_current(rng.state, 5) == 0


def test_chance_with_whole_bag_known_is_certain() -> None:
    rng = make_randomizer("7bag", 11)
    drawn = [rng.draw() for _ in range(11)]
    result = pc_chance(0, drawn[0], drawn[1:], None, rng.state, rng, SRS, 4)
    assert result.chance == pytest.approx(1.0)
    assert result.best_placement is not None and result.futures == 1


def test_chance_on_a_setup_counts_bag_futures() -> None:
    # 2-line box: needs O, O. Piece in play O, hold empty: one more O must come within the next two pieces.
    box = from_rows(["XXXXXX____", "XXXXXX____"])
    rng = make_randomizer("7bag", 5)
    fresh = pc_chance(box, Piece.O, [], None, (), rng, SRS, 2)
    assert fresh.chance == pytest.approx(2 / 7) and fresh.futures == 42
    assert fresh.best_placement is not None and fresh.best_placement.piece is Piece.O
    no_o_left = tuple(p for p in Piece if p is not Piece.O)
    assert pc_chance(box, Piece.O, [], None, no_o_left, rng, SRS, 2).chance == 0.0
    assert pc_chance(box, Piece.O, [], Piece.O, (), rng, SRS, 2).chance == pytest.approx(1.0)


def test_chance_under_a_budget_says_it_is_approximate() -> None:
    rng = make_randomizer("7bag", 9)
    first = rng.draw()
    result = pc_chance(0, first, [], None, rng.state, rng, SRS, 4, budget_ms=50)
    assert result.approximate
    assert 0.0 <= result.chance <= 1.0


def test_caches_are_keyed_by_the_rules() -> None:
    from ai.pc.search import searcher_for

    a = searcher_for(Rules.named("srs"))
    assert searcher_for(Rules.named("srs")) is a
    assert searcher_for(Rules.named("srs+")) is not a
    assert searcher_for(Rules.named("srs", allow_180=True)) is not a
    assert searcher_for(Rules.named("srs"), soft_drop=False) is not a
