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


@pytest.fixture
def no_plain_srs_boundary_table(monkeypatch) -> None:
    """Plain SRS's boundary table hidden (ai.pc.seconds.BOUNDARY), as for a group it does not hold: a later PC's
    second position under plain SRS is then searched (bounded by SRS with 180's table, ai.pc.opening.wider_rules), for
    tests about that search. The table holds every group now, so no position avoids it; the bounded search still
    answers wherever a table is made in part or left out (a regenerated one, or a new rule set's)."""
    from ai.pc import seconds

    real = seconds._read

    def read(family: seconds.Family, name: str) -> seconds.Table:
        return seconds.Table(family) if family is seconds.BOUNDARY and name == "srs" else real(family, name)

    monkeypatch.setattr(seconds, "_read", read)


@pytest.fixture
def no_wider_bound(monkeypatch) -> None:
    """No wider rules' table bounds a search (ai.pc.opening.wider_rules finds none), for tests of a long search: where
    such a table holds the position, its count ends the search as soon as a placement reaches it."""
    from ai.pc import opening

    monkeypatch.setattr(opening, "wider_rules", lambda rules: None)


@pytest.fixture
def own_kick_file(tmp_path):
    """A player's own kick-table file: SRS's, with the last two kicks of the JLSTZ pieces' 0->R turn left out (no
    table is made for it; its placements are within SRS's)."""
    import tomllib
    from importlib import resources

    text = resources.files("game.data.kicks").joinpath("srs.toml").read_text("utf-8")
    kicks = tomllib.loads(text)["kicks"]["JLSTZ"]["0R"]
    cut = text.replace(f"0R = {kicks}", f"0R = {kicks[:3]}", 1)  # (the first 0R line is the JLSTZ pieces')
    assert cut != text
    path = tmp_path / "own.toml"
    path.write_text(cut.replace('name = "SRS"', 'name = "SRS, two kicks fewer"', 1), "utf-8")
    return path


@pytest.fixture
def searched(monkeypatch) -> list:
    """The futures tries the worker builds: one per searched position, none for a position looked up."""
    import ai.pc.chance

    calls: list = []
    real = ai.pc.chance.futures_trie
    monkeypatch.setattr(ai.pc.chance, "futures_trie", lambda *a: calls.append(a) or real(*a))
    return calls
