"""Fuzz harness: worker requests. Any field values are either accepted (and then within the documented ranges)
or refused with a RequestError; through the client, a bad request is one WorkerFailure and the next request is
answered as usual."""

from __future__ import annotations

import math
import os
import threading
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ai.protocol import PcRequest, Snapshot, Suggestion, SuggestRequest, WorkerFailure
from ai.service import MAX_BUDGET_MS, RequestError, check_request
from game.board import Board
from game.pieces import Piece
from game.rules import Rules
from ui.worker_client import WorkerClient, spawn_thread_worker

SCALE = int(os.environ.get("STACKCOACH_FUZZ_SCALE", "1"))  # e.g. 20 for a deeper run
FUZZ = settings(
    max_examples=150 * SCALE,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
SNAPSHOT = Snapshot(Board(), Piece.T, (Piece.I, Piece.O), None, False, -1, -1, Rules(), "7bag", ())
anything = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(), st.text(max_size=10))
budgets = st.one_of(
    st.floats(), st.integers(-5, 10**6), st.sampled_from([float("inf"), float("nan"), -1.0, 0, True]), anything
)
drops = st.one_of(st.sampled_from(["softdrop", "harddrop", "180", "SOFTDROP", "", "sonic"]), anything)
suggests = st.builds(
    SuggestRequest,
    st.one_of(st.integers(0, 10**9), anything),
    st.just(SNAPSHOT) | anything,
    engine=st.sampled_from(["beam", "mcts", "x"]) | anything,
    budget_ms=budgets,
    weights=st.sampled_from(["modern", ""]) | anything,
    drop=drops,
)
pcs = st.builds(
    PcRequest,
    st.one_of(st.integers(0, 10**9), anything),
    st.just(SNAPSHOT) | anything,
    lines=st.integers(-2, 9) | anything,
    drop=drops,
    budget_ms=budgets,
    want_chance=st.booleans() | anything,
)


@FUZZ
@given(st.one_of(suggests, pcs))
def test_requests_are_accepted_in_range_or_refused(request) -> None:
    try:
        check_request(request)
    except RequestError as error:
        assert str(error) and "\n" not in str(error)
        return
    assert type(request.generation) is int and isinstance(request.snapshot, Snapshot)
    assert isinstance(request.budget_ms, (int, float)) and not isinstance(request.budget_ms, bool)
    assert math.isfinite(request.budget_ms) and 0 < request.budget_ms <= MAX_BUDGET_MS
    assert request.drop in ("softdrop", "harddrop")
    if isinstance(request, PcRequest):
        assert type(request.lines) is int and 1 <= request.lines <= 6 and isinstance(request.want_chance, bool)
    else:
        assert request.engine in ("beam", "mcts") and isinstance(request.weights, str) and request.weights


def checked_echo(request, should_stop, send) -> None:
    """The service's own check, then an instant answer instead of a search."""
    check_request(request)
    send(Suggestion(request.generation, None, final=True, depth=1))


def _answers(client: WorkerClient, timeout: float = 3.0) -> list:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = client.poll()
        if got:
            return got
        time.sleep(0.002)
    return []


@settings(max_examples=25 * SCALE, deadline=None)
@given(st.lists(st.tuples(drops, budgets, st.sampled_from(["plain", "unpicklable"])), min_size=1, max_size=4))
def test_the_client_survives_any_sequence_of_requests(requests) -> None:
    with WorkerClient(lambda: spawn_thread_worker(checked_echo)) as client:
        for drop, budget, state in requests:
            snapshot = (
                SNAPSHOT
                if state == "plain"
                else Snapshot(Board(), Piece.T, (), None, False, -1, -1, Rules(), "7bag", threading.Lock())
            )
            generation = client.suggest(snapshot, drop=drop, budget_ms=budget)  # never raises
            answers = _answers(client)
            assert len(answers) == 1 and answers[0].generation == generation
            refused = isinstance(answers[0], WorkerFailure)
            good = (
                state == "plain"
                and drop in ("softdrop", "harddrop")
                and not isinstance(budget, bool)
                and isinstance(budget, (int, float))
                and math.isfinite(budget)
                and 0 < budget <= MAX_BUDGET_MS
            )
            assert refused != good, answers[0]
        generation = client.suggest(SNAPSHOT)  # still healthy
        answers = _answers(client)
        assert [a.generation for a in answers] == [generation] and isinstance(answers[0], Suggestion)
