"""Turn pydantic validation errors into short sentences a player can act on.

Messages quote values the way they would appear in settings.toml and, for range errors, give the whole
allowed range (and unit) read from the field's ``Field(ge=, le=)`` declaration.
"""

from __future__ import annotations

import datetime as _dt
import json
from typing import Any

import annotated_types
from pydantic import BaseModel
from pydantic_core import ErrorDetails

_RANGE_ERRORS = {"greater_than", "greater_than_equal", "less_than", "less_than_equal"}
_EXPECTED = {
    "int_type": "a whole number",
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "float_parsing": "a number",
    "finite_number": "a finite number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "string_type": "text in quotes",
    "tuple_type": "a list",
    "list_type": "a list",
    "dict_type": "a table",
    "model_type": "a table",
}


_MAX_SHOWN = 60  # characters of a value quoted in a message; a 4,000-digit number is shown cut short


def show(value: Any) -> str:
    """A value as it would be written in TOML (strings in double quotes, true/false, lists in brackets),
    cut to about 60 characters with "…" so a huge or deeply nested value cannot flood a message."""
    try:
        text = _show(value)
    except (RecursionError, ValueError):  # nested too deeply to print, or an int past the digit limit
        return "a value too large to show"
    return text if len(text) <= _MAX_SHOWN else text[: _MAX_SHOWN - 1] + "…"


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_show(v) for v in value[:_MAX_SHOWN]) + "]"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, (_dt.date, _dt.time)):
        return value.isoformat()
    if value is None:
        return "nothing"
    return repr(value)


def _bounds(model: type[BaseModel], field: str) -> tuple[Any, Any, str | None]:
    info = model.model_fields.get(field)
    lo: Any = None
    hi: Any = None
    unit: str | None = None
    if info is not None:
        for meta in info.metadata:
            if isinstance(meta, (annotated_types.Ge, annotated_types.Gt)):
                lo = getattr(meta, "ge", getattr(meta, "gt", None))
            if isinstance(meta, (annotated_types.Le, annotated_types.Lt)):
                hi = getattr(meta, "le", getattr(meta, "lt", None))
        extra = info.json_schema_extra
        named = extra.get("unit") if isinstance(extra, dict) else None
        if isinstance(named, str):
            unit = named
    return lo, hi, unit


def describe(error: ErrorDetails, model: type[BaseModel]) -> str:
    """One pydantic error on ``model`` as a sentence without the field name, e.g.
    ``99999 is out of range (allowed 0..1000 ms)`` or ``expected a whole number, got "five"``."""
    kind = error["type"]
    value = error.get("input")
    ctx = error.get("ctx") or {}
    field = str(error["loc"][0]) if error["loc"] else ""
    if kind in _RANGE_ERRORS:
        lo, hi, unit = _bounds(model, field)
        if lo is not None and hi is not None:
            suffix = f" {unit}" if unit else ""
            return f"{show(value)} is out of range (allowed {lo}..{hi}{suffix})"
        return f"{show(value)} is out of range ({error['msg'].lower()})"
    if kind == "literal_error":
        return f"{show(value)} is not one of {ctx.get('expected', '')}"
    if kind in _EXPECTED:
        return f"expected {_EXPECTED[kind]}, got {show(value)}"
    if kind == "string_too_short":
        return "cannot be empty"
    if kind == "string_too_long":
        return f"{show(value)} is too long (at most {ctx.get('max_length')} characters)"
    if kind == "string_pattern_mismatch":
        return f"{show(value)} is not a valid name (use letters, digits, spaces, '-' and '_')"
    if kind == "extra_forbidden":
        return "unknown setting"
    if kind == "value_error" and isinstance(ctx.get("error"), Exception):
        return str(ctx["error"])  # our validator's own message, not pydantic's wording around it
    return str(error["msg"])
