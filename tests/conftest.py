"""Shared fixtures. SDL's dummy drivers are set before anything imports pygame."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
# Log files (the window's and every worker process's) go to a folder of the test run, never the player's.
if not os.environ.get("STACKCOACH_LOG_DIR"):
    import tempfile

    os.environ["STACKCOACH_LOG_DIR"] = tempfile.mkdtemp(prefix="stackcoach-test-logs-")

import pytest


@pytest.fixture
def app(tmp_path, monkeypatch):
    """The client with its settings and history in a temporary folder; `app.screen` is its window surface."""
    from ui.testing import make_app

    monkeypatch.setenv("STACKCOACH_CONFIG_DIR", str(tmp_path))
    monkeypatch.setenv("STACKCOACH_DATA_DIR", str(tmp_path))
    client, screen = make_app(tmp_path)
    client.screen = screen
    yield client
    client.close_worker()


@pytest.fixture
def ai_app(app):
    """The app with the AI worker in a thread (no process start)."""
    from tests.players import use_thread_worker

    return use_thread_worker(app)
