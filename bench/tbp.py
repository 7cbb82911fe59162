"""The TBP bot as a frontend sees it: a real `main.py tbp` process over pipes. Prints numbers only.

    python bench/tbp.py                 # 3 launches, 200 pieces per pace
    python bench/tbp.py --pieces 50 --launches 1

1. launch: wall time from starting the process to `info`, and to `ready` when `rules` is sent at once after
   `info` (ready waits for the compiled kernels) — the spec wants info immediately
2. suggest latency: wall time from writing `suggest` to reading the `suggestion`, at two paces —
   "at once": suggest right after play/new_piece (the bot has had no time to think; it waits up to --budget-ms),
   "after 30 ms": the frontend waits 30 ms first (the bot thought in the background; the answer should be instant).
   With the search depth and node count move_info reports, and lines cleared (the bot keeps playing sensibly).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from game.board import Board
from game.movement import Spin
from game.pieces import Piece, Rotation
from game.placement import Placement
from game.randomizer import make_randomizer
from game.scoring import lock_piece

ROOT = Path(__file__).resolve().parents[1]

SPINS = {"none": Spin.NONE, "mini": Spin.MINI, "full": Spin.FULL}


class Bot:
    def __init__(self, budget_ms: float) -> None:
        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            [sys.executable, "main.py", "tbp", "--budget-ms", str(budget_ms)],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )

    def send(self, message: dict) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()

    def receive(self) -> dict:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit("the bot closed its output")
        return json.loads(line)

    def close(self) -> None:
        self.send({"type": "quit"})
        self.process.wait(timeout=10)


def empty_board() -> list:
    return [[None] * 10 for _ in range(40)]


def launch(budget_ms: float) -> tuple[Bot, float, float]:
    bot = Bot(budget_ms)
    assert bot.receive()["type"] == "info"
    info = time.perf_counter() - bot.started
    bot.send({"type": "rules", "randomizer": "seven_bag"})
    assert bot.receive() == {"type": "ready"}
    return bot, info * 1000, (time.perf_counter() - bot.started) * 1000


def play(bot: Bot, pieces: int, pause_s: float, seed: int) -> tuple[list[float], list[int], list[int], int]:
    randomizer = make_randomizer("7bag", seed)
    queue = [randomizer.draw() for _ in range(6)]
    bag = [p.name for p in (randomizer.state or tuple(Piece))]
    bot.send(
        {
            "type": "start",
            "hold": None,
            "queue": [p.name for p in queue],
            "combo": 0,
            "back_to_back": False,
            "board": empty_board(),
            "randomizer": {"type": "seven_bag", "bag_state": bag},
        }
    )
    board, hold, b2b, combo, lines = Board(), None, -1, -1, 0
    latencies, depths, nodes = [], [], []
    for _ in range(pieces):
        if pause_s:
            time.sleep(pause_s)
        sent = time.perf_counter()
        bot.send({"type": "suggest"})
        reply = bot.receive()
        latencies.append((time.perf_counter() - sent) * 1000)
        if not reply["moves"]:
            break
        depths.append(reply["move_info"]["depth"])
        nodes.append(reply["move_info"]["nodes"])
        move = reply["moves"][0]
        location = move["location"]
        piece = Piece[location["type"]]
        if piece != queue[0]:
            if hold is None:
                hold = queue.pop(0)
            else:
                hold, queue[0] = queue[0], hold
        placement = Placement(
            piece=piece,
            rotation=Rotation.parse(location["orientation"]),
            x=location["x"],
            y=location["y"],
            spin=SPINS[move["spin"]],
        )
        board, result = lock_piece(board, placement, b2b, combo)
        b2b, combo, lines = result.b2b, result.combo, lines + result.lines
        queue.pop(0)
        bot.send({"type": "play", "move": move})
        new = randomizer.draw()
        queue.append(new)
        bot.send({"type": "new_piece", "piece": new.name})
    bot.send({"type": "stop"})
    return latencies, depths, nodes, lines


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pieces", type=int, default=200)
    parser.add_argument("--launches", type=int, default=3)
    parser.add_argument("--budget-ms", type=float, default=50.0)
    args = parser.parse_args()
    infos, readies = [], []
    bot = None
    for _ in range(args.launches):
        if bot is not None:
            bot.close()
        bot, info_ms, ready_ms = launch(args.budget_ms)
        infos.append(info_ms)
        readies.append(ready_ms)
    assert bot is not None
    print(
        f"launch ({args.launches}x): info after {statistics.median(infos):.0f} ms (max {max(infos):.0f}), "
        f"ready after {statistics.median(readies):.0f} ms (max {max(readies):.0f})"
    )
    for label, pause in (("at once", 0.0), ("after 30 ms", 0.030)):
        latencies, depths, nodes, lines = play(bot, args.pieces, pause, seed=7)
        print(
            f"suggest {label:11s} ({len(latencies)} pieces, budget {args.budget_ms:g} ms): "
            f"median {statistics.median(latencies):.2f} ms, p95 {percentile(latencies, 0.95):.2f} ms, "
            f"max {max(latencies):.2f} ms; depth median {statistics.median(depths):g}, "
            f"nodes median {statistics.median(nodes):g}; {lines} lines"
        )
    bot.close()


if __name__ == "__main__":
    main()
