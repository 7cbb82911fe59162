"""Read solution-finder's kick `.properties` files into our kick-table document shape.

Lines look like ``T.NE=(0,0)(-1,0)(-1,+1)(0,-2)(@-1,-2)`` (N/E/S/W are the states 0/R/2/L) or refer to another
entry (``J.NE=L.NE``). solution-finder writes every kick in the cell-centred frame we use, I and O included,
so the result sets all centre offsets to zero. The ``@`` mark (its T-spin kick marker) is accepted; our spin
rule recognises that kick by its shape, (+-1, +-2).
"""

from __future__ import annotations

import re
from typing import Any

from game.rotation import KickTableError

_STATE = {"N": "0", "E": "R", "S": "2", "W": "L"}
_KEY = re.compile(r"^([IJLOSTZ])\.([NESW])([NESW])$")
_TEST = re.compile(r"\(\s*@?\s*([+-]?[0-9]+)\s*,\s*([+-]?[0-9]+)\s*\)")  # ASCII digits only
_MAX_DIGITS = 6  # kicks are within -4..4; longer numbers are refused before int() (which stops at 4,300 digits)
_SHOWN = 60  # at most this much of a bad line is quoted, so an error stays one short line


def _shown(text: str) -> str:
    return repr(text if len(text) <= _SHOWN else text[:_SHOWN] + "...")


def parse_properties(text: str, source: str = "<properties>") -> dict[str, Any]:
    """Turn a solution-finder kick file into the dict `build_rotation_system` validates."""
    raw: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith(("#", "!")):
            continue
        key, sep, value = line.partition("=")
        key = key.strip()
        if not sep or not _KEY.match(key):
            raise KickTableError(f"{source}: line {number}: expected e.g. T.NE=(0,0)(-1,0), got {_shown(line)}")
        if key in raw:
            raise KickTableError(f"{source}: line {number}: {key} is given twice")
        raw[key] = value.strip()

    kicks: dict[str, dict[str, list[list[int]]]] = {}
    for key, written in raw.items():  # values may refer to other keys: _resolve follows them
        value = _resolve(key, raw, source)
        tests = _TEST.findall(value)
        leftover = _TEST.sub("", value).strip()
        if not tests or leftover:
            raise KickTableError(f"{source}: {key}: cannot read kick tests from {_shown(written)}")
        piece, start, end = _KEY.match(key).groups()  # type: ignore[union-attr]
        if start == end:
            raise KickTableError(f"{source}: {key}: a rotation must change the state")
        transition = _STATE[start] + _STATE[end]
        for dx, dy in tests:
            if max(len(dx.lstrip("+-")), len(dy.lstrip("+-"))) > _MAX_DIGITS:
                raise KickTableError(
                    f"{source}: {key}: kick ({dx[:8]}...) has a number of more than {_MAX_DIGITS} "
                    f"digits (each part must be within -4..4)"
                )
        kicks.setdefault(piece, {})[transition] = [[int(dx), int(dy)] for dx, dy in tests]
    if not raw:
        raise KickTableError(f"{source}: no kick table found (expected lines like T.NE=(0,0)(-1,0))")
    zero = {state: [0, 0] for state in "0R2L"}
    return {
        "name": source.rsplit("/", 1)[-1].removesuffix(".properties"),
        "description": "solution-finder kick table",
        "kicks": kicks,
        "offsets": {piece: dict(zero) for piece in "IJLOSTZ"},
    }


def _resolve(key: str, raw: dict[str, str], source: str, seen: tuple[str, ...] = ()) -> str:
    value = raw[key]
    if _KEY.match(value):
        if value in seen or value == key:
            raise KickTableError(f"{source}: {key}: circular reference through {value}")
        if value not in raw:
            raise KickTableError(f"{source}: {key} refers to {value}, which is not defined")
        return _resolve(value, raw, source, seen + (key,))
    return value
