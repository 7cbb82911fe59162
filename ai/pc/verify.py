"""Replay a solution through the game's own rules: `game.movegen.find_moves` must offer every placement and
`lock_piece` must end in a perfect clear. This is the check every reported solution passes."""

from __future__ import annotations

from dataclasses import replace

from ai.pc.search import Problem, Solution
from game.board import PIECE_MASKS, Board
from game.movegen import find_moves
from game.movement import Spin
from game.rules import Rules
from game.scoring import lock_piece

_OFFERED: dict[tuple, dict[int, list[Spin]]] = {}


def _offered(board: Board, piece, rules: Rules, soft_drop: bool) -> dict[int, list[Spin]]:
    """find_moves as mask -> spins, memoised: solutions of one search share most of their boards."""
    key = (board.bits, piece, rules.cache_key(), soft_drop)
    found = _OFFERED.get(key)
    if found is None:
        if len(_OFFERED) > 50_000:
            _OFFERED.clear()
        found = {}
        for move in find_moves(board, piece, rules, soft_drop=soft_drop):
            found.setdefault(move.placement.mask, []).append(move.placement.spin)
        _OFFERED[key] = found
    return found


class ReplayError(AssertionError):
    """A solution that the game's rules do not allow or that does not end in a perfect clear."""


def replay(problem: Problem, solution: Solution, rules: Rules, soft_drop: bool = True) -> Board:
    """Play the solution from the problem's field; returns the final board (empty) or raises ReplayError."""
    board = Board(problem.field)
    queue = list(problem.queue)
    hold = problem.hold
    cleared = 0
    last = None
    for number, step in enumerate(solution.steps, 1):
        # the queue and hold must deliver this piece, pressing hold exactly when the step says so
        if step.hold:
            if not problem.use_hold:
                raise ReplayError(f"step {number}: hold used but not allowed")
            if hold is None:  # the piece in play goes to hold and the next one comes into play
                if len(queue) < 2:
                    raise ReplayError(f"step {number}: hold pressed with no next piece")
                hold = queue.pop(0)
                current = queue.pop(0)
            else:  # swap: the held piece comes into play, the piece in play (if any) goes to hold
                current, hold = hold, (queue.pop(0) if queue else None)
            if current != step.piece:
                raise ReplayError(f"step {number}: hold gives {current.name}, solution places {step.piece.name}")
        else:
            if not queue or queue[0] != step.piece:
                raise ReplayError(f"step {number}: next piece is not {step.piece.name}")
            queue.pop(0)
        p = step.placement
        mask = PIECE_MASKS.get((p.piece, p.rotation, p.x, p.y))
        if mask is None:
            raise ReplayError(f"step {number}: ({p.rotation.srs_name}, {p.x}, {p.y}) is not on the board")
        spins = _offered(board, p.piece, rules, soft_drop).get(mask)
        if not spins:
            raise ReplayError(f"step {number}: {p.piece.name} at {p.x},{p.y} is not reachable")
        spin = min(spins, key=lambda s: s is not Spin.NONE)
        board, last = lock_piece(board, replace(p, spin=spin), -1, -1)
        cleared += last.lines
    if last is None or not last.perfect_clear or not board.is_empty() or cleared != problem.lines:
        raise ReplayError("the solution does not end in a perfect clear of the requested lines")
    return board


def replay_on_engine(problem: Problem, solution: Solution, rules: Rules, soft_drop: bool = True) -> None:
    """Play the solution on the timed engine (`game.engine.Game`) with real button presses: each step's
    shortest keys, after HOLD where the step says so. Raises ReplayError unless every piece locks where the
    solution says and the last lock is a perfect clear."""
    from game.config import GameConfig, GravityMode
    from game.engine import Game
    from game.events import Locked
    from game.executor import play_keys
    from game.finesse import minimal_keys

    config = GameConfig(
        rules=rules, gravity_mode=GravityMode.FIXED, gravity=0.0, lock_delay=600, track_finesse=False, previews=0
    )
    game = Game.from_position(config, Board(problem.field), list(problem.queue), problem.hold)
    last = None
    for number, step in enumerate(solution.steps, 1):
        p = step.placement
        keys = minimal_keys(game.board, p, rules, soft_drop=soft_drop)
        if keys is None:
            raise ReplayError(f"step {number}: no keys reach {p.piece.name} at {p.x},{p.y} on the engine")
        locks = [e for e in play_keys(game, keys, hold_first=step.hold) if isinstance(e, Locked)]
        # Same cells count as the same placement (S, Z and I cover equal cells in two states).
        if not locks or locks[0].placement.piece != step.piece or locks[0].placement.mask != step.mask:
            raise ReplayError(f"step {number}: the engine locked {locks[:1]} instead of {step}")
        last = locks[0].result
    if last is None or not last.perfect_clear or not game.board.is_empty():
        raise ReplayError("on the engine the solution does not end in a perfect clear")
