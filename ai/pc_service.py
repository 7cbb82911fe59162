"""Perfect-clear hints for the worker: is a PC reachable with the known pieces, the solution to draw, and the
chance over the pieces not seen yet with the placement that keeps it highest."""

from __future__ import annotations

import time
from collections.abc import Callable

from ai.pc.api import solve
from ai.pc.chance import pc_chance
from ai.pc.search import PCInputError, Solution, Step
from ai.protocol import Answer, Move, PcAnswer, PcRequest, Snapshot
from game.board import WIDTH, Bitboard, Board
from game.finesse import minimal_keys
from game.movement import Spin
from game.pieces import Piece
from game.randomizer import make_randomizer

MAX_LINES = 6
_ROW = (1 << WIDTH) - 1


def candidate_lines(board: Board, preferred: int) -> list[int]:
    """PC heights that can work for this board, lowest first (a lower PC needs fewer pieces), then `preferred`
    if it is among them. Empty when no PC of up to 6 lines fits."""
    cells = board.cell_count()
    height = board.height()
    possible = [lines for lines in range(max(height, 1), MAX_LINES + 1)
                if (WIDTH * lines - cells) % 4 == 0 and WIDTH * lines > cells]
    return possible[:1] + [preferred] if preferred in possible[1:] else possible[:2]


def overlay_cells(board: Board, steps: tuple[Step, ...]) -> tuple[tuple[Piece, tuple[tuple[int, int], ...]], ...]:
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


def step_move(board: Board, step: Step, snapshot: Snapshot, soft_drop: bool) -> Move:
    keys = minimal_keys(board, step.piece, step.rotation, step.x, step.y, snapshot.rules, soft_drop=soft_drop) or ()
    return Move(step.piece, step.rotation, step.x, step.y, Spin.NONE, tuple(keys), step.hold)


def solve_for_hint(request: PcRequest, should_stop: Callable[[], bool], send: Callable[[Answer], None]) -> None:
    started = time.perf_counter()
    snapshot = request.snapshot
    board = snapshot.board
    soft_drop = request.drop != "harddrop"
    candidates = candidate_lines(board, request.lines)
    if not candidates:
        send(PcAnswer(request.generation, solvable=False, chance=0.0, note="no perfect clear fits this stack",
                      elapsed_ms=(time.perf_counter() - started) * 1000))
        return
    queue = (snapshot.current, *snapshot.queue)
    use_hold = snapshot.rules.hold
    solution: Solution | None = None
    truncated = False
    lines = candidates[0]
    for height in candidates:  # the lowest PC the known pieces can finish wins
        spent = (time.perf_counter() - started) * 1000
        try:
            result = solve(board, queue, hold=snapshot.hold, use_hold=use_hold, rules=snapshot.rules,
                           soft_drop=soft_drop, lines=height, budget_ms=max(1.0, request.budget_ms - spent),
                           verify=False)
        except PCInputError as error:
            send(PcAnswer(request.generation, solvable=False, chance=0.0, note=str(error),
                          elapsed_ms=(time.perf_counter() - started) * 1000))
            return
        truncated |= result.truncated
        if result.solutions:
            solution, lines = result.solutions[0], height
            break
    overlay = overlay_cells(board, solution.steps) if solution else ()
    first = (step_move(board, solution.steps[0], snapshot, soft_drop),) if solution else ()
    note = f"{lines}-line PC" + (" (search cut short)" if truncated and not solution else "")
    answer = PcAnswer(request.generation, solvable=solution is not None, solution=first, overlay=overlay,
                      final=not request.want_chance, note=note, elapsed_ms=(time.perf_counter() - started) * 1000)
    send(answer)
    if not request.want_chance or should_stop():
        return
    remaining = max(1.0, request.budget_ms - (time.perf_counter() - started) * 1000)
    try:
        chance = pc_chance(board, snapshot.current, list(snapshot.queue), snapshot.hold, snapshot.randomizer_state,
                           make_randomizer(snapshot.randomizer, 0), snapshot.rules, lines, budget_ms=remaining,
                           soft_drop=soft_drop, use_hold=use_hold)
    except (PCInputError, ValueError) as error:
        send(PcAnswer(request.generation, solvable=answer.solvable, solution=first, overlay=overlay, chance=None,
                      note=f"{note}; chance unavailable: {error}", elapsed_ms=(time.perf_counter() - started) * 1000))
        return
    best = step_move(board, chance.best_placement, snapshot, soft_drop) if chance.best_placement else None
    suffix = " (estimate)" if chance.approximate else ""
    send(PcAnswer(request.generation, solvable=answer.solvable, solution=first, overlay=overlay,
                  chance=chance.chance, best_next=best, final=True, note=note + suffix,
                  elapsed_ms=(time.perf_counter() - started) * 1000))
