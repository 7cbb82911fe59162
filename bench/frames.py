"""Frame time of the play screen: update (one 60 Hz tick) + draw, over a scripted 2-minute game.

    python bench/frames.py [--ticks 7200] [--size 1280x720] [--seed 1]

Runs headless (SDL dummy video/audio drivers). A scripted player picks, for every piece, a low placement
from the exact move generator and plays its shortest key sequence as key events through the real key map,
so the engine's DAS/ARR timing, locks, line clears, finesse and effects are all exercised. Planning the
next placement happens outside the timed region. Prints median / p95 / p99 / max in ms for update+draw,
update only and draw only (wall clock), and update+draw in thread CPU time, which a busy machine does not
inflate (wall-clock outliers there are mostly the process waiting for a core).
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pygame

from game.board import Board
from game.finesse import Key

KEY_NAMES = {
    Key.LEFT: "left",
    Key.RIGHT: "right",
    Key.DAS_LEFT: "left",
    Key.DAS_RIGHT: "right",
    Key.CW: "x",
    Key.CCW: "z",
    Key.FLIP: "a",
    Key.SOFT_DROP: "down",
    Key.HARD_DROP: "space",
}


def plan(scene, rng: random.Random) -> list[tuple[str, str]]:
    """Key events (kind, key name), one per tick or 'wait', that place the current piece somewhere low."""
    from game.movegen import find_moves

    game = scene.game
    if game.active is None:
        return [("wait", "")]
    board = game.board
    moves = find_moves(board, game.active.piece, game.rules)
    if not moves:
        return [("wait", "")]

    def badness(move) -> float:
        after, cleared = Board(board.bits | move.placement.mask).clear_lines()
        heights = after.column_heights()
        holes = sum(heights) - after.cell_count()
        bumps = sum(abs(a - b) for a, b in itertools.pairwise(heights))
        return 8 * holes + sum(heights) * 0.5 + bumps + max(heights) - 3 * len(cleared) + rng.random()

    target = min(moves, key=badness)
    das_ticks = int(game.config.handling.das) + 2
    events: list[tuple[str, str]] = []
    for key in target.keys:
        name = KEY_NAMES[key]
        if key in (Key.DAS_LEFT, Key.DAS_RIGHT):
            events += [("down", name)] + [("wait", "")] * das_ticks + [("up", name)]
        elif key is Key.SOFT_DROP:
            events += [("down", name), ("wait", ""), ("wait", ""), ("up", name)]
        else:
            events += [("down", name), ("up", name), ("wait", "")]  # a tap, then a tick released
        events.append(("wait", ""))
    return events + [("wait", "")] * 6  # a little thinking time: about 2-3 pieces per second


def percentiles(values: list[float]) -> str:
    ordered = sorted(values)

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    return (
        f"median {statistics.median(ordered):6.3f}  p95 {at(0.95):6.3f}  p99 {at(0.99):6.3f}  max {ordered[-1]:6.3f} ms"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ticks", type=int, default=7200)
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--mode", default="sprint", choices=("zen", "sprint", "marathon", "pc"))
    args = parser.parse_args(argv)
    width, height = (int(v) for v in args.size.lower().split("x"))
    tmp = tempfile.mkdtemp(prefix="stackcoach-bench-")
    os.environ["STACKCOACH_CONFIG_DIR"] = tmp
    os.environ["STACKCOACH_DATA_DIR"] = tmp

    from ui.app import App, _key_event
    from ui.modes import MODES_BY_KEY
    from ui.play import PlayScene

    pygame.init()
    screen = pygame.display.set_mode((width, height))
    app = App()
    app.sounds.configure(app.settings.audio.model_copy(update={"mute": True}))
    mode = MODES_BY_KEY[args.mode]
    if mode.goal_lines:  # a 2-minute run: no goal ending, no results screen in the middle
        from dataclasses import replace

        mode = replace(mode, goal_lines=None)
    scene = PlayScene(app, mode, seed=args.seed)
    app.scenes.push(scene)
    rng = random.Random(args.seed)
    pending: list[tuple[str, str]] = []
    update_ms: list[float] = []
    draw_ms: list[float] = []
    cpu_ms: list[float] = []  # thread CPU time: unaffected by other processes taking the core
    games = 1
    for _ in range(args.ticks):
        if scene.end_reason == "topout":
            scene.restart()
            games += 1
            pending = []
        if not pending and scene.countdown == 0:
            pending = plan(scene, rng)
        while pending and pending[0][0] != "wait":
            kind, name = pending.pop(0)
            app.dispatch(_key_event(pygame.KEYDOWN if kind == "down" else pygame.KEYUP, name))
        if pending:
            pending.pop(0)
        c0 = time.thread_time_ns()
        t0 = time.perf_counter()
        scene.update()
        t1 = time.perf_counter()
        scene.draw(screen)
        t2 = time.perf_counter()
        cpu_ms.append((time.thread_time_ns() - c0) / 1e6)
        update_ms.append((t1 - t0) * 1000)
        draw_ms.append((t2 - t1) * 1000)
    total = [u + d for u, d in zip(update_ms, draw_ms)]
    stats = scene.game.stats
    print(
        f"frames: {args.ticks} ticks at {width}x{height}, mode {args.mode}, {games} game(s); "
        f"last game {stats.pieces} pieces, {stats.lines} lines"
    )
    print(f"update+draw  {percentiles(total)}")
    print(f"update only  {percentiles(update_ms)}")
    print(f"draw only    {percentiles(draw_ms)}")
    print(f"update+draw, thread CPU time  {percentiles(cpu_ms)}")
    pygame.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
