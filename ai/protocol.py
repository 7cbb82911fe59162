"""Messages between the game window and the AI worker process: frozen, picklable values, nothing else.

The UI sends a request carrying a snapshot of everything the worker needs and a generation id; every answer
carries the id of the request it answers, so the UI can drop stale ones. A newer request cancels older work.
This module is shared by `ui` (the client) and `ai` (the worker) and imports only `game`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from game.board import Board
from game.finesse import Key
from game.movement import Spin
from game.pieces import Piece, Rotation
from game.rules import Rules


@dataclass(frozen=True)
class Snapshot:
    """The position the AI thinks about. `queue` holds the visible previews (not the current piece);
    `randomizer`/`randomizer_state` describe what can come after them (for a bag: what is left in it)."""

    board: Board
    current: Piece
    queue: tuple[Piece, ...]
    hold: Piece | None
    hold_used: bool
    b2b: int
    combo: int
    rules: Rules
    randomizer: str
    randomizer_state: Any
    pieces_placed: int = 0


@dataclass(frozen=True)
class Move:
    """A placement as the worker proposes it, with the keys that play it (after a HOLD if `hold`)."""

    piece: Piece
    rotation: Rotation
    x: int
    y: int
    spin: Spin
    keys: tuple[Key, ...]
    hold: bool


# --- requests (UI -> worker) ------------------------------------------------------------------------------
@dataclass(frozen=True)
class SuggestRequest:
    generation: int
    snapshot: Snapshot
    engine: str = "beam"
    budget_ms: float = 15.0
    weights: str = "modern"
    drop: str = "softdrop"  # or "harddrop"


@dataclass(frozen=True)
class PcRequest:
    generation: int
    snapshot: Snapshot
    lines: int = 4
    drop: str = "softdrop"
    budget_ms: float = 150.0
    want_chance: bool = True


@dataclass(frozen=True)
class Ping:
    generation: int


@dataclass(frozen=True)
class Shutdown:
    generation: int = 0


# --- answers (worker -> UI) ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Suggestion:
    generation: int
    move: Move | None  # None: no legal placement (top-out)
    final: bool  # False while the search streams its best so far
    score: float = 0.0
    depth: int = 0
    nodes: int = 0
    elapsed_ms: float = 0.0


@dataclass(frozen=True)
class PcAnswer:
    generation: int
    solvable: bool  # a PC exists with the known pieces
    solution: tuple[Move, ...] = ()
    chance: float | None = None  # over the pieces not yet seen; None if not computed
    best_next: Move | None = None  # the placement that keeps the chance highest
    # For drawing: each solution piece's cells in the coordinates of the board as it is now (rows the solution
    # clears before a piece lands are accounted for), in placement order.
    overlay: tuple[tuple[Piece, tuple[tuple[int, int], ...]], ...] = ()
    final: bool = True
    elapsed_ms: float = 0.0
    note: str = ""


@dataclass(frozen=True)
class Pong:
    generation: int


@dataclass(frozen=True)
class WorkerFailure:
    """The worker caught an exception while answering; the UI shows `message` and carries on."""

    generation: int
    message: str


Request = SuggestRequest | PcRequest | Ping | Shutdown
Answer = Suggestion | PcAnswer | Pong | WorkerFailure


def generation_of(message: Request | Answer) -> int:
    return message.generation


@dataclass
class Generations:
    """Hands out increasing ids and tells whether an answer is still current, per request kind."""

    last: int = 0
    current: dict[str, int] = field(default_factory=dict)

    def next(self, kind: str) -> int:
        self.last += 1
        self.current[kind] = self.last
        return self.last

    def is_current(self, kind: str, generation: int) -> bool:
        return self.current.get(kind) == generation
