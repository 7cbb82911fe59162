"""PC solutions played on the timed engine with real button presses (the strongest replay we have)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from ai.pc import solve
from ai.pc.search import Problem
from ai.pc.verify import ReplayError, replay_on_engine
from game.fumen import decode
from game.pieces import parse_queue
from game.rules import Rules

SHARED = Path(__file__).resolve().parents[2] / "shared" / "pc" / "cases.tsv"


def cases() -> list[dict[str, str]]:
    with open(SHARED, newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


@pytest.mark.skipif(not SHARED.exists(), reason="../shared/pc/cases.tsv is not present")
def test_shared_case_solutions_play_out_on_the_engine() -> None:
    rules = Rules.named("srs")
    played = 0
    for case in cases()[::6]:
        if case["pc"] != "yes":
            continue
        field = decode(case["field_fumen"])[0].field.to_board().bits
        queue = tuple(parse_queue(case["queue"]))
        result = solve(field, queue, rules=rules, lines=int(case["clear_lines"]))
        assert result.solvable, case["case_id"]
        replay_on_engine(Problem(field, 4, queue), result.solutions[0], rules)
        played += 1
    assert played >= 15


def test_a_wrong_solution_is_refused_by_the_engine() -> None:
    rules = Rules.named("srs")
    queue = tuple(parse_queue("IIOOO"))
    field = 0
    result = solve(field, queue[:5], rules=rules, lines=2)
    assert result.solvable
    solution = result.solutions[0]
    # Swap two steps' positions: the pieces no longer lock where the solution claims.
    steps = list(solution.steps)
    steps[0], steps[1] = steps[1], steps[0]
    broken = type(solution)(tuple(steps), solution.leftover)
    with pytest.raises(ReplayError):
        replay_on_engine(Problem(field, 2, queue), broken, rules)
