"""The worker's chance (ai.pc_service.exact_chance) is one search that looks for a newer question as it goes: it
gives the exact answer pc_chance gives, it asks `should_stop` all along (which also answers the worker's
pings), and a newer question ends it at once with no answer rather than a wrong one."""

from __future__ import annotations

import pytest

from ai.pc.chance import pc_chance
from ai.pc.loop import loop_positions
from ai.pc_service import exact_chance
from game.randomizer import make_randomizer
from game.rules import Rules
from tests.test_pc_exactness import forget_all_the_solver_learned

pytest.importorskip("numba")

RULES = Rules.named("srs")
# seed 2's 3rd PC is searched: plain SRS's boundary table, which would answer its second position, is hidden
pytestmark = pytest.mark.usefixtures("no_plain_srs_boundary_table")


def _positions(seed: int, wanted: set[tuple[int, int]]) -> list:
    return [pos for pos in loop_positions(seed, pcs=3, rules=RULES) if (pos.pc, pos.placed) in wanted]


class _Asked:
    """A should_stop that counts the calls and says stop from the `stop_at`-th on (never: 0)."""

    def __init__(self, stop_at: int = 0) -> None:
        self.calls = 0
        self.stop_at = stop_at

    def __call__(self) -> bool:
        self.calls += 1
        return bool(self.stop_at) and self.calls >= self.stop_at


def test_the_worker_chance_is_the_exact_one_and_asks_for_newer_questions_all_along() -> None:
    # seed 2's 3rd PC after one placement: about half a second of search, hundreds of steps, unless SRS with 180's
    # table bounds it (ai.pc.opening.wider_rules; the test below does without the bound) (the 1st PC's first
    # position is the opening table's, answered without a search: its third is searched). Both are asked from what
    # a fresh worker knows: where two placements win every future, the one named is the first one proved, which
    # depends on what earlier searches left (here I alone or Z through hold, both 100%).
    for pos in _positions(2, {(3, 0), (3, 1), (1, 2)}):
        forget_all_the_solver_learned()
        exact = pc_chance(
            pos.field, pos.current, list(pos.queue), pos.hold, pos.bag_state, make_randomizer("7bag", 0), RULES
        )
        forget_all_the_solver_learned()
        asked = _Asked()
        live = exact_chance(pos.snapshot(RULES), pos.lines, soft_drop=True, should_stop=asked)
        assert live is not None and not live.approximate
        assert (live.chance, live.best_placement) == (exact.chance, exact.best_placement)
        assert asked.calls > 0


def test_a_newer_question_ends_the_chance_with_no_answer(no_wider_bound) -> None:
    """At a position searched for hundreds of steps, a newer question at the 1st, 5th or 40th look ends it
    (unbounded by SRS with 180's table, which ends this search within a few steps)."""
    (pos,) = _positions(2, {(3, 1)})
    for stop_at in (1, 5, 40):
        asked = _Asked(stop_at)
        assert exact_chance(pos.snapshot(RULES), pos.lines, soft_drop=True, should_stop=asked) is None
        assert asked.calls == stop_at  # it stopped at the first True, without searching on


def test_every_single_search_of_the_chance_hears_the_stop_question(monkeypatch) -> None:
    """The single-queue searches the live chance starts (those that seed it with a PC for each of the likeliest
    futures, up to 200 ms each, included) are given the caller's stop question, or one that asks it (a look for a
    future lost whatever the placement also stops after one slice), so a newer question never waits for one to
    finish; the answer is still the exact one."""
    import ai.pc.chance as chance
    from ai.pc.cover import ArrangementStore
    from ai.pc.search import searcher_for

    (pos,) = _positions(2, {(3, 1)})
    real = searcher_for(RULES)
    heard: list = []

    class Spy:
        gen = real.gen

        def solve(self, problem, **options):
            heard.append(options.get("should_stop"))
            return real.solve(problem, **options)

    args = (pos.field, pos.current, list(pos.queue), pos.hold, pos.bag_state, make_randomizer("7bag", 0), RULES)
    exact = pc_chance(*args)
    # nothing known of the field yet, so the seeding searches run
    monkeypatch.setattr(chance, "store_for", lambda rules, soft_drop=True: ArrangementStore(real.gen))
    monkeypatch.setattr(chance, "searcher_for", lambda rules, soft_drop=True: Spy())
    asked = _Asked()
    live = pc_chance(*args, should_stop=asked)
    assert (live.chance, live.approximate) == (exact.chance, False)
    assert len(heard) >= 3 and asked in heard

    def asks_the_caller(stop) -> bool:
        before = asked.calls
        return stop() and asked.calls == before + 1

    assert all(stop is asked or asks_the_caller(stop) for stop in heard)
