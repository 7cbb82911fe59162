"""The AI worker: answers requests from the window, in its own process, one at a time, newest first.

`serve(transport)` is the whole loop; a transport is anything with `send`, `poll` and `recv` (a multiprocessing
Connection, or the in-process fake the tests use). While it works on one request it keeps an eye on the
transport: a newer request cancels the current one (its best answer so far is still sent), a Ping is answered
at once, and Shutdown or a closed pipe ends the loop. Between requests it does idle work (the real worker thinks
ahead about the PC questions the player is likely to ask next, `ai.pc_ahead`), which any request interrupts.
"""

from __future__ import annotations

import gc
import logging
import multiprocessing
import time
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any, Protocol

from ai.logs import log_path, setup_logging
from ai.protocol import Answer, PcAim, PcRequest, Ping, Pong, Request, Shutdown, SuggestRequest, WorkerFailure
from game.rules import Rules

_log = logging.getLogger(__name__)


class Transport(Protocol):
    def send(self, message: Any) -> None: ...

    def poll(self, timeout: float | None = 0.0) -> bool: ...

    def recv(self) -> Any: ...


Handler = Callable[[Request, Callable[[], bool], Callable[[Answer], None]], None]
Idle = Callable[[Callable[[], bool]], bool]  # idle(should_stop) -> more to do


class _Session:
    """Reads the transport between work steps; remembers the request that interrupted the current one.

    A PcAim only says what to think about in idle time: it interrupts idle work, never a request. One that
    arrives during a request waits for its end, unless a newer request comes first (it is then about an older
    position and is dropped)."""

    def __init__(self, transport: Transport) -> None:
        self.transport = transport
        self.pending: Request | None = None
        self.aim: PcAim | None = None  # arrived while a request was being answered
        self.answering = False  # a request (not idle work) is being answered
        self.closed = False

    def next_request(self) -> Request | None:
        if self.closed:
            return None
        if self.pending is not None:
            request, self.pending = self.pending, None
            return request
        if self.aim is not None:
            aim, self.aim = self.aim, None
            return aim
        try:
            return self.transport.recv()
        except (EOFError, OSError):
            self.closed = True
            return None

    def should_stop(self) -> bool:
        """True when a newer request (or the end) has arrived; Pings are answered here without stopping."""
        if self.pending is not None or self.closed or (self.aim is not None and not self.answering):
            return True
        try:
            while self.transport.poll(0):
                message = self.transport.recv()
                if isinstance(message, Ping):
                    self.transport.send(Pong(message.generation))
                    continue
                if isinstance(message, PcAim) and self.answering:
                    self.aim = message
                    continue
                self.pending = message
                if not isinstance(message, PcAim):
                    self.aim = None
                return True
        except (EOFError, OSError):
            self.closed = True
            return True
        return False


READY = -1  # the generation of the Pong a worker sends once it can answer


def serve(
    transport: Transport, handler: Handler | None = None, idle: Idle | None = None, rules: Rules | None = None
) -> None:
    """Answer requests until Shutdown arrives or the other end closes. Sends Pong(READY) first. Between requests
    `idle` is called while it says there is more to do and no request is waiting (it gets `should_stop` too)."""
    if handler is None:
        from ai.service import handle, start_warm_up, think_ahead  # the real engines, imported in the worker only

        handler, idle = handle, think_ahead
        start_warm_up(rules)
    try:
        transport.send(Pong(READY))
    except (EOFError, OSError):
        return
    session = _Session(transport)
    while True:
        request = session.next_request()
        if request is None or isinstance(request, Shutdown):
            return
        if isinstance(request, Ping):
            transport.send(Pong(request.generation))
            continue
        session.answering = True
        try:
            # Skip straight to the newest request if several are already waiting.
            while session.should_stop() and session.pending is not None:
                request, session.pending = session.pending, None
                if isinstance(request, Shutdown):
                    return
            if session.closed:
                return
            handler(request, session.should_stop, transport.send)
        except (EOFError, OSError, BrokenPipeError):
            return
        except Exception as error:  # noqa: BLE001 - report any engine failure to the UI instead of dying
            _log.exception("%s (generation %s) failed", type(request).__name__, request.generation)
            detail = traceback.format_exception_only(type(error), error)[-1].strip()
            try:
                transport.send(WorkerFailure(request.generation, f"{type(request).__name__}: {detail}"))
            except (EOFError, OSError):
                return
        finally:
            session.answering = False
        if not session.should_stop():
            freeze_survivors()
        if idle is not None and not _idle(idle, session):
            return


def _idle(idle: Idle, session: _Session) -> bool:
    """Idle work until a request arrives or there is none left; False when the other end went away."""
    try:
        while not session.should_stop() and idle(session.should_stop):
            if not session.should_stop():
                freeze_survivors()
    except (EOFError, OSError, BrokenPipeError):
        return False
    except Exception:  # noqa: BLE001 - nobody asked for it: logged, and the worker goes on answering
        _log.exception("idle work failed")
    return True


def freeze_survivors() -> None:
    """Between requests: collect the cyclic garbage, then move every object left out of the collector's reach
    (gc.freeze). The engines' caches and the PC tables are hundreds of thousands of long-lived objects, and a full
    collection walks them all; the interpreter starts one at whatever allocation comes next, often at the start of
    the next search: ~100 ms inside a PC question that takes 1 ms (bench/pc.py's wander group had three). Each
    call collects only what was made since the last one, so it is cheap (median 0.02 ms between wander's
    questions; the first, after the warm-up, about 80 ms). A frozen object that later becomes part of a garbage
    cycle is never reclaimed: the searches' own cycles are garbage by the time this collects them, and
    tests/test_worker_gc.py checks that what the engines keep between requests leaks none."""
    gc.collect()
    gc.freeze()


def worker_main(connection: Connection, handler: Handler | None = None, rules: Rules | None = None) -> None:
    """Entry point of the worker process. It logs to `log_path()`: a handler's exception, an error that ends
    the process, and (through faulthandler) the Python traceback of a hard crash."""
    setup_logging("worker", crashes=True)
    try:
        serve(connection, handler, rules=rules)
    except KeyboardInterrupt:
        pass
    except BaseException:
        _log.critical("the worker stopped on an error", exc_info=True)
        raise
    finally:
        connection.close()


def start_process(
    *, name: str = "stackcoach-ai", rules: Rules | None = None
) -> tuple[multiprocessing.process.BaseProcess, Connection]:
    """Start a worker with the spawn method (no SDL state is forked). Returns the process and our end. `rules`:
    the rules the game plays, whose PC tables the worker reads as it starts (None: every rule set's)."""
    context = multiprocessing.get_context("spawn")
    ours, theirs = context.Pipe(duplex=True)
    process = context.Process(target=worker_main, args=(theirs, None, rules), name=name, daemon=True)
    process.start()
    theirs.close()  # only the child holds it now, so its death shows up as EOF on our end
    return process, ours


def stop_process(
    process: multiprocessing.process.BaseProcess, connection: Connection | None, timeout: float = 1.0
) -> None:
    """Ask the worker to stop, then terminate and finally kill it; never leaves it running."""
    if connection is not None:
        try:
            connection.send(Shutdown())
        except (OSError, ValueError):
            pass
    process.join(timeout)
    if process.is_alive():
        process.terminate()
        process.join(timeout)
    if process.is_alive():
        process.kill()
        process.join(timeout)
    if connection is not None:
        connection.close()


def elapsed_ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000


__all__ = [
    "PcRequest",
    "SuggestRequest",
    "Transport",
    "log_path",
    "serve",
    "setup_logging",
    "start_process",
    "stop_process",
    "worker_main",
]
