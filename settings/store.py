"""Where settings live, and loading / saving them without ever losing the player's file.

Contracts:
* :func:`load_settings` never raises for a bad file and never modifies it. If the file has any problem (or
  is from another schema version), its exact bytes are first copied to a backup beside it.
* :func:`save_settings` is atomic: readers see either the old file or the new one, never a partial one.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs
import tomli_w
from pydantic import ValidationError

from settings.errors import SettingsError
from settings.messages import describe
from settings.migrate import Migrated, migrate
from settings.model import CURRENT_SCHEMA, GROUPS, Settings
from settings.salvage import (
    ParseOutcome,
    apply_env,
    drop_unreadable,
    parse_toml_lenient,
    read_env,
    salvage_groups,
    unknown_env_vars,
)

_log = logging.getLogger(__name__)

APP_NAME = "stackcoach"
FILE_NAME = "settings.toml"
CONFIG_DIR_ENV = "STACKCOACH_CONFIG_DIR"
_MAX_BACKUPS = 1000
# A settings file is a few kilobytes; a file past this is not one: it is neither parsed nor saved over.
MAX_FILE_BYTES = 1 << 20
# Top-level names a settings file of any schema version may hold; a damaged file with none of them was
# not read at all, whatever stray "key = value" its bytes happened to contain.
_KNOWN_TOP_LEVEL = {"schema_version", *GROUPS, "controls", "volume", "ghost"}
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
    """The settings file: ``path`` itself, ``path/settings.toml`` if ``path`` is a folder, or the default.

    A folder that is itself named settings.toml is a folder where the file should be, not a place to put
    one: it is returned as it is, so loading and saving report it instead of using a file inside it."""
    if path is None:
        return config_dir() / FILE_NAME
    chosen = Path(path).expanduser()
    return chosen / FILE_NAME if chosen.is_dir() and chosen.name != FILE_NAME else chosen


@dataclass
class LoadResult:
    """What :func:`load_settings` found.

    ``problems``: messages for the player about anything not read as written (empty when all is well): the
    file's (``file_problems``) then the environment variables' (``env_problems``).
    ``backup_path``: the copy of the original file, if one was needed. ``notices``: informational lines
    (schema upgrade, environment overrides in effect). ``migrated_from``: the file's older schema, if any.
    ``unreadable``: the file exists but nothing could be read from it (one message says so; defaults are
    used).
    ``overrides``: ``"group.field" -> STACKCOACH_ variable`` for every override in effect, and
    ``file_settings`` the settings as the file alone gave them: see :func:`without_overrides`.
    """

    settings: Settings
    path: Path
    problems: list[str] = field(default_factory=list)
    backup_path: Path | None = None
    notices: list[str] = field(default_factory=list)
    migrated_from: int | None = None
    file_problems: list[str] = field(default_factory=list)
    env_problems: list[str] = field(default_factory=list)
    unreadable: bool = False
    overrides: dict[str, str] = field(default_factory=dict)
    file_settings: Settings | None = None

    @property
    def ok(self) -> bool:
        return not self.problems


def backup_file(path: Path, content: bytes) -> Path:
    """Write ``content`` to the first free of ``<name>.bak``, ``.bak.1``, ``.bak.2``...; an existing backup
    with identical bytes is reused instead of piling up copies. Never overwrites a backup. Atomic: the bytes
    go to a temporary file that is fsynced and then linked into place, so a failed write (a full disk)
    leaves no partial backup behind. Raises OSError."""
    fd, temp_name = tempfile.mkstemp(prefix=f".{path.name}.bak.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(content)
            out.flush()
            os.fsync(out.fileno())
        for n in range(_MAX_BACKUPS):
            candidate = path.with_name(f"{path.name}.bak" if n == 0 else f"{path.name}.bak.{n}")
            try:
                os.link(temp_name, candidate)  # fails rather than clobber an existing backup
            except OSError as error:
                # FileExistsError, or a file system without hard links (then: rename if the name is free)
                taken = isinstance(error, FileExistsError) or candidate.exists() or candidate.is_symlink()
                if taken:
                    with contextlib.suppress(OSError):
                        if candidate.is_file() and candidate.read_bytes() == content:
                            return candidate
                    continue
                os.replace(temp_name, candidate)
            _fsync_dir(path.parent)
            return candidate
        raise OSError(f"too many backups of {path.name} already")
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temp_name)


def _decode(raw: bytes) -> tuple[str, str | None]:
    """Text and, if the bytes were not UTF-8, a description of where they went wrong."""
    try:
        return raw.decode("utf-8-sig"), None  # -sig: tolerate the BOM some Windows editors add
    except UnicodeDecodeError as error:
        text = raw.decode("utf-8-sig", errors="replace")
        line = raw[: error.start].count(b"\n") + 1
        return text, f"is not valid UTF-8 text (line {line}, byte {error.start})"


def _finish(
    path: Path, groups: dict[str, Any], file_problems: list[str], notices: list[str], **extra: Any
) -> LoadResult:
    """Apply the environment to the file's groups and assemble the result."""
    groups = dict(groups)
    groups.pop("schema_version", None)
    file_settings = Settings.model_construct(schema_version=CURRENT_SCHEMA, **groups)
    env, env_problems = read_env()
    env_problems = unknown_env_vars(os.environ) + env_problems
    applied: dict[str, str] = {}
    with_env, apply_problems, env_notices = apply_env(groups, env, applied=applied)
    env_problems += apply_problems
    fields: dict[str, Any] = {"schema_version": CURRENT_SCHEMA, **with_env}  # each group its own model type
    settings = Settings.model_construct(**fields)
    return LoadResult(
        settings=settings,
        path=path,
        problems=file_problems + env_problems,
        notices=notices + env_notices,
        file_problems=file_problems,
        env_problems=env_problems,
        overrides=applied,
        file_settings=file_settings,
        **extra,
    )


def _defaults() -> dict[str, Any]:
    return {name: model() for name, model in GROUPS.items()}


@dataclass
class _FileReading:
    """Everything learned from one file's bytes, before environment overrides."""

    groups: dict[str, Any]
    decode_problem: str | None
    unreadable: list[str]
    parsed: ParseOutcome
    migration: Migrated
    field_problems: list[str]
    upgraded: bool  # an older layout was actually rewritten (not just a missing schema_version)

    @property
    def read_nothing(self) -> bool:
        """True if the bytes could not be read as a settings file at all: they did not decode or parse, and
        nothing a settings file holds was found among what did."""
        failed = bool(self.decode_problem or self.parsed.errors)
        return failed and not any(key in _KNOWN_TOP_LEVEL for key in self.parsed.data)

    @property
    def needs_backup(self) -> bool:
        """True unless the file was read exactly as written, at the current schema."""
        m = self.migration
        return bool(self.decode_problem or self.parsed.errors or m.problems or self.field_problems) or (
            m.newer or self.upgraded
        )


def _read(raw: bytes) -> _FileReading:
    text, decode_problem = _decode(raw)
    parsed = parse_toml_lenient(text)
    unreadable = drop_unreadable(parsed.data) if decode_problem else []
    migration = migrate(parsed.data)
    groups, field_problems = salvage_groups(migration.data)
    as_written = {k: v for k, v in parsed.data.items() if k != "schema_version"}
    upgraded = migration.migrated and migration.data != as_written
    return _FileReading(groups, decode_problem, unreadable, parsed, migration, field_problems, upgraded)


def _read_or_fail(raw: bytes) -> tuple[_FileReading | None, str]:
    """The reading of ``raw``, or None and why the file cannot be read at all. Never raises: the last line
    of defence for "a settings file never stops the game from starting"."""
    try:
        reading = _read(raw)
    except Exception as error:  # noqa: BLE001 - whatever the bytes do to a parser, the game must start
        _log.warning("settings file could not be read", exc_info=True)
        if isinstance(error, RecursionError):
            return None, "nested too deeply"
        return None, f"{type(error).__name__}: {error}"[:200]
    if reading.read_nothing:
        if reading.decode_problem:
            return None, reading.decode_problem.removeprefix("is ")
        line, reason = reading.parsed.errors[0]
        return None, f"not valid TOML: {reason} (line {line})"
    return reading, ""


def _keep(target: Path, raw: bytes) -> tuple[Path | None, str]:
    """Back up ``raw``; returns (backup path or None, the words that say where the original is)."""
    try:
        backup = backup_file(target, raw)
    except OSError as error:
        return None, (
            f"could not keep a copy of the original ({error.strerror or error}); "
            "it will be replaced when settings are saved"
        )
    return backup, f"kept as {backup.name}"


def _lines(numbers: list[int], limit: int = 12) -> str:
    shown = ", ".join(str(n) for n in numbers[:limit])
    return shown + (f" and {len(numbers) - limit} more" if len(numbers) > limit else "")


def load_settings(path: PathLike | None = None) -> LoadResult:
    """Read settings from ``path`` (see :func:`settings_path`), then apply ``STACKCOACH_*`` overrides.

    A missing file gives defaults and no problems. Anything else wrong with the file (bad TOML, non-UTF-8,
    wrong types, out-of-range values, unknown keys, another schema version) is reported in ``problems``,
    the original bytes are backed up first, and every valid field is still used. A file nothing could be
    read from gets one message (kept as .bak, defaults used). Never raises for file content, whatever the
    bytes; the file itself is not modified.
    """
    target = settings_path(path)
    name = target.name
    if target.is_dir():
        return _finish(
            target,
            _defaults(),
            [
                f"could not read {name}: it is a folder, not a file; using the default settings "
                "(settings cannot be saved until it is moved away)"
            ],
            [],
            unreadable=True,
        )
    try:
        raw = _read_limited(target)
    except FileNotFoundError:
        return _finish(target, _defaults(), [], [])
    except OSError as error:
        reason = error.strerror or str(error)
        problem = f"could not read {name} ({reason}); using the default settings"
        return _finish(target, _defaults(), [problem], [], unreadable=True)

    if len(raw) > MAX_FILE_BYTES:  # not a settings file (or a device): left alone, never saved over
        problem = (
            f"{name} could not be read at all: more than {MAX_FILE_BYTES // 1024} KiB, far too large for a "
            "settings file; it is left as it is and settings will not be saved over it; "
            "using the default settings"
        )
        return _finish(target, _defaults(), [problem], [], unreadable=True)
    reading, why = _read_or_fail(raw)
    if reading is None:
        backup, kept = _keep(target, raw)
        problem = f"{name} could not be read at all: {why}; {kept}; using the default settings"
        return _finish(target, _defaults(), [problem], [], backup_path=backup, unreadable=True)

    parsed, migration = reading.parsed, reading.migration
    backup = None
    kept = original_kept = ""
    if reading.needs_backup:
        backup, kept = _keep(target, raw)
        original_kept = f"the original is kept as {backup.name}" if backup else kept

    problems: list[str] = []
    if reading.decode_problem:
        problems.append(f"{name} {reading.decode_problem}; {kept}; read what was readable")
        problems += [f"{key}: could not be read (not valid UTF-8); using the default" for key in reading.unreadable]
    if parsed.errors:
        line, reason = parsed.errors[0]
        lines = _lines([n for n, _ in parsed.errors])
        rest = f"skipped line{'s' if len(parsed.errors) > 1 else ''} {lines} and read the rest"
        problems.append(f"{name} is not valid TOML (line {line}): {reason}; {kept}; {rest}")
    if migration.newer:
        problems.append(
            f"{name} was written by a newer Stack Coach (settings version {migration.from_version}, this one "
            f"knows up to {CURRENT_SCHEMA}); loaded what this version understands; {original_kept}"
        )
    problems += migration.problems + reading.field_problems
    notices: list[str] = []
    if reading.upgraded:
        notices.append(
            f"{name} was upgraded from settings version {migration.from_version} to {CURRENT_SCHEMA}; {original_kept}"
        )
    if (migration.problems or reading.field_problems) and not (
        reading.decode_problem or parsed.errors or migration.newer or reading.upgraded
    ):
        problems.append(f"{name} had problems; {original_kept}")

    return _finish(
        target,
        reading.groups,
        problems,
        notices,
        backup_path=backup,
        migrated_from=migration.from_version if reading.upgraded else None,
    )


def without_overrides(settings: Settings, file_settings: Settings, overrides: Mapping[str, str]) -> Settings:
    """``settings`` as they may be saved: every value an environment variable set (``overrides``, as in
    :attr:`LoadResult.overrides`) is put back to the file's own value, so an override is never written to
    the file. Raises SettingsError if a group would no longer be valid that way (a key the player bound
    elsewhere now clashes with the file's binding for the overridden button)."""
    fields: dict[str, dict[str, str]] = {}
    for dotted, variable in overrides.items():
        group, _, name = dotted.partition(".")
        fields.setdefault(group, {})[name] = variable
    updates: dict[str, Any] = {}
    for group, names in fields.items():
        model = GROUPS[group]
        stored = getattr(file_settings, group)
        values = {**getattr(settings, group).model_dump(), **{n: getattr(stored, n) for n in names}}
        try:
            updates[group] = model.model_validate(values, strict=True)
        except ValidationError as error:
            first = error.errors(include_url=False)[0]
            where = f"{group}.{first['loc'][0]}" if first["loc"] else group
            raise SettingsError(
                f"{where}: {describe(first, model)} once the values set by "
                f"{', '.join(sorted(names.values()))} are left out of the file"
            ) from None
    return settings.model_copy(update=updates)


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


def _read_limited(target: Path) -> bytes:
    """The file's bytes, or its first ``MAX_FILE_BYTES + 1`` bytes if it is larger (or endless, /dev/zero)."""
    with open(target, "rb") as stream:
        return stream.read(MAX_FILE_BYTES + 1)


def _keep_unread_content(target: Path) -> None:
    """Back up the file about to be replaced unless it reads cleanly (valid, current schema, nothing
    unknown): it may have been damaged, hand-edited or written by another version since it was loaded, or
    its backup may have failed then. Raises OSError if it cannot be read or backed up: better no save than
    a silent loss."""
    try:
        raw = _read_limited(target)
    except FileNotFoundError:
        return
    if len(raw) > MAX_FILE_BYTES:
        raise OSError(errno.EFBIG, f"{target.name} is too large to be a settings file; move it away to save settings")
    reading, _ = _read_or_fail(raw)
    if reading is None or reading.needs_backup:
        kept = backup_file(target, raw)
        _log.warning("%s could not be read cleanly; kept a copy as %s before saving", target, kept)


def save_settings(settings: Settings, path: PathLike | None = None) -> Path:
    """Write ``settings`` as TOML to ``path`` (see :func:`settings_path`) atomically: a temporary file in
    the same folder is written, flushed and fsynced, then renamed over the target. On failure the old file
    is untouched, the temporary file is removed and the OSError propagates (IsADirectoryError when a folder
    stands where the file should be). An existing file that does not read cleanly is first backed up like
    :func:`load_settings` would. Returns the path written. Values set by environment variables are written
    as given: use :func:`without_overrides` first to keep them out of the file."""
    target = settings_path(path)
    if target.is_dir():
        reason = f"{target.name} is a folder, not a file; nothing was saved"
        raise IsADirectoryError(errno.EISDIR, reason, str(target))
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
