"""The worker's garbage-collector policy (ai.worker.freeze_survivors): between requests what the engines keep is
moved out of the collector's reach, so no full collection walks the caches inside a later search. That is safe
only if nothing frozen becomes cyclic garbage later (it would never be reclaimed), which is checked here on the
engines' real requests and idle work."""

from __future__ import annotations

import gc
import random
import time

import pytest

from ai.protocol import PcAnswer, PcRequest, Snapshot, SuggestRequest
from ai.worker import freeze_survivors
from game.board import Board
from game.pieces import ALL_PIECES, Piece
from game.rules import Rules
from ui.worker_client import WorkerClient, spawn_thread_worker


@pytest.fixture
def unfrozen():
    """Each test starts and ends with nothing frozen (the rest of the test run keeps the usual collector)."""
    gc.unfreeze()
    yield
    gc.unfreeze()


def snapshot(current: Piece, queue: tuple[Piece, ...], state: tuple = ()) -> Snapshot:
    return Snapshot(Board(), current, queue, None, False, -1, -1, Rules(), "7bag", state)


class _Cache:
    """Stands for an engine's cache: a long-lived object the handler keeps between requests."""


def test_what_a_request_leaves_behind_is_frozen_before_the_next_one(unfrozen) -> None:
    kept: list[_Cache] = []
    frozen_at_next_request: list[int] = []

    def handler(request, should_stop, send) -> None:
        frozen_at_next_request.append(gc.get_freeze_count())
        kept.append(_Cache())
        send(PcAnswer(request.generation, solvable=True, chance=0.5))

    with WorkerClient(lambda: spawn_thread_worker(handler)) as client:
        for piece in (Piece.T, Piece.I):
            client.solve_pc(snapshot(piece, (Piece.I, Piece.O)))
            # generous: with nothing frozen the worker's collection walks the whole test process's heap, which
            # holds whatever PC tables earlier tests in this process loaded (seconds on a loaded CI machine)
            deadline = time.monotonic() + 30.0
            answers: list = []
            while not answers and time.monotonic() < deadline:
                answers.extend(client.poll())
                time.sleep(0.005)
            assert answers, "no answer"
        time.sleep(0.2)
    assert len(frozen_at_next_request) == 2 and frozen_at_next_request[1] > frozen_at_next_request[0]
    assert gc.is_tracked(kept[0]) and all(obj is not kept[0] for obj in gc.get_objects())  # frozen, not collected


def test_freezing_between_the_engines_requests_and_idle_work_leaks_nothing(unfrozen) -> None:
    """A frozen object that later becomes part of a garbage cycle is never reclaimed. The searches make cycles (a
    trie search and its compiled kernel, pc_chance's closures), collected before each freeze while they are garbage;
    what the engines keep between requests must not become a cycle later."""
    from ai.service import handle, think_ahead, warm_up

    warm_up()
    rng = random.Random(3)
    freeze_survivors()
    asked = 0
    for generation in range(4):
        bag = list(ALL_PIECES)
        rng.shuffle(bag)
        position = snapshot(bag[0], tuple(bag[1:6]), tuple(bag[6:]) if generation % 2 else ())
        sent: list = []
        handle(PcRequest(generation, position), lambda: False, sent.append)
        deadline = time.monotonic() + 0.5
        for _ in range(5):  # the PC questions the player may ask next, as the worker thinks ahead
            if not think_ahead(lambda deadline=deadline: time.monotonic() > deadline):
                break
            freeze_survivors()
        handle(SuggestRequest(generation, position, budget_ms=30), lambda: False, sent.append)
        asked += bool(sent)
        freeze_survivors()
    assert asked == 4
    gc.collect()
    gc.unfreeze()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        leaked = sorted({type(obj).__name__ for obj in gc.garbage})
        assert gc.garbage == [], f"frozen, then cyclic garbage: {leaked}"
    finally:
        gc.garbage.clear()
        gc.set_debug(0)
