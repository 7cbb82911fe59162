"""The SQLite history: personal bests, schema version, and a damaged or locked file not stopping play."""

import os
import sqlite3

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pytest

from ui.store import SCHEMA_VERSION, GameRecord, HistoryStore, StoreUnavailable, default_path


def _record(mode="sprint", seconds=60.0, score=0, lines=40, finished=True):
    return GameRecord(mode=mode, rules="srs 7bag", finished=finished, seconds=seconds, pieces=100, lines=lines,
                      score=score, pps=1.67, apm=20.0, kpp=3.0, finesse=4)


def test_personal_best_per_mode(tmp_path):
    store = HistoryStore(tmp_path / "h.sqlite3")
    first = store.save(_record(seconds=62.5))
    assert first.is_new_best and first.previous_best is None
    slower = store.save(_record(seconds=70.0))
    assert not slower.is_new_best and slower.previous_best.seconds == 62.5
    unfinished = store.save(_record(seconds=10.0, lines=12, finished=False))
    assert not unfinished.is_new_best  # a sprint that did not reach 40 lines is never a best
    faster = store.save(_record(seconds=55.25))
    assert faster.is_new_best and faster.previous_best.seconds == 62.5
    assert store.best("sprint", "srs 7bag").seconds == 55.25
    assert store.best("sprint", "other rules") is None
    store.save(_record(mode="marathon", score=5000, lines=150))
    assert store.save(_record(mode="marathon", score=9000, lines=150)).is_new_best  # marathon: higher score
    assert store.best("marathon", "srs 7bag").score == 9000
    assert [r.seconds for r in store.recent(2, mode="sprint")] == [55.25, 10.0]
    summary = {(e["mode"], e["rules"]): e for e in store.summary()}
    assert summary["sprint", "srs 7bag"]["games"] == 4 and summary["sprint", "srs 7bag"]["finished"] == 3
    with sqlite3.connect(tmp_path / "h.sqlite3") as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_data_dir_env(tmp_path, monkeypatch):
    monkeypatch.setenv("STACKCOACH_DATA_DIR", str(tmp_path / "elsewhere"))
    assert default_path() == tmp_path / "elsewhere" / "history.sqlite3"
    HistoryStore().check()
    assert (tmp_path / "elsewhere" / "history.sqlite3").is_file()


def test_corrupt_file_is_reported(tmp_path):
    path = tmp_path / "h.sqlite3"
    path.write_bytes(b"this is not a database\n" * 200)
    with pytest.raises(StoreUnavailable, match="damaged"):
        HistoryStore(path).check()
    assert path.read_bytes().startswith(b"this is not")  # the player's file is left alone


def test_locked_database_is_reported(tmp_path):
    path = tmp_path / "h.sqlite3"
    HistoryStore(path).check()
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(StoreUnavailable, match="in use"):
            HistoryStore(path).save(_record())
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    assert HistoryStore(path).save(_record()).is_new_best  # usable again once released


def test_game_still_plays_with_a_corrupt_database(tmp_path, monkeypatch):
    from ui.menus import ResultsScene, TitleScene
    from ui.modes import ZEN
    from ui.play import PlayScene
    from ui.testing import make_app, tap

    monkeypatch.setenv("STACKCOACH_CONFIG_DIR", str(tmp_path))
    monkeypatch.setenv("STACKCOACH_DATA_DIR", str(tmp_path))
    (tmp_path / "history.sqlite3").write_bytes(b"garbage" * 500)
    app, screen = make_app(tmp_path)
    assert app.store is None and "damaged" in app.store_problem
    assert any("damaged" in text for text, _ in app.messages())  # shown on the title screen
    app.scenes.push(TitleScene(app))
    app.draw(screen)
    play = PlayScene(app, ZEN, seed=5)
    app.scenes.push(play)
    for _ in range(3):
        tap(app, "space")
        app.tick()
        app.tick()  # a tick with the key up between presses, as a real tap has
    assert play.game.stats.pieces == 3
    play.finish()
    results = app.scenes.top
    assert isinstance(results, ResultsScene) and "damaged" in results.problem
    results.draw(screen)


def test_store_failing_mid_game_is_not_a_crash(tmp_path, monkeypatch):
    from ui.modes import ZEN
    from ui.play import PlayScene
    from ui.testing import make_app, tap

    monkeypatch.setenv("STACKCOACH_CONFIG_DIR", str(tmp_path))
    monkeypatch.setenv("STACKCOACH_DATA_DIR", str(tmp_path))
    app, _ = make_app(tmp_path)
    assert app.store is not None
    play = PlayScene(app, ZEN, seed=5)
    app.scenes.push(play)
    tap(app, "space")
    app.tick()
    blocker = sqlite3.connect(tmp_path / "history.sqlite3", isolation_level=None)
    blocker.execute("BEGIN EXCLUSIVE")
    try:
        play.finish()
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    assert "in use" in app.scenes.top.problem and app.store is None
