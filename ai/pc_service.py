"""Perfect-clear hints for the worker: is a PC reachable with the known pieces, the solution to draw, and the
chance over the pieces not seen yet with the placement that keeps it highest.

What is sent must be true for the position as the player has it:
* hold already pressed for the piece in play (`Snapshot.hold_used`) means the first placement is that piece,
  never a hold;
* a chance is sent only when it is the exact answer (or, for randomizers whose futures are too many to list,
  an estimate marked as one). While the exact chance is still being searched the answer says so
  (`chance=None, final=False`), and if it cannot finish in `CHANCE_LIMIT_MS` the final answer says it was not
  computed rather than showing a lower bound.

Between requests the worker thinks ahead (`ai.pc_ahead`): the positions an answer leads to are answered in its
idle time, and a request for one of them gets the answer kept for it at once.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace

from ai.pc.api import solve
from ai.pc.chance import ChanceResult, Progress, pc_chance
from ai.pc.search import PCInputError, Solution, Step, searcher_for, step_of
from ai.pc_ahead import Kept, ThinkingAhead
from ai.protocol import Answer, Move, PcAnswer, PcRequest, Placement, Snapshot
from game.board import WIDTH, Bitboard, Board
from game.finesse import minimal_keys
from game.pieces import Piece
from game.randomizer import make_randomizer
from game.rules import Rules

MAX_LINES = 6
CHANCE_LIMIT_MS = 20_000.0  # past this the chance is reported as not computed
_ROW = (1 << WIDTH) - 1


def candidate_lines(board: Board, preferred: int) -> list[int]:
    """PC heights that can work for this board, lowest first (a lower PC needs fewer pieces), then `preferred`
    if it is among them. Empty when no PC of up to 6 lines fits."""
    cells = board.cell_count()
    height = board.height()
    possible = [
        lines
        for lines in range(max(height, 1), MAX_LINES + 1)
        if (WIDTH * lines - cells) % 4 == 0 and WIDTH * lines > cells
    ]
    return possible[:1] + [preferred] if preferred in possible[1:] else possible[:2]


def overlay_cells(board: Board, steps: Sequence[Step]) -> tuple[tuple[Piece, tuple[tuple[int, int], ...]], ...]:
    """Each step's cells in today's board coordinates: rows cleared by earlier steps are put back in place."""
    rows = list(range(40))  # original row index of each row of the field as it is now
    bits: Bitboard = board.bits
    out = []
    for step in steps:
        cells = []
        for index in range(step.mask.bit_length()):
            if step.mask >> index & 1:
                x, y = index % WIDTH, index // WIDTH
                cells.append((x, rows[y]))
        out.append((step.piece, tuple(sorted(cells))))
        bits |= step.mask
        full = [y for y in range(len(rows)) if (bits >> (y * WIDTH)) & _ROW == _ROW]
        for y in reversed(full):
            low = bits & ((1 << (y * WIDTH)) - 1)
            bits = low | ((bits >> ((y + 1) * WIDTH)) << (y * WIDTH))
            del rows[y]
    return tuple(out)


def step_move(board: Board, step: Step, rules: Rules, soft_drop: bool) -> Move:
    """The step as the protocol sends it: its placement with the shortest keys on `board`."""
    keys = minimal_keys(board, step.placement, rules, soft_drop=soft_drop) or ()
    return Move(placement=step.placement, keys=keys, hold=step.hold)


def hold_spent(snapshot: Snapshot) -> bool:
    """Hold was pressed for the piece in play: it must be placed itself."""
    return snapshot.rules.hold and snapshot.hold_used and snapshot.hold is not None


def solve_position(
    snapshot: Snapshot,
    lines: int,
    *,
    soft_drop: bool,
    budget_ms: float | None,
    should_stop: Callable[[], bool] | None = None,
):
    """The first PC of `lines` rows for the position as the player has it: (solution or None, truncated).
    should_stop ends the search early, as the budget does."""
    board, rules = snapshot.board, snapshot.rules
    queue = (snapshot.current, *snapshot.queue)
    if not hold_spent(snapshot):
        result = solve(
            board,
            queue,
            hold=snapshot.hold,
            use_hold=rules.hold,
            rules=rules,
            soft_drop=soft_drop,
            lines=lines,
            budget_ms=budget_ms,
            verify=False,
            should_stop=should_stop,
        )
        return (result.solutions[0] if result.solutions else None), result.truncated
    # Hold is spent: the piece in play goes first, then the usual search with the hold slot as it is.
    started = time.perf_counter()
    truncated = False
    for child in searcher_for(rules, soft_drop).gen.children(board.bits, lines, snapshot.current):
        first = step_of(snapshot.current, child, hold=False)
        if child.h == 0:
            return Solution(steps=(first,), leftover=snapshot.hold), False
        spent = (time.perf_counter() - started) * 1000
        left = None if budget_ms is None else max(1.0, budget_ms - spent)
        result = solve(
            child.field,
            snapshot.queue,
            hold=snapshot.hold,
            use_hold=True,
            rules=rules,
            soft_drop=soft_drop,
            lines=child.h,
            budget_ms=left,
            verify=False,
            should_stop=should_stop,
        )
        truncated |= result.truncated
        if result.solutions:
            rest = result.solutions[0]
            return Solution(steps=(first, *rest.steps), leftover=rest.leftover), False
        if budget_ms is not None and (time.perf_counter() - started) * 1000 > budget_ms:
            return None, True
        if should_stop is not None and should_stop():
            return None, True
    return None, truncated


def chance_of(
    snapshot: Snapshot,
    lines: int,
    *,
    soft_drop: bool,
    budget_ms: float | None,
    should_stop: Callable[[], bool] | None = None,
    progress: Progress | None = None,
) -> ChanceResult:
    """pc_chance for the position as the player has it (hold spent or not); `progress` hears the proved bounds
    while it runs (see pc_chance)."""
    return pc_chance(
        snapshot.board,
        snapshot.current,
        list(snapshot.queue),
        snapshot.hold,
        snapshot.randomizer_state,
        make_randomizer(snapshot.randomizer, 0),
        snapshot.rules,
        lines,
        budget_ms=budget_ms,
        soft_drop=soft_drop,
        use_hold=snapshot.rules.hold,
        hold_spent=hold_spent(snapshot),
        should_stop=should_stop,
        progress=progress,
    )


def exact_chance(
    snapshot: Snapshot,
    lines: int,
    *,
    soft_drop: bool,
    should_stop: Callable[[], bool] = lambda: False,
    limit_ms: float | None = None,
    progress: Progress | None = None,
) -> ChanceResult | None:
    """The exact chance (or, for futures too many to list, a sampled one: as good as it gets), in one search that
    looks for a newer question (`should_stop`, which also answers the worker's pings) every few milliseconds.
    None when it could not be finished within `limit_ms` (default CHANCE_LIMIT_MS) or the caller asked to stop.
    (Rounds of growing budgets, each starting over, left the worst positions of the 7-bag loop unfinished.)"""
    budget_ms = CHANCE_LIMIT_MS if limit_ms is None else limit_ms
    result = chance_of(
        snapshot, lines, soft_drop=soft_drop, budget_ms=budget_ms, should_stop=should_stop, progress=progress
    )
    if not result.approximate or result.sampled:
        return result
    return None


AHEAD = ThinkingAhead()  # this worker's planned questions and kept answers (ai.pc_ahead)


def solve_for_hint(request: PcRequest, should_stop: Callable[[], bool], send: Callable[[Answer], None]) -> None:
    """Answer a PC request: at once when thinking ahead answered it already, else by searching. Then plan the
    positions the answer leads to (`request.think_ahead`)."""
    started = time.perf_counter()
    kept = AHEAD.kept(request)
    if kept is not None:
        elapsed_ms = (time.perf_counter() - started) * 1000
        send(replace(kept.answer, generation=request.generation, elapsed_ms=elapsed_ms))
    else:
        kept = _answer(request, should_stop, send)
        if kept is not None:
            AHEAD.keep(request, kept)
    if request.think_ahead and kept is not None:
        AHEAD.plan(request, kept.steps)


def aim_at(request: PcRequest, placement: Placement) -> None:
    """The piece in play of `request`'s position would land on `placement`: think about the position after it
    first (ai.pc_ahead), when the request thinks ahead."""
    if request.think_ahead:
        AHEAD.aim(request, placement)


def think_ahead(should_stop: Callable[[], bool]) -> bool:
    """One planned question answered in the worker's idle time (see ai.pc_ahead); True while more are planned."""
    return AHEAD.think(lambda request, stop: _answer(request, stop, lambda _: None), should_stop)


def _answer(request: PcRequest, should_stop: Callable[[], bool], send: Callable[[Answer], None]) -> Kept | None:
    """Search and send the answer (a partial one first, then the final one); the final answer with the next
    placements it points to when it is complete: nothing was cut short and the chance was computed if wanted."""
    started = time.perf_counter()

    def elapsed() -> float:
        return (time.perf_counter() - started) * 1000

    # At once: the worker is on it. A fresh worker may first load the compiled kernels, and this partial answer
    # buys it the client's streaming patience instead of the short answer deadline.
    send(PcAnswer(request.generation, solvable=False, final=False, working=True))
    snapshot = request.snapshot
    board = snapshot.board
    soft_drop = request.drop != "harddrop"
    candidates = candidate_lines(board, request.lines)
    if not candidates:
        note = "no perfect clear fits this stack"
        nothing = PcAnswer(request.generation, solvable=False, chance=0.0, note=note, elapsed_ms=elapsed())
        send(nothing)
        return Kept(nothing, ())
    solution: Solution | None = None
    truncated = False
    # Without a solution from the known pieces the chance is about the PC the player is aiming for.
    lines = request.lines if request.lines in candidates else candidates[0]
    for height in candidates:  # the lowest PC the known pieces can finish wins
        try:
            found, cut = solve_position(
                snapshot,
                height,
                soft_drop=soft_drop,
                budget_ms=max(1.0, request.budget_ms - elapsed()),
                should_stop=should_stop,
            )
        except PCInputError as error:
            send(PcAnswer(request.generation, solvable=False, chance=0.0, note=str(error), elapsed_ms=elapsed()))
            return None
        truncated |= cut
        if found is not None:
            solution, lines = found, height
            break
    overlay = overlay_cells(board, solution.steps) if solution else ()
    first = (step_move(board, solution.steps[0], snapshot.rules, soft_drop),) if solution else ()
    note = f"{lines}-line PC" + (" (search cut short)" if truncated and not solution else "")
    answer = PcAnswer(
        request.generation,
        solvable=solution is not None,
        solution=first,
        overlay=overlay,
        final=not request.want_chance,
        note=note,
        elapsed_ms=elapsed(),
        lines=lines,
    )
    send(answer)
    steps = (solution.steps[0],) if solution else ()
    if not request.want_chance:
        return None if truncated else Kept(answer, steps)
    if should_stop():
        return None
    try:
        proved: list[PcAnswer] = []
        lead_moves: dict[Step, Move] = {}  # (a report every PROGRESS_MS; the keys are a search of their own)

        def narrowed(lower: float, upper: float, lead: Step | None) -> None:
            """A long search shows what it has proved so far: the chance lies between these, and the placement that
            wins the lower (the best found so far, not known to be the best)."""
            lead_move = None
            if lead is not None:
                if lead not in lead_moves:
                    lead_moves[lead] = step_move(board, lead, snapshot.rules, soft_drop)
                lead_move = lead_moves[lead]
            proved[:] = [replace(answer, chance_range=(lower, upper), best_next=lead_move)]
            send(replace(proved[0], elapsed_ms=elapsed()))

        chance = exact_chance(snapshot, lines, soft_drop=soft_drop, should_stop=should_stop, progress=narrowed)
    except (PCInputError, ValueError) as error:
        send(replace(answer, final=True, note=f"{note}; chance unavailable: {error}", elapsed_ms=elapsed()))
        return None
    if chance is None:
        if should_stop():
            return None  # a newer question is waiting; this one is dropped
        note += "; chance not computed: too many continuations to search in time"
        stopped = proved[0] if proved else answer  # what was proved before the limit still holds
        send(replace(stopped, final=True, note=note, elapsed_ms=elapsed()))
        return None
    best = step_move(board, chance.best_placement, snapshot.rules, soft_drop) if chance.best_placement else None
    final = replace(
        answer,
        chance=chance.chance,
        estimate=chance.sampled,
        best_next=best,
        final=True,
        note=note + (" (estimate)" if chance.sampled else ""),
        elapsed_ms=elapsed(),
    )
    send(final)
    if truncated:
        return None
    # the panel's move first (the PC's first step when one is drawn, else the advice): the player's likely next
    advice = (chance.best_placement,) if chance.best_placement else ()
    return Kept(final, steps + tuple(step for step in advice if step not in steps))
