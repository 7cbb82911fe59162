"""Read as much as possible out of a damaged or foreign settings file, and say what was not read.

Three layers, each keeping what it can:
* :func:`parse_toml_lenient` skips statements TOML cannot parse (a broken table header skips its whole table).
* :func:`salvage_groups` validates group by group and field by field: one bad field falls back to its
  default while the rest of its group is kept.
* :func:`apply_env` layers ``STACKCOACH_*`` environment overrides on top; a bad override is ignored.

Nothing here reads the *wording* of a library's error: where a statement starts and ends comes from our own
scan of the text, which field is wrong from pydantic's structured ``errors()`` (loc, type, input), and which
environment variable is unreadable from trying each one. tomllib's message is only shown to the player.
"""

from __future__ import annotations

import contextlib
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_settings import EnvSettingsSource

from settings.messages import describe, show
from settings.model import ENV_NESTED_DELIMITER, ENV_PREFIX, GROUPS, Settings

_MAX_STATEMENT_LINES = 64  # a multi-line value (a key list) longer than this is not read
_PARSE_BUDGET = 20_000  # tomllib calls in the statement reader; past it the rest of the file is skipped
REPLACEMENT_CHAR = "\ufffd"
# What changes the nesting of a line: a multi-line string delimiter, a one-line string (possibly unclosed), a
# bracket or brace, or a comment (the rest of the line).
_TOKEN = re.compile(r'"""|\'\'\'|"(?:[^"\\]|\\.)*"?|\'[^\']*\'?|[\[\]{}#]')


@dataclass
class ParseOutcome:
    """``data`` is what could be parsed. ``errors`` holds (line, reason) for every skipped statement in line
    order."""

    data: dict[str, Any]
    errors: list[tuple[int, str]] = field(default_factory=list)


def _reason(error: BaseException) -> str:
    """Why tomllib refused some text, told by the kind of error; a TOMLDecodeError's own message is shown as
    it is, without the position it gives inside the statement that was parsed (the caller gives the line)."""
    if isinstance(error, RecursionError):
        return "nested too deeply"
    if not isinstance(error, tomllib.TOMLDecodeError):  # tomllib's int() past Python's digit limit
        return "a number with too many digits"
    message = getattr(error, "msg", None)  # Python 3.14+ keeps the message apart from the position
    if not isinstance(message, str):
        text = str(error)
        head, found, _ = text.rpartition(" (at ")
        message = head if found else text
    return message or type(error).__name__


def _loads(text: str) -> tuple[dict[str, Any] | None, BaseException | None]:
    """tomllib.loads that returns its error instead of raising. Besides TOMLDecodeError, tomllib lets
    RecursionError (deep nesting) and ValueError (ints past Python's digit limit) escape."""
    try:
        return tomllib.loads(text), None
    except (tomllib.TOMLDecodeError, RecursionError, ValueError) as error:
        return None, error


def parse_toml_lenient(text: str) -> ParseOutcome:
    """Parse TOML, skipping each statement that does not parse (and a broken ``[table]`` header's whole
    table) and keeping every value that can be read, however many lines are bad. Line numbers in the result
    refer to the original text. Never raises for any text.

    A document that parses is read whole (exact TOML semantics); otherwise it is read statement by statement
    under its table header (:func:`_parse_by_statements`), linear in its size.
    """
    data, _ = _loads(text)
    if data is not None:
        return ParseOutcome(data)
    outcome = ParseOutcome({})
    # Split on "\n" only: TOML counts lines that way, unlike str.splitlines.
    _parse_by_statements(text.split("\n"), outcome)
    outcome.errors.sort(key=lambda item: item[0])
    return outcome


def _scan(line: str, depth: int, string: str | None) -> tuple[int, str | None]:
    """Nesting after ``line``, starting from ``depth`` open brackets and braces and ``string``, the delimiter
    of a multi-line string still open (or None). Brackets inside strings and comments do not count; a one-line
    string left open ends with its line, as TOML has it."""
    pos = 0
    while True:
        if string is not None:
            end = line.find(string, pos)
            if end < 0:
                return depth, string
            pos, string = end + 3, None
        token = _TOKEN.search(line, pos)
        if token is None:
            return depth, None
        kind = token.group()
        if kind == "#":
            return depth, None
        if kind in ('"""', "'''"):
            string = kind
        elif kind in "[{":
            depth += 1
        elif kind in "]}":
            depth = max(depth - 1, 0)
        pos = token.end()


def _statement_end(lines: list[str], start: int) -> int:
    """One past the last line of the key/value statement starting at ``lines[start]``: the lines an open
    bracket or multi-line string needs, up to ``_MAX_STATEMENT_LINES`` and the end of the text."""
    depth, string = _scan(lines[start], 0, None)
    end = start + 1
    limit = min(len(lines), start + _MAX_STATEMENT_LINES)
    while (depth or string) and end < limit:
        depth, string = _scan(lines[end], depth, string)
        end += 1
    return end


def _merge(into: dict[str, Any], new: dict[str, Any]) -> str | None:
    """Add ``new`` to ``into`` table by table; a key already present keeps its first value. Returns the
    dotted name of the first duplicate, if any. Iterative: a header may nest thousands of tables deep."""
    duplicate: str | None = None
    stack: list[tuple[dict[str, Any], dict[str, Any], str]] = [(into, new, "")]
    while stack:
        target, source, prefix = stack.pop()
        for key, value in source.items():
            if key not in target:
                target[key] = value
            elif isinstance(target[key], dict) and isinstance(value, dict):
                stack.append((target[key], value, f"{prefix}{key}."))
            elif duplicate is None:
                duplicate = f"{prefix}{key}"
    return duplicate


def _duplicate_reason(header: str, statement: str, name: str) -> str:
    """Why a statement that parses alone cannot follow an earlier one: tomllib's own words for the statement
    written twice (a key set twice, or a table declared twice)."""
    _, error = _loads(f"{header}\n{statement}\n{statement}")
    return _reason(error) if error is not None else f"duplicate key {name!r}"


def _parse_by_statements(lines: list[str], outcome: ParseOutcome) -> None:
    """Read ``lines`` one statement at a time: each ``[header]`` alone, each ``key = value`` (with the lines an
    open bracket or multi-line string needs) under the last good header. A statement that does not parse is
    recorded in ``outcome.errors`` at its first line and the reading goes on from the next line; the keys of a
    broken header are skipped with it; a key or table already read keeps its first value. At most
    ``_PARSE_BUDGET`` parses, after which the rest is reported unread."""
    data: dict[str, Any] = {}
    header: str | None = ""  # the current table header line; None inside a broken header's table
    budget = _PARSE_BUDGET
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        if not stripped or stripped.startswith("#"):
            i += 1
            continue
        if budget <= 0:
            outcome.errors.append((i + 1, "too many unreadable lines; stopped reading here"))
            break
        budget -= 1
        if stripped.startswith("["):
            parsed, error = _loads(lines[i])
            duplicate = None if parsed is None else _merge(data, parsed)
            if parsed is None or (duplicate is not None and not stripped.startswith("[[")):
                why = _reason(error) if error else _duplicate_reason("", lines[i], str(duplicate))
                outcome.errors.append((i + 1, why))
                header = None
            else:
                header = lines[i]
            i += 1
            continue
        if header is None:
            i += 1
            continue
        end = _statement_end(lines, i)
        statement = "\n".join(lines[i:end])
        parsed, error = _loads(header + "\n" + statement)
        if parsed is None:
            outcome.errors.append((i + 1, _reason(error) if error else "could not be read"))
            i += 1  # the lines it took in are read again: only its first line is known to be bad
            continue
        duplicate = _merge(data, parsed)
        if duplicate is not None:
            outcome.errors.append((i + 1, f"{_duplicate_reason(header, statement, duplicate)}; kept the first"))
        i = end
    _merge(outcome.data, data)


def drop_unreadable(data: dict[str, Any], prefix: str = "") -> list[str]:
    """Remove (in place) values holding text that was not valid UTF-8 (decoded as U+FFFD); returns their
    dotted names. Only used after a non-UTF-8 file was decoded with replacement. Iterative, so tables and
    arrays nested thousands deep are no problem."""
    dropped: list[str] = []
    tables: list[tuple[dict[str, Any], str]] = [(data, prefix)]
    while tables:
        table, where = tables.pop()
        for key in list(table):
            value = table[key]
            name = f"{where}{key}"
            if isinstance(value, dict):
                tables.append((value, name + "."))
            elif _holds_replacement(value):
                del table[key]
                dropped.append(name)
    return sorted(dropped)


def _holds_replacement(value: Any) -> bool:
    """True if U+FFFD occurs in ``value`` or anything nested in it (a key or a string)."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if REPLACEMENT_CHAR in item:
                return True
        elif isinstance(item, dict):
            pending += [*item.keys(), *item.values()]
        elif isinstance(item, (list, tuple)):
            pending += item
    return False


def _validate(model: type[BaseModel], data: dict[str, Any], strict: bool) -> tuple[BaseModel | None, list]:
    try:
        return model.model_validate(data, strict=strict), []
    except ValidationError as error:
        return None, error.errors(include_url=False)


def salvage_group(
    model: type[BaseModel], name: str, data: dict[str, Any], strict: bool = True
) -> tuple[BaseModel, dict[str, str], list[str]]:
    """Validate ``data`` (known fields only) for one group, dropping each invalid field so it takes its
    default. Returns (instance, {field: why it was dropped}, whole-group messages). File data is validated
    strictly (no "5" for 5, no true for 1); environment data, which is all text, is not."""
    data = dict(data)
    dropped: dict[str, str] = {}
    messages: list[str] = []
    for _ in range(len(model.model_fields) + 3):
        instance, errors = _validate(model, data, strict)
        if instance is not None:
            return instance, dropped, messages
        field_errors = [e for e in errors if e["loc"] and e["loc"][0] in data]
        for error in field_errors:
            key = str(error["loc"][0])
            dropped.setdefault(key, describe(error, model))
            data.pop(key, None)
        if field_errors:
            continue
        reason = "; ".join(describe(e, model) for e in errors)
        repair = getattr(model, "_salvage_repair", None)
        if repair is not None and data:
            try:
                data, fixes = repair(data)
            except Exception:  # noqa: BLE001 - a failed repair falls back to the group defaults
                fixes = []
            if fixes:
                messages += fixes
                continue
        messages.append(f"{name}: {reason}; using the defaults for [{name}]")
        data = {}
    return model(), dropped, messages


def salvage_groups(data: dict[str, Any]) -> tuple[dict[str, BaseModel], list[str]]:
    """Every group from raw (current-schema) file data, plus messages for whatever was not kept."""
    problems: list[str] = []
    for key, value in data.items():
        if key not in GROUPS:
            names = [f"{key}.{sub}" for sub in value] if isinstance(value, dict) and value else [key]
            problems += [f"unknown key '{n}' ignored" for n in names]
    groups: dict[str, BaseModel] = {}
    for name, model in GROUPS.items():
        raw = data.get(name, {})
        if not isinstance(raw, dict):
            problems.append(f"{name}: expected a table [{name}], got {show(raw)}; using the defaults for [{name}]")
            raw = {}
        known = {k: v for k, v in raw.items() if k in model.model_fields}
        problems += [f"unknown key '{name}.{k}' ignored" for k in raw if k not in model.model_fields]
        instance, dropped, messages = salvage_group(model, name, known)
        for key, why in dropped.items():
            problems.append(f"{name}.{key}: {why}; using {show(getattr(instance, key))}")
        problems += messages
        groups[name] = instance
    return groups, problems


def env_var(*parts: str) -> str:
    return ENV_PREFIX + ENV_NESTED_DELIMITER.join(p.upper() for p in parts)


# STACKCOACH_* variables the project reads that are not settings: settings.store, ui.store, ai.logs and ui.app
# read the first seven, the fuzz tests FUZZ_SCALE. None of them is reported as a misspelt setting.
OTHER_VARIABLES = frozenset(
    {"CONFIG_DIR", "DATA_DIR", "LOG_DIR", "SEED", "SCRIPT", "SCREENSHOT", "FRAMES", "FUZZ_SCALE"}
)


def unknown_env_vars(environ: Mapping[str, str]) -> list[str]:
    """Messages for ``STACKCOACH_*`` variables that name neither a settings group nor another variable the app
    reads (a misspelling such as ``STACKCOACH_HANDLNG__DAS``), which pydantic-settings would skip silently.
    Unknown settings inside a known group are reported by :func:`apply_env`."""
    problems = []
    for name in sorted(environ):
        upper = name.upper()
        if not upper.startswith(ENV_PREFIX):
            continue
        rest = upper[len(ENV_PREFIX) :]
        group = rest.split(ENV_NESTED_DELIMITER, 1)[0]
        if group.lower() in GROUPS or group in OTHER_VARIABLES or group == "SCHEMA_VERSION":
            continue
        problems.append(
            f"{name} is not a Stack Coach setting; ignored "
            f"(settings are {ENV_PREFIX}<GROUP>{ENV_NESTED_DELIMITER}<SETTING> with a group of "
            f"{', '.join(g.upper() for g in GROUPS)})"
        )
    return problems


def read_env() -> tuple[dict[str, Any], list[str]]:
    """``STACKCOACH_*`` overrides as nested raw data, using pydantic-settings' own parsing. A variable that
    cannot be parsed (a list that is not valid JSON) is skipped and reported; the others apply. Which one is
    bad is found by parsing each variable alone, not by reading the error's wording."""
    source = EnvSettingsSource(Settings)
    with contextlib.suppress(Exception):  # some variable did not parse: find which below
        return source(), []
    env_vars = dict(getattr(source, "env_vars", None) or {})
    ours = {k: v for k, v in env_vars.items() if k.upper().startswith(ENV_PREFIX)}
    problems: list[str] = []
    bad: set[str] = set()
    for name in sorted(ours):
        source.env_vars = {name: ours[name]}
        try:
            source()
        except Exception as error:  # noqa: BLE001 - pydantic-settings raises its own SettingsError
            bad.add(name)
            cause = error.__cause__ or error
            problems.append(f"{name.upper()} ignored: not valid JSON ({cause})")
    source.env_vars = {k: v for k, v in env_vars.items() if k not in bad}
    try:
        return source(), problems
    except Exception as error:  # noqa: BLE001 - variables that parse alone but not together
        return {}, [*problems, f"environment overrides ignored: {error}"]


def apply_env(
    groups: dict[str, BaseModel], env: dict[str, Any], *, applied: dict[str, str] | None = None
) -> tuple[dict[str, BaseModel], list[str], list[str]]:
    """Layer environment overrides on validated groups. Returns (groups, problems, notices). A bad override
    is ignored and the file's value kept; overrides that clash with the rest of their group (a key already
    bound elsewhere, a unit that makes the file's DAS out of range) are all ignored for that group.
    ``applied``, if given, receives ``"group.field" -> variable name`` for every override that took effect."""
    problems: list[str] = []
    notices: list[str] = []
    groups = dict(groups)
    for name, overrides in env.items():
        if name not in GROUPS:
            problems.append(f"{env_var(name)} is not a setting that can be overridden; ignored")
            continue
        if not isinstance(overrides, dict):
            problems.append(f"{env_var(name)}: expected {env_var(name, 'setting')}=value; ignored")
            continue
        model = GROUPS[name]
        known = {k: v for k, v in overrides.items() if k in model.model_fields}
        problems += [f"{env_var(name, k)}: unknown setting '{name}.{k}'; ignored" for k in overrides if k not in known]
        base = groups[name].model_dump()
        while known:
            instance, errors = _validate(model, {**base, **known}, strict=False)  # env values are text
            if instance is not None:
                notices += [f"{name}.{k} = {show(getattr(instance, k))} (from {env_var(name, k)})" for k in known]
                if applied is not None:
                    applied.update({f"{name}.{k}": env_var(name, k) for k in known})
                groups[name] = instance
                break
            own = [e for e in errors if e["loc"] and e["loc"][0] in known]
            for error in own:
                key = str(error["loc"][0])
                if known.pop(key, None) is not None:
                    problems.append(f"{env_var(name, key)}: {describe(error, model)}; ignored")
            if not own:
                where = [f"{name}.{e['loc'][0]}: " if e["loc"] else "" for e in errors]
                detail = "; ".join(w + describe(e, model) for w, e in zip(where, errors))
                problems.append(f"{', '.join(env_var(name, k) for k in known)} ignored: {detail}")
                break
    return groups, problems, notices
