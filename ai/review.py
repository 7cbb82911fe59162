"""Game review: every placement of a replay valued by the engine, as a chess engine reviews a game.

For each placement the position is rebuilt as the player saw it when the piece spawned (field, piece, hold,
the previews shown, B2B and combo, what the bag could still deal) and one search, the default beam engine at a
fixed depth (no clock, so a review is a function of the replay and the weights), is run twice on it:

* unrestricted: the engine's best placement and its value (the value of the best line it found);
* with the first placement fixed to the one played (same field, hold and chains after it): the value of the
  best line that starts with the played placement.

``loss = max(0, best - played)`` (the played line can come out higher than the unrestricted one, because a beam
is not exhaustive: then it *is* the best found, loss 0). Losses are classed with THRESHOLDS, calibrated in
``bench/review.py`` on the losses of weaker players against this engine (numbers in the README). Besides the
class each placement notes a missed T-spin (a T-spin that clears lines was available to the T that was played
and was not taken) and a missed perfect clear (the PC solver found a PC with the pieces known before the
placement, none with those known after it, and the placement did not make one).

Accuracy per placement is ``100 * 2 ** (-loss / THRESHOLDS["inaccuracy"])`` (100 for a best move, 50 at the
inaccuracy bound); the game's accuracy is the mean over its rated placements. Everything here is plain data
(``to_dict`` is the JSON of ``python main.py review --json``).
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ai.search import DEAD, BeamEngine, Budget, SearchState
from game.board import Board
from game.engine import Game
from game.events import Held, Locked, Undone
from game.finesse import minimal_keys
from game.handling import pressed_labels
from game.movement import Spin
from game.pieces import Piece
from game.placement import Placement
from game.replay import Replay, ReplayError
from game.scoring import lock_piece

REVIEW_FORMAT = 1
REVIEW_VERSION = "review-1"  # bump when the analysis changes: cached reviews of another version are recomputed
DEFAULT_DEPTH = 6  # the engine's own default: the piece in play and the five previews
DEFAULT_WEIGHTS = "modern"
CLASSES = ("best", "good", "inaccuracy", "mistake", "blunder")

# Upper bounds of loss (in the evaluator's units) per class: loss <= bound gets the class, above the last it is a
# blunder. Calibrated with `python bench/review.py --games 8 --pieces 100` (seeded games; the table is in the
# README, "Game review"): `good` is the median non-zero loss of the same engine seeing one preview instead of
# five (53.4), `inaccuracy` the median non-zero loss of a one-piece greedy player without hold (123.9), `mistake`
# the 75th percentile of the losses of a player choosing uniformly at random among the legal placements (427.6).
THRESHOLDS: dict[str, float] = {"best": 1e-6, "good": 53.0, "inaccuracy": 124.0, "mistake": 428.0}
# Accuracy of a placement halves with every `inaccuracy` bound of loss: 100 * 2 ** (-loss / 124).
ACCURACY_SCALE = THRESHOLDS["inaccuracy"] / math.log(2)
OPENER_PLACEMENTS = 14  # the first two bags
PRESSURE_HEIGHT = 10  # a field this high at spawn counts as "under pressure" (the engine's panic height too)
PC_MAX_LINES = 4
PC_BUDGET_MS = 150.0
DEAD_LOSS = 1e6  # a loss shown for a placement that ends the game when another one did not


def classify(loss: float) -> str:
    for name in ("best", "good", "inaccuracy", "mistake"):
        if loss <= THRESHOLDS[name]:
            return name
    return "blunder"


def placement_accuracy(loss: float) -> float:
    return 100.0 * math.exp(-max(0.0, loss) / ACCURACY_SCALE)


# --- the turns of a replay ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Turn:
    """One placement with what the player knew when its piece spawned (before any hold)."""

    index: int
    tick: int  # game tick when the piece spawned
    lock_tick: int
    board: Board
    current: Piece
    queue: tuple[Piece, ...]  # the previews shown
    hold: Piece | None
    hold_available: bool
    b2b: int
    combo: int
    randomizer: str
    bag_state: Any
    stream_pos: int
    # what was played
    placement: Placement  # spin included
    held: bool
    board_after: Board
    hold_after: Piece | None
    b2b_after: int
    combo_after: int
    lines: int
    perfect_clear: bool
    tspin_clear: bool
    lock_out: bool
    presses: tuple[str, ...]  # buttons pressed for this piece, in order ("HOLD", "←", "↻", "⤓", ...)
    keys_used: int
    finesse_faults: int

    def search_state(self) -> SearchState:
        return SearchState(
            self.board,
            self.current,
            self.hold,
            self.queue,
            self.b2b,
            self.combo,
            self.bag_state,
            self.randomizer,
            self.hold_available,
        )


def turns_of(replay: Replay) -> list[Turn]:
    """Play the replay and cut it into placements (an undone placement is dropped, a redone one comes back)."""
    game = replay.new_game()
    for buttons in replay.precharge:
        game.precharge(buttons)
    turns: list[Turn] = []
    undone: list[Turn] = []
    start: dict[str, Any] | None = None
    presses: list[str] = []
    previous = int(game.held_buttons)
    held = False
    for buttons in replay.inputs:
        if start is None and game.active is not None and not game.over:
            start = _position(game)
            presses, held = [], False
        board_before = game.board
        if start is not None:
            presses += pressed_labels(buttons, previous)
        previous = buttons
        for event in game.tick(buttons):
            if isinstance(event, Held):
                held = True
            elif isinstance(event, Locked) and start is not None:
                del turns[game.stats.pieces - 1 :]
                undone.clear()
                turns.append(_turn(game, start, event, board_before, held, tuple(presses)))
                start = None
            elif isinstance(event, Undone):
                if event.redo and undone:
                    turns.append(undone.pop())
                elif not event.redo and turns:
                    undone.append(turns.pop())
                start = None
    return turns


def _position(game: Game) -> dict[str, Any]:
    active = game.active
    assert active is not None
    return {
        "tick": game.ticks,
        "board": game.board,
        "current": active.piece,
        "queue": tuple(game.preview()),
        "hold": game.hold,
        "hold_available": game.rules.hold and not game.hold_used,
        "b2b": game.b2b,
        "combo": game.combo,
        "randomizer": game.config.randomizer,
        "bag_state": game.future_state(),
        "stream_pos": game.stream_pos,
    }


def _turn(
    game: Game, start: dict[str, Any], event: Locked, board_before: Board, held: bool, presses: tuple[str, ...]
) -> Turn:
    result = event.result
    return Turn(
        index=game.stats.pieces - 1,
        lock_tick=event.tick,
        **start,
        placement=event.placement,
        held=held,
        board_after=lock_piece(board_before, event.placement, start["b2b"], start["combo"])[0],
        hold_after=game.hold,
        b2b_after=result.b2b,
        combo_after=result.combo,
        lines=result.lines,
        perfect_clear=result.perfect_clear,
        tspin_clear=event.placement.piece is Piece.T and result.spin is Spin.FULL and result.lines > 0,
        lock_out=result.lock_out,
        presses=presses,
        keys_used=event.keys,
        finesse_faults=event.finesse_faults,
    )


# --- the search, valuing any first placement --------------------------------------------------------------------
class ReviewEngine(BeamEngine):
    """The default beam engine; `root_filter` (set per call) keeps only the first placements it accepts, so the
    same search values the played placement's best continuation."""

    root_filter: Callable[[Any], bool] | None = None

    def _expand(self, node, seq, allow_hold=True):  # untyped: BeamEngine's private signature
        kids = super()._expand(node, seq, allow_hold)
        if node.first is None and self.root_filter is not None:
            kids = [kid for kid in kids if self.root_filter(kid)]
        return kids


def make_review_engine(
    rules, weights: str = DEFAULT_WEIGHTS, *, depth: int = DEFAULT_DEPTH, accelerate: bool = True
) -> ReviewEngine:
    """The engine the review uses: the live hint's engine (ai.service) with its default width, at `depth`."""
    if accelerate:
        from ai.search import accelerated_modules

        for module in accelerated_modules():
            module.warm_up()
    return ReviewEngine(rules=rules, evaluator=weights, soft_drop=True, depth=depth, accelerate=accelerate)


def engine_key(weights: str = DEFAULT_WEIGHTS, depth: int = DEFAULT_DEPTH) -> str:
    """Names the analysis: a cached review is reused only when this is unchanged (version, weights, depth)."""
    from ai.eval import load_evaluator

    def numbers(name: str) -> list:
        found = getattr(load_evaluator(name), "weights", None)
        found = getattr(found, "weights", found)
        return sorted(found.items()) if isinstance(found, dict) else [repr(found)]

    digest = hashlib.sha256(repr((numbers(weights), numbers("bcts"))).encode()).hexdigest()[:12]
    return f"{REVIEW_VERSION}/beam/{weights}/d{depth}/{digest}"


# --- results -----------------------------------------------------------------------------------------------------
def _placement_dict(placement: Placement, hold: bool) -> dict[str, Any]:
    return {
        "piece": placement.piece.name,
        "orientation": placement.rotation.srs_name,
        "x": placement.x,
        "y": placement.y,
        "hold": hold,
    }


@dataclass(frozen=True)
class PlacementReview:
    index: int
    tick: int
    piece: str
    played: dict[str, Any]
    best: dict[str, Any] | None
    value_best: float | None
    value_played: float | None
    loss: float | None
    cls: str | None  # one of CLASSES; None when the played placement could not be valued
    missed: tuple[str, ...]
    tspin: dict[str, Any] | None  # the T-spin that was available (missed "tspin")
    pc: tuple[dict[str, Any], ...]  # the PC line that was available (missed "pc")
    phase: str
    height: int
    presses: tuple[str, ...]
    finesse: int
    optimal_keys: tuple[str, ...]
    board: tuple[str, ...]  # the field at spawn, as text rows (bottom last)
    queue: str
    hold: str | None
    accuracy: float | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "tick": self.tick,
            "piece": self.piece,
            "played": self.played,
            "best": self.best,
            "value_best": _round(self.value_best),
            "value_played": _round(self.value_played),
            "loss": _round(self.loss),
            "class": self.cls,
            "missed": list(self.missed),
            "tspin": self.tspin,
            "pc": list(self.pc),
            "phase": self.phase,
            "height": self.height,
            "keys": list(self.presses),
            "finesse": self.finesse,
            "optimal_keys": list(self.optimal_keys),
            "board": list(self.board),
            "queue": self.queue,
            "hold": self.hold,
            "accuracy": _round(self.accuracy, 2),
        }


def _round(value: float | None, digits: int = 3) -> float | None:
    return None if value is None else round(value, digits)


@dataclass
class GameReview:
    engine: str
    placements: list[PlacementReview] = field(default_factory=list)
    total: int = 0  # placements in the game (more than len(placements) while the review is computed)

    @property
    def rated(self) -> list[PlacementReview]:
        return [p for p in self.placements if p.cls is not None]

    @property
    def accuracy(self) -> float | None:
        rated = self.rated
        return sum(p.accuracy for p in rated) / len(rated) if rated else None  # type: ignore[misc]

    def counts(self, placements: list[PlacementReview] | None = None) -> dict[str, int]:
        items = self.rated if placements is None else [p for p in placements if p.cls is not None]
        return {name: sum(p.cls == name for p in items) for name in CLASSES}

    def phases(self) -> dict[str, dict[str, Any]]:
        out = {}
        for phase in ("opener", "midgame", "pressure"):
            items = [p for p in self.rated if p.phase == phase]
            accuracy = sum(p.accuracy for p in items) / len(items) if items else None  # type: ignore[misc]
            out[phase] = {"placements": len(items), "accuracy": _round(accuracy, 2), "counts": self.counts(items)}
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": REVIEW_FORMAT,
            "engine": self.engine,
            "placements_total": self.total,
            "accuracy": _round(self.accuracy, 2),
            "counts": self.counts(),
            "phases": self.phases(),
            "missed": {
                "tspin": sum("tspin" in p.missed for p in self.placements),
                "pc": sum("pc" in p.missed for p in self.placements),
            },
            "finesse": sum(p.finesse for p in self.placements),
            "placements": [p.to_dict() for p in self.placements],
        }


# --- reviewing ---------------------------------------------------------------------------------------------------
def _outcome_filter(turn: Turn) -> Callable[[Any], bool]:
    bits, hold, b2b = turn.board_after.bits, turn.hold_after, turn.b2b_after
    return lambda kid: kid.bits == bits and kid.hold is hold and kid.b2b == b2b


def _phase(turn: Turn) -> str:
    if turn.board.height() >= PRESSURE_HEIGHT:
        return "pressure"
    return "opener" if turn.index < OPENER_PLACEMENTS else "midgame"


def review_turn(
    engine: ReviewEngine, turn: Turn, *, next_turn: Turn | None = None, check_pc: bool = True
) -> PlacementReview:
    state = turn.search_state()
    budget = Budget(time_ms=None)
    engine.rng = random.Random(turn.index)  # ties are broken the same way every time
    engine.root_filter = None
    best = engine.suggest(state, budget)
    engine.rng = random.Random(turn.index)
    engine.root_filter = _outcome_filter(turn)
    try:
        played = engine.suggest(state, budget)
    finally:
        engine.root_filter = None
    played_dict = _placement_dict(turn.placement, turn.held)
    value_best = value_played = loss = None
    best_dict = None
    cls = None
    if best is not None:
        best_dict = _placement_dict(best.move.placement, best.move.hold)
        value_best = best.score
    if played is not None and best is not None:
        top, mine = best.score, played.score
        if mine >= top:  # the beam found a better line through the played placement
            top, best_dict = mine, played_dict
        loss = top - mine
        if mine <= DEAD / 2 < top:
            loss = DEAD_LOSS  # the placement ends the game (or leads only to lines that do) and another did not
        elif top <= DEAD / 2:
            loss = max(0.0, top - mine) if mine > DEAD / 2 else 0.0
        cls = classify(loss)
        value_best, value_played = top, mine
    missed: list[str] = []
    tspin = _missed_tspin(engine, turn)
    if tspin is not None:
        missed.append("tspin")
    pc: tuple[dict[str, Any], ...] = ()
    if check_pc:
        pc = _missed_pc(engine, turn, next_turn)
        if pc:
            missed.append("pc")
    optimal = minimal_keys(turn.board, turn.placement, engine.rules)
    from ai.protocol import KEY_GLYPHS

    return PlacementReview(
        index=turn.index,
        tick=turn.tick,
        piece=turn.placement.piece.name,
        played=played_dict,
        best=best_dict,
        value_best=value_best,
        value_played=value_played,
        loss=loss,
        cls=cls,
        missed=tuple(missed),
        tspin=tspin,
        pc=pc,
        phase=_phase(turn),
        height=turn.board.height(),
        presses=turn.presses,
        finesse=turn.finesse_faults,
        optimal_keys=tuple(KEY_GLYPHS[k] for k in optimal) if optimal else (),
        board=tuple(turn.board.to_rows(colours=False)),
        queue="".join(p.name for p in turn.queue),
        hold=turn.hold.name if turn.hold else None,
        accuracy=placement_accuracy(loss) if loss is not None else None,
    )


def _missed_tspin(engine: ReviewEngine, turn: Turn) -> dict[str, Any] | None:
    """The best T-spin clear the played T could have made, if it made none (a T-spin mini does not count)."""
    if turn.placement.piece is not Piece.T or turn.tspin_clear:
        return None
    from game.movegen import find_moves

    found = []
    for move in find_moves(turn.board, Piece.T, engine.rules):
        p = move.placement
        if p.spin is not Spin.FULL:
            continue
        _, result = lock_piece(turn.board, p, turn.b2b, turn.combo)
        if result.lines:
            found.append((result.lines, -len(move.keys), p))
    if not found:
        return None
    lines, _, best = max(found, key=lambda item: item[:2])
    return {**_placement_dict(best, turn.held), "lines": lines}


def _pc_pieces(turn: Turn) -> tuple[Piece, ...]:
    return (turn.current,) + turn.queue


def _pc_solution(board: Board, queue: tuple[Piece, ...], hold: Piece | None, use_hold: bool, rules) -> list:
    """A PC of up to PC_MAX_LINES lines with these pieces ([] when none is found within the budget)."""
    from ai.pc.api import solve
    from ai.pc.search import PCInputError

    cells = board.cell_count()
    if board.height() > PC_MAX_LINES:
        return []
    pieces = len(queue) + (hold is not None)
    for lines in range(max(board.height(), 1), PC_MAX_LINES + 1):
        need = 10 * lines - cells
        if need <= 0 or need % 4 or need // 4 > pieces:
            continue
        try:
            result = solve(
                board,
                list(queue),
                hold=hold,
                use_hold=use_hold,
                rules=rules,
                lines=lines,
                budget_ms=PC_BUDGET_MS,
                verify=False,
            )
        except PCInputError:
            continue
        if result.solutions:
            return list(result.solutions[0].steps)
    return []


def _missed_pc(engine: ReviewEngine, turn: Turn, next_turn: Turn | None) -> tuple[dict[str, Any], ...]:
    if turn.perfect_clear or turn.board.height() > PC_MAX_LINES:
        return ()
    before = _pc_solution(turn.board, _pc_pieces(turn), turn.hold, turn.hold_available, engine.rules)
    if not before:
        return ()
    if next_turn is not None:
        consumed = next_turn.stream_pos - turn.stream_pos
        known = _pc_pieces(next_turn)[: 1 + len(turn.queue) - consumed]
        if (
            turn.board_after.height() <= PC_MAX_LINES
            and known
            and _pc_solution(turn.board_after, known, next_turn.hold, True, engine.rules)
        ):
            return ()
    elif turn.board_after.bits == 0:
        return ()
    return tuple(_placement_dict(step.placement, step.hold) for step in before)


def review_turns(
    turns: list[Turn],
    rules,
    *,
    weights: str = DEFAULT_WEIGHTS,
    depth: int = DEFAULT_DEPTH,
    accelerate: bool = True,
    check_pc: bool = True,
    should_stop: Callable[[], bool] | None = None,
    engine: ReviewEngine | None = None,
) -> Iterator[PlacementReview]:
    """Review placements one by one (a generator, so callers can stream progress and stop early)."""
    engine = engine or make_review_engine(rules, weights, depth=depth, accelerate=accelerate)
    for i, turn in enumerate(turns):
        if should_stop is not None and should_stop():
            return
        yield review_turn(engine, turn, next_turn=turns[i + 1] if i + 1 < len(turns) else None, check_pc=check_pc)


def review_replay(
    replay: Replay,
    *,
    weights: str = DEFAULT_WEIGHTS,
    depth: int = DEFAULT_DEPTH,
    accelerate: bool = True,
    check_pc: bool = True,
    on_progress: Callable[[PlacementReview, int], None] | None = None,
) -> GameReview:
    turns = turns_of(replay)
    review = GameReview(engine_key(weights, depth), total=len(turns))
    for item in review_turns(
        turns, replay.config.rules, weights=weights, depth=depth, accelerate=accelerate, check_pc=check_pc
    ):
        review.placements.append(item)
        if on_progress is not None:
            on_progress(item, len(turns))
    return review


__all__ = [
    "CLASSES",
    "THRESHOLDS",
    "GameReview",
    "PlacementReview",
    "ReplayError",
    "Turn",
    "classify",
    "engine_key",
    "review_replay",
    "review_turn",
    "turns_of",
]
