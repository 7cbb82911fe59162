"""Schema versions and the migrations between them.

``MIGRATIONS[n]`` turns raw file data of schema ``n`` into schema ``n + 1``. Migrations work on untrusted
dicts straight from TOML: they only move and rename values, never validate them (the loader does that
afterwards, field by field), and they leave anything they do not understand where the loader will report it
as an unknown key rather than dropping it silently.

Version 0 is the layout of the first Stack Coach builds, which wrote no ``schema_version``::

    volume = 70              # master volume, 0..100
    ghost = true
    [controls]
    das = 10                 # frames
    arr = 2                  # frames
    soft_drop = 20           # soft drop factor; 0 meant instant
    left = "left"            # one key per action
    right = "right"
    soft = "down"
    hard = "space"
    cw = "x"
    ccw = "z"
    hold = "c"
    pause = "escape"
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from settings.messages import show
from settings.model import CURRENT_SCHEMA

Migration = Callable[[dict[str, Any]], dict[str, Any]]

_V0_KEYS = {
    "left": "move_left",
    "right": "move_right",
    "soft": "soft_drop",
    "hard": "hard_drop",
    "cw": "rotate_cw",
    "ccw": "rotate_ccw",
    "hold": "hold",
    "pause": "pause",
}


def _table(data: dict[str, Any], name: str) -> dict[str, Any]:
    """A copy of ``data[name]`` if it is a table, else a fresh table (a non-table value is left for the
    loader to report, under its own name)."""
    value = data.get(name)
    return dict(value) if isinstance(value, dict) else {}


def _v0_to_v1(data: dict[str, Any]) -> dict[str, Any]:
    """v0 flat [controls] table and top-level volume/ghost -> v1 [handling], [keys], [audio], [display]."""
    out = {k: v for k, v in data.items() if k not in ("controls", "volume", "ghost")}
    controls = data.get("controls")
    if isinstance(controls, dict):
        leftover = dict(controls)
        handling = _table(out, "handling")
        if "das" in leftover or "arr" in leftover:
            handling.setdefault("unit", "frames")  # v0 timings were always frames
        for name in ("das", "arr"):
            if name in leftover:
                handling[name] = leftover.pop(name)
        if "soft_drop" in leftover:
            factor = leftover.pop("soft_drop")
            handling["sdf"] = "instant" if factor == 0 and not isinstance(factor, bool) else factor
        keys = _table(out, "keys")
        for old, button in _V0_KEYS.items():
            if old in leftover:
                keys[button] = leftover.pop(old)  # a single key string is accepted as a one-key list
        if handling:
            out["handling"] = handling
        if keys:
            out["keys"] = keys
        if leftover:
            out["controls"] = leftover  # reported as unknown keys, not lost silently
    elif controls is not None:
        out["controls"] = controls
    if "volume" in data:
        audio = _table(out, "audio")
        audio["master_volume"] = data["volume"]
        out["audio"] = audio
    if "ghost" in data:
        display = _table(out, "display")
        display["ghost"] = data["ghost"]
        out["display"] = display
    return out


MIGRATIONS: dict[int, Migration] = {0: _v0_to_v1}


@dataclass
class Migrated:
    """Outcome of :func:`migrate`: the data (at ``CURRENT_SCHEMA`` unless ``newer`` or a migration failed),
    the version the file claimed, and player-facing problems."""

    data: dict[str, Any]
    from_version: int
    newer: bool = False
    problems: list[str] = field(default_factory=list)

    @property
    def migrated(self) -> bool:
        return self.from_version < CURRENT_SCHEMA


def migrate(data: dict[str, Any]) -> Migrated:
    """Bring raw file data up to ``CURRENT_SCHEMA``. Never raises: a failing migration is reported and the
    data is validated as it stands. A missing ``schema_version`` means version 0."""
    data = dict(data)
    raw = data.pop("schema_version", 0)
    result = Migrated(data, from_version=CURRENT_SCHEMA)
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < 0:
        result.problems.append(
            f"schema_version: {show(raw)} is not a version number; read the file as version {CURRENT_SCHEMA}"
        )
        return result
    result.from_version = version = raw
    if version > CURRENT_SCHEMA:
        result.newer = True
        return result
    while version < CURRENT_SCHEMA:
        step = MIGRATIONS.get(version)
        try:
            if step is None:
                raise LookupError(f"no migration from version {version}")
            result.data = step(dict(result.data))
        # A migration bug must not cost the player their settings.
        except Exception as error:  # noqa: BLE001 - see above: any migration bug keeps the file as it stands
            result.problems.append(
                f"could not upgrade settings from version {version} ({error}); read what was valid as it stands"
            )
            return result
        version += 1
    return result
