"""The SQLite history: personal bests, schema version, and a damaged or locked file not stopping play."""

import os
import sqlite3

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pytest

from ui.store import SCHEMA_VERSION, GameRecord, HistoryStore, StoreUnavailable, default_path


def _record(mode="sprint", seconds=60.0, score=0, lines=40, finished=True):
    return GameRecord(
        mode=mode,
        rules="srs 7bag",
        finished=finished,
        seconds=seconds,
        pieces=100,
        lines=lines,
        score=score,
        pps=1.67,
        apm=20.0,
        kpp=3.0,
        finesse=4,
    )


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


# --- schema 3: assisted runs, how a run ended, and files whose tables have another shape ---------------------


def _old_database(path, version=2, extra_sql=()):
    """A history file as an older Stack Coach wrote it (schema `version`), plus any statements given."""
    from ui import store as store_module

    with sqlite3.connect(path) as conn:
        for step in range(1, version + 1):
            conn.executescript(store_module._MIGRATIONS[step])
        conn.execute(f"PRAGMA user_version = {version}")
        conn.execute(
            "INSERT INTO games (mode, rules, finished, seconds, pieces, lines, score, pps, apm, kpp, "
            "finesse, played_at) VALUES ('sprint', 'srs 7bag', 1, 80.5, 100, 40, 0, 1.2, 0, 3, 2, "
            "'2026-01-01T10:00:00+00:00')"
        )
        conn.execute(
            "INSERT INTO games (mode, rules, finished, seconds, pieces, lines, score, pps, apm, kpp, "
            "finesse, played_at) VALUES ('marathon', 'srs 7bag', 0, 300, 400, 63, 99999, 1.3, 0, 3, 2, "
            "'2026-01-01T11:00:00+00:00')"
        )
        for statement in extra_sql:
            conn.execute(statement)
    conn.close()


def test_a_version_2_database_is_migrated_and_its_games_still_read(tmp_path):
    path = tmp_path / "h.sqlite3"
    _old_database(path)
    store = HistoryStore(path)
    games = store.recent(5)
    assert [(g.mode, g.assisted, g.ending) for g in games] == [("marathon", False, None), ("sprint", False, None)]
    assert store.best("sprint", "srs 7bag").seconds == 80.5
    assert store.best("marathon", "srs 7bag") is None  # a marathon that stopped at 63 lines was never a best
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 4
    conn.close()


def test_assisted_or_unfinished_runs_are_never_personal_bests(tmp_path):
    store = HistoryStore(tmp_path / "h.sqlite3")
    assert store.save(_record(seconds=129.38)).is_new_best
    autoplayed = store.save(GameRecord(**{**_record(seconds=51.58).__dict__, "assisted": True, "ending": "finished"}))
    assert not autoplayed.is_new_best and store.best("sprint", "srs 7bag").seconds == 129.38
    assert store.recent(1)[0].assisted  # kept in the history, marked as assisted
    ended = store.save(_record(mode="marathon", score=50_000, lines=63, finished=False))
    assert not ended.is_new_best and store.best("marathon", "srs 7bag") is None
    zen = store.save(_record(mode="zen", seconds=15.25, lines=0, finished=False))
    assert not zen.is_new_best and zen.previous_best is None and store.best("zen", "srs 7bag") is None


# The same columns without NOT NULL, as another program (or a hand edit) might have left them.
_LOOSE_GAMES = [
    "ALTER TABLE games RENAME TO strict_games",
    "CREATE TABLE games (id INTEGER PRIMARY KEY AUTOINCREMENT, mode TEXT, rules TEXT, finished INTEGER, "
    "seconds REAL, pieces INTEGER, lines INTEGER, score INTEGER, pps REAL, apm REAL, kpp REAL, finesse INTEGER, "
    "played_at TEXT)",
    "INSERT INTO games SELECT * FROM strict_games",
    "DROP TABLE strict_games",
]

_SHAPES = {
    "an extra column": ["ALTER TABLE games ADD COLUMN note TEXT"],
    "a missing table": ["DROP TABLE pc_attempts"],
    "NULL seconds": [
        *_LOOSE_GAMES,
        "INSERT INTO games (mode, rules, finished, seconds, pieces, lines, score, pps, apm, kpp, "
        "finesse, played_at) VALUES ('sprint', 'srs 7bag', 1, NULL, 1, 40, 0, 1, 0, 3, 0, 'x')",
    ],
    "NULL score": [*_LOOSE_GAMES, "UPDATE games SET score = NULL WHERE mode = 'marathon'"],
    "text in score": [
        "INSERT INTO games (mode, rules, finished, seconds, pieces, lines, score, pps, apm, kpp, "
        "finesse, played_at) VALUES ('marathon', 'srs 7bag', 1, 9, 1, 150, 'lots', 1, 0, 3, 0, 'x')"
    ],
    "text in seconds": ["UPDATE games SET seconds = 'fast' WHERE mode = 'sprint'"],
}


@pytest.mark.parametrize("shape", list(_SHAPES))
def test_a_database_of_another_shape_is_reported_and_left_untouched(tmp_path, shape):
    path = tmp_path / "h.sqlite3"
    _old_database(path, extra_sql=_SHAPES[shape])
    before = path.read_bytes()
    with pytest.raises(StoreUnavailable, match="damaged or was changed by another program"):
        HistoryStore(path).check()
    with pytest.raises(StoreUnavailable):
        HistoryStore(path).best("sprint", "srs 7bag")
    assert path.read_bytes() == before  # not migrated, not repaired: the player's file is kept as it was


def test_a_current_database_with_an_extra_column_is_reported(tmp_path):
    path = tmp_path / "h.sqlite3"
    HistoryStore(path).save(_record())
    with sqlite3.connect(path) as conn:
        conn.execute("ALTER TABLE games ADD COLUMN extra INTEGER")
    conn.close()
    with pytest.raises(StoreUnavailable, match="unexpected column 'extra'"):
        HistoryStore(path).check()


@pytest.mark.parametrize("shape", list(_SHAPES))
def test_the_app_starts_and_ends_a_game_with_a_database_of_another_shape(tmp_path, monkeypatch, shape):
    from ui.menus import ResultsScene, StatsScene, TitleScene
    from ui.modes import SPRINT
    from ui.play import PlayScene
    from ui.testing import make_app, tap

    monkeypatch.setenv("STACKCOACH_CONFIG_DIR", str(tmp_path))
    monkeypatch.setenv("STACKCOACH_DATA_DIR", str(tmp_path))
    path = tmp_path / "history.sqlite3"
    _old_database(path, extra_sql=_SHAPES[shape])
    before = path.read_bytes()
    app, screen = make_app(tmp_path)
    assert app.store is None and "damaged" in app.store_problem
    title = TitleScene(app)
    app.scenes.push(title)
    app.draw(screen)
    assert any("damaged" in text for text, _ in app.messages())
    for _ in range([item.label for item in title.menu.items].index("Stats")):
        tap(app, "down")
    tap(app, "return")
    assert isinstance(app.scenes.top, StatsScene) and "damaged" in app.scenes.top.problem
    app.draw(screen)
    tap(app, "escape")
    play = PlayScene(app, SPRINT, seed=2)
    app.scenes.push(play)
    for _ in range(play.countdown + 1):
        app.tick()
    tap(app, "space")
    app.tick()
    play.finish()
    results = app.scenes.top
    assert isinstance(results, ResultsScene) and "damaged" in results.problem
    app.draw(screen)
    assert path.read_bytes() == before


def test_a_database_changed_while_playing_is_reported_at_the_end_of_the_game(app):
    from ui.modes import SPRINT
    from ui.play import PlayScene
    from ui.testing import tap

    play = PlayScene(app, SPRINT, seed=2)
    app.scenes.push(play)
    for _ in range(play.countdown + 1):
        app.tick()
    tap(app, "space")
    app.tick()
    with sqlite3.connect(app.store.path) as conn:  # another program writes a row this version cannot read
        conn.execute(
            "INSERT INTO games (mode, rules, finished, seconds, pieces, lines, score, pps, apm, kpp, "
            f"finesse, played_at) VALUES ('sprint', '{play.rules_key}', 1, 'fast', 1, 40, 0, 1, 0, 3, 0, "
            "'x')"
        )
    conn.close()
    play.end_reason = "finished"
    play.finish()
    assert "damaged" in app.scenes.top.problem and app.store is None
    app.draw(app.screen)
