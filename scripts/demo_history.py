"""Build a demo history (for screenshots): 40-line sprints played on the timed game by engine players of
increasing strength and speed, standing in for a player who improves, each saved with its replay and review.

    .venv/bin/python scripts/demo_history.py DATA_DIR [--runs 10]

Then `STACKCOACH_DATA_DIR=DATA_DIR python main.py` shows them in Stats. The players: the one-piece greedy engine
without hold (first runs), the engine seeing one preview, then the full engine; the keys are pressed with a gap
that shrinks from run to run (slower to faster play). Games stop at 40 lines or 140 pieces.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ai.review import review_replay
from ai.search import Budget, SearchState, make_engine
from game.config import GameConfig
from game.engine import Game
from game.executor import KeyExecutor
from game.replay import Replay
from ui.store import GameRecord, HistoryStore


def play(seed: int, stage: int, gap: int) -> Game:
    game = Game(GameConfig(), seed)
    if stage == 0:
        engine = make_engine("beam", rules=game.rules, seed=seed, depth=1, use_hold=False, panic_evaluator=None)
        budget = Budget(time_ms=None, depth=1)
    elif stage == 1:
        engine = make_engine("beam", rules=game.rules, seed=seed, depth=2)
        budget = Budget(time_ms=None, depth=2)
    else:
        engine = make_engine("beam", rules=game.rules, seed=seed)
        budget = Budget(time_ms=None, max_nodes=900)
    while game.stats.lines < 40 and game.stats.pieces < 140 and not game.over:
        if game.active is None:
            game.tick(0)
            continue
        state = SearchState.of_game(game)
        found = engine.suggest(state, budget)
        if found is None:
            break
        executor = KeyExecutor(found.move.keys, hold_first=found.move.hold, gap=gap)
        pieces = game.stats.pieces
        for _ in range(3000):
            game.tick(executor.buttons(game))
            if game.stats.pieces > pieces or game.over:
                break
    return game


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder")
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    store = HistoryStore(Path(args.folder) / "history.sqlite3")
    start = dt.datetime(2026, 11, 1, 18, 0, tzinfo=dt.UTC)
    for run in range(args.runs):
        stage = min(2, run * 3 // args.runs)
        gap = max(4, 22 - 2 * run)
        game = play(1000 + run, stage, gap)
        s = game.stats
        seconds = game.ticks / 60
        finished = s.lines >= 40
        record = GameRecord(
            "sprint",
            "srs 7bag 5nx hold 180 lv1",
            finished,
            round(seconds, 3),
            s.pieces,
            s.lines,
            s.score,
            round(s.pieces / seconds, 3),
            round(s.attack * 60 / seconds, 2),
            round(s.keys / max(1, s.pieces), 3),
            s.finesse_faults,
            ending="finished" if finished else "topout" if game.over else "ended",
            played_at=(start + dt.timedelta(days=run)).isoformat(timespec="seconds"),
        )
        saved = store.save(record).record
        if saved.id is None:
            raise RuntimeError("the store saved the run without an id")
        replay = Replay.from_game(game)
        store.save_replay(saved.id, replay.to_json())
        if run < args.runs - 1:  # the newest run is left for the review screen to analyse
            review = review_replay(replay).to_dict()
            store.save_review(saved.id, review["engine"], review["accuracy"], json.dumps(review))
            accuracy = f"{review['accuracy']:.1f}%"
        else:
            accuracy = "(not reviewed yet)"
        print(
            f"run {saved.id}: stage {stage} gap {gap}: {s.pieces} pieces {s.lines} lines {seconds:.1f} s "
            f"{record.pps:.2f} PPS accuracy {accuracy}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
