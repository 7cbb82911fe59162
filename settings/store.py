"""Where settings live, and loading / saving them without ever losing the player's file.

Contracts:
* :func:`load_settings` never raises for a bad file and never modifies it. If the file has any problem (or
  is from another schema version), its exact bytes are first copied to a backup beside it.
* :func:`save_settings` is atomic: readers see either the old file or the new one, never a partial one.
"""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs
import tomli_w

from settings.migrate import Migrated, migrate
from settings.model import CURRENT_SCHEMA, GROUPS, Settings
from settings.salvage import (
    ParseOutcome,
    apply_env,
    drop_unreadable,
    parse_toml_lenient,
    read_env,
    salvage_groups,
)

_log = logging.getLogger(__name__)

APP_NAME = "stackcoach"
FILE_NAME = "settings.toml"
CONFIG_DIR_ENV = "STACKCOACH_CONFIG_DIR"
_MAX_BACKUPS = 1000
_HEADER = (
    "# Stack Coach settings. Edit while the game is closed;\n"
    "# a file that cannot be read is kept as a .bak copy beside it.\n"
    "# STACKCOACH_<GROUP>__<SETTING> environment variables override values here.\n\n"
)

PathLike = str | os.PathLike[str]


def config_dir() -> Path:
    """The settings folder: $STACKCOACH_CONFIG_DIR if set, else the platform's per-user config folder."""
    override = os.environ.get(CONFIG_DIR_ENV, "").strip()
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_config_dir(APP_NAME))


def settings_path(path: PathLike | None = None) -> Path:
    """The settings file: ``path`` itself, ``path/settings.toml`` if ``path`` is a folder, or the default."""
    if path is None:
        return config_dir() / FILE_NAME
    chosen = Path(path).expanduser()
    return chosen / FILE_NAME if chosen.is_dir() else chosen


@dataclass
class LoadResult:
    """What :func:`load_settings` found.

    ``problems``: messages for the player about anything not read as written (empty when all is well).
    ``backup_path``: the copy of the original file, if one was needed. ``notices``: informational lines
    (schema upgrade, environment overrides in effect). ``migrated_from``: the file's older schema, if any.
    """

    settings: Settings
    path: Path
    problems: list[str] = field(default_factory=list)
    backup_path: Path | None = None
    notices: list[str] = field(default_factory=list)
    migrated_from: int | None = None

    @property
    def ok(self) -> bool:
        return not self.problems


def backup_file(path: Path, content: bytes) -> Path:
    """Write ``content`` to the first free of ``<name>.bak``, ``.bak.1``, ``.bak.2``...; an existing backup
    with identical bytes is reused instead of piling up copies. Never overwrites a backup. Raises OSError."""
    for n in range(_MAX_BACKUPS):
        candidate = path.with_name(f"{path.name}.bak" if n == 0 else f"{path.name}.bak.{n}")
        try:
            with open(candidate, "xb") as out:  # "x": fail rather than clobber an existing backup
                out.write(content)
                out.flush()
                os.fsync(out.fileno())
            return candidate
        except FileExistsError:
            with contextlib.suppress(OSError):
                if candidate.is_file() and candidate.read_bytes() == content:
                    return candidate
    raise OSError(f"too many backups of {path.name} already")


def _decode(raw: bytes) -> tuple[str, str | None]:
    """Text and, if the bytes were not UTF-8, a description of where they went wrong."""
    try:
        return raw.decode("utf-8-sig"), None  # -sig: tolerate the BOM some Windows editors add
    except UnicodeDecodeError as error:
        text = raw.decode("utf-8-sig", errors="replace")
        line = raw[: error.start].count(b"\n") + 1
        return text, f"is not valid UTF-8 text (line {line}, byte {error.start})"


def _from_defaults(path: Path, problems: list[str]) -> LoadResult:
    env, env_read_problems = read_env()
    groups, env_problems, notices = apply_env({name: model() for name, model in GROUPS.items()}, env)
    return _result(path, groups, problems + env_read_problems + env_problems, notices)


def _result(
    path: Path, groups: dict[str, Any], problems: list[str], notices: list[str], **extra: Any
) -> LoadResult:
    groups.pop("schema_version", None)
    settings = Settings.model_construct(schema_version=CURRENT_SCHEMA, **groups)
    return LoadResult(settings=settings, path=path, problems=problems, notices=notices, **extra)


@dataclass
class _FileReading:
    """Everything learned from one file's bytes, before environment overrides."""

    groups: dict[str, Any]
    decode_problem: str | None
    unreadable: list[str]
    parsed: ParseOutcome
    migration: Migrated
    field_problems: list[str]

    @property
    def needs_backup(self) -> bool:
        """True unless the file was read exactly as written, at the current schema."""
        m = self.migration
        return bool(self.decode_problem or self.parsed.errors or m.problems or self.field_problems) or (
            m.newer or m.migrated
        )


def _read(raw: bytes) -> _FileReading:
    text, decode_problem = _decode(raw)
    parsed = parse_toml_lenient(text)
    unreadable = drop_unreadable(parsed.data) if decode_problem else []
    migration = migrate(parsed.data)
    groups, field_problems = salvage_groups(migration.data)
    return _FileReading(groups, decode_problem, unreadable, parsed, migration, field_problems)


def load_settings(path: PathLike | None = None) -> LoadResult:
    """Read settings from ``path`` (see :func:`settings_path`), then apply ``STACKCOACH_*`` overrides.

    A missing file gives defaults and no problems. Anything else wrong with the file (bad TOML, non-UTF-8,
    wrong types, out-of-range values, unknown keys, another schema version) is reported in ``problems``,
    the original bytes are backed up first, and every valid field is still used. Never raises for file
    content; the file itself is not modified.
    """
    target = settings_path(path)
    try:
        raw = target.read_bytes()
    except FileNotFoundError:
        return _from_defaults(target, [])
    except OSError as error:
        reason = error.strerror or str(error)
        return _from_defaults(
            target, [f"could not read {target.name} ({reason}); using the default settings"]
        )

    name = target.name
    reading = _read(raw)
    parsed, migration = reading.parsed, reading.migration
    backup: Path | None = None
    kept = original_kept = ""
    if reading.needs_backup:
        try:
            backup = backup_file(target, raw)
            kept, original_kept = f"kept as {backup.name}", f"the original is kept as {backup.name}"
        except OSError as error:
            kept = original_kept = (
                f"could not keep a copy of the original ({error.strerror or error}); "
                "it will be replaced when settings are saved"
            )

    problems: list[str] = []
    if reading.decode_problem:
        problems.append(f"{name} {reading.decode_problem}; {kept}; read what was readable")
        problems += [
            f"{key}: could not be read (not valid UTF-8); using the default" for key in reading.unreadable
        ]
    if parsed.errors:
        line, reason = parsed.errors[0]
        if parsed.gave_up:
            rest = "could not read any of it; using the default settings"
        else:
            lines = ", ".join(str(n) for n, _ in parsed.errors)
            rest = f"skipped line{'s' if len(parsed.errors) > 1 else ''} {lines} and read the rest"
        problems.append(f"{name} is not valid TOML (line {line}): {reason}; {kept}; {rest}")
    if migration.newer:
        problems.append(
            f"{name} was written by a newer Stack Coach (settings version {migration.from_version}, this one "
            f"knows up to {CURRENT_SCHEMA}); loaded what this version understands; {original_kept}"
        )
    problems += migration.problems + reading.field_problems
    notices: list[str] = []
    if migration.migrated:
        notices.append(
            f"{name} was upgraded from settings version {migration.from_version} to {CURRENT_SCHEMA}; "
            f"{original_kept}"
        )
    if (migration.problems or reading.field_problems) and not (
        reading.decode_problem or parsed.errors or migration.newer or migration.migrated
    ):
        problems.append(f"{name} had problems; {original_kept}")

    env, env_read_problems = read_env()
    groups, env_problems, env_notices = apply_env(reading.groups, env)
    return _result(
        target,
        groups,
        problems + env_read_problems + env_problems,
        notices + env_notices,
        backup_path=backup,
        migrated_from=migration.from_version if migration.migrated else None,
    )


def to_toml(settings: Settings) -> str:
    """The TOML text :func:`save_settings` writes. Values that are None (e.g. no kick_file) are omitted,
    which loads back as the same None default."""
    data = settings.model_dump(mode="json", exclude_none=True)
    data["schema_version"] = CURRENT_SCHEMA
    ordered = {"schema_version": data.pop("schema_version"), **data}
    return _HEADER + tomli_w.dumps(ordered)


def _fsync_dir(folder: Path) -> None:
    # Makes the rename itself durable on POSIX; directories cannot be opened this way on Windows.
    with contextlib.suppress(OSError, AttributeError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _keep_unread_content(target: Path) -> None:
    """Back up the file about to be replaced unless it reads cleanly (valid, current schema, nothing
    unknown): it may have been damaged, hand-edited or written by another version since it was loaded, or
    its backup may have failed then. Raises OSError if it cannot be read or backed up: better no save than
    a silent loss."""
    try:
        raw = target.read_bytes()
    except FileNotFoundError:
        return
    if _read(raw).needs_backup:
        kept = backup_file(target, raw)
        _log.warning("%s could not be read cleanly; kept a copy as %s before saving", target, kept)


def save_settings(settings: Settings, path: PathLike | None = None) -> Path:
    """Write ``settings`` as TOML to ``path`` (see :func:`settings_path`) atomically: a temporary file in
    the same folder is written, flushed and fsynced, then renamed over the target. On failure the old file
    is untouched, the temporary file is removed and the OSError propagates. An existing file that does not
    read cleanly is first backed up like :func:`load_settings` would. Returns the path written."""
    target = settings_path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    payload = to_toml(settings).encode("utf-8")
    _keep_unread_content(target)
    fd, temp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(payload)
            out.flush()
            os.fsync(out.fileno())
        with contextlib.suppress(OSError):  # keep the file's permissions (mkstemp creates it 0600)
            mode = target.stat().st_mode & 0o777 if target.exists() else 0o644
            os.chmod(temp_name, mode)
        os.replace(temp_name, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp_name)
        raise
    _fsync_dir(target.parent)
    return target
