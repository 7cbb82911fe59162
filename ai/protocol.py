"""Messages between the game window and the AI worker process: frozen, picklable values, nothing else.

The UI sends a request carrying a snapshot of everything the worker needs and a generation id; every answer
carries the id of the request it answers, so the UI can drop stale ones. A newer request cancels older work.
This module is shared by `ui` (the client) and `ai` (the worker) and imports only `game`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from game.board import Board
from game.pieces import Piece
from game.placement import Key, Move, Placement  # the moves the protocol carries are game's values
from game.rules import Rules

# --- what a request may name ------------------------------------------------------------------------------
ENGINES = ("beam", "mcts")
WEIGHTS_DIR = Path(__file__).resolve().parent / "weights"  # one TOML file per weight set the engines accept


def weight_names() -> tuple[str, ...]:
    """The weight sets shipped with the engine (the names `SuggestRequest.weights` accepts), modern first."""
    names = sorted(path.stem for path in WEIGHTS_DIR.glob("*.toml"))
    return tuple(sorted(names, key=lambda name: name != "modern"))


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

    def pieces_key(self) -> tuple:
        """The field, the pieces (in play, previews, hold and whether it was pressed), the rules and what the
        randomizer can deal: what an answer about the position depends on, score state (b2b, combo) aside. Answers
        kept by the worker are kept under it and their request's own options."""
        return (
            self.board.bits,
            self.current,
            self.queue,
            self.hold,
            self.hold_used,
            self.rules.cache_key(),
            self.randomizer,
            self.randomizer_state,
        )


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
    # after answering, the worker answers the positions the answer leads to in its idle time (ai.pc_ahead)
    think_ahead: bool = True


@dataclass(frozen=True)
class PcAim:
    """Where the piece in play would land now (the ghost's placement), for a position whose PC question is
    `request`. The worker answers nothing: in its idle time it thinks first about the position this placement
    leads to (ai.pc_ahead), so a player who does not follow the advice finds the answer there too. It never
    interrupts a request; the window sends it when the ghost has rested on a new spot."""

    generation: int
    request: PcRequest
    placement: Placement


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
    chance: float | None = None  # over the pieces not yet seen; None while computing or if not computed
    best_next: Move | None = None  # the placement that keeps the chance highest
    # For drawing: each solution piece's cells in the coordinates of the board as it is now (rows the solution
    # clears before a piece lands are accounted for), in placement order.
    overlay: tuple[tuple[Piece, tuple[tuple[int, int], ...]], ...] = ()
    final: bool = True
    elapsed_ms: float = 0.0
    note: str = ""
    estimate: bool = False  # the chance was sampled (too many futures to list), not exact
    lines: int = 0  # height of the PC the answer is about
    working: bool = False  # says only that the worker is on it (sent first: it may have kernels to load)
    # (lower, upper) proved so far, the chance lies between them: while it is computed, and on a final answer whose
    # search was stopped at the time limit (ai.pc_service.CHANCE_LIMIT_MS)
    chance_range: tuple[float, float] | None = None

    @property
    def impossible(self) -> bool:
        """Exactly known that no PC can be reached from this position, whatever comes."""
        return self.final and not self.solvable and self.chance == 0.0 and not self.estimate

    @property
    def possible(self) -> bool:
        return self.solvable or (self.chance is not None and self.chance > 0)


@dataclass(frozen=True)
class Pong:
    generation: int


@dataclass(frozen=True)
class WorkerFailure:
    """The worker caught an exception while answering; the UI shows `message` and carries on."""

    generation: int
    message: str


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


# --- what the coach panel shows -----------------------------------------------------------------------------
# The window, `python main.py coach` and the tests that play from the panel all read these values, so what a
# player is told is exactly what is checked.
@dataclass(frozen=True)
class PcPanel:
    """The perfect-clear part of the coach panel for one position."""

    status: str  # "solving" | "possible" | "unknown" | "impossible" | "lost"
    headline: str
    advice: str  # what to do next, "" when there is nothing to do
    chance: float | None  # over the pieces not yet seen; None while unknown
    chance_text: str
    first_move: Move | None  # the placement the advice names (the overlay's piece 1, or the best next one)
    overlay: tuple[tuple[Piece, tuple[tuple[int, int], ...]], ...]
    # the advice is the best placement found so far by a chance search still running (or stopped at the time
    # limit), proved to win the range's lower bound but not known to be the best: autoplay waits for the end
    provisional: bool = False

    @property
    def possible(self) -> bool | None:
        """True / False when known, None while still being worked out."""
        return {"possible": True, "impossible": False, "lost": False}.get(self.status)


KEY_GLYPHS = {
    Key.LEFT: "←",
    Key.RIGHT: "→",
    Key.DAS_LEFT: "⇤",
    Key.DAS_RIGHT: "⇥",
    Key.CW: "↻",
    Key.CCW: "↺",
    Key.FLIP: "180",
    Key.SOFT_DROP: "↓",
    Key.HARD_DROP: "⤓",
}
KEY_ASCII = {
    Key.LEFT: "<",
    Key.RIGHT: ">",
    Key.DAS_LEFT: "|<",
    Key.DAS_RIGHT: ">|",
    Key.CW: "CW",
    Key.CCW: "CCW",
    Key.FLIP: "180",
    Key.SOFT_DROP: "v",
    Key.HARD_DROP: "DROP",
}
KEY_MEANINGS = {
    Key.LEFT: "move left",
    Key.RIGHT: "move right",
    Key.DAS_LEFT: "slide to the left wall",
    Key.DAS_RIGHT: "slide to the right wall",
    Key.CW: "rotate clockwise",
    Key.CCW: "rotate counter-clockwise",
    Key.FLIP: "rotate 180°",
    Key.SOFT_DROP: "soft drop to the floor",
    Key.HARD_DROP: "hard drop",
}


def key_labels(move: Move, glyphs: bool = True) -> list[str]:
    """The inputs of a move as labels, "HOLD" first when it starts with a hold."""
    table = KEY_GLYPHS if glyphs else KEY_ASCII
    return (["HOLD"] if move.hold else []) + [table[k] for k in move.keys]


def pieces_text(count: int, word: str = "piece") -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def move_advice(move: Move) -> str:
    how = "hold, then place" if move.hold else "place"
    return f"Next: {how} the {move.placement.piece.name}"


def percent_text(fraction: float, decimals: int = 0) -> str:
    """A fraction in percent (whole by default) that never reads as certain or as hopeless when it is neither: 836 of
    840 futures (99.5%) is ">99%", not "100%"; 1 of 840 is "<1%", not "0%" (with one decimal: ">99.9%", "<0.1%")."""
    shown = f"{fraction * 100:.{decimals}f}"
    step = f"{10.0**-decimals:.{decimals}f}"  # the smallest step shown: "1", "0.1"
    if shown == f"{100:.{decimals}f}" and fraction < 1:
        return f">{100 - float(step):.{decimals}f}%"
    if float(shown) == 0 and fraction > 0:
        return f"<{step}%"
    return f"{shown}%"


def range_text(lower: float, upper: float, state: str = "computing…") -> str:
    """The chance proved so far, as the panel shows it while the search goes on, or where it stopped (`state`; ""
    while nothing is proved). The bounds are rounded outwards, so the range shown always holds the chance (unlike
    percent_text's nearest)."""
    low, high = math.floor(lower * 100), math.ceil(upper * 100)
    if low <= 0 and high >= 100:
        return ""
    if low == high:
        return f"PC chance {low}% ({'confirming…' if state == 'computing…' else state})"
    if low <= 0:
        return f"PC chance at most {high}% ({state})"
    if high >= 100:
        return f"PC chance at least {low}% ({state})"
    return f"PC chance {low}–{high}% ({state})"


def accuracy_text(accuracy: float | None) -> str:
    """A review's accuracy (0-100) to one decimal, never rounded to a perfect game or to none when it is neither:
    99.96 (a good move among best ones) is ">99.9%", not "100.0%"; the list of runs and the review say the same."""
    return "—" if accuracy is None else percent_text(accuracy / 100, 1)


def pc_panel(answer: PcAnswer | None) -> PcPanel:
    """What the panel says about an answer for the position in play (None: no answer yet)."""
    if answer is None or answer.working:
        return PcPanel("solving", "solving…", "", None, "PC chance: computing…", None, ())
    if answer.chance is None:
        chance_text = "PC chance: computing…" if not answer.final else "PC chance: not computed (too long)"
        if answer.chance_range is not None:
            state = "stopped: too long" if answer.final else "computing…"
            chance_text = range_text(*answer.chance_range, state) or chance_text
    elif answer.estimate:
        chance_text = f"PC chance ≈ {percent_text(answer.chance)} (estimate)"
    else:
        chance_text = f"PC chance {percent_text(answer.chance)}"
    if answer.solvable and answer.solution:
        first = answer.solution[0]
        count = len(answer.overlay) or len(answer.solution)
        return PcPanel(
            "possible",
            f"PC in {pieces_text(count)}",
            f"{move_advice(first)} (1)",
            answer.chance,
            chance_text,
            first,
            answer.overlay,
        )
    if answer.impossible:
        return PcPanel("impossible", "PC not possible from here", "", 0.0, chance_text, None, ())
    if answer.chance is None and answer.chance_range is not None and answer.best_next is not None:
        lead = answer.best_next
        found = "before the search stopped" if answer.final else "so far"
        advice = f"{move_advice(lead)} as shown (the best found {found})"
        headline = "no PC with the pieces shown yet"
        return PcPanel("possible", headline, advice, None, chance_text, lead, (), provisional=True)
    if answer.chance is not None and answer.chance > 0:
        best = answer.best_next
        advice = f"{move_advice(best)} as shown (keeps the chance highest)" if best is not None else ""
        return PcPanel("possible", "no PC with the pieces shown yet", advice, answer.chance, chance_text, best, ())
    return PcPanel("unknown", "no PC with the pieces shown yet", "", answer.chance, chance_text, None, ())


# --- game review (UI -> worker -> UI) ----------------------------------------------------------------------------
# How a reviewed placement's class is shown, the same in the window and in `review --png`; the marked ones are
# those the review jumps between.
REVIEW_CLASS_COLOURS: dict[str, tuple[int, int, int]] = {
    "best": (90, 200, 120),
    "good": (150, 210, 150),
    "inaccuracy": (240, 200, 80),
    "mistake": (240, 140, 60),
    "blunder": (230, 70, 70),
}
MARKED_CLASSES = ("inaccuracy", "mistake", "blunder")


@dataclass(frozen=True)
class ReviewRequest:
    """Review a replay (its JSON text, as saved). `cached`: a review JSON computed before, sent back as the answer
    when the worker's engine key still matches it (else the review is computed again)."""

    generation: int
    replay: str
    cached: str = ""
    depth: int = 6


@dataclass(frozen=True)
class ReviewAnswer:
    """Progress of a review: the placements reviewed since the last answer (dicts as in `review --json`), then a
    final answer carrying the whole review as JSON and the key of the engine that made it."""

    generation: int
    done: int
    total: int
    placements: tuple[dict[str, Any], ...] = ()
    final: bool = False
    review: str = ""
    engine: str = ""
    accuracy: float | None = None


# --- guided set-up practice (UI -> worker -> UI) -------------------------------------------------------------
@dataclass(frozen=True)
class BuildRequest:
    """How to build a target shape from the position (a set-up or opener of the library): `must` cells to fill,
    `may` cells that may be filled, as bitboards of the board; the cells already filled count as built."""

    generation: int
    snapshot: Snapshot
    must: int
    may: int = 0
    drop: str = "softdrop"
    # Other set-ups the player may pick instead, as (name, must, may): the answer says how likely each is built.
    choices: tuple[tuple[str, int, int], ...] = ()
    # The piece the set-up saves for its PC (built without it: ai.pc.setup), and each choice's, by name.
    save: Piece | None = None
    saves: tuple[tuple[str, Piece], ...] = ()


@dataclass(frozen=True)
class BuildAnswer:
    """A way to finish the shape with the known pieces: its first placement (with keys) and every placement's
    cells (numbered overlay, board coordinates). `complete`: nothing is left to build."""

    generation: int
    buildable: bool
    solution: tuple[Move, ...] = ()
    overlay: tuple[tuple[Piece, tuple[tuple[int, int], ...]], ...] = ()
    complete: bool = False
    final: bool = True
    note: str = ""
    chance: float | None = None  # share of the continuations still buildable after the advised placement
    estimate: bool = False
    working: bool = False  # says only that the worker is on it
    choices: tuple[tuple[str, float], ...] = ()  # each of the request's choices with its build chance from here

    @property
    def possible(self) -> bool:
        return self.buildable or self.complete

    @property
    def impossible(self) -> bool:
        return self.final and not self.possible


def build_panel(answer: BuildAnswer | None) -> PcPanel:
    """What the panel says while a set-up is being built (the same values as the PC panel; `chance` is the
    share of the continuations the randomizer allows that can still build it after the advised placement)."""
    if answer is None or answer.working:
        return PcPanel("solving", "working out the build…", "", None, "Build chance: computing…", None, ())
    chance_text = f"Build chance {percent_text(answer.chance)}" if answer.chance is not None else ""
    if answer.complete:
        return PcPanel("possible", "built", "", None, "", None, ())
    if answer.buildable and answer.solution:
        first = answer.solution[0]
        return PcPanel(
            "possible",
            f"next {pieces_text(len(answer.overlay))} shown",
            f"{move_advice(first)} (1)",
            answer.chance,
            chance_text,
            first,
            answer.overlay,
        )
    return PcPanel("impossible", "cannot be built from here, whatever comes", "", 0.0, chance_text, None, ())


Request = SuggestRequest | PcRequest | PcAim | ReviewRequest | BuildRequest | Ping | Shutdown
Answer = Suggestion | PcAnswer | ReviewAnswer | BuildAnswer | Pong | WorkerFailure
