"""What the worker does with each request: run the placement engine or the PC solver on the snapshot.

Engines are kept between requests (their caches stay warm) and rebuilt only when the rules, weights or drop
mode change. Suggestions stream: a quick one-piece answer first, then the full search's answer.
"""

from __future__ import annotations

import math
import threading
import time
import traceback
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import replace

from ai.protocol import (
    ENGINES,
    Answer,
    BuildRequest,
    Move,
    PcAim,
    PcAnswer,
    PcRequest,
    Placement,
    Request,
    ReviewAnswer,
    ReviewRequest,
    Snapshot,
    Suggestion,
    SuggestRequest,
)
from ai.search import Budget, Engine, SearchState, make_engine
from ai.search import Suggestion as EngineSuggestion
from ai.worker import freeze_survivors
from game.rules import Rules, per_rules

QUICK_BUDGET_MS = 2.0


# Set once the compiled kernels are loaded; until then engines run on the pure-Python generator and evaluator
# (the same moves, fewer nodes per millisecond), so a freshly started worker answers at once.
_kernels_ready = threading.Event()


def warm_up(pc: bool = True, rules: Rules | None = None) -> None:
    """Compile the accelerated kernels, or load them from numba's on-disk cache (about 1 s; 10-20 s the very first
    time after an install), then let engines use them. Without numba, engines stay pure Python. `pc`: the PC
    solver's kernels and tables too (about 100 MB for one rule set; a Tetris Bot Protocol bot asks no PC question).
    `rules`: the rules the game plays, whose PC tables are read now (None: every rule set's, about 190 MB)."""
    from ai.search import accelerated_modules

    modules = accelerated_modules()
    for module in modules:
        module.warm_up()
    if modules:
        _kernels_ready.set()
    if not pc:
        return
    from ai.pc.api import warm_up as warm_up_pc

    warm_up_pc(rules)  # the PC solver's compiled tiling test: loaded now, not by the first PC question


# Cleared while the warm-up thread loads (or, the first time after an install or a kernel change, compiles) the
# kernels: idle work waits for it. A planned search would compile them itself without a word to the window, which
# then takes the silent worker for a hung one (a request's own search first sends that it is working).
_not_warming_up = threading.Event()
_not_warming_up.set()


def start_warm_up(rules: Rules | None = None) -> threading.Thread:
    """warm_up in a background thread (the worker's way: restarting after a crash must not wait for it)."""

    def load() -> None:
        try:
            warm_up(rules=rules)
            freeze_survivors()  # the tables and kernels just loaded: out of every later full collection
        except Exception:  # noqa: BLE001 - no kernels then: the pure-Python engines keep answering
            traceback.print_exc()
        finally:
            _not_warming_up.set()

    _not_warming_up.clear()
    thread = threading.Thread(target=load, name="warm-up", daemon=True)
    thread.start()
    return thread


def kernels_ready() -> bool:
    return _kernels_ready.is_set()


def engine_for(snapshot: Snapshot, name: str = "beam", weights: str = "modern", drop: str = "softdrop") -> Engine:
    """The engine kept for these rules, engine name, weights and drop mode (its caches stay warm between requests)."""
    return _engine(snapshot.rules, name, weights, drop, kernels_ready())


@per_rules()
def _engine(rules: Rules, name: str, weights: str, drop: str, accelerate: bool) -> Engine:
    return make_engine(name, rules=rules, evaluator=weights, soft_drop=drop != "harddrop", accelerate=accelerate)


def search_state(snapshot: Snapshot) -> SearchState:
    return SearchState(
        board=snapshot.board,
        current=snapshot.current,
        hold=snapshot.hold,
        queue=snapshot.queue,
        b2b=snapshot.b2b,
        combo=snapshot.combo,
        bag_state=snapshot.randomizer_state,
        randomizer=snapshot.randomizer,
        hold_available=not snapshot.hold_used,
    )


def to_move(found: EngineSuggestion | None) -> Move | None:
    return None if found is None else found.move


# Final hints by position: the same position under the same rules and engine always gets the same hint (the
# search has a time budget, so a second search could differ; undo/redo must not change the advice).
_FINAL_HINTS: OrderedDict[tuple, Suggestion] = OrderedDict()
_FINAL_HINTS_KEPT = 1024


def _hint_key(request: SuggestRequest) -> tuple:
    s = request.snapshot
    return (*s.pieces_key(), s.b2b, s.combo, request.engine, request.weights, request.drop, request.budget_ms)


def _suggest(request: SuggestRequest, should_stop: Callable[[], bool], send: Callable[[Answer], None]) -> None:
    key = _hint_key(request)
    known = _FINAL_HINTS.get(key)
    if known is not None:
        _FINAL_HINTS.move_to_end(key)
        send(replace(known, generation=request.generation))
        return
    start = time.perf_counter()
    engine = engine_for(request.snapshot, request.engine, request.weights, request.drop)
    state = search_state(request.snapshot)
    quick = engine.suggest(state, Budget(time_ms=QUICK_BUDGET_MS, depth=1, should_stop=should_stop))
    send(
        Suggestion(
            generation=request.generation,
            move=to_move(quick),
            final=False,
            depth=1,
            score=quick.score if quick else 0.0,
            elapsed_ms=(time.perf_counter() - start) * 1000,
        )
    )
    if should_stop():
        return
    full = engine.suggest(state, Budget(time_ms=request.budget_ms, should_stop=should_stop))
    info = full.info if full else {}
    answer = Suggestion(
        generation=request.generation,
        move=to_move(full),
        final=True,
        score=full.score if full else 0.0,
        depth=int(info.get("depth", 0)),
        nodes=int(info.get("nodes", 0)),
        elapsed_ms=(time.perf_counter() - start) * 1000,
    )
    if not should_stop():  # a search cut short by a newer request is not the position's answer
        _FINAL_HINTS[key] = answer
        if len(_FINAL_HINTS) > _FINAL_HINTS_KEPT:
            _FINAL_HINTS.popitem(last=False)
    send(answer)


def _solve_pc(request: PcRequest, should_stop: Callable[[], bool], send: Callable[[Answer], None]) -> None:
    from ai.pc_service import solve_for_hint

    solve_for_hint(request, should_stop, send)


def _aim(aim: PcAim) -> None:
    """Think first about the position after the aimed placement (ai.pc_ahead), when its question thinks ahead;
    an aim the window could not have sent is refused."""
    from ai.pc_service import aim_at

    request = aim.request
    if not isinstance(request, PcRequest) or not isinstance(aim.placement, Placement):
        raise RequestError("an aim needs the PC request of its position and a placement")
    check_request(request)
    if aim.placement.piece != request.snapshot.current:
        raise RequestError("an aim places the piece in play")
    try:
        mask = aim.placement.mask
    except KeyError:
        raise RequestError("the aimed placement is off the board") from None
    if mask & request.snapshot.board.bits:
        raise RequestError("the aimed placement overlaps the stack")
    aim_at(request, aim.placement)


def think_ahead(should_stop: Callable[[], bool]) -> bool:
    """The worker's idle work: the PC questions the last PC answer leads to (ai.pc_ahead). True while more. While
    the kernels are being warmed up it only waits (a little at a time, so that a request still ends it at once)."""
    from ai.pc_service import think_ahead as answer_planned

    if not _not_warming_up.wait(0.02):
        return True
    return answer_planned(should_stop)


class RequestError(ValueError):
    """A request the worker refuses; the worker answers it with a WorkerFailure carrying this message."""


MAX_BUDGET_MS = 60_000.0
ENGINE_NAMES = ENGINES
SUGGEST_DROPS = ("softdrop", "harddrop")
PC_DROPS = ("softdrop", "harddrop")


def check_request(request: SuggestRequest | PcRequest) -> None:
    """Refuse a request with values the engines would misread (an unknown drop mode silently meant soft drop,
    an infinite budget never ends): RequestError naming the field."""
    if type(request.generation) is not int:
        raise RequestError(f"generation must be an integer, got {request.generation!r}")
    if not isinstance(request.snapshot, Snapshot):
        raise RequestError(f"snapshot must be a Snapshot, got {type(request.snapshot).__name__}")
    budget = request.budget_ms
    if (
        isinstance(budget, bool)
        or not isinstance(budget, (int, float))
        or not math.isfinite(budget)
        or not 0 < budget <= MAX_BUDGET_MS
    ):
        raise RequestError(
            f"budget_ms must be a number of milliseconds above 0 and at most {MAX_BUDGET_MS:,.0f}, got {budget!r}"
        )
    if isinstance(request, SuggestRequest):
        if request.drop not in SUGGEST_DROPS:
            raise RequestError(f"unknown drop {request.drop!r} (choose {' or '.join(SUGGEST_DROPS)})")
        if request.engine not in ENGINE_NAMES:
            raise RequestError(f"unknown engine {request.engine!r} (choose {' or '.join(ENGINE_NAMES)})")
        if not isinstance(request.weights, str) or not request.weights:
            raise RequestError(f"weights must be the name or path of a weight set, got {request.weights!r}")
    else:
        if request.drop not in PC_DROPS:
            raise RequestError(f"unknown drop {request.drop!r} (choose {' or '.join(PC_DROPS)})")
        if type(request.lines) is not int or not 1 <= request.lines <= 6:
            raise RequestError(f"lines must be 1..6, got {request.lines!r}")
        if not isinstance(request.want_chance, bool):
            raise RequestError(f"want_chance must be true or false, got {request.want_chance!r}")


def handle(request: Request, should_stop: Callable[[], bool], send: Callable[[Answer], None]) -> None:
    if isinstance(request, (SuggestRequest, PcRequest)):
        check_request(request)
    if isinstance(request, SuggestRequest):
        _suggest(request, should_stop, send)
    elif isinstance(request, PcRequest):
        _solve_pc(request, should_stop, send)
    elif isinstance(request, PcAim):
        _aim(request)
    elif isinstance(request, ReviewRequest):
        _review(request, should_stop, send)
    elif isinstance(request, BuildRequest):
        _build(request, should_stop, send)
    else:
        raise RequestError(f"unknown request {type(request).__name__}")


def _build(request: BuildRequest, should_stop: Callable[[], bool], send: Callable[[Answer], None]) -> None:
    from ai.setup_service import solve_build

    if (
        type(request.must) is not int
        or type(request.may) is not int
        or request.must <= 0
        or request.may < 0
        or request.drop not in ("softdrop", "harddrop")
        or not all(
            type(name) is str and type(must) is int and type(may) is int and must > 0 and may >= 0
            for name, must, may in request.choices
        )
    ):
        raise RequestError("a build needs the shape's cells as non-negative ints and a known drop")
    solve_build(request, should_stop, send)


REVIEW_PROGRESS_S = 0.1  # placements reviewed are sent in batches at most this often (first one at once)


def _review(request: ReviewRequest, should_stop: Callable[[], bool], send: Callable[[Answer], None]) -> None:
    """Stream a replay's review (ai.review), placement by placement; a cached review of the same engine is
    answered as is. Values do not depend on whether the compiled kernels are loaded yet (tested equal)."""
    import json

    from ai.review import GameReview, engine_key, make_review_engine, review_turns, turns_of
    from game.replay import Replay, ReplayError

    if (
        type(request.generation) is not int
        or not isinstance(request.replay, str)
        or not isinstance(request.cached, str)
        or type(request.depth) is not int
        or not 1 <= request.depth <= 6
    ):
        raise RequestError("a review needs the replay's text, a cached review's text and a depth of 1..6")
    key = engine_key(depth=request.depth)
    if request.cached:
        try:
            cached = json.loads(request.cached)
        except ValueError:
            cached = None
        if (
            isinstance(cached, dict)
            and cached.get("engine") == key
            and len(cached.get("placements", ())) == cached.get("placements_total")
        ):
            total = cached["placements_total"]
            send(
                ReviewAnswer(
                    request.generation,
                    total,
                    total,
                    final=True,
                    review=request.cached,
                    engine=key,
                    accuracy=cached.get("accuracy"),
                )
            )
            return
    try:
        replay = Replay.from_json(request.replay)
    except ReplayError as error:
        raise RequestError(f"the replay cannot be reviewed: {error}") from None
    turns = turns_of(replay)
    # At once, before the engine is built: the UI then knows the worker is on it (a partial answer buys it the
    # client's streaming patience, as the first search may wait for the compiled kernels to load).
    send(ReviewAnswer(request.generation, 0, len(turns)))
    review = GameReview(key, total=len(turns))
    engine = make_review_engine(replay.config.rules, depth=request.depth, accelerate=kernels_ready())
    batch: list = []
    sent_at = 0.0
    for item in review_turns(turns, replay.config.rules, engine=engine, should_stop=should_stop):
        review.placements.append(item)
        batch.append(item.to_dict())
        now = time.perf_counter()
        if now - sent_at >= REVIEW_PROGRESS_S or len(review.placements) == len(turns):
            send(ReviewAnswer(request.generation, len(review.placements), len(turns), tuple(batch)))
            batch, sent_at = [], now
    if should_stop():
        return
    data = review.to_dict()
    send(
        ReviewAnswer(
            request.generation,
            len(turns),
            len(turns),
            final=True,
            review=json.dumps(data),
            engine=key,
            accuracy=data["accuracy"],
        )
    )


def suggest_moves(snapshot: Snapshot, budget_ms: float) -> list[Move]:
    """For the TBP bot: the best move (a list, best first, as TBP wants)."""
    engine = engine_for(snapshot)
    found = engine.suggest(search_state(snapshot), Budget(time_ms=budget_ms))
    move = to_move(found)
    return [move] if move is not None else []


__all__ = ["PcAnswer", "engine_for", "handle", "search_state", "suggest_moves"]
