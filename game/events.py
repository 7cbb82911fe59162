"""What the game reports each tick, for a client to animate and a replay viewer to show. Plain values."""

from __future__ import annotations

from dataclasses import dataclass

from game.pieces import Piece, Rotation
from game.placement import Placement
from game.scoring import LockResult


@dataclass(frozen=True, slots=True)
class Event:
    tick: int


@dataclass(frozen=True, slots=True)
class Spawned(Event):
    piece: Piece
    rotation: Rotation
    x: int
    y: int


@dataclass(frozen=True, slots=True)
class Moved(Event):
    """A shift (dx) or a fall (dy < 0) of the active piece."""

    dx: int
    dy: int


@dataclass(frozen=True, slots=True)
class Rotated(Event):
    start: Rotation
    end: Rotation
    kick_index: int  # 0 = turned in place; n = the (n+1)-th test of the kick table
    dx: int
    dy: int


@dataclass(frozen=True, slots=True)
class Held(Event):
    piece: Piece  # the piece put into hold
    taken: Piece | None  # the piece taken out (None: the next piece came from the queue)


@dataclass(frozen=True, slots=True)
class Locked(Event):
    placement: Placement  # where the piece locked, with the spin it scored (result.spin)
    result: LockResult
    keys: int
    finesse_faults: int

    @property
    def cleared_rows(self) -> tuple[int, ...]:
        return self.result.cleared_rows


@dataclass(frozen=True, slots=True)
class ToppedOut(Event):
    reason: str  # "block out" or "lock out"


@dataclass(frozen=True, slots=True)
class Undone(Event):
    redo: bool  # False: a placement was taken back; True: one was played again
