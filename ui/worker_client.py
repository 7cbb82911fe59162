"""The window's side of the AI worker: send requests, poll answers without blocking, survive worker faults.

Every scene uses one `WorkerClient`. `poll()` never waits: it returns the current (non-stale) answers that
have arrived. If the worker dies or stops answering within the deadline, the client kills it, starts a new
one after a back-off (0.25 s doubling up to 4 s) and re-sends the latest request of each kind, so hints come back
on their own. `close()` (also run at exit) never leaves a worker process behind.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Self

from ai.protocol import (
    Answer,
    BuildAnswer,
    BuildRequest,
    Generations,
    PcAim,
    PcAnswer,
    PcRequest,
    Placement,
    Pong,
    Request,
    ReviewAnswer,
    ReviewRequest,
    Snapshot,
    Suggestion,
    SuggestRequest,
    WorkerFailure,
)
from ai.worker import log_path, serve, start_process, stop_process
from game.rules import Rules

_log = logging.getLogger(__name__)

KIND_OF = {SuggestRequest: "suggest", PcRequest: "pc", ReviewRequest: "review", BuildRequest: "build"}
# After a partial answer the worker may think for this long before its next word (the PC chance search gives
# up after ai.pc_service.CHANCE_LIMIT_MS).
STREAMING_PATIENCE_S = 30.0
ANSWER_KIND = {Suggestion: "suggest", PcAnswer: "pc", ReviewAnswer: "review", BuildAnswer: "build"}


def _unsendable(request: Request) -> str | None:
    """Why the request cannot cross to a worker process (it is pickled on the way), or None if it can."""
    from multiprocessing.reduction import ForkingPickler

    try:
        ForkingPickler.dumps(request)
    except Exception as error:  # noqa: BLE001 - pickling can raise almost anything (PicklingError, TypeError, ...)
        text = str(error).splitlines()[0] if str(error) else ""
        return f"{type(error).__name__}: {text}" if text else type(error).__name__
    return None


class WorkerHandle:
    """A running worker: its connection plus a way to tell if it lives and to end it."""

    def __init__(
        self,
        connection: Any,
        alive: Callable[[], bool],
        stop: Callable[[], None],
        kill: Callable[[], None],
        pid: int | None = None,
    ) -> None:
        self.connection = connection
        self.alive = alive
        self.stop = stop
        self.kill = kill
        self.pid = pid


def spawn_process_worker(rules: Rules | None = None) -> WorkerHandle:
    """A worker process; `rules`: the rules played, whose PC tables it reads as it starts (None: every set's)."""
    process, connection = start_process(rules=rules)

    def kill() -> None:
        process.kill()
        process.join(0.5)
        connection.close()

    return WorkerHandle(
        connection,
        alive=process.is_alive,
        stop=lambda: stop_process(process, connection),
        kill=kill,
        pid=process.pid,
    )


class _QueueEnd:
    """One end of an in-process duplex channel with the Connection methods the worker uses."""

    def __init__(self, inbox: queue.Queue, outbox: queue.Queue) -> None:
        self._inbox, self._outbox = inbox, outbox
        self.closed = False

    def send(self, message: Any) -> None:
        if self.closed:
            raise OSError("channel closed")
        self._outbox.put(message)

    def poll(self, timeout: float | None = 0.0) -> bool:
        if self.closed:
            raise EOFError
        if not self._inbox.empty():
            return True
        if timeout:
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                if not self._inbox.empty():
                    return True
                time.sleep(0.001)
        return False

    def recv(self) -> Any:
        while True:
            if self.closed:
                raise EOFError
            try:
                message = self._inbox.get(timeout=0.05)
            except queue.Empty:
                continue
            if message is _CLOSE:
                raise EOFError
            return message

    def close(self) -> None:
        self.closed = True
        self._outbox.put(_CLOSE)


_CLOSE = object()


def spawn_thread_worker(handler: Callable | None = None, idle: Callable | None = None) -> WorkerHandle:
    """A worker in a thread of this process (tests: the fake transport, no subprocess); `idle` as in ai.worker.serve."""
    to_worker: queue.Queue = queue.Queue()
    to_ui: queue.Queue = queue.Queue()
    ours = _QueueEnd(to_ui, to_worker)
    theirs = _QueueEnd(to_worker, to_ui)
    thread = threading.Thread(target=serve, args=(theirs, handler, idle), daemon=True)
    thread.start()

    def stop() -> None:
        ours.close()
        thread.join(1.0)

    def kill() -> None:
        theirs.closed = True
        ours.close()

    return WorkerHandle(ours, alive=lambda: thread.is_alive() and not theirs.closed, stop=stop, kill=kill)


@dataclass
class WorkerStatus:
    state: str = "starting"  # starting | ok | restarting
    restarts: int = 0
    last_problem: str = ""
    next_retry: float = 0.0


class WorkerClient:
    """Non-blocking client. `spawn` makes a new worker (a process by default)."""

    def __init__(
        self,
        spawn: Callable[[], WorkerHandle] = spawn_process_worker,
        *,
        deadline_s: float = 3.0,
        startup_s: float = 15.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._spawn = spawn
        self._deadline = deadline_s
        # A new worker imports the engines before it says READY (the compiled kernels load after, in the background)
        self._startup = startup_s
        self._ready = False
        self._clock = clock
        self._handle: WorkerHandle | None = None
        self._generations = Generations()
        self._latest: dict[str, Request] = {}  # newest request per kind, re-sent after a restart
        self._sent_at: dict[str, float] = {}  # kind -> when its unanswered request was sent
        # When the worker last said it is still working on something (a partial answer): until its final
        # answer, it may be silent for up to STREAMING_PATIENCE_S (a PC chance may take many seconds, and a newer
        # request waits until the worker next checks for one), whatever kind the pending requests are.
        self._streaming_since: float | None = None
        self._backoff = 0.25
        self._local: list[WorkerFailure] = []  # failures found on this side (a request that cannot be pickled)
        self.status = WorkerStatus()
        self._closed = False
        atexit.register(self.close)

    # --- requests ---------------------------------------------------------------------------------------
    def suggest(self, snapshot: Snapshot, **options: Any) -> int:
        generation = self._generations.next("suggest")
        self._send(SuggestRequest(generation, snapshot, **options))
        return generation

    def solve_pc(self, snapshot: Snapshot, **options: Any) -> int:
        generation = self._generations.next("pc")
        self._send(PcRequest(generation, snapshot, **options))
        return generation

    def aim_pc(self, snapshot: Snapshot, placement: Placement, **options: Any) -> None:
        """Say where the piece in play would land now (ai.protocol.PcAim), for the PC question last asked
        (`options` as solve_pc's): the worker thinks about the position after it first in its idle time. Nothing
        comes back, and nothing is sent again after a restart or sent to a worker not started."""
        generation = self._generations.current.get("pc")
        handle = self._handle
        if self._closed or handle is None or generation is None:
            return
        try:
            handle.connection.send(PcAim(generation, PcRequest(generation, snapshot, **options), placement))
        except (OSError, ValueError, BrokenPipeError) as error:
            self._fault(f"send failed: {error}")

    def build(self, snapshot: Snapshot, **options: Any) -> int:
        """Ask how to build a set-up's shape from this position (a BuildAnswer comes back)."""
        generation = self._generations.next("build")
        self._send(BuildRequest(generation, snapshot, **options))
        return generation

    def review(self, replay: str, **options: Any) -> int:
        """Ask for a replay's review (ReviewAnswer messages stream back: progress, then the whole review)."""
        generation = self._generations.next("review")
        self._send(ReviewRequest(generation, replay, **options))
        return generation

    def forget(self, kind: str) -> None:
        """Stop waiting for answers of this kind (e.g. hints switched off); late ones are then stale."""
        self._generations.next(kind)
        self._latest.pop(kind, None)
        self._sent_at.pop(kind, None)

    def _send(self, request: Request) -> None:
        kind = KIND_OF[type(request)]
        problem = _unsendable(request)
        if problem is not None:
            # Answer it here as a failure of this request only: it is not kept for re-sending, so the next
            # request and every later poll() work as usual.
            self._latest.pop(kind, None)
            self._sent_at.pop(kind, None)
            self._local.append(
                WorkerFailure(request.generation, f"{type(request).__name__}: cannot be sent to the worker: {problem}")
            )
            return
        self._latest[kind] = request
        self._sent_at[kind] = self._clock()
        if self._ensure_running():
            try:
                self._handle.connection.send(request)  # type: ignore[union-attr]
            except (OSError, ValueError, BrokenPipeError) as error:
                self._fault(f"send failed: {error}")

    # --- polling ----------------------------------------------------------------------------------------
    def poll(self) -> list[Answer]:  # noqa: C901 - one pass over the pipe: each message kind is handled where it is read
        """Current answers that arrived since the last poll (stale ones dropped). Never blocks."""
        if self._closed:
            return []
        answers: list[Answer] = []
        while self._local:
            failure = self._local.pop(0)
            if any(g == failure.generation for g in self._generations.current.values()):
                self.status.last_problem = failure.message
                answers.append(failure)
        if not self._ensure_running():
            return answers
        handle = self._handle
        assert handle is not None
        try:
            while handle.connection.poll(0):
                message = handle.connection.recv()
                self._ready = True
                if self.status.state in ("starting", "restarting"):
                    self.status.state = "ok"  # READY (or anything) arrived: the (new) worker is up
                if isinstance(message, Pong):
                    continue
                kind = ANSWER_KIND.get(type(message))
                if isinstance(message, WorkerFailure):
                    self.status.last_problem = message.message
                    kind = next((k for k, g in self._generations.current.items() if g == message.generation), None)
                    if kind is not None:
                        self._sent_at.pop(kind, None)
                    answers.append(message)
                    continue
                if kind is None or not self._generations.is_current(kind, message.generation):
                    continue  # stale: the position changed since this was asked
                if getattr(message, "final", True):
                    self._sent_at.pop(kind, None)
                    self._streaming_since = None
                else:
                    self._sent_at[kind] = self._clock()  # streaming progress counts as alive
                    self._streaming_since = self._clock()
                answers.append(message)
        except (EOFError, OSError) as error:
            self._fault(f"worker connection lost ({type(error).__name__})")
            return answers
        if not handle.alive():
            self._fault("worker process died")
        elif self._overdue():
            self._fault(f"worker did not answer within {self._overdue():.1f} s")
        else:
            if answers:
                self.status.state = "ok"
                self._backoff = 0.25
        return answers

    def _overdue(self) -> float:
        """The silence allowed that a pending request has exceeded (0.0: none has)."""
        now = self._clock()
        streaming = self._streaming_since is not None and now - self._streaming_since <= STREAMING_PATIENCE_S
        if streaming:
            return 0.0
        late = [now - sent for sent in self._sent_at.values() if now - sent > self._current_deadline()]
        if not late:
            return 0.0
        return STREAMING_PATIENCE_S if self._streaming_since is not None else self._current_deadline()

    def _current_deadline(self) -> float:
        return self._deadline if self._ready else max(self._deadline, self._startup)

    # --- faults and restarts ----------------------------------------------------------------------------
    def _ensure_running(self) -> bool:
        if self._closed:
            return False
        if self._handle is not None:
            return True
        if self._clock() < self.status.next_retry:
            return False
        try:
            self._handle = self._spawn()
            self._ready = False
        except Exception as error:  # noqa: BLE001 - a failed start is one more fault to retry
            self._schedule_retry(f"could not start the worker: {error}")
            return False
        self.status.state = "starting" if self.status.restarts == 0 else "restarting"
        now = self._clock()
        for kind, request in list(self._latest.items()):
            if kind in self._sent_at:
                self._sent_at[kind] = now
                try:
                    self._handle.connection.send(request)
                except (OSError, ValueError) as error:
                    self._fault(f"send failed: {error}")
                    return False
        return True

    def _fault(self, problem: str) -> None:
        self._streaming_since = None
        handle, self._handle = self._handle, None
        if handle is not None:
            with contextlib.suppress(Exception):  # it may be gone already
                handle.kill()
        self.status.restarts += 1
        _log.warning(
            "AI worker replaced (%s); restart %d; the worker's own log: %s", problem, self.status.restarts, log_path()
        )
        self._schedule_retry(problem)

    def _schedule_retry(self, problem: str) -> None:
        self.status.state = "restarting"
        self.status.last_problem = problem
        self.status.next_retry = self._clock() + self._backoff
        self._backoff = min(self._backoff * 2, 4.0)

    @property
    def pid(self) -> int | None:
        return self._handle.pid if self._handle is not None else None

    def kill_worker_for_test(self) -> None:
        """Simulate a crash (used by the fault benchmark and tests)."""
        if self._handle is not None:
            self._handle.kill()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        handle, self._handle = self._handle, None
        if handle is not None:
            handle.stop()
        atexit.unregister(self.close)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
