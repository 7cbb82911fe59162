"""The worker protocol and client, over the in-process fake transport (no subprocess) with scripted handlers."""

from __future__ import annotations

import pickle
import threading
import time

import pytest

from ai.protocol import (
    PcAnswer,
    PcRequest,
    Ping,
    Pong,
    Snapshot,
    Suggestion,
    SuggestRequest,
    WorkerFailure,
    accuracy_text,
    pc_panel,
    percent_text,
)
from ai.worker import READY, serve
from game.board import Board
from game.pieces import Piece
from game.rules import Rules
from ui.worker_client import WorkerClient, spawn_thread_worker


def snapshot(current: Piece = Piece.T) -> Snapshot:
    return Snapshot(Board(), current, (Piece.I, Piece.O), None, False, -1, -1, Rules(), "7bag", ())


def wait_for(client: WorkerClient, count: int = 1, timeout: float = 3.0) -> list:
    answers: list = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and len(answers) < count:
        answers.extend(client.poll())
        time.sleep(0.005)
    return answers


def echo_handler(request, should_stop, send) -> None:
    """Answers a suggestion with a streamed partial answer then a final one; stops early when asked."""
    if isinstance(request, SuggestRequest):
        send(Suggestion(request.generation, None, final=False, depth=1))
        for _ in range(20):
            if should_stop():
                break
            time.sleep(0.002)
        send(Suggestion(request.generation, None, final=True, depth=2))
    elif isinstance(request, PcRequest):
        send(PcAnswer(request.generation, solvable=True, chance=0.5))


def test_messages_are_frozen_and_picklable() -> None:
    request = SuggestRequest(3, snapshot())
    assert pickle.loads(pickle.dumps(request)) == request
    with pytest.raises(AttributeError):
        request.generation = 4  # type: ignore[misc]


def test_answers_carry_the_request_generation_and_stream() -> None:
    with WorkerClient(lambda: spawn_thread_worker(echo_handler)) as client:
        generation = client.suggest(snapshot())
        answers = wait_for(client, 2)
        assert [a.generation for a in answers] == [generation, generation]
        assert [a.final for a in answers] == [False, True]


def test_stale_answers_are_dropped() -> None:
    release = threading.Event()

    def slow(request, should_stop, send) -> None:
        release.wait(2)
        send(Suggestion(request.generation, None, final=True))

    with WorkerClient(lambda: spawn_thread_worker(slow)) as client:
        old = client.suggest(snapshot(Piece.T))
        time.sleep(0.05)  # the worker is now busy with `old`
        new = client.suggest(snapshot(Piece.I))
        release.set()
        answers = wait_for(client, 1)
        time.sleep(0.1)
        answers += client.poll()
        assert old != new
        assert [a.generation for a in answers] == [new]


def test_new_state_cancels_old_work() -> None:
    started = threading.Event()
    cancelled = []

    def endless(request, should_stop, send) -> None:
        started.set()
        while not should_stop():
            time.sleep(0.001)
        cancelled.append(request.generation)
        send(Suggestion(request.generation, None, final=True))

    with WorkerClient(lambda: spawn_thread_worker(endless)) as client:
        first = client.suggest(snapshot())
        started.wait(2)
        second = client.suggest(snapshot(Piece.I))
        time.sleep(0.1)
        client.solve_pc(snapshot())  # interrupts the second one too
        wait_for(client, 1, timeout=1.0)
        assert cancelled[:2] == [first, second]


def test_ping_is_answered_during_work() -> None:
    import queue

    from ui.worker_client import _QueueEnd  # the fake transport itself

    to_worker: queue.Queue = queue.Queue()
    to_ui: queue.Queue = queue.Queue()
    ui_end, worker_end = _QueueEnd(to_ui, to_worker), _QueueEnd(to_worker, to_ui)

    def busy(request, should_stop, send) -> None:
        deadline = time.monotonic() + 1
        while time.monotonic() < deadline and not should_stop():
            time.sleep(0.001)

    thread = threading.Thread(target=serve, args=(worker_end, busy), daemon=True)
    thread.start()
    ui_end.send(SuggestRequest(1, snapshot()))
    time.sleep(0.05)
    ui_end.send(Ping(7))
    assert ui_end.poll(1.0)
    assert ui_end.recv() == Pong(READY)  # said once, when the worker can answer
    assert ui_end.poll(1.0)
    assert ui_end.recv() == Pong(7)
    ui_end.close()
    thread.join(2)
    assert not thread.is_alive()


def test_a_handler_exception_is_reported_and_the_worker_lives_on() -> None:
    def fragile(request, should_stop, send) -> None:
        if isinstance(request, SuggestRequest):
            raise RuntimeError("engine exploded")  # a stand-in for any engine failure
        send(PcAnswer(request.generation, solvable=False))

    with WorkerClient(lambda: spawn_thread_worker(fragile)) as client:
        client.suggest(snapshot())
        failures = wait_for(client, 1)
        assert isinstance(failures[0], WorkerFailure) and "engine exploded" in failures[0].message
        generation = client.solve_pc(snapshot())
        answers = wait_for(client, 1)
        assert answers and answers[0].generation == generation


def test_restart_after_the_worker_dies_and_the_request_is_resent() -> None:
    spawned = []

    def spawn():
        handle = spawn_thread_worker(echo_handler)
        spawned.append(handle)
        return handle

    with WorkerClient(spawn) as client:
        generation = client.suggest(snapshot())
        assert wait_for(client, 2)
        client.kill_worker_for_test()
        generation = client.suggest(snapshot(Piece.L))  # sent into a dead worker
        answers = wait_for(client, 2, timeout=4.0)
        assert len(spawned) == 2 and client.status.restarts >= 1
        assert answers and answers[-1].generation == generation and answers[-1].final


def test_a_hung_worker_is_replaced_after_the_deadline() -> None:
    spawned = []

    def hang_first(request, should_stop, send) -> None:
        if len(spawned) == 1:
            time.sleep(10)  # ignores should_stop: a hang
        send(Suggestion(request.generation, None, final=True))

    def spawn():
        handle = spawn_thread_worker(hang_first)
        spawned.append(handle)
        return handle

    with WorkerClient(spawn, deadline_s=0.3) as client:
        generation = client.suggest(snapshot())
        answers = wait_for(client, 1, timeout=4.0)
        assert len(spawned) == 2
        assert "did not answer" in client.status.last_problem or client.status.restarts >= 1
        assert answers and answers[0].generation == generation


class _SilentConnection:
    """A worker that never says anything (still importing, say)."""

    def send(self, message) -> None:
        pass

    def poll(self, timeout=0.0) -> bool:
        return False

    def recv(self):
        raise EOFError


def test_a_starting_worker_gets_the_startup_deadline_not_the_answer_deadline() -> None:
    from ui.worker_client import WorkerHandle

    now = [0.0]
    spawned = []

    def spawn() -> WorkerHandle:
        spawned.append(1)
        return WorkerHandle(_SilentConnection(), alive=lambda: True, stop=lambda: None, kill=lambda: None)

    client = WorkerClient(spawn, deadline_s=1.0, startup_s=5.0, clock=lambda: now[0])
    try:
        client.suggest(snapshot())
        now[0] = 2.0
        client.poll()
        assert len(spawned) == 1 and client.status.restarts == 0  # past 1 s, but it has not said READY yet
        assert client.status.state == "starting"  # the Coach panel says "AI starting…" meanwhile
        now[0] = 6.0
        client.poll()
        assert client.status.restarts == 1 and "5.0 s" in client.status.last_problem
    finally:
        client.close()


def test_engines_run_pure_python_until_the_kernels_are_loaded(monkeypatch) -> None:
    """A fresh worker answers at once with the pure-Python engine; once warm_up has loaded the compiled kernels,
    new engines use them (with a node budget both choose the same move: the kernels compute the same values)."""
    from ai import service
    from ai.search import Budget, _python_placements

    monkeypatch.setattr(service, "_kernels_ready", threading.Event())
    service._engine.cache_clear()  # engines keep their caches between requests: start both from nothing
    cold = service.engine_for(snapshot())
    assert cold._placements is _python_placements
    service.start_warm_up().join(timeout=120)
    assert service.kernels_ready()
    warm = service.engine_for(snapshot())
    assert warm is not cold and warm._placements is not _python_placements
    state = service.search_state(snapshot())
    budget = Budget(time_ms=None, max_nodes=300, depth=2)
    assert cold.suggest(state, budget).move == warm.suggest(state, budget).move  # same nodes, same move


class _LongIdleWork:
    """Idle work of `steps` short steps that stops when a request is waiting (says there is more to do then)."""

    def __init__(self, steps: int = 5000) -> None:
        self.steps = steps
        self.done = 0
        self.started = threading.Event()
        self.interrupted = threading.Event()

    def __call__(self, should_stop) -> bool:
        self.started.set()
        while self.done < self.steps:
            if should_stop():
                self.interrupted.set()
                return True
            self.done += 1
            time.sleep(0.001)
        return False


def test_idle_work_runs_between_requests_and_any_request_interrupts_it() -> None:
    idle = _LongIdleWork()
    with WorkerClient(lambda: spawn_thread_worker(echo_handler, idle)) as client:
        client.suggest(snapshot())
        assert len(wait_for(client, 2)) == 2
        assert idle.started.wait(3.0), "no idle work after the answer"
        generation = client.suggest(snapshot(Piece.I))
        answers = wait_for(client, 2)
        assert [a.generation for a in answers] == [generation, generation]
        assert idle.interrupted.is_set() and idle.done < idle.steps  # stopped for the request, not finished first


def test_failing_idle_work_is_logged_and_the_worker_answers_on(caplog) -> None:
    def idle(should_stop) -> bool:
        raise RuntimeError("idle broke")

    with WorkerClient(lambda: spawn_thread_worker(echo_handler, idle)) as client:
        for piece in (Piece.T, Piece.I):
            generation = client.suggest(snapshot(piece))
            assert [a.generation for a in wait_for(client, 2)] == [generation, generation]
    assert "idle work failed" in caplog.text


def test_an_aim_never_cuts_a_request_short_and_is_handled_after_it() -> None:
    """A PcAim sent while a request is answered waits for its end (the answer is not cut short); one sent while
    the worker does idle work interrupts it; a newer request drops a waiting aim (it is about an older
    position)."""
    from ai.protocol import PcAim, Placement
    from game.placement import Rotation

    handled: list = []
    answering = threading.Event()
    release = threading.Event()
    held_back = {1}  # generations answered only once released (or cut short)

    def handler(request, should_stop, send) -> None:
        handled.append(type(request).__name__)
        if isinstance(request, PcRequest) and request.generation in held_back:
            answering.set()
            while not release.is_set():
                if should_stop():
                    handled.append("cut short")
                    return
                time.sleep(0.001)
        if isinstance(request, PcRequest):
            send(PcAnswer(request.generation, solvable=True, chance=0.5))

    idle = _LongIdleWork()
    aim = PcAim(1, PcRequest(1, snapshot()), Placement(Piece.T, Rotation.NORTH, 4, 0))
    with WorkerClient(lambda: spawn_thread_worker(handler, idle)) as client:
        client.solve_pc(snapshot())
        assert answering.wait(3.0)
        client.aim_pc(snapshot(), aim.placement)
        time.sleep(0.05)
        release.set()
        answers = wait_for(client, 1)
        assert [a.generation for a in answers] == [1]
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline and handled[-1:] != ["PcAim"]:
            time.sleep(0.005)
        assert handled == ["PcRequest", "PcAim"]  # not cut short, and the aim after it
        assert idle.started.wait(3.0)
        client.aim_pc(snapshot(), aim.placement)  # during idle work: it stops for the aim
        assert idle.interrupted.wait(3.0)
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline and len(handled) < 3:
            time.sleep(0.005)
        assert handled == ["PcRequest", "PcAim", "PcAim"]
        # an aim waiting behind a request is dropped when a newer request comes before it is handled
        release.clear()
        answering.clear()
        handled.clear()
        held_back.add(client._generations.last + 1)
        first = client.solve_pc(snapshot(Piece.I))
        assert answering.wait(3.0)
        client.aim_pc(snapshot(Piece.I), Placement(Piece.I, Rotation.NORTH, 4, 0))
        second = client.solve_pc(snapshot(Piece.O))
        answers = wait_for(client, 1)
        assert [a.generation for a in answers] == [second] and first < second
        time.sleep(0.1)
        assert handled == ["PcRequest", "cut short", "PcRequest"]


def test_a_chance_shown_in_whole_percent_is_never_rounded_to_certain_or_to_hopeless() -> None:
    """836 of 840 futures is not a sure PC, and 1 of 840 is not none: the panel says so."""
    assert [percent_text(n / 840) for n in (0, 1, 4, 5, 420, 834, 835, 836, 839, 840)] == [
        "0%",
        "<1%",
        "<1%",
        "1%",
        "50%",
        "99%",
        "99%",
        ">99%",
        ">99%",
        "100%",
    ]
    panel = pc_panel(PcAnswer(1, solvable=False, chance=836 / 840, final=True))
    assert panel.chance_text == "PC chance >99%" and panel.chance == 836 / 840
    assert pc_panel(PcAnswer(1, solvable=False, chance=1.0, final=True)).chance_text == "PC chance 100%"


def test_an_accuracy_is_never_rounded_to_a_perfect_game_or_to_none() -> None:
    """A game with one good move among best ones (99.96) is not perfect: the review and the list of runs say so."""
    assert [accuracy_text(a) for a in (None, 0.0, 0.04, 0.06, 61.54, 99.94, 99.96, 100.0)] == [
        "—",
        "0.0%",
        "<0.1%",
        "0.1%",
        "61.5%",
        "99.9%",
        ">99.9%",
        "100.0%",
    ]
