"""Log files: a worker failure leaves its traceback in the worker's log under STACKCOACH_LOG_DIR (a handler's
exception, an error that ends the process, a hard crash), the files are size-limited, and the window logs too."""

from __future__ import annotations

import faulthandler
import logging
import multiprocessing
from logging.handlers import RotatingFileHandler
from pathlib import Path

import pytest

import ai.logs
from ai.protocol import Pong, Snapshot, SuggestRequest, WorkerFailure
from ai.worker import READY, log_path, serve, setup_logging, worker_main
from game.board import Board
from game.pieces import Piece
from game.rules import Rules


def snapshot() -> Snapshot:
    return Snapshot(Board(), Piece.T, (Piece.I, Piece.O), None, False, -1, -1, Rules(), "7bag", ())


@pytest.fixture
def log_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("STACKCOACH_LOG_DIR", str(tmp_path / "logs"))
    yield tmp_path / "logs"
    ai.logs.stop_logging()


class _ScriptedTransport:
    """Hands out the given requests, then reports the pipe closed; keeps what the worker sends."""

    def __init__(self, *requests: object) -> None:
        self.requests = list(requests)
        self.sent: list[object] = []

    def send(self, message: object) -> None:
        self.sent.append(message)

    def poll(self, timeout: float | None = 0.0) -> bool:
        return False

    def recv(self) -> object:
        if not self.requests:
            raise EOFError
        return self.requests.pop(0)


def test_log_path_follows_the_variable(log_dir: Path) -> None:
    assert log_path() == log_dir / "worker.log" and log_path("app") == log_dir / "app.log"


def test_a_handler_exception_is_logged_with_its_traceback(log_dir: Path) -> None:
    def fragile(request, should_stop, send) -> None:
        raise RuntimeError("engine exploded")

    assert setup_logging("worker") == log_dir / "worker.log"
    transport = _ScriptedTransport(SuggestRequest(5, snapshot()))
    serve(transport, fragile)
    assert transport.sent[0] == Pong(READY)
    (failure,) = transport.sent[1:]
    assert isinstance(failure, WorkerFailure) and "engine exploded" in failure.message
    text = (log_dir / "worker.log").read_text("utf-8")
    assert "SuggestRequest (generation 5) failed" in text
    assert "Traceback (most recent call last)" in text and "RuntimeError: engine exploded" in text
    assert 'in fragile\n    raise RuntimeError("engine exploded")' in text


def test_setting_up_twice_keeps_one_handler(log_dir: Path) -> None:
    setup_logging("worker")
    setup_logging("worker")
    ours = [h for h in logging.getLogger().handlers if isinstance(h, RotatingFileHandler)]
    assert [h.baseFilename for h in ours] == [str(log_dir / "worker.log")]


def test_the_log_rotates_by_size(log_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ai.logs, "MAX_BYTES", 2_000)
    setup_logging("worker")
    (handler,) = [h for h in logging.getLogger().handlers if isinstance(h, RotatingFileHandler)]
    assert handler.maxBytes == 2_000 and handler.backupCount == ai.logs.BACKUP_COUNT > 0
    for i in range(200):
        logging.getLogger("ai.test").warning("line %03d %s", i, "x" * 80)
    files = sorted(p.name for p in log_dir.iterdir())
    assert files == ["worker.log", *(f"worker.log.{n}" for n in range(1, ai.logs.BACKUP_COUNT + 1))]
    assert all((log_dir / name).stat().st_size <= 2_000 for name in files)
    # The newest lines are in the current file.
    assert "line 199" in (log_dir / "worker.log").read_text("utf-8")


# --- a worker process that dies -----------------------------------------------------------------------


class _Fatal(BaseException):
    """Something no engine failure handler catches."""


def _dies_of_an_error(request, should_stop, send) -> None:
    raise _Fatal("the worker cannot go on")


def _dies_hard(request, should_stop, send) -> None:
    faulthandler._sigsegv()  # a crash in compiled code: no Python exception, only faulthandler's trace


@pytest.mark.parametrize(
    ("handler", "expected"),
    [
        (_dies_of_an_error, ["the worker stopped on an error", "_Fatal: the worker cannot go on"]),
        (_dies_hard, ["Fatal Python error: Segmentation fault", "in _dies_hard"]),
    ],
    ids=["uncaught-error", "segfault"],
)
def test_a_worker_that_dies_leaves_its_traceback(log_dir: Path, handler, expected: list[str]) -> None:
    context = multiprocessing.get_context("spawn")
    ours, theirs = context.Pipe(duplex=True)
    process = context.Process(target=worker_main, args=(theirs, handler), daemon=True)
    process.start()
    theirs.close()
    try:
        assert ours.poll(60) and ours.recv() == Pong(READY)
        ours.send(SuggestRequest(1, snapshot()))
        process.join(30)
        assert process.exitcode not in (None, 0)
    finally:
        if process.is_alive():
            process.kill()
            process.join(5)
        ours.close()
    text = (log_dir / "worker.log").read_text("utf-8", errors="replace")
    assert all(line in text for line in expected), text


# --- the window -----------------------------------------------------------------------------------------


def test_the_window_logs_its_start_under_the_log_folder(tmp_path: Path) -> None:
    """Started in a process of its own (the window quits pygame on the way out)."""
    import os
    import subprocess
    import sys

    env = {
        **os.environ,
        "STACKCOACH_LOG_DIR": str(tmp_path / "logs"),
        "STACKCOACH_CONFIG_DIR": str(tmp_path),
        "STACKCOACH_DATA_DIR": str(tmp_path),
        "SDL_VIDEODRIVER": "dummy",
        "SDL_AUDIODRIVER": "dummy",
    }
    shot = tmp_path / "title.png"
    code = f"from ui.app import run; raise SystemExit(run(screenshot={str(shot)!r}, frames=2))"
    root = Path(__file__).resolve().parents[1]
    command = [sys.executable, "-c", code]
    done = subprocess.run(command, check=False, cwd=root, env=env, timeout=120, capture_output=True)
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "logs" / "app.log").read_text("utf-8")
    assert "Stack Coach window starting" in text and str(tmp_path / "logs" / "app.log") in text


def test_a_replaced_worker_is_noted_in_the_window_log(log_dir: Path, caplog: pytest.LogCaptureFixture) -> None:
    import time

    from ui.worker_client import WorkerClient, spawn_thread_worker

    def quiet(request, should_stop, send) -> None:
        return None

    with (
        caplog.at_level(logging.WARNING, logger="ui.worker_client"),
        WorkerClient(lambda: spawn_thread_worker(quiet)) as client,
    ):
        client.suggest(snapshot())
        client.kill_worker_for_test()
        deadline = time.monotonic() + 5
        while client.status.restarts == 0 and time.monotonic() < deadline:
            client.poll()
            time.sleep(0.01)
    messages = [r.getMessage() for r in caplog.records if r.name == "ui.worker_client"]
    assert client.status.restarts >= 1 and messages
    assert all("AI worker replaced" in m and str(log_dir / "worker.log") in m for m in messages)
