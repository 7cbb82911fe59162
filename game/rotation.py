"""Rotation systems as data: kick tables loaded from TOML files (built-in ones ship in game/data/kicks/).

The engine, the move generator and the perfect-clear solver all ask one `RotationSystem` for the positions a
rotation may try, so a hint is always executable under the rules in force.

File format (see game/data/kicks/srs.toml for a commented example):
  name, description         strings
  [kicks.<PIECES>]          PIECES is a group of piece letters ("JLSTZ", "I", "O", or single letters)
  <transition> = [[dx, dy], ...]   transition in 0R R0 R2 2R 2L L2 L0 0L (90 degrees) or 02 20 RL LR (180)
  [offsets.<PIECE>]         optional: the point a piece turns about, per state 0/R/2/L, as [dx, dy]
A transition that is not listed rotates without kicking. Kicks are written in the published "true centre"
form; the engine adds the difference of the piece's state offsets (SRS's I and O offsets by default).
"""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Any

from game.pieces import SHAPES, Cell, Piece, Rotation

TRANSITIONS_90 = ("0R", "R0", "R2", "2R", "2L", "L2", "L0", "0L")
TRANSITIONS_180 = ("02", "20", "RL", "LR")
ALL_TRANSITIONS = TRANSITIONS_90 + TRANSITIONS_180
MAX_KICK_TESTS = 16
MAX_KICK_DISTANCE = 4

# SRS turns I and O about the centre of their box, not about a cell; these per-state offsets say where that
# centre is relative to our cell-centred position. kick(a -> b) = table_kick + offset[a] - offset[b].
SRS_OFFSETS: dict[Piece, tuple[Cell, Cell, Cell, Cell]] = {
    Piece.I: ((0, 0), (-1, 0), (-1, 1), (0, 1)),
    Piece.O: ((0, 0), (0, -1), (-1, -1), (-1, 0)),
}
_NO_OFFSETS: tuple[Cell, Cell, Cell, Cell] = ((0, 0), (0, 0), (0, 0), (0, 0))


class KickTableError(ValueError):
    """A kick-table file is unreadable or invalid; the message names the file and the bad key or value."""


@dataclass(frozen=True)
class RotationSystem:
    """Kick tests for every (piece, start state, end state), already in the engine's cell-centred frame."""

    name: str
    description: str
    # (piece, start, end) -> offsets to try in order, each added to the piece position after turning.
    tests: dict[tuple[Piece, Rotation, Rotation], tuple[Cell, ...]] = field(repr=False)
    # The table as written (true-centre form), kept for display and for tests.
    table: dict[tuple[Piece, str], tuple[Cell, ...]] = field(repr=False, compare=False)
    has_180_kicks: bool = False
    source: str = ""
    # The validated document it was built from, so a replay or a worker can rebuild the exact same system.
    document: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @cached_property
    def fingerprint(self) -> int:
        """A value equal for equal kick tests and written tables, also across processes (unlike id() or a hash of
        strings); used in cache keys. The written table counts: it decides which kicks are the TST/fin kick."""
        tests = sorted((int(p), int(a), int(b), tests) for (p, a, b), tests in self.tests.items())
        written = sorted((int(p), name, kicks) for (p, name), kicks in self.table.items())
        digest = hashlib.blake2b(repr((tests, written)).encode(), digest_size=8).digest()
        return int.from_bytes(digest, "little")

    def mirror_symmetric(self, with_180: bool = True) -> bool:
        """Is every turn (half turns only `with_180`), reflected left to right, the reflected piece's reflected turn,
        with the same tests in the same order? Then a field's placements reflected are its mirror image's (J and L,
        S and Z swap; the spawn column aside, which a low field never meets), and a PC answer at a position,
        reflected, is its mirror image's. True without kicks and for SRS+ without 180 turns; SRS's I kicks and
        SRS+'s 180 kicks are not."""
        return _mirror_symmetric(self.tests, with_180)

    def kicks(self, piece: Piece, start: Rotation, end: Rotation) -> tuple[Cell, ...]:
        """Positions offsets to try, in order, when turning `piece` from `start` to `end`."""
        return self.tests[piece, start, end]

    def with_name(self, name: str) -> RotationSystem:
        return RotationSystem(
            name, self.description, self.tests, self.table, self.has_180_kicks, self.source, self.document
        )


def _mirror_symmetric(tests: dict[tuple[Piece, Rotation, Rotation], tuple[Cell, ...]], with_180: bool) -> bool:
    state = {Rotation.NORTH: Rotation.NORTH, Rotation.EAST: Rotation.WEST, Rotation.SOUTH: Rotation.SOUTH}
    state[Rotation.WEST] = Rotation.EAST
    shift: dict[tuple[Piece, Rotation], Cell] = {}  # the reflected shape moved by it is the reflected piece's
    for (piece, rotation), cells in SHAPES.items():
        reflected = sorted((-x, y) for x, y in cells)
        target = SHAPES[piece.mirrored, state[rotation]]
        dx, dy = target[0][0] - reflected[0][0], target[0][1] - reflected[0][1]
        if sorted((x + dx, y + dy) for x, y in reflected) != list(target):
            return False
        shift[piece, rotation] = dx, dy
    # a position P in `start` reflects to -P - shift[start] (x negated); turning it with the test d, to the
    # reflected piece's position after the test -d - shift[start] + shift[start] - shift[end]
    return all(
        tests.get((piece.mirrored, state[start], state[end]))
        == tuple(
            (shift[piece, start][0] - shift[piece, end][0] - dx, shift[piece, start][1] - shift[piece, end][1] + dy)
            for dx, dy in turn_tests
        )
        for (piece, start, end), turn_tests in tests.items()
        if with_180 or (end - start) % 4 != 2
    )


def _parse_cell(value: Any, where: str) -> Cell:
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise KickTableError(f"{where}: expected a pair of integers like [-1, 2], got {value!r}")
    dx, dy = value
    if abs(dx) > MAX_KICK_DISTANCE or abs(dy) > MAX_KICK_DISTANCE:
        raise KickTableError(f"{where}: kick {value!r} is too far (each part must be within -4..4)")
    return dx, dy


def _parse_piece_group(group: str, where: str) -> list[Piece]:
    pieces = []
    for letter in group:
        if letter.upper() not in "IJLOSTZ":
            raise KickTableError(f"{where}: {group!r} is not a group of piece letters (I J L O S T Z)")
        pieces.append(Piece[letter.upper()])
    return pieces


def _parse_kicks(data: dict[str, Any], source: str) -> dict[tuple[Piece, str], tuple[Cell, ...]]:
    """The written kick tests per (piece, transition) of the document's `kicks` table."""
    table: dict[tuple[Piece, str], tuple[Cell, ...]] = {}
    kicks = data.get("kicks", {})
    if not isinstance(kicks, dict):
        raise KickTableError(f"{source}: 'kicks' must be a table of piece groups")
    for group, transitions in kicks.items():
        where = f"{source}: kicks.{group}"
        pieces = _parse_piece_group(group, where)
        if not isinstance(transitions, dict):
            raise KickTableError(f"{where}: expected a table of transitions like 0R = [[0, 0], ...]")
        for transition, listed in transitions.items():
            if transition not in ALL_TRANSITIONS:
                raise KickTableError(f"{where}.{transition}: unknown transition (allowed: {' '.join(ALL_TRANSITIONS)})")
            if not isinstance(listed, list) or not listed or len(listed) > MAX_KICK_TESTS:
                raise KickTableError(f"{where}.{transition}: expected a list of 1 to {MAX_KICK_TESTS} kick tests")
            cells = tuple(_parse_cell(test, f"{where}.{transition}[{i}]") for i, test in enumerate(listed))
            for piece in pieces:
                if (piece, transition) in table:
                    raise KickTableError(f"{where}.{transition}: piece {piece.name} already has this transition")
                table[piece, transition] = cells
    return table


def _parse_offsets(data: dict[str, Any], source: str) -> dict[Piece, tuple[Cell, Cell, Cell, Cell]]:
    """SRS's offsets with those of the document's `offsets` table in their place."""
    offsets = dict(SRS_OFFSETS)
    raw_offsets = data.get("offsets", {})
    if not isinstance(raw_offsets, dict):
        raise KickTableError(f"{source}: 'offsets' must be a table of pieces")
    for letter, states in raw_offsets.items():
        where = f"{source}: offsets.{letter}"
        pieces = _parse_piece_group(letter, where)
        if not isinstance(states, dict) or sorted(states) != sorted("0R2L"):
            raise KickTableError(f"{where}: expected exactly the states 0, R, 2 and L")
        north, east, south, west = (_parse_cell(states[s], f"{where}.{s}") for s in "0R2L")
        for piece in pieces:
            offsets[piece] = (north, east, south, west)
    return offsets


def build_rotation_system(data: dict[str, Any], source: str = "<data>") -> RotationSystem:
    """Validate a parsed kick-table document and build the system. Raises KickTableError naming the problem."""
    if not isinstance(data, dict):
        raise KickTableError(f"{source}: expected a table at the top level")
    known = {"name", "description", "kicks", "offsets"}
    for key in data:
        if key not in known:
            raise KickTableError(f"{source}: unknown key {key!r} (allowed: {', '.join(sorted(known))})")
    name = data.get("name", Path(source).stem)
    description = data.get("description", "")
    if not isinstance(name, str) or not name.strip():
        raise KickTableError(f"{source}: 'name' must be a non-empty string")
    if not isinstance(description, str):
        raise KickTableError(f"{source}: 'description' must be a string")

    table = _parse_kicks(data, source)
    offsets = _parse_offsets(data, source)

    tests: dict[tuple[Piece, Rotation, Rotation], tuple[Cell, ...]] = {}
    for piece in Piece:
        piece_offsets = offsets.get(piece, _NO_OFFSETS)
        for transition in ALL_TRANSITIONS:
            start, end = Rotation.parse(transition[0]), Rotation.parse(transition[1])
            shift_x = piece_offsets[start][0] - piece_offsets[end][0]
            shift_y = piece_offsets[start][1] - piece_offsets[end][1]
            written = table.get((piece, transition), ((0, 0),))
            tests[piece, start, end] = tuple((dx + shift_x, dy + shift_y) for dx, dy in written)
    has_180 = any(t in TRANSITIONS_180 for _, t in table)
    return RotationSystem(name.strip(), description, tests, table, has_180, source, data)


MAX_KICK_FILE_BYTES = 256_000  # a complete table with 180-degree kicks is about 3 kB


def load_kick_file(path: str | Path) -> RotationSystem:
    """Load a user kick table (.toml in our format, or solution-finder's .properties). Errors: KickTableError.

    The file must hold a kick table: an empty file is an error, not "no kicks" (write an empty ``[kicks]``
    table for a system without kicks, as game/data/kicks/none.toml means)."""
    from game.textfile import InputFileError, read_bytes

    path = Path(path)
    try:
        raw = read_bytes(path, MAX_KICK_FILE_BYTES, what="kick table")
    except InputFileError as error:
        raise KickTableError(str(error)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise KickTableError(f"{path}: not UTF-8 text (byte {error.start})") from None
    if path.suffix.lower() == ".properties":
        from game.sfinder_kicks import parse_properties

        return build_rotation_system(parse_properties(text, str(path)), str(path))
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise KickTableError(f"{path}: not valid TOML ({str(error).splitlines()[0]})") from None
    except RecursionError:
        raise KickTableError(f"{path}: not valid TOML (nested too deeply)") from None
    except ValueError as error:  # e.g. an integer of thousands of digits (int() refuses past 4,300)
        reason = "a number too long to read" if "digits" in str(error) else str(error).splitlines()[0]
        raise KickTableError(f"{path}: not valid TOML ({reason})") from None
    system = build_rotation_system(data, str(path))
    if "kicks" not in data:
        raise KickTableError(
            f"{path}: no kick table found (expected [kicks.<PIECES>] tables; an empty [kicks] table means no kicks)"
        )
    return system


BUILTIN_FILES = {"srs": "srs.toml", "srs+": "srs_plus.toml", "none": "none.toml", "nrs": "nrs.toml"}
_builtin_cache: dict[str, RotationSystem] = {}


def builtin_system(key: str) -> RotationSystem:
    """A shipped rotation system by key: srs, srs+, none, nrs."""
    key = key.lower()
    if key not in BUILTIN_FILES:
        raise KickTableError(f"unknown rotation system {key!r} (built in: {', '.join(BUILTIN_FILES)}, or a file path)")
    if key not in _builtin_cache:
        text = resources.files("game.data.kicks").joinpath(BUILTIN_FILES[key]).read_text("utf-8")
        _builtin_cache[key] = build_rotation_system(tomllib.loads(text), BUILTIN_FILES[key])
    return _builtin_cache[key]


def resolve_system(name_or_path: str) -> RotationSystem:
    """A built-in key (srs, srs+, none, nrs) or the path of a kick-table file."""
    if name_or_path.lower() in BUILTIN_FILES:
        return builtin_system(name_or_path)
    return load_kick_file(name_or_path)
