"""Engine speed: ticks per second of a headless game, placements per second of a drop-only simulation.

Run: python bench/engine.py [--seconds S]
Both figures come from one run so they can be compared on a noisy machine; the ratio lines compare the costs of
the options that matter (finesse tracking on/off, soft-drop vs hard-drop placement search).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from game.board import Board
from game.config import GameConfig
from game.engine import Game
from game.handling import Button
from game.movegen import find_moves
from game.randomizer import make_randomizer
from game.rules import Rules
from game.scoring import lock_piece

SCRIPT = [
    Button.LEFT,
    Button.NONE,
    Button.ROTATE_CW,
    Button.NONE,
    Button.RIGHT,
    Button.RIGHT,
    Button.NONE,
    Button.SOFT_DROP,
    Button.SOFT_DROP,
    Button.HARD_DROP,
    Button.NONE,
    Button.HOLD,
    Button.NONE,
    Button.ROTATE_CCW,
    Button.LEFT,
    Button.LEFT,
    Button.LEFT,
    Button.HARD_DROP,
    Button.NONE,
]


def ticks_per_second(seconds: float, track_finesse: bool) -> tuple[float, int]:
    ticks = pieces = 0
    seed = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        game = Game(GameConfig(track_finesse=track_finesse), seed)
        while not game.over and ticks < 10**9:
            game.tick(SCRIPT[ticks % len(SCRIPT)])
            ticks += 1
            if ticks % 256 == 0 and time.perf_counter() - start >= seconds:
                break
        pieces += game.stats.pieces
        seed += 1
    return ticks / (time.perf_counter() - start), pieces


def drop_only_placements_per_second(seconds: float, soft_drop: bool) -> float:
    """Random reachable placements (full search each piece), locked with clears; restart on top-out."""
    rng = random.Random(1)
    rules = Rules()
    randomizer = make_randomizer("7bag", 1)
    board, b2b, combo, placed = Board(), -1, -1, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        piece = randomizer.draw()
        options = [m.placement for m in find_moves(board, piece, rules, soft_drop=soft_drop) if m.placement.y < 18]
        if not options:
            board, b2b, combo = Board(), -1, -1
            continue
        # Prefer low placements so the stack survives and clears lines.
        lowest = min(p.y for p in options)
        choice = rng.choice([p for p in options if p.y <= lowest + 1])
        board, result = lock_piece(board, choice, b2b, combo)
        b2b, combo = result.b2b, result.combo
        placed += 1
    return placed / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    args = parser.parse_args()
    tps_plain, _ = ticks_per_second(args.seconds, track_finesse=False)
    tps_finesse, _ = ticks_per_second(args.seconds, track_finesse=True)
    hard = drop_only_placements_per_second(args.seconds, soft_drop=False)
    soft = drop_only_placements_per_second(args.seconds, soft_drop=True)
    print(f"headless game, finesse tracking off : {tps_plain:10.0f} ticks/s ({tps_plain / 60:6.0f}x real time)")
    print(f"headless game, finesse tracking on  : {tps_finesse:10.0f} ticks/s ({tps_finesse / 60:6.0f}x real time)")
    print(f"  ratio off/on                       : {tps_plain / tps_finesse:10.2f}")
    print(f"drop-only simulation (hard drop)    : {hard:10.0f} placements/s")
    print(f"drop-only simulation (soft drop)    : {soft:10.0f} placements/s")
    print(f"  ratio hard/soft                    : {hard / soft:10.2f}")


if __name__ == "__main__":
    main()
