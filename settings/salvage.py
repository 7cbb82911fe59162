"""Read as much as possible out of a damaged or foreign settings file, and say what was not read.

Three layers, each keeping what it can:
* :func:`parse_toml_lenient` skips lines TOML cannot parse (a broken table header skips its whole table).
* :func:`salvage_groups` validates group by group and field by field: one bad field falls back to its
  default while the rest of its group is kept.
* :func:`apply_env` layers ``STACKCOACH_*`` environment overrides on top; a bad override is ignored.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_settings import EnvSettingsSource

from settings.messages import describe, show
from settings.model import ENV_NESTED_DELIMITER, ENV_PREFIX, GROUPS, Settings

_WHERE = re.compile(r"\s*\(at line (\d+), column \d+\)\s*$")
_AT_END = re.compile(r"\s*\(at end of document\)\s*$")
# Whole-document passes (each skips one bad line) before reading the rest statement by statement: every pass
# parses the file again, so a badly damaged file would otherwise take quadratic time.
_MAX_WHOLE_PASSES = 100
_MAX_STATEMENT_LINES = 64  # a multi-line value (a key list) longer than this is not read
_PARSE_BUDGET = 20_000  # tomllib calls in the line-by-line reader; past it the rest of the file is skipped
REPLACEMENT_CHAR = "\ufffd"


@dataclass
class ParseOutcome:
    """``data`` is what could be parsed. ``errors`` holds (line, reason) for every skipped line in line order;
    ``gave_up`` means nothing could be read."""

    data: dict[str, Any]
    errors: list[tuple[int, str]] = field(default_factory=list)
    gave_up: bool = False


def _reason(error: BaseException) -> str:
    """Why tomllib refused some text, without its "(at line ...)" suffix."""
    if isinstance(error, RecursionError):
        return "nested too deeply"
    message = str(error)
    if isinstance(error, ValueError) and "Exceeds the limit" in message and "digits" in message:
        return "a number with too many digits"
    return _AT_END.sub("", _WHERE.sub("", message)) or type(error).__name__


def _loads(text: str) -> tuple[dict[str, Any] | None, BaseException | None]:
    """tomllib.loads that returns its error instead of raising. Besides TOMLDecodeError, tomllib lets
    RecursionError (deep nesting) and ValueError (ints past Python's digit limit) escape."""
    try:
        return tomllib.loads(text), None
    except (tomllib.TOMLDecodeError, RecursionError, ValueError) as error:
        return None, error


def parse_toml_lenient(text: str) -> ParseOutcome:
    """Parse TOML, skipping each offending line (and a broken ``[table]`` header's whole table) and keeping
    every value that can be read, however many lines are bad. Line numbers in the result refer to the original
    text. Never raises for any text.

    Up to ``_MAX_WHOLE_PASSES`` bad lines are found by parsing the whole document again after blanking each
    one (exact TOML semantics); past that, or when tomllib fails without naming a line (deep nesting, huge
    integers), the rest is read statement by statement under its table header (:func:`_parse_by_statements`).
    """
    # Split on "\n" only: TOML counts lines that way, unlike str.splitlines.
    lines = text.split("\n")
    outcome = ParseOutcome({})
    for _ in range(_MAX_WHOLE_PASSES):
        data, error = _loads("\n".join(lines))
        if data is not None:
            outcome.data = data
            return outcome
        if not isinstance(error, tomllib.TOMLDecodeError):
            break  # no line number to skip: read statement by statement
        where = _WHERE.search(str(error))
        if where:
            index = int(where.group(1)) - 1
        else:  # "(at end of document)": a truncated file; its last non-blank line is the broken one
            index = max((i for i, line in enumerate(lines) if line.strip()), default=-1)
        if not 0 <= index < len(lines) or not lines[index].strip():
            break  # no progress possible this way
        outcome.errors.append((index + 1, _reason(error)))
        _blank(lines, index)
    _parse_by_statements(lines, outcome)
    outcome.errors.sort(key=lambda item: item[0])
    outcome.gave_up = not outcome.data and bool(outcome.errors)
    return outcome


def _blank(lines: list[str], index: int) -> None:
    header = lines[index].lstrip().startswith("[")
    lines[index] = ""
    if header:  # keys after a broken header would land in the wrong table
        for j in range(index + 1, len(lines)):
            if lines[j].lstrip().startswith("["):
                break
            lines[j] = ""


def _incomplete(error: BaseException | None, last_line: int) -> bool:
    """True if ``error`` says the text simply ended too early (a value continued on the next lines)."""
    if not isinstance(error, tomllib.TOMLDecodeError):
        return False
    message = str(error)
    where = _WHERE.search(message)
    return bool(_AT_END.search(message)) or (where is not None and int(where.group(1)) >= last_line)


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


def _parse_by_statements(lines: list[str], outcome: ParseOutcome) -> None:
    """Read ``lines`` (bad ones already blanked) one statement at a time: each ``[header]`` alone, each
    ``key = value`` (with the lines a multi-line value needs) under the last good header. Statements that do
    not parse are recorded in ``outcome.errors``; the keys of a broken header are skipped with it. Linear in
    the file size: at most ``_PARSE_BUDGET`` parses, after which the rest is reported unread."""
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
        if stripped.startswith("["):
            budget -= 1
            parsed, error = _loads(lines[i])
            if parsed is None or _merge(data, parsed) is not None and not stripped.startswith("[["):
                outcome.errors.append((i + 1, _reason(error) if error else "table defined twice"))
                header = None
            else:
                header = lines[i]
            i += 1
            continue
        if header is None:
            i += 1
            continue
        end = i + 1
        while True:
            budget -= 1
            parsed, error = _loads(header + "\n" + "\n".join(lines[i:end]))
            if parsed is not None:
                duplicate = _merge(data, parsed)
                if duplicate is not None:
                    outcome.errors.append((i + 1, f"duplicate key {duplicate!r}; kept the first"))
                i = end
                break
            if (
                _incomplete(error, 1 + end - i)
                and end < len(lines)
                and end - i < _MAX_STATEMENT_LINES
                and budget > 0
            ):
                end += 1
                continue
            outcome.errors.append((i + 1, _reason(error) if error else "could not be read"))
            i += 1
            break
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
            problems.append(
                f"{name}: expected a table [{name}], got {show(raw)}; using the defaults for [{name}]"
            )
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


# STACKCOACH_* variables the project reads that are not settings: settings.store, ui.store and ui.app read
# the first six, the fuzz tests FUZZ_SCALE. None of them is reported as a misspelt setting.
OTHER_VARIABLES = frozenset(
    {"CONFIG_DIR", "DATA_DIR", "SEED", "SCRIPT", "SCREENSHOT", "FRAMES", "FUZZ_SCALE"}
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
    """``STACKCOACH_*`` overrides as nested raw data, using pydantic-settings' own parsing. A group whose
    variables cannot be parsed (a list that is not valid JSON) is skipped and reported; the others apply."""
    source = EnvSettingsSource(Settings)
    problems: list[str] = []
    for _ in range(len(GROUPS) + 2):
        try:
            return source(), problems
        except Exception as error:  # noqa: BLE001 - pydantic-settings names the group in its message
            match = re.search(r'field "(\w+)"', str(error))
            env_vars = getattr(source, "env_vars", None)
            prefix = env_var(match.group(1)).lower() if match else ""
            bad = [
                k
                for k in env_vars or {}
                if prefix and (k.lower() == prefix or k.lower().startswith(prefix + "__"))
            ]
            if not bad or not isinstance(env_vars, Mapping):
                return {}, [*problems, f"environment overrides ignored: {error}"]
            cause = error.__cause__ or error
            problems.append(f"{', '.join(sorted(k.upper() for k in bad))} ignored: not valid JSON ({cause})")
            source.env_vars = {k: v for k, v in env_vars.items() if k not in bad}
    return {}, problems


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
        problems += [
            f"{env_var(name, k)}: unknown setting '{name}.{k}'; ignored" for k in overrides if k not in known
        ]
        base = groups[name].model_dump()
        while known:
            instance, errors = _validate(model, {**base, **known}, strict=False)  # env values are text
            if instance is not None:
                notices += [
                    f"{name}.{k} = {show(getattr(instance, k))} (from {env_var(name, k)})" for k in known
                ]
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
