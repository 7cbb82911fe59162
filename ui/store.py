"""Personal bests and game history in a local SQLite file (stdlib sqlite3; no pygame, testable alone).

Contracts:
* The database lives at ``$STACKCOACH_DATA_DIR/history.sqlite3`` if that variable is set, else in
  ``platformdirs.user_data_dir("stackcoach")``. Schema version is kept in ``PRAGMA user_version``.
* Every write is one transaction. Any sqlite/OS failure (corrupt file, locked database, read-only folder)
  raises :class:`StoreUnavailable` with a message fit to show the player; callers keep playing without it.
* A database whose tables do not have the shape this version expects (a missing or extra column, a value of
  the wrong type such as NULL or text in ``seconds``) is reported as StoreUnavailable before anything is
  written; the file is left exactly as it was.
* Personal bests exist only in modes with a goal: sprint = lower time, marathon = higher score. Only runs
  that reached the goal without assistance (autoplay, the hint ghost or undo) count; Zen and PC practice
  have none.
"""

from __future__ import annotations

import datetime as _dt
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

DATA_DIR_ENV = "STACKCOACH_DATA_DIR"
FILE_NAME = "history.sqlite3"
SCHEMA_VERSION = 4
LOCK_TIMEOUT_S = 0.5  # a locked database is reported quickly instead of freezing the game

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    mode        TEXT    NOT NULL,
    rules       TEXT    NOT NULL,
    finished    INTEGER NOT NULL,       -- 1 when the mode's goal was reached (e.g. 40 lines), 0 otherwise
    seconds     REAL    NOT NULL,
    pieces      INTEGER NOT NULL,
    lines       INTEGER NOT NULL,
    score       INTEGER NOT NULL,
    pps         REAL    NOT NULL,
    apm         REAL    NOT NULL,
    kpp         REAL    NOT NULL,
    finesse     INTEGER NOT NULL,
    played_at   TEXT    NOT NULL        -- ISO 8601 UTC
);
CREATE INDEX IF NOT EXISTS games_by_mode ON games (mode, rules);
"""
# Version 2: one row per perfect-clear attempt in PC practice, for the per-setup statistics.
_SCHEMA_V2 = """
CREATE TABLE IF NOT EXISTS pc_attempts (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    setup       TEXT    NOT NULL,       -- e.g. "PCO (with I)", "Empty board, 2nd PC", "fumen"
    rules       TEXT    NOT NULL,
    success     INTEGER NOT NULL,       -- 1: the attempt ended in a perfect clear
    seconds     REAL    NOT NULL,       -- from the start of the attempt to the PC (or to giving up)
    played_at   TEXT    NOT NULL
);
CREATE INDEX IF NOT EXISTS pc_attempts_by_setup ON pc_attempts (setup, rules);
"""
# Version 3: whether the run was assisted (autoplay, hint ghost or undo) and how it ended. Older rows read as
# unassisted with an unknown ending (NULL); the version 2 columns are unchanged.
_SCHEMA_V3 = """
ALTER TABLE games ADD COLUMN assisted INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN ending TEXT
"""
# Version 4: the coach's review of a run (its replay is the file replays/<id>.json beside the database), kept
# with the key of the engine that computed it (weights, depth, version): a review is reused only by that engine.
_SCHEMA_V4 = """
CREATE TABLE IF NOT EXISTS reviews (
    game_id     INTEGER PRIMARY KEY,
    engine      TEXT    NOT NULL,
    accuracy    REAL,                   -- NULL when no placement could be rated
    data        TEXT    NOT NULL        -- the review as JSON (ai.review.GameReview.to_dict)
)
"""
_MIGRATIONS = {
    1: _SCHEMA,
    2: _SCHEMA_V2,
    3: _SCHEMA_V3,
    4: _SCHEMA_V4,
}  # version -> statements that bring version - 1 up to it

# Columns per table and the SQLite types a valid value may have ("null" only where NULL is allowed), and the
# schema version that introduced each; a file whose tables differ from this is not used.
_GAMES_COLUMNS: dict[str, tuple[int, tuple[str, ...]]] = {
    "id": (1, ("integer",)),
    "mode": (1, ("text",)),
    "rules": (1, ("text",)),
    "finished": (1, ("integer",)),
    "seconds": (1, ("real", "integer")),
    "pieces": (1, ("integer",)),
    "lines": (1, ("integer",)),
    "score": (1, ("integer",)),
    "pps": (1, ("real", "integer")),
    "apm": (1, ("real", "integer")),
    "kpp": (1, ("real", "integer")),
    "finesse": (1, ("integer",)),
    "played_at": (1, ("text",)),
    "assisted": (3, ("integer",)),
    "ending": (3, ("text", "null")),
}
_PC_COLUMNS: dict[str, tuple[int, tuple[str, ...]]] = {
    "id": (2, ("integer",)),
    "setup": (2, ("text",)),
    "rules": (2, ("text",)),
    "success": (2, ("integer",)),
    "seconds": (2, ("real", "integer")),
    "played_at": (2, ("text",)),
}
_REVIEW_COLUMNS: dict[str, tuple[int, tuple[str, ...]]] = {
    "game_id": (4, ("integer",)),
    "engine": (4, ("text",)),
    "accuracy": (4, ("real", "integer", "null")),
    "data": (4, ("text",)),
}
_TABLES = {"games": (1, _GAMES_COLUMNS), "pc_attempts": (2, _PC_COLUMNS), "reviews": (4, _REVIEW_COLUMNS)}
REPLAY_FOLDER = "replays"
ENDINGS = ("finished", "topout", "ended")  # goal reached; topped out; the player ended it

# mode -> (column, direction) deciding the personal best; modes not listed have none.
_BEST_ORDER = {"sprint": ("seconds", "ASC"), "marathon": ("score", "DESC")}


class StoreUnavailable(RuntimeError):
    """The history database cannot be used; ``str(error)`` says why, for the player."""


@dataclass(frozen=True)
class GameRecord:
    mode: str
    rules: str
    finished: bool
    seconds: float
    pieces: int
    lines: int
    score: int
    pps: float
    apm: float
    kpp: float
    finesse: int
    assisted: bool = False  # autoplay, the hint ghost or undo was used
    ending: str | None = None  # one of ENDINGS; None for runs stored before version 3
    played_at: str = ""
    id: int | None = None


@dataclass(frozen=True)
class SaveOutcome:
    """What saving a game found: the best before it (None if none) and whether this game beat it."""

    record: GameRecord
    previous_best: GameRecord | None
    is_new_best: bool


@dataclass(frozen=True)
class PcStats:
    """Per-setup totals of PC practice."""

    setup: str
    attempts: int
    pcs: int
    seconds_per_pc: float | None  # mean time of the successful attempts

    @property
    def rate(self) -> float:
        return self.pcs / self.attempts if self.attempts else 0.0


def _sql_type(value: object) -> str:
    """SQLite's typeof() name for a value sqlite3 returned."""
    if value is None:
        return "null"
    if isinstance(value, bool | int):
        return "integer"
    if isinstance(value, float):
        return "real"
    if isinstance(value, str):
        return "text"
    return "blob"


def data_dir() -> Path:
    override = os.environ.get(DATA_DIR_ENV, "").strip()
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("stackcoach"))


def default_path() -> Path:
    return data_dir() / FILE_NAME


def has_best(mode: str) -> bool:
    """True if the mode keeps a personal best (only modes with a goal do)."""
    return mode in _BEST_ORDER


def counts_for_best(record: GameRecord) -> bool:
    """A run can be a personal best only if its mode has one, it reached the goal, and it was not assisted."""
    return has_best(record.mode) and record.finished and not record.assisted


def better(mode: str, a: GameRecord, b: GameRecord | None) -> bool:
    """True if game ``a`` beats ``b`` (the best so far, or None) under the mode's ordering."""
    if mode not in _BEST_ORDER or not counts_for_best(a):
        return False
    column, direction = _BEST_ORDER[mode]
    if b is None:
        return True
    va, vb = getattr(a, column), getattr(b, column)
    return va < vb if direction == "ASC" else va > vb


def _explain(error: Exception, path: Path) -> str:
    text = str(error).lower()
    if "locked" in text or "busy" in text:
        return f"the history database is in use by another program ({path.name}); history is off for now"
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return (
            f"the history database {path} is damaged ({error}); history is off for now — "
            f"move or delete the file to start a new one"
        )
    return f"the history database {path} cannot be used ({error}); history is off for now"


def _damaged(path: Path, detail: str) -> StoreUnavailable:
    return StoreUnavailable(
        f"the history database {path} is damaged or was changed by another program "
        f"({detail}); history is off for now — move or delete the file to start a new one"
    )


class HistoryStore:
    """A connection per operation, so a failure never leaves a half-open handle behind."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path is not None else default_path()
        self._ready = False

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, timeout=LOCK_TIMEOUT_S, isolation_level=None)
        except (sqlite3.Error, OSError) as error:
            raise StoreUnavailable(_explain(error, self.path)) from error
        try:
            conn.row_factory = sqlite3.Row
            if not self._ready:
                self._migrate(conn)
                self._ready = True
            yield conn
        except sqlite3.Error as error:
            raise StoreUnavailable(_explain(error, self.path)) from error
        finally:
            conn.close()

    def _migrate(self, conn: sqlite3.Connection) -> None:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreUnavailable(
                f"the history database {self.path} was written by a newer Stack Coach (schema {version}); "
                f"history is off for now"
            )
        self._check_shape(conn, version)
        if version < SCHEMA_VERSION:
            conn.execute("BEGIN IMMEDIATE")
            try:
                for step in range(version + 1, SCHEMA_VERSION + 1):
                    for statement in _MIGRATIONS[step].split(";"):
                        if statement.strip():
                            conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise

    def _check_shape(self, conn: sqlite3.Connection, version: int) -> None:
        """StoreUnavailable unless every table has exactly the columns of schema `version` (tables of a later
        version must not exist yet; a fresh file has none) and every stored value has its column's type."""
        for table, (since, columns) in _TABLES.items():
            found = [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]
            if not found:
                if version >= since:
                    raise _damaged(self.path, f"the table {table!r} is missing")
                continue
            if version < since and version != 0:
                raise _damaged(self.path, f"the table {table!r} should not exist in schema {version}")
            expected = [name for name, (added, _) in columns.items() if added <= max(version, since)]
            extra = [name for name in found if name not in expected]
            missing = [name for name in expected if name not in found]
            if extra or missing:
                parts = ([f"unexpected column {', '.join(map(repr, extra))}"] if extra else []) + (
                    [f"no column {', '.join(map(repr, missing))}"] if missing else []
                )
                raise _damaged(self.path, f"{table}: " + "; ".join(parts))
            tests = " OR ".join(
                f"typeof({name}) NOT IN ({', '.join(repr(kind) for kind in kinds)})"
                for name, (_, kinds) in columns.items()
                if name in found
            )
            bad = conn.execute(f"SELECT * FROM {table} WHERE {tests} LIMIT 1").fetchone()
            if bad is not None:
                row = dict(bad)
                wrong = next(
                    name for name, (_, kinds) in columns.items() if name in row and _sql_type(row[name]) not in kinds
                )
                raise _damaged(
                    self.path,
                    f"{table} row {row.get('id')}: {wrong} is {_sql_type(row[wrong]).upper()} ({row[wrong]!r})",
                )

    def check(self) -> None:
        """Open (and create) the database now; StoreUnavailable if it cannot be used."""
        with self._connect() as conn:
            conn.execute("SELECT count(*) FROM games").fetchone()

    _COLUMNS = ", ".join(_GAMES_COLUMNS)

    def _row(self, row: sqlite3.Row) -> GameRecord:
        """A stored game as a record; StoreUnavailable if a value has the wrong type (changed since opening)."""
        data = dict(row)
        for name, (_, kinds) in _GAMES_COLUMNS.items():
            if _sql_type(data.get(name)) not in kinds:
                raise _damaged(self.path, f"games row {data.get('id')}: {name} is {data.get(name)!r}")
        data["finished"] = bool(data["finished"])
        data["assisted"] = bool(data["assisted"])
        return GameRecord(**data)

    def _best_query(self, mode: str) -> str:
        column, direction = _BEST_ORDER[mode]
        return (
            f"SELECT {self._COLUMNS} FROM games WHERE mode = ? AND rules = ? AND finished = 1 "
            f"AND assisted = 0 ORDER BY {column} {direction}, id ASC LIMIT 1"
        )

    def best(self, mode: str, rules: str) -> GameRecord | None:
        """The personal best of this mode under this rules summary, or None (always None without a goal)."""
        if not has_best(mode):
            return None
        with self._connect() as conn:
            row = conn.execute(self._best_query(mode), (mode, rules)).fetchone()
        return self._row(row) if row else None

    def save(self, record: GameRecord) -> SaveOutcome:
        """Store a game in one transaction; returns the previous best and whether this beat it."""
        played_at = record.played_at or _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
        with self._connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                row = (
                    conn.execute(self._best_query(record.mode), (record.mode, record.rules)).fetchone()
                    if has_best(record.mode)
                    else None
                )
                previous = self._row(row) if row else None  # read before writing: a bad row writes nothing
                cursor = conn.execute(
                    "INSERT INTO games (mode, rules, finished, seconds, pieces, lines, score, pps, apm, kpp, "
                    "finesse, assisted, ending, played_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        record.mode,
                        record.rules,
                        int(record.finished),
                        record.seconds,
                        record.pieces,
                        record.lines,
                        record.score,
                        record.pps,
                        record.apm,
                        record.kpp,
                        record.finesse,
                        int(record.assisted),
                        record.ending,
                        played_at,
                    ),
                )
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
        saved = GameRecord(**{**record.__dict__, "played_at": played_at, "id": cursor.lastrowid})
        return SaveOutcome(saved, previous, better(record.mode, saved, previous))

    def recent(self, limit: int = 10, mode: str | None = None) -> list[GameRecord]:
        with self._connect() as conn:
            if mode is None:
                rows = conn.execute(f"SELECT {self._COLUMNS} FROM games ORDER BY id DESC LIMIT ?", (limit,)).fetchall()
            else:
                rows = conn.execute(
                    f"SELECT {self._COLUMNS} FROM games WHERE mode = ? ORDER BY id DESC LIMIT ?", (mode, limit)
                ).fetchall()
        return [self._row(r) for r in rows]

    def summary(self) -> list[dict[str, object]]:
        """Per (mode, rules): games played, finished, total pieces and lines, best record."""
        with self._connect() as conn:
            groups = conn.execute(
                "SELECT mode, rules, count(*) AS games, sum(finished) AS finished, sum(pieces) AS pieces, "
                "sum(lines) AS lines, sum(seconds) AS seconds FROM games GROUP BY mode, rules "
                "ORDER BY mode, rules"
            ).fetchall()
        out = []
        for group in groups:
            entry = dict(group)
            entry["best"] = self.best(entry["mode"], entry["rules"])
            out.append(entry)
        return out

    def save_pc_attempts(self, setup: str, rules: str, attempts: list[tuple[bool, float]]) -> None:
        """Store PC-practice attempts ((perfect clear?, seconds) each) in one transaction."""
        played_at = _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
        with self._connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.executemany(
                    "INSERT INTO pc_attempts (setup, rules, success, seconds, played_at) VALUES (?, ?, ?, ?, ?)",
                    [(setup, rules, int(ok), round(seconds, 3), played_at) for ok, seconds in attempts],
                )
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise

    def pc_stats(self, setup: str, rules: str | None = None) -> PcStats:
        """Attempts, PCs and mean time per PC of one setup (under one rules summary, or all)."""
        where, args = ("setup = ?", [setup]) if rules is None else ("setup = ? AND rules = ?", [setup, rules])
        with self._connect() as conn:
            row = conn.execute(
                "SELECT count(*) AS attempts, coalesce(sum(success), 0) AS pcs, "
                f"avg(CASE WHEN success = 1 THEN seconds END) AS per_pc FROM pc_attempts WHERE {where}",
                args,
            ).fetchone()
        return PcStats(setup, int(row["attempts"]), int(row["pcs"]), row["per_pc"])

    # --- replays and reviews (schema 4) -----------------------------------------------------------------------
    def replay_path(self, game_id: int) -> Path:
        """Where the replay of run `game_id` is kept: replays/<id>.json beside the database."""
        return self.path.parent / REPLAY_FOLDER / f"{int(game_id)}.json"

    def save_replay(self, game_id: int, text: str) -> Path:
        """Write a run's replay (JSON text) next to the database; StoreUnavailable if the folder cannot be used."""
        path = self.replay_path(game_id)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            partial = path.with_suffix(".part")
            partial.write_text(text, encoding="utf-8")
            partial.replace(path)
        except OSError as error:
            raise StoreUnavailable(
                f"the replay of run {game_id} cannot be saved in {path.parent} ({error.strerror or error})"
            ) from error
        return path

    def has_replay(self, game_id: int) -> bool:
        return self.replay_path(game_id).is_file()

    def game(self, game_id: int) -> GameRecord | None:
        with self._connect() as conn:
            row = conn.execute(f"SELECT {self._COLUMNS} FROM games WHERE id = ?", (int(game_id),)).fetchone()
        return self._row(row) if row else None

    def runs(self, mode: str | None = None, limit: int = 200) -> list[GameRecord]:
        """Runs newest first (all modes, or one), for the history list and the progress plots."""
        return self.recent(limit, mode)

    def cached_review(self, game_id: int) -> tuple[str, str] | None:
        """(engine key, review JSON) stored for a run, or None."""
        with self._connect() as conn:
            row = conn.execute("SELECT engine, data FROM reviews WHERE game_id = ?", (int(game_id),)).fetchone()
        if row is None or not isinstance(row["engine"], str) or not isinstance(row["data"], str):
            return None
        return row["engine"], row["data"]

    def save_review(self, game_id: int, engine: str, accuracy: float | None, data: str) -> None:
        """Keep a run's review (replacing one made by another engine) in one transaction."""
        with self._connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.execute(
                    "INSERT OR REPLACE INTO reviews (game_id, engine, accuracy, data) VALUES (?, ?, ?, ?)",
                    (int(game_id), engine, accuracy, data),
                )
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise

    def accuracies(self, game_ids: list[int]) -> dict[int, float]:
        """Accuracy of each reviewed run among `game_ids` (runs not reviewed are left out)."""
        if not game_ids:
            return {}
        marks = ", ".join("?" for _ in game_ids)
        with self._connect() as conn:
            rows = conn.execute(
                f"SELECT game_id, accuracy FROM reviews WHERE game_id IN ({marks}) AND accuracy IS NOT NULL",
                [int(i) for i in game_ids],
            ).fetchall()
        return {int(row["game_id"]): float(row["accuracy"]) for row in rows}
