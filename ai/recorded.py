"""Seeded games played on the timed engine through real key presses, kept as replays (for `bench --replay-dir`,
the review's calibration and its tests).

Players: ``beam`` (the engine the hint uses, at its live settings unless a budget is given), ``shallow`` (the same
engine seeing the piece in play and one preview, with hold), ``greedy`` (the same engine looking at the piece in
play only, no hold) and ``random`` (a uniformly random legal placement of the piece
in play, never a hold: the deliberately weak player).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ai.search import Budget, SearchState, make_engine
from game.config import GameConfig, GravityMode
from game.engine import Game
from game.executor import play_keys
from game.replay import Replay

PLAYERS = ("beam", "shallow", "greedy", "random")


def recorded_config() -> GameConfig:
    """Guideline rules (SRS, 7-bag, hold, 5 previews) without gravity, so the keys alone move the pieces."""
    return GameConfig(gravity_mode=GravityMode.FIXED, gravity=0.0)


@dataclass
class RecordedGame:
    replay: Replay
    pieces: int
    lines: int
    topped_out: bool


def play_recorded(
    player: str = "beam",
    seed: int = 0,
    *,
    max_pieces: int = 100,
    budget: Budget | None = None,
    weights: str = "modern",
    config: GameConfig | None = None,
) -> RecordedGame:
    """One seeded game of `player` until `max_pieces` placements or a top-out, as a replay."""
    if player not in PLAYERS:
        raise ValueError(f"unknown player {player!r} (choose {', '.join(PLAYERS)})")
    game = Game(config or recorded_config(), seed)
    rules = game.rules
    engine = None
    if player == "beam":
        engine = make_engine("beam", rules=rules, evaluator=weights, soft_drop=True, seed=seed)
    elif player == "shallow":
        engine = make_engine("beam", rules=rules, evaluator=weights, soft_drop=True, seed=seed, depth=2)
        budget = budget or Budget(time_ms=None, depth=2)
    elif player == "greedy":
        engine = make_engine(
            "beam",
            rules=rules,
            evaluator=weights,
            soft_drop=True,
            seed=seed,
            depth=1,
            use_hold=False,
            panic_evaluator=None,
        )
        budget = budget or Budget(time_ms=None, depth=1)
    chooser = random.Random(seed ^ 0x7E57)
    while game.stats.pieces < max_pieces and not game.over:
        active = game.active
        if active is None:
            game.tick(0)
            continue
        if engine is not None:
            state = SearchState.of_game(game)
            found = engine.suggest(state, budget)
            if found is None:
                break
            keys, hold = found.move.keys, found.move.hold
        else:
            from game.movegen import find_moves

            options = find_moves(game.board, active.piece, rules)
            if not options:
                break
            keys, hold = chooser.choice(options).keys, False
        before = game.stats.pieces
        play_keys(game, keys, hold_first=hold)
        if game.stats.pieces == before and not game.over:
            raise RuntimeError(f"the keys {keys} did not lock the piece (seed {seed}, piece {before})")
    return RecordedGame(Replay.from_game(game), game.stats.pieces, game.stats.lines, game.over)
