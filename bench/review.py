"""Calibration and speed of the game review (ai/review.py). Prints numbers; asserts nothing.

    .venv/bin/python bench/review.py [--games 8] [--pieces 100] [--window] [--json]

1. Plays seeded games (ai/recorded.py) with four players: the engine at its live settings (``beam``, 14 ms per
   move, as the hint and autoplay play), the same engine seeing one preview only (``shallow``), a one-piece greedy
   player with no hold (``greedy``) and a uniformly random legal placement (``random``), reviews every game, and
   prints the distribution of losses per player. The class bounds in ai/review.py THRESHOLDS come from them:
     good       = median of the shallow player's non-zero losses (a sound move that misses what later previews show)
     inaccuracy = median of the greedy player's non-zero losses
     mistake    = 75th percentile of the random player's losses (above: a blunder)
   and the share of each player's placements in each class with the current bounds.
2. Times the review of the first engine game of ``--pieces`` placements: CPU time in total and until the first
   placement is reviewed (process CPU time; the machine's other load does not count).
3. With --window: the review screen on that game with the real worker process; time to the first and the last
   result, and the CPU time of each frame while the review is computed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ai.recorded import play_recorded
from ai.review import CLASSES, THRESHOLDS, classify, make_review_engine, review_turns, turns_of


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = (len(ordered) - 1) * q
    low = int(k)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (k - low)


def losses_of(player: str, games: int, pieces: int, first_seed: int) -> tuple[list[float], int]:
    losses: list[float] = []
    total = 0
    engine = None
    # random games top out after ~20 placements: play more of them for a comparable sample
    for seed in range(first_seed, first_seed + games * (4 if player == "random" else 1)):
        game = play_recorded(player, seed, max_pieces=pieces)
        turns = turns_of(game.replay)
        total += len(turns)
        if engine is None:
            engine = make_review_engine(game.replay.config.rules)
        for item in review_turns(turns, game.replay.config.rules, engine=engine, check_pc=False):
            if item.loss is not None:
                losses.append(item.loss)
    return losses, total


def window_frames(replay, *, warm: bool = False) -> dict:
    """Open the review screen on `replay` with the real worker process and run frames (update + draw, paced at
    60 Hz) until the review is complete; thread CPU time per frame, and wall time to the first and last result."""
    import os
    import tempfile

    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    from ui.review import ReviewScene
    from ui.testing import make_app

    app, screen = make_app(Path(tempfile.mkdtemp(prefix="bench-review-")))
    if warm:  # the worker already running (as after any hint): wait for it to say it is ready
        worker = app.worker()
        limit = time.perf_counter() + 60
        while worker.status.state != "ok" and time.perf_counter() < limit:
            worker.poll()
            time.sleep(0.05)
        time.sleep(2.0)  # and for its compiled kernels to load
    scene = ReviewScene(app, replay.to_json())
    app.scenes.push(scene)
    frames: list[float] = []
    started = time.perf_counter()
    first = None
    try:
        while scene.review is None and scene.problem is None and time.perf_counter() - started < 120:
            t0 = time.thread_time()
            app.tick()
            app.draw(screen)
            frames.append((time.thread_time() - t0) * 1000)
            if first is None and scene.placements:
                first = time.perf_counter() - started
            time.sleep(max(0.0, 1 / 60 - (time.thread_time() - t0)))
    finally:
        done = time.perf_counter() - started
        app.close_worker()
    frames.sort()
    return {
        "first_s": round(first or done, 2),
        "done_s": round(done, 2),
        "frames": len(frames),
        "frame_ms_median": round(percentile(frames, 0.5), 2),
        "frame_ms_p99": round(percentile(frames, 0.99), 2),
        "frame_ms_max": round(frames[-1], 2),
        "problem": scene.problem,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--pieces", type=int, default=100)
    parser.add_argument("--seed", type=int, default=100)
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--window",
        action="store_true",
        help="also open the review screen (dummy video driver, real worker process) on that game and "
        "time its frames while the worker computes the review",
    )
    args = parser.parse_args()
    report: dict = {"games": args.games, "pieces": args.pieces, "players": {}}
    for player in ("beam", "shallow", "greedy", "random"):
        losses, total = losses_of(player, args.games, args.pieces, args.seed)
        finite = [x for x in losses if x < 1e5]
        nonzero = [x for x in finite if x > THRESHOLDS["best"]]
        shares = {
            name: round(100 * sum(classify(x) == name for x in losses) / max(1, len(losses)), 1) for name in CLASSES
        }
        report["players"][player] = {
            "placements": total,
            "rated": len(losses),
            "zero_share": round(100 * (len(losses) - len(nonzero)) / max(1, len(losses)), 1),
            "p25": round(percentile(finite, 0.25), 1),
            "median": round(percentile(finite, 0.5), 1),
            "p75": round(percentile(finite, 0.75), 1),
            "p90": round(percentile(finite, 0.9), 1),
            "p975": round(percentile(finite, 0.975), 1),
            "nonzero_median": round(percentile(nonzero, 0.5), 1),
            "game_ending": len(losses) - len(finite),
            "classes_percent": shares,
        }
    players = report["players"]
    report["suggested"] = {
        "good": players["shallow"]["nonzero_median"],
        "inaccuracy": players["greedy"]["nonzero_median"],
        "mistake": players["random"]["p75"],
    }
    report["current"] = THRESHOLDS
    # speed: one engine game of --pieces placements, reviewed with the PC checks, as the screen does
    game = play_recorded("beam", args.seed, max_pieces=args.pieces)
    turns = turns_of(game.replay)
    started = time.process_time()
    wall = time.perf_counter()
    first = None
    engine = make_review_engine(game.replay.config.rules)
    warm = time.process_time() - started
    for _item in review_turns(turns, game.replay.config.rules, engine=engine):
        if first is None:
            first = time.process_time() - started
    report["speed"] = {
        "placements": len(turns),
        "cpu_s": round(time.process_time() - started, 2),
        "wall_s": round(time.perf_counter() - wall, 2),
        "first_cpu_s": round(first or 0.0, 3),
        "engine_load_cpu_s": round(warm, 3),
    }
    if args.window:
        report["window"] = window_frames(game.replay)
        report["window_warm"] = window_frames(game.replay, warm=True)
    if args.json:
        print(json.dumps(report))
        return 0
    print(f"{args.games} games x up to {args.pieces} placements per player (seeds {args.seed}..)")
    print(
        f"{'player':8} {'rated':>6} {'zero%':>6} {'p25':>7} {'median':>7} {'p75':>7} {'p90':>7} {'p97.5':>7} "
        f"{'nz med':>7} {'end':>4}   classes % (" + " / ".join(CLASSES) + ")"
    )
    for name, row in players.items():
        classes = " / ".join(str(row["classes_percent"][c]) for c in CLASSES)
        print(
            f"{name:8} {row['rated']:>6} {row['zero_share']:>6} {row['p25']:>7} {row['median']:>7} "
            f"{row['p75']:>7} {row['p90']:>7} {row['p975']:>7} {row['nonzero_median']:>7} {row['game_ending']:>4}"
            f"   {classes}"
        )
    print("suggested bounds:", report["suggested"], " current:", THRESHOLDS)
    for name, what in (("window", "the worker started by the screen"), ("window_warm", "the worker already up")):
        if name in report:
            w = report[name]
            print(
                f"review screen, {what}: first placement shown after {w['first_s']} s, all after "
                f"{w['done_s']} s (wall); frame CPU (update + draw) median {w['frame_ms_median']} ms, "
                f"p99 {w['frame_ms_p99']} ms, max {w['frame_ms_max']} ms over {w['frames']} frames "
                f"(a 60 Hz frame has 16.7 ms)"
            )
    s = report["speed"]
    print(
        f"review of a {s['placements']}-placement engine game: {s['cpu_s']} s CPU ({s['wall_s']} s wall), "
        f"first placement after {s['first_cpu_s']} s CPU (engine load {s['engine_load_cpu_s']} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
