"""The set-up and opener library as plain data (assets/setups/*.toml): what the menu lists and what a guided
practice builds. Pure: no search here (the finder is ai.pc.setup; the figures are written by
scripts/regenerate_setups.py).

A shape is three bitboards of the board (bit y*10+x): `base` blocks there before the build, `must` cells the
build fills, `may` cells it may fill. Mirroring maps x -> 9 - x and swaps S<->Z and J<->L.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from game.board import WIDTH, Bitboard
from game.fumen import decode
from game.pieces import Piece

LIBRARY_DIR = Path(__file__).resolve().parents[1] / "assets" / "setups"
MAX_ROWS = 12
_SWAP = {"J": "L", "L": "J", "S": "Z", "Z": "S"}
_MIRROR_PIECE = {Piece.S: Piece.Z, Piece.Z: Piece.S, Piece.J: Piece.L, Piece.L: Piece.J}


def mirror_bits(bits: Bitboard) -> Bitboard:
    out = 0
    for index in range(bits.bit_length()):
        if bits >> index & 1:
            y, x = divmod(index, WIDTH)
            out |= 1 << (y * WIDTH + WIDTH - 1 - x)
    return out


def mirror_piece(piece: Piece) -> Piece:
    return _MIRROR_PIECE.get(piece, piece)


@dataclass(frozen=True)
class SetupCells:
    base: Bitboard
    must: Bitboard
    may: Bitboard

    @property
    def height(self) -> int:
        cells = self.base | self.must | self.may
        return (cells.bit_length() + WIDTH - 1) // WIDTH

    def mirrored(self) -> SetupCells:
        return SetupCells(mirror_bits(self.base), mirror_bits(self.must), mirror_bits(self.may))


@dataclass(frozen=True)
class SetupEntry:
    """One library entry (see assets/setups/README.md for the fields)."""

    key: str
    name: str
    family: str  # "pc" or "opener"
    pc: int | None
    opener: str
    fumen: str
    mirror: bool
    bags: str
    hold: bool
    finishes: tuple[str, ...]
    pc_pattern: str
    pc_lines: int
    notes: str
    margin: str = ""
    source: str = ""
    save: str = ""  # the piece the set-up saves for the PC after it (a letter; "" none): the build leaves it unplaced
    figures: dict = field(default_factory=dict, compare=False)

    def saved(self, *, mirror: bool = False) -> Piece | None:
        """The piece the build must leave unplaced (mirrored with the shape), or None."""
        if not self.save:
            return None
        piece = Piece.from_letter(self.save)
        return mirror_piece(piece) if mirror else piece

    def cells(self, *, mirror: bool = False) -> SetupCells:
        """The shape: grey fumen cells are `base`, coloured ones `must`, margin `+` cells `may`."""
        page = decode(self.fumen, max_pages=1)[0]
        assert page.field is not None  # the first page always has its field
        base = must = 0
        for y in range(MAX_ROWS):
            for x in range(WIDTH):
                cell = page.field.at(x, y)
                if cell == "X":
                    base |= 1 << (y * WIDTH + x)
                elif cell != "_":
                    must |= 1 << (y * WIDTH + x)
        may = 0
        rows = [r for r in self.margin.replace("/", "\n").splitlines() if r.strip()]
        for index, row in enumerate(rows):
            y = len(rows) - 1 - index
            for x, char in enumerate(row.strip()):
                if char == "+":
                    may |= 1 << (y * WIDTH + x)
        shape = SetupCells(base, must & ~may, may)
        return shape.mirrored() if mirror else shape

    def colours(self, *, mirror: bool = False) -> list[str]:
        """The reference build as text rows, top first (fumen letters `_ILOZTJSX`), for mini boards."""
        page = decode(self.fumen, max_pages=1)[0]
        assert page.field is not None
        rows = []
        for y in range(self.cells().height - 1, -1, -1):
            row = [_SWAP.get(c, c) if mirror else c for c in page.field.row_text(y)]
            rows.append("".join(reversed(row)) if mirror else "".join(row))
        return rows

    def title(self) -> str:
        """The name and what it is for ("Albatross (opener)"); a loop set-up's name already says its PC
        ("2nd PC: Tub (save I)"), and is not told twice."""
        what = f"{_ordinal(self.pc)} PC" if self.family == "pc" and self.pc else "opener"
        return self.name if self.name.startswith(f"{what}:") else f"{self.name} ({what})"


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


# The hand-written fields of a library entry, in the order the files write them (scripts/regenerate_setups.py
# rewrites the files in this order), and every field an entry may have: those and the generated figures.
HAND_FIELDS = (
    "key",
    "name",
    "family",
    "pc",
    "opener",
    "fumen",
    "margin",
    "mirror",
    "bags",
    "hold",
    "finishes",
    "save",
    "pc_pattern",
    "pc_lines",
    "notes",
    "source",
)
ENTRY_FIELDS = {*HAND_FIELDS, "figures"}


def entry_fields(raw: dict) -> dict:
    """The keyword arguments of an entry from its TOML table (KeyError: a required field is missing;
    TypeError/ValueError: a field of the wrong type)."""
    return dict(
        key=str(raw["key"]),
        name=str(raw["name"]),
        family=str(raw["family"]),
        pc=int(raw["pc"]) if raw.get("pc") is not None else None,
        opener=str(raw.get("opener", "")),
        fumen=str(raw["fumen"]),
        mirror=bool(raw.get("mirror", True)),
        bags=str(raw["bags"]),
        hold=bool(raw.get("hold", True)),
        finishes=tuple(str(f) for f in raw.get("finishes", ())),
        pc_pattern=str(raw.get("pc_pattern", "")),
        pc_lines=int(raw.get("pc_lines", 4)),
        notes=str(raw.get("notes", "")),
        margin=str(raw.get("margin", "")),
        source=str(raw.get("source", "")),
        save=Piece.from_letter(str(raw["save"])).name if raw.get("save") else "",
        figures=dict(raw.get("figures", {})),
    )


def read_library(directory: Path | None = None) -> list[SetupEntry]:
    """Every entry of every *.toml file, in file then entry order. ValueError (one line) for a bad file."""
    folder = directory or LIBRARY_DIR
    entries: list[SetupEntry] = []
    for path in sorted(folder.glob("*.toml")):
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
            entries += [SetupEntry(**entry_fields(raw)) for raw in data.get("setup", [])]
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, KeyError, TypeError, ValueError) as error:
            raise ValueError(f"{path.name}: {error}") from None
    return entries


# PC number in the 7-bag loop (1..7) -> pieces left in the bag when that PC starts from an empty board (each PC
# takes 10 pieces: 7, 4+6 (1 left), 1+7+2, 5+5, 2+7+1, 6+4, 3+7).
LOOP_PIECES_LEFT = {1: 7, 2: 4, 3: 1, 4: 5, 5: 2, 6: 6, 7: 3}


def next_pc(n: int) -> int:
    """The PC of the loop after the n-th (the 7th is followed by the 1st: 70 pieces are 10 whole bags)."""
    return n % 7 + 1


def start_bag(entry: SetupEntry, seed: int, mirrored: bool = False) -> list[Piece]:
    """The pieces left in the bag when a guided build of `entry` starts, chosen from `seed`: for a PC of the loop
    after the 1st, that many of the seven (mirrored with the shape); else none (a fresh bag)."""
    import random

    if entry.family != "pc" or not entry.pc or entry.pc == 1:
        return []
    left = random.Random(seed).sample(list(Piece), LOOP_PIECES_LEFT[entry.pc])
    return [mirror_piece(p) for p in left] if mirrored else left
