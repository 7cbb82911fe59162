"""Placement search: the state value the engines read, the Engine protocol and the anytime beam search.

An engine answers one question: given a `SearchState` (field, current piece, hold, known previews, B2B and combo
chains, randomizer state), which placement (and whether to hold first) is best? `BeamEngine` looks ahead over the
current piece, the previews and hold (hold or not at each step), keeps the `width` best nodes per level, stops
when its budget (time, nodes, or a `should_stop` callable) runs out and answers with the best move of the
deepest level searched (a level cut short by the budget counts for the parents it reached, see suggest). Pieces
past the previews count as an expectation over what the randomizer can still deal (`Randomizer.outcomes`, exact
for bags). Locks go through `game.scoring.lock_piece` whenever a line clears; a lock without a clear is a bit-or
that tests check against lock_piece. Field values and whole expansions are cached per engine (a transposition
cache keyed by field, piece and chains), so consecutive suggestions reuse the previous search.
Ties between equal scores are broken by the engine's seeded random generator.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from ai.eval import Evaluator, LinearEvaluator, load_evaluator
from game.board import PIECE_MASKS, VISIBLE_HEIGHT, Board
from game.engine import Game
from game.movegen import find_moves, generate_raw
from game.movement import Spin
from game.pieces import SHAPES, Piece, Rotation
from game.placement import Move, Placement
from game.randomizer import RANDOMIZERS, Randomizer
from game.rules import Rules
from game.scoring import LockResult, lock_piece

DEAD = -1.0e9
# With the 1.5 ms key-building reserve: ~14.5 ms per suggestion at the 95th percentile on the 2-core dev box
# (target 16). With the compiled move generator and evaluator (ai.jit_*) a width-3 beam finishes all six known
# pieces in ~4 ms, so the default beam is 6 wide (its bench is in the header of ai/weights/modern.toml).
DEFAULT_TIME_MS = 14.0
_ROTATIONS = tuple(Rotation)
_SPINS = tuple(Spin)
_VISIBLE = (1 << (VISIBLE_HEIGHT * 10)) - 1
# Keyed by (piece, Rotation); the search looks up int rotations (an IntEnum member hashes as its value).
_ROWS_OF: dict[tuple[Piece, int], list[int]] = {
    (piece, rot): sorted({dy for _, dy in SHAPES[piece, rot]}) for piece in Piece for rot in Rotation
}


def _quiet_result(piece: Piece, spin: Spin, b2b: int, lock_out: bool) -> LockResult:
    """What lock_piece returns for a lock that clears nothing: the B2B chain stays, the combo ends, no score."""
    return LockResult(
        piece=piece,
        lines=0,
        spin=spin,
        b2b=b2b,
        b2b_bonus=False,
        combo=-1,
        perfect_clear=False,
        attack=0,
        score=0,
        cleared_rows=(),
        lock_out=lock_out,
    )


@dataclass(frozen=True)
class SearchState:
    """What the player knows when a piece spawns. `bag_state` is the randomizer state after the last queued
    piece was dealt (e.g. for 7bag the sorted tuple of pieces left in the bag); `randomizer` names its model."""

    board: Board
    current: Piece
    hold: Piece | None = None
    queue: tuple[Piece, ...] = ()
    b2b: int = -1
    combo: int = -1
    bag_state: Hashable = None
    randomizer: str = "7bag"
    hold_available: bool = True  # False after a hold this turn

    @classmethod
    def of_game(cls, game: Game) -> SearchState:
        """What the player of this running game knows now (its piece in play, hold, previews, randomizer)."""
        assert game.active is not None
        return cls(
            board=game.board,
            current=game.active.piece,
            hold=game.hold,
            queue=tuple(game.preview()),
            b2b=game.b2b,
            combo=game.combo,
            bag_state=game.future_state(),
            randomizer=game.config.randomizer,
            hold_available=not game.hold_used,
        )


@dataclass(frozen=True)
class Budget:
    """Limits of one suggestion; whichever is hit first ends the search (the first level always completes)."""

    time_ms: float | None = DEFAULT_TIME_MS
    max_nodes: int | None = None
    depth: int | None = None
    should_stop: Callable[[], bool] | None = None


@dataclass(frozen=True)
class Suggestion:
    move: Move  # the placement, its keys, and whether hold comes first
    score: float
    info: dict[str, Any] = field(default_factory=dict, compare=False)


def deadline_for(budget: Budget, started: float) -> float | None:
    """When the search must stop (perf_counter time), keeping a little of the budget for building the chosen
    move's key sequence (one full find_moves call); None without a time limit."""
    if budget.time_ms is None:
        return None
    return started + (budget.time_ms - min(1.5, 0.15 * budget.time_ms)) / 1000


class Engine(Protocol):
    name: str

    def suggest(self, state: SearchState, budget: Budget | None = None) -> Suggestion | None:
        """The best move found within the budget, or None if the current piece cannot be placed at all."""
        ...


Raw = tuple[int, int, int, int]  # a placement as search keeps it: rotation, x, y, spin (ints)


def _python_placements(bits: int, piece: Piece, rules: Rules, soft_drop: bool) -> list[Raw]:
    return [(p.rotation, p.x, p.y, int(p.spin)) for p in generate_raw(bits, piece, rules, soft_drop=soft_drop)]


def _kernels() -> tuple[Any, Any] | None:
    """(ai.jit_movegen, ai.jit_eval), or None where numba cannot be imported."""
    try:
        from ai import jit_eval, jit_movegen
    except ImportError:
        return None
    return jit_movegen, jit_eval


def accelerated_modules() -> list[Any]:
    """The compiled-kernel modules search can use ([] without numba)."""
    return list(_kernels() or ())


def placement_source(accelerate: bool = True) -> Callable[[int, Piece, Rules, bool], list[Raw]]:
    """The placement generator search uses: the compiled one (ai.jit_movegen) unless `accelerate` is False or
    numba is missing, else the pure-Python game.movegen (same placements; tested)."""
    kernels = _kernels() if accelerate else None
    return kernels[0].placements if kernels else _python_placements


def _evaluator(evaluator: Evaluator | str, accelerate: bool) -> Evaluator:
    """A weight set name or evaluator, as the evaluator search runs: linear ones get the compiled board half
    (ai.jit_eval, same values) when `accelerate` and numba is there."""
    if isinstance(evaluator, str):
        evaluator = load_evaluator(evaluator)
    if accelerate and type(evaluator) is LinearEvaluator:
        kernels = _kernels()
        if kernels:
            return kernels[1].JitLinearEvaluator(evaluator.weights)
    return evaluator


class _OutOfTime(Exception):
    """The budget ran out inside a node expansion (below the first level)."""


@dataclass
class _Node:
    value: float  # acc + board value of `bits` (the ranking key)
    acc: float  # sum of move values along the path
    bits: int
    hold: Piece | None
    index: int  # position in the known sequence (current + queue) of this node's current piece
    b2b: int
    combo: int
    first: tuple[Raw, bool, Piece] | None  # root move: placement, hold used, piece placed
    dead: bool = False

    def root_move(self) -> tuple[Raw, bool, Piece]:
        """`first` of a node below the root (where it is always set)."""
        assert self.first is not None
        return self.first


class BeamEngine:
    """Beam search over the known pieces and hold; anytime; expectation over unknown pieces at the end."""

    name = "beam"

    def __init__(
        self,
        rules: Rules | None = None,
        evaluator: Evaluator | str = "modern",
        *,
        width: int = 6,
        depth: int = 6,
        use_hold: bool = True,
        soft_drop: bool = True,
        top_out_row: int | None = None,
        seed: int = 0,
        default_budget: Budget | None = None,
        panic_height: int = 10,
        panic_evaluator: Evaluator | str | None = "bcts",
        accelerate: bool = True,
    ) -> None:
        self.rules = rules or Rules.named("srs")
        self.evaluator = _evaluator(evaluator, accelerate)
        # Panic mode: on a field this high, play for survival with another weight set (None: never).
        self._normal = self.evaluator
        self._panic = _evaluator(panic_evaluator, accelerate) if panic_evaluator is not None else None
        self.panic_height = panic_height
        self._caches: dict[int, tuple[dict, dict]] = {}
        self.width = width
        self.depth = depth
        self.use_hold = use_hold and self.rules.hold
        self.soft_drop = soft_drop
        self.top_out_row = top_out_row  # classic: a piece locked with a cell at or above this row ends the game
        self.rng = random.Random(seed)
        self.default_budget = default_budget or Budget()
        self._board_cache: dict[int, float] = {}
        self._expansions: dict[tuple, list[tuple]] = {}
        self._stop_at: float | None = None
        self._models: dict[str, Randomizer] = {}
        self._quiet: dict[tuple, list] = {}
        self._placements = placement_source(accelerate)

    # --- helpers ----------------------------------------------------------------------------------------------
    def _model(self, key: str) -> Randomizer:
        if key not in self._models:
            self._models[key] = RANDOMIZERS[key](0)
        return self._models[key]

    def _children(self, node: _Node, piece: Piece, hold: Piece | None, index: int, hold_used: bool) -> list[_Node]:
        """Every placement of `piece` from `node`, as child nodes (the next node's hold and sequence index given).

        What a placement leads to (field, chains, move value, field value) depends only on (field, piece, chains),
        so it is kept in a cache across suggestions: the next move's first level was usually searched as this
        move's second level. Raises _OutOfTime past `self._stop_at` (set only below the first level), so a budget
        is never overrun by more than one evaluation."""
        key = (node.bits, piece, node.b2b, node.combo)
        template = self._expansions.get(key)
        if template is None:
            template = self._template(node, piece)
            if len(self._expansions) >= 4000:
                self._expansions.clear()
            self._expansions[key] = template
        acc0 = node.acc
        first = node.first
        out = []
        for placement, bits, b2b, combo, move, dead, board in template:
            acc = acc0 + move
            out.append(
                _Node(
                    DEAD + acc if dead else acc + board,
                    acc,
                    bits,
                    hold,
                    index,
                    b2b,
                    combo,
                    first if first is not None else (placement, hold_used, piece),
                    dead,
                )
            )
        return out

    def _template(self, node: _Node, piece: Piece) -> list[tuple]:
        if self._stop_at is not None and time.perf_counter() >= self._stop_at:
            raise _OutOfTime
        evaluator = self.evaluator
        move_value = evaluator.move
        quiet = self._quiet_moves(piece) if getattr(evaluator, "linear_moves", False) else None
        bits0, b2b, combo = node.bits, node.b2b, node.combo
        # Classic top-out (research rule): the piece itself must lie below top_out_row, before any clear.
        # Piece masks stay inside the 400-bit field, so without the rule the shift always gives 0.
        top_out_shift = 10 * self.top_out_row if self.top_out_row is not None else 400
        rows_of = _ROWS_OF
        template = []
        for raw in self._placements(bits0, piece, self.rules, self.soft_drop):
            rot, x, y, spin = raw
            mask = PIECE_MASKS[piece, rot, x, y]
            bits = bits0 | mask
            over_top = mask >> top_out_shift != 0
            for dy in rows_of[piece, rot]:
                if (bits >> (10 * (y + dy))) & 1023 == 1023:  # a row fills: the full lock, with its scoring
                    placed = Placement(piece=piece, rotation=_ROTATIONS[rot], x=x, y=y, spin=_SPINS[spin])
                    after, result = lock_piece(Board(bits0), placed, b2b, combo)
                    bits = after.bits
                    move = move_value(piece, _ROTATIONS[rot], x, y, result, b2b)
                    template.append((raw, bits, result.b2b, result.combo, move, result.lock_out or over_top, 0.0))
                    break
            else:  # no line clear: the B2B chain stays, the combo ends, and the move value is a table lookup
                lock_out = not (mask & _VISIBLE)
                if quiet is not None:
                    move = quiet[rot][spin] + quiet[4] * y
                else:
                    result = _quiet_result(piece, _SPINS[spin], b2b, lock_out)
                    move = move_value(piece, _ROTATIONS[rot], x, y, result, b2b)
                template.append((raw, bits, b2b, -1, move, lock_out or over_top, 0.0))
        cache = self._board_cache
        if len(cache) > 200_000:
            cache.clear()
        missing = list({entry[1] for entry in template if not entry[5] and entry[1] not in cache})
        if missing:
            many = getattr(evaluator, "board_many", None)
            values = many(missing) if many is not None else [evaluator.board(bits) for bits in missing]
            cache.update(zip(missing, values))
        return [entry if entry[5] else entry[:6] + (cache[entry[1]],) for entry in template]

    def _quiet_moves(self, piece: Piece) -> list:
        """Move values of a lock that clears nothing, for evaluators that declare `linear_moves` (such a lock's value
        depends only on rotation and spin plus a constant times y): [rot][spin] = the value at y = 0, [4] = the
        value per row. Probed from the evaluator itself, cached per evaluator and piece."""
        key = (id(self.evaluator), piece)
        table = self._quiet.get(key)
        if table is None:
            move = self.evaluator.move

            def quiet_value(rot: int, y: int, spin: Spin) -> float:
                result = _quiet_result(piece, spin, -1, False)
                return move(piece, _ROTATIONS[rot], 4, y, result, -1)

            per_row = quiet_value(0, 1, Spin.NONE) - quiet_value(0, 0, Spin.NONE)
            table = [[quiet_value(rot, 0, spin) for spin in _SPINS] for rot in range(4)] + [per_row]
            self._quiet[key] = table
        return table

    def options(self, bits: int, piece: Piece, b2b: int = -1, combo: int = -1) -> list[tuple[Raw, int, float, bool]]:
        """Every placement of `piece` on the field `bits` as (placement, field after it, its one-piece value =
        move value + board value, whether it ends the game): greedy one-piece play without a search."""
        self._use_evaluator(SearchState(Board(bits), piece))
        root = _Node(0.0, 0.0, bits, None, 0, b2b, combo, None)
        kids = self._children(root, piece, None, 1, False)
        return [(kid.root_move()[0], kid.bits, kid.value, kid.dead) for kid in kids]

    def _expand(self, node: _Node, seq: tuple[Piece, ...], allow_hold: bool = True) -> list[_Node]:
        """Children placing the node's current piece, or (with hold) the held / next piece instead."""
        i = node.index
        current = seq[i]
        kids = self._children(node, current, node.hold, i + 1, False)
        if self.use_hold and allow_hold:
            if node.hold is None:
                if i + 1 < len(seq):
                    kids += self._children(node, seq[i + 1], current, i + 2, True)
            elif node.hold is not current:
                kids += self._children(node, node.hold, current, i + 1, True)
        return kids

    def _chance_value(self, node: _Node, seq: tuple[Piece, ...], model: Randomizer, bag_state: Hashable) -> float:
        """Expected best one-piece value from `node` when its next piece is not known yet."""
        total = 0.0
        for piece, prob, _next in model.outcomes(bag_state):
            if prob <= 0:
                continue
            extended = seq + (piece,)
            kids = self._expand(replace(node, index=len(seq)), extended) if node.index >= len(seq) else []
            best = max((kid.value for kid in kids), default=DEAD + node.acc)
            total += prob * best
        return total

    # --- the search --------------------------------------------------------------------------------------------
    def _use_evaluator(self, state: SearchState) -> bool:
        """Pick the evaluator (normal or panic) for this position and its caches; True when panicking."""
        panic = self._panic is not None and state.board.height() >= self.panic_height
        self.evaluator = self._panic if panic and self._panic is not None else self._normal
        self._board_cache, self._expansions = self._caches.setdefault(id(self.evaluator), ({}, {}))
        return panic

    def suggest(self, state: SearchState, budget: Budget | None = None) -> Suggestion | None:
        budget = budget or self.default_budget
        panic = self._use_evaluator(state)
        self._stop_at = None
        started = time.perf_counter()
        deadline = deadline_for(budget, started)
        max_depth = min(self.depth, budget.depth) if budget.depth is not None else self.depth
        seq = (state.current,) + tuple(state.queue)
        root = _Node(0.0, 0.0, state.board.bits, state.hold, 0, state.b2b, state.combo, None)
        level = self._expand(root, seq, allow_hold=state.hold_available)
        if not level:
            return None
        nodes = len(level)
        best_level = level
        depth_done = 1
        partial = 0
        stopped = False
        model = self._model(state.randomizer) if state.randomizer in RANDOMIZERS else None
        while depth_done < max_depth and not stopped:
            beam = _top(level, self.width)
            next_level: list[_Node] = []
            expanded: list[tuple[_Node, float]] = []  # (parent, its best child's value)
            chance = False
            self._stop_at = deadline
            for node in beam:
                if self._out_of_budget(budget, deadline, nodes):
                    stopped = True
                    break
                if node.dead:
                    continue
                if node.index < len(seq):
                    try:
                        kids = self._expand(node, seq)
                    except _OutOfTime:
                        stopped = True
                        break
                    if not kids:
                        node.dead = True
                        node.value = DEAD + node.acc
                        next_level.append(node)
                        continue
                    nodes += len(kids)
                    next_level.extend(_dedupe(kids))
                    expanded.append((node, max(kid.value for kid in kids)))
                elif model is not None:
                    chance = True
                    try:
                        value = self._chance_value(node, seq, model, state.bag_state)
                    except _OutOfTime:
                        stopped = True
                        break
                    nodes += 7
                    next_level.append(replace(node, value=value))
            self._stop_at = None
            if stopped and expanded and not chance:
                # Anytime use of a partial level: the beam is expanded best first, so the parents searched so far
                # carry their backed-up values; the others keep their own value shifted by the mean change that
                # one more piece made to the searched ones (values of different depths are not comparable as is).
                delta = sum(best - parent.value for parent, best in expanded) / len(expanded)
                searched = {id(parent) for parent, _ in expanded}
                rest = [replace(n, value=n.value + delta) for n in beam if id(n) not in searched and not n.dead]
                best_level = next_level + rest
                partial = len(expanded)
            if stopped or not next_level:
                break
            level = next_level
            best_level = level
            depth_done += 1
            if chance:
                break
        best = _pick(best_level, self.rng)
        raw, hold_used, piece = best.root_move()
        move = self._move_of(state.board.bits, piece, raw, hold_used)
        elapsed = (time.perf_counter() - started) * 1000
        return Suggestion(
            move=move,
            score=best.value,
            info={
                "depth": depth_done,
                "partial_parents": partial,
                "nodes": nodes,
                "ms": elapsed,
                "stopped": stopped,
                "engine": self.name,
                "evaluator": self.evaluator.name,
                "panic": panic,
            },
        )

    def _move_of(self, bits: int, piece: Piece, raw: Raw, hold: bool) -> Move:
        """The move generator's entry for the chosen raw placement (same cells and spin): its keys."""
        rot, x, y, spin = raw
        mask = PIECE_MASKS[piece, rot, x, y]
        for found in find_moves(bits, piece, self.rules, soft_drop=self.soft_drop):
            if found.placement.spin == spin and found.placement.mask == mask:
                return replace(found, hold=hold)
        raise RuntimeError("placement vanished between search and key lookup")  # generate/generate_raw agree

    @staticmethod
    def _out_of_budget(budget: Budget, deadline: float | None, nodes: int) -> bool:
        if deadline is not None and time.perf_counter() >= deadline:
            return True
        if budget.max_nodes is not None and nodes >= budget.max_nodes:
            return True
        return budget.should_stop is not None and budget.should_stop()


def _dedupe(kids: list[_Node]) -> list[_Node]:
    """Keep the best node per (field, hold, sequence position, chains): different paths to one position."""
    best: dict[tuple, _Node] = {}
    for kid in kids:
        key = (kid.bits, kid.hold, kid.index, kid.b2b, kid.combo)
        known = best.get(key)
        if known is None or kid.value > known.value:
            best[key] = kid
    return list(best.values())


def _top(level: list[_Node], width: int) -> list[_Node]:
    merged = _dedupe(level)
    merged.sort(key=lambda node: node.value, reverse=True)
    return merged[:width]


def _pick(level: list[_Node], rng: random.Random) -> _Node:
    """The best node; equal scores are broken by a seeded random choice (after a stable sort, so reproducible)."""
    top = max(node.value for node in level)
    ties = [node for node in level if node.value == top]
    if len(ties) == 1:
        return ties[0]
    ties.sort(key=lambda n: n.root_move()[:2])
    return rng.choice(ties)


ENGINES: dict[str, Callable[..., Engine]] = {"beam": BeamEngine}


def make_engine(name: str = "beam", **kwargs: Any) -> Engine:
    """An engine by name: beam or mcts (same constructor arguments as BeamEngine, plus engine-specific ones)."""
    if name == "mcts" and "mcts" not in ENGINES:
        from ai.mcts import MctsEngine

        ENGINES["mcts"] = MctsEngine
    try:
        return ENGINES[name](**kwargs)
    except KeyError:
        raise ValueError(f"unknown engine {name!r} (choose beam or mcts)") from None
