"""The pygame-free values of a run in the play scene: where it starts, its popups and PC attempts, which help
makes it assisted, and the effect timings the scene (`ui.play`) and its drawing (`ui.playfield`) share.

Menus, the PC and set-up libraries and the drawing read these without importing the scene itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from game.board import Board
    from game.pieces import Piece
    from game.randomizer import State
    from ui.coach import BuildTarget

COUNTDOWN_TICKS = 80  # "READY" then "GO" before timed modes start
END_DELAY_TICKS = 60  # the finished / topped-out board stays on screen this long before the results
POPUP_TICKS = 100
FLASH_TICKS = 14

# Kinds of help (the keys kept in PlayScene.assists) and how the results and stats name them.
ASSIST_NAMES = {"autoplay": "autoplay", "hint": "hint ghost", "pc": "PC overlay", "undo": "undo"}


@dataclass
class StartPosition:
    """Where a game starts other than an empty board with a fresh randomizer (PC practice, fumen)."""

    board: Board | None = None
    queue: list[Piece] = field(default_factory=list)
    hold: Piece | None = None
    randomizer_state: State | None = None
    label: str = ""
    setup: str = ""  # PC practice: the key its statistics are kept under ("" = not tracked)
    build: BuildTarget | None = None  # set-up practice: the shape the coach guides the player to build
    # The same start with the pieces a new seed deals (PC practice: "new queue"); None: only the seed changes.
    reseed: Callable[[int], StartPosition] | None = field(default=None, compare=False, repr=False)

    def with_seed(self, seed: int) -> StartPosition:
        return self.reseed(seed) if self.reseed is not None else self


@dataclass
class Popup:
    text: str
    colour: tuple[int, int, int]
    born: int
    big: bool = False


class PcAttempt(NamedTuple):
    """One PC-practice attempt of this run, kept until it is saved."""

    success: bool
    seconds: float
    piece: int  # placements made when it ended (undo back past that takes it back)
    began: int  # game tick when it began
