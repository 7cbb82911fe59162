"""PC practice starts: the setup library (`assets/pc_setups.toml`), mirroring, and the n-th PC of the 7-bag loop.

No pygame here. Contracts:
* `loop_start(n, seed)`: an empty board where the current bag holds `PIECES_LEFT[n]` pieces, chosen from `seed`
  (so a restart with the same seed deals the same pieces).
* `setup_start(setup, seed, mirrored)`: the built setup field with the bag in the state the setup leaves it in
  (its `bag_left`; "*1" = one piece drawn from the seed), so the next pieces follow the 7-bag consistently.
* Both starts carry `reseed(seed)`: the same start with the pieces of another seed (PC practice's "new queue").
* Mirroring maps x -> 9 - x and swaps S<->Z and J<->L, on the field and in the bag.
"""

from __future__ import annotations

import random
import tomllib
from dataclasses import dataclass
from pathlib import Path

from game.board import Board
from game.pieces import Piece

SETUPS_FILE = Path(__file__).resolve().parents[1] / "assets" / "pc_setups.toml"
# PC number in the 7-bag loop (1..7) -> pieces left in the current bag when that PC starts from an empty board.
PIECES_LEFT = {1: 7, 2: 4, 3: 1, 4: 5, 5: 2, 6: 6, 7: 3}
_MIRROR_PIECE = {Piece.S: Piece.Z, Piece.Z: Piece.S, Piece.J: Piece.L, Piece.L: Piece.J}
_MIRROR_CHAR = {"S": "Z", "Z": "S", "J": "L", "L": "J"}


def ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


@dataclass(frozen=True)
class PcSetup:
    key: str
    name: str
    fumen: str
    pc: int
    uses: str
    bag_left: str
    mirror: bool
    note: str = ""

    def board(self, mirrored: bool = False) -> Board:
        from game.fumen import decode

        field = decode(self.fumen)[0].field  # None: a first page without a field, which fumen reads as empty
        board = field.to_board() if field is not None else Board.empty()
        return mirror_board(board) if mirrored else board

    def stats_key(self, mirrored: bool) -> str:
        return self.name + (" (mirror)" if mirrored else "")


def load_setups(path: Path = SETUPS_FILE) -> list[PcSetup]:
    """The setup library; ValueError naming the entry when a field is missing or wrong."""
    data = tomllib.loads(path.read_text("utf-8"))
    setups = []
    for index, entry in enumerate(data.get("setup", [])):
        try:
            setup = PcSetup(
                key=str(entry["key"]),
                name=str(entry["name"]),
                fumen=str(entry["fumen"]),
                pc=int(entry["pc"]),
                uses=str(entry["uses"]),
                bag_left=str(entry["bag_left"]),
                mirror=bool(entry.get("mirror", False)),
                note=str(entry.get("note", "")),
            )
        except KeyError as error:
            raise ValueError(f"{path.name}: setup {index + 1} has no {error.args[0]!r}") from None
        if not 1 <= setup.pc <= 7:
            raise ValueError(f"{path.name}: setup {setup.key!r}: pc must be 1..7")
        if setup.bag_left != "*1" and any(ch not in "IJLOSTZ" for ch in setup.bag_left):
            raise ValueError(f"{path.name}: setup {setup.key!r}: bag_left must be piece letters or *1")
        setups.append(setup)
    return setups


def mirror_board(board: Board) -> Board:
    rows = board.to_rows()
    return (
        Board.from_rows(["".join(_MIRROR_CHAR.get(ch, ch) for ch in reversed(row)) for row in rows])
        if rows
        else Board.empty()
    )


def mirror_piece(piece: Piece) -> Piece:
    return _MIRROR_PIECE.get(piece, piece)


def bag_state(pieces) -> tuple[Piece, ...]:
    """7-bag randomizer state for the pieces left in the bag (all seven or none = a fresh bag)."""
    left = tuple(sorted(set(pieces)))
    return () if len(left) in (0, 7) else left


def loop_start(n: int, seed: int):
    """StartPosition for the n-th PC of the 7-bag loop from an empty board."""
    from ui.play import StartPosition

    k = PIECES_LEFT[n]
    left = random.Random(seed).sample(list(Piece), k)
    return StartPosition(
        board=Board.empty(),
        randomizer_state=bag_state(left),
        label=f"{ordinal(n)} PC",
        setup=f"Empty board, {ordinal(n)} PC",
        reseed=lambda new_seed: loop_start(n, new_seed),
    )


def setup_start(setup: PcSetup, seed: int, mirrored: bool = False):
    from ui.play import StartPosition

    if setup.bag_left == "*1":
        left = [random.Random(seed).choice(list(Piece))]
    else:
        left = [Piece[ch] for ch in setup.bag_left]
    if mirrored:
        left = [mirror_piece(p) for p in left]
    return StartPosition(
        board=setup.board(mirrored),
        randomizer_state=bag_state(left),
        label=setup.stats_key(mirrored),
        setup=setup.stats_key(mirrored),
        reseed=lambda new_seed: setup_start(setup, new_seed, mirrored),
    )
