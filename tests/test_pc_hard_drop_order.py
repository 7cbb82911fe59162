"""The hard-drop tiling test (ai.pc.tiling.hard_drop_tileable_counts8, applied by the searches in hard-drop mode):
the compiled search answers as the Python one, with or without a small budget; reflecting a question changes no
answer; a field whose rows would have to clear in a cycle is refuted; it never refutes a state that a hard-drop
PC goes through (every state of every solution the search finds with the order-free test instead); and with it
the search finds a PC exactly when it does with the order-free test, and the same first one."""

from __future__ import annotations

import random

import pytest

from ai.pc import search, tiling
from ai.pc.field import clear_full_rows
from ai.pc.movegen import for_rules
from ai.pc.search import Problem, Searcher
from game.pieces import Piece
from game.rules import Rules
from tests.test_pc_exactness import MID_PC, random_field

SRS = Rules.named("srs")


def _counts8(pieces) -> int:
    return sum(1 << (8 * piece) for piece in pieces)


def _hard_drop_fields(seed: int, count: int) -> list[tuple[int, int, int]]:
    """(field, h, counts8) met by a hard-drop search: straight drops on 2- to 6-line fields (holes under
    overhangs, rows cleared on the way) leaving a whole number of pieces to place, with random piece counts (some
    too few, some plenty)."""
    rng = random.Random(seed)
    gen = for_rules(SRS, soft_drop=False)
    out = []
    while len(out) < count:
        h = rng.choice([2, 4, 6])
        bits = 0
        for _ in range(rng.randint(1, 2 * h)):
            children = gen.children(bits, h, rng.choice(list(Piece)))
            if not children:
                break
            child = rng.choice(children)
            bits, h = child.field, child.h
            if h == 0:
                break
        if h == 0 or (10 * h - bits.bit_count()) % 4:
            continue
        counts = [rng.randint(0, 3) for _ in Piece]
        out.append((bits, h, _counts8(piece for piece in Piece for _ in range(counts[piece]))))
    return out


def _answers(fields: list[tuple[int, int, int]], budget: int, monkeypatch: pytest.MonkeyPatch) -> list[list[bool]]:
    """The Python test's answers, then the compiled one's."""
    pytest.importorskip("numba")
    answers = []
    for use in (False, True):
        monkeypatch.setattr(tiling, "USE_KERNEL", use)
        answers.append([tiling.hard_drop_tileable_counts8(bits, h, counts, budget) for bits, h, counts in fields])
    return answers


def test_compiled_hard_drop_test_answers_as_the_python_one(monkeypatch: pytest.MonkeyPatch) -> None:
    fields = _hard_drop_fields(11, 800)
    python, compiled = _answers(fields, 3000, monkeypatch)
    assert compiled == python
    plain = [tiling.tileable_counts8(bits, h, counts) for bits, h, counts in fields]
    refuted = sum(p and not o for p, o in zip(plain, python))
    assert refuted > 15 and sum(python) > 50, (refuted, sum(python))  # both answers are well represented


def test_compiled_hard_drop_test_gives_up_as_the_python_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a budget of 7 steps both say True (unknown) on the same fields, where the full search says False."""
    fields = _hard_drop_fields(12, 600)
    python, compiled = _answers(fields, 7, monkeypatch)
    assert compiled == python
    full, _ = _answers(fields, 3000, monkeypatch)
    assert sum(a and not b for a, b in zip(python, full)) > 20


def test_reflecting_the_question_changes_no_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test starts on the more crowded side by reflecting the field (J and L, S and Z swapped); never or
    always reflected, it answers the same (on fields of up to 6 pieces to place the budget is out of reach)."""
    fields = [(bits, h, counts) for bits, h, counts in _hard_drop_fields(13, 1200) if 10 * h - bits.bit_count() <= 24]
    monkeypatch.setattr(tiling, "USE_KERNEL", False)
    answers = []
    for reflect in (None, False, True):
        if reflect is not None:
            monkeypatch.setattr(tiling, "_fewer_empty_on_the_right", lambda bits, h, reflect=reflect: reflect)
        answers.append([tiling.hard_drop_tileable_counts8(bits, h, counts, 100_000) for bits, h, counts in fields])
    assert answers[0] == answers[1] == answers[2]
    assert 30 < sum(answers[0]) < len(fields) - 30


def test_a_field_that_needs_its_top_row_cleared_first_and_last_is_refuted() -> None:
    """Row 2's hole at x=8 lies under a block of row 3, so row 3 must clear before it is filled; row 3's cells
    at x=0..2 lie over full cells of row 2, so the piece filling them spans rows 3 and 1 and needs row 2 cleared
    first. The order-free test finds a tiling; no order of clears allows it."""
    rows = ["___XX__XX_", "XXXXXXXX__", "XXXXX__XXX", "_XXX_____X"]
    bits = sum(1 << (y * 10 + x) for y, row in enumerate(reversed(rows)) for x, c in enumerate(row) if c == "X")
    counts = _counts8(list(Piece) * 3)
    assert tiling.tileable_counts8(bits, 4, counts)
    assert not tiling.hard_drop_tileable_counts8(bits, 4, counts)


def _states_of(problem: Problem, solution) -> list[tuple[int, int, int]]:
    """(field, h, counts8 of exactly the pieces placed from there on) before each placement of the solution."""
    bits, h = problem.field, problem.lines
    pieces = [step.piece for step in solution.steps]
    out = []
    for k, step in enumerate(solution.steps):
        out.append((bits, h, _counts8(pieces[k:])))
        bits, cleared = clear_full_rows(bits | step.mask, h)
        h -= cleared
    return out


def _problems(rng: random.Random, count: int) -> list[Problem]:
    """Mid-PC fields (with their pieces, shuffled or not) and random 2- to 6-line fields, hold or not."""
    out = []
    while len(out) < count:
        bits, lines, pieces = rng.choice(MID_PC) if MID_PC and rng.random() < 0.5 else random_field(rng)
        queue = list(pieces)
        if rng.random() < 0.5:
            rng.shuffle(queue)
        queue += [rng.choice(list(Piece)) for _ in range(rng.randint(0, 1))]
        out.append(Problem(bits, lines, tuple(queue), None, rng.random() < 0.7))
    return out


@pytest.mark.parametrize("rules", [SRS, Rules.named("srs+", allow_180=True)], ids=["srs", "srs+180"])
def test_the_hard_drop_test_never_prunes_a_state_with_a_pc(rules: Rules, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(f"hard-drop order {rules.cache_key()}")
    monkeypatch.setattr(search, "USE_KERNEL", False)
    checked = found = lost = 0
    for problem in _problems(rng, 150):
        monkeypatch.setattr(search, "hard_drop_tileable_counts8", tiling.tileable_counts8)  # the order-free test
        every, _ = Searcher(rules, soft_drop=False).solve(problem, find_all=True, limit=200)
        without = Searcher(rules, soft_drop=False).solve(problem)[0]
        monkeypatch.undo()
        monkeypatch.setattr(search, "USE_KERNEL", False)
        with_test = Searcher(rules, soft_drop=False).solve(problem)[0]
        for solution in every:
            for bits, h, counts in _states_of(problem, solution):
                assert tiling.hard_drop_tileable_counts8(bits, h, counts), (bits, h, counts)
                checked += 1
        assert [s.ops() for s in with_test] == [s.ops() for s in without], problem
        found += bool(every)
        lost += not every
    assert found >= 10 and lost >= 5 and checked > 500, (found, lost, checked)
