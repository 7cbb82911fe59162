"""The compiled first-solution search (ai.pc.jit_search) finds exactly the solution the Python search finds (same
placements, order and hold use, or none), on empty fields, the shared set-ups, mid-PC fields and random 2- to
6-line fields; with hold used or avoided, a piece already held or not; soft or hard drop; SRS, SRS+ with 180 and
no kicks. A deadline pauses it and the answer says it is truncated."""

from __future__ import annotations

import random

import pytest

from ai.pc import search
from ai.pc.api import solve
from ai.pc.search import Problem, Searcher
from game.pieces import Piece
from game.rules import Rules

pytest.importorskip("numba")

from ai.pc.jit_search import SLICE_NODES  # after the numba skip
from tests.test_pc_exactness import MID_PC, SETUPS, random_field

RULES = [Rules.named("srs"), Rules.named("srs+", allow_180=True), Rules.named("none")]


def _problems(rng: random.Random, count: int) -> list[tuple[int, int, list[Piece], Piece | None, bool]]:
    """(field, lines, queue, hold, use_hold): a mix of the field kinds, queues a few pieces longer than needed."""
    out = []
    for i in range(count):
        kind = i % 4
        if kind == 0:
            bits, lines, need = 0, rng.choice([2, 3]), None  # 4-line empty fields: the bench (Python too slow)
        elif kind == 1 and SETUPS:
            bits, lines = rng.choice(SETUPS)
            need = None
        elif kind == 2 and MID_PC:
            bits, lines, pieces = rng.choice(MID_PC)
            need = len(pieces)
        else:
            bits, lines, pieces = random_field(rng)
            need = len(pieces)
        if need is None:
            need = (10 * lines - bits.bit_count()) // 4
            queue = [rng.choice(list(Piece)) for _ in range(need + rng.randint(0, 2))]
        else:  # the pieces that fit, in their order or shuffled, and maybe one more
            queue = list(pieces)
            if rng.random() < 0.5:
                rng.shuffle(queue)
            queue += [rng.choice(list(Piece)) for _ in range(rng.randint(0, 1))]
        use_hold = rng.random() < 0.7
        hold = rng.choice(list(Piece)) if use_hold and rng.random() < 0.3 else None
        out.append((bits, lines, queue, hold, use_hold))
    return out


def _first(bits: int, lines: int, queue: list[Piece], hold, use_hold: bool, rules: Rules, soft: bool) -> str | None:
    result = solve(bits, queue, hold=hold, use_hold=use_hold, rules=rules, soft_drop=soft, lines=lines)
    if not result.solutions:
        return None
    solution = result.solutions[0]
    return solution.ops() + "|" + "".join("h" if step.hold else "-" for step in solution.steps)


@pytest.mark.parametrize("rules", RULES, ids=["srs", "srs+180", "none"])
@pytest.mark.parametrize("soft", [True, False], ids=["soft", "hard"])
def test_compiled_search_finds_the_python_search_solution(
    rules: Rules, soft: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(f"{rules.cache_key()}{soft}")
    found = lost = 0
    for bits, lines, queue, hold, use_hold in _problems(rng, 50):
        monkeypatch.setattr(search, "USE_KERNEL", True)
        compiled = _first(bits, lines, queue, hold, use_hold, rules, soft)  # solve() replays it: it is real
        monkeypatch.setattr(search, "USE_KERNEL", False)
        python = _first(bits, lines, queue, hold, use_hold, rules, soft)
        assert compiled == python, (bits, lines, queue, hold, use_hold)
        found += compiled is not None
        lost += compiled is None
    assert found >= 5 and lost >= 5, (found, lost)  # both answers were part of the comparison


def test_a_deadline_pauses_the_compiled_search() -> None:
    """A search of many slices (IZOOOISIZJT on the empty field, which has no PC: about 7,000 states) stops after
    its first slice when the budget is spent, and says so; without a budget it runs to the end."""
    searcher = Searcher(Rules.named("srs"))
    assert searcher.kernel() is not None
    queue = tuple(Piece[name] for name in "IZOOOISIZJT")
    solutions, stats = searcher.solve(Problem(0, 4, queue), budget_ms=0.0)
    assert stats.truncated and not solutions and stats.nodes == SLICE_NODES
    solutions, stats = searcher.solve(Problem(0, 4, queue))
    assert not stats.truncated and not solutions and stats.nodes > SLICE_NODES
