"""Two threads using the PC solver at once (the worker's warm-up thread runs searches beside the thread that
answers requests) get exactly the answers one thread gets: the compiled kernels share scratch arrays and tables
per process and release the GIL, so each Python entry to them holds ai.pc.jit_table.KERNEL_LOCK."""

from __future__ import annotations

import random
import threading

import pytest

from ai.pc.api import percent, solve
from ai.pc.search import searcher_for
from game.pieces import Piece
from game.rules import Rules

pytest.importorskip("numba")


def _queues(seed: int, count: int) -> list[list[Piece]]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        bags = list(Piece) + list(Piece)
        first, second = bags[:7], bags[7:]
        rng.shuffle(first)
        rng.shuffle(second)
        out.append((first + second)[:11])
    return out


def _work(queues: list[list[Piece]], soft: bool) -> list:
    rules = Rules.named("srs")
    answers = []
    for queue in queues:
        result = solve(0, queue, rules=rules, soft_drop=soft, verify=False)
        answers.append(tuple(step.placement for step in result.solutions[0].steps) if result.solutions else None)
    answers.append(percent(0, "".join(p.name for p in queues[0][:4]) + ",*p4", rules=rules, soft_drop=soft).success)
    return answers


def _clear() -> None:
    from ai.pc import tiling

    tiling.clear_memo()
    for soft in (True, False):
        kernel = searcher_for(Rules.named("srs"), soft).kernel()
        if kernel is not None:
            kernel.shared.clear()


def test_two_threads_get_the_answers_one_thread_gets() -> None:
    jobs = [(_queues(1, 40), True), (_queues(2, 40), False)]
    _clear()
    alone = [_work(queues, soft) for queues, soft in jobs]
    _clear()
    together: list = [None, None]
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            together[i] = _work(*jobs[i])
        except BaseException as error:  # noqa: BLE001 - reported by the assertion below
            errors.append(error)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert together == alone
