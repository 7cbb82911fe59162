"""The TBP bot, driven as a front end would drive it: over stdin/stdout of a real process, JSON lines."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from game.board import Board
from game.movegen import find_moves
from game.movement import Spin
from game.pieces import Piece, Rotation
from game.placement import Placement
from game.randomizer import make_randomizer
from game.rules import Rules
from game.scoring import lock_piece

ROOT = Path(__file__).resolve().parents[1]
SPINS = {"none": Spin.NONE, "mini": Spin.MINI, "full": Spin.FULL}


class Frontend:
    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "main.py", "tbp", "--budget-ms", "10"],
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
        assert line, "the bot closed its output"
        return json.loads(line)

    def close(self) -> int:
        self.send({"type": "quit"})
        return self.process.wait(timeout=10)


def tbp_board(board: Board) -> list[list[str | None]]:
    return [
        [
            ("G" if board.colour_at(x, y) == 8 else Piece(board.colour_at(x, y) - 1).name)
            if board.is_filled(x, y)
            else None
            for x in range(10)
        ]
        for y in range(40)
    ]


def test_a_front_end_plays_forty_pieces_with_the_bot() -> None:
    bot = Frontend()
    try:
        info = bot.receive()
        assert info["type"] == "info" and {"randomizer", "move_info"} <= set(info["features"])
        bot.send({"type": "rules", "randomizer": "seven_bag"})
        assert bot.receive() == {"type": "ready"}
        randomizer = make_randomizer("7bag", 2024)
        queue = [randomizer.draw() for _ in range(6)]
        board, hold, b2b, combo = Board(), None, -1, -1
        bag_state = [p.name for p in (randomizer.state or tuple(Piece))]  # the bag after the queue
        bot.send(
            {
                "type": "start",
                "hold": None,
                "queue": [p.name for p in queue],
                "combo": 0,
                "back_to_back": False,
                "board": tbp_board(board),
                "randomizer": {"type": "seven_bag", "bag_state": bag_state},
            }
        )
        rules = Rules()
        lines = 0
        for _ in range(40):
            bot.send({"type": "suggest"})
            suggestion = bot.receive()
            assert suggestion["type"] == "suggestion" and suggestion["moves"]
            info = suggestion["move_info"]  # tbp-spec move_info: nodes, nps, depth, extra
            assert info["nodes"] > 0 and info["depth"] >= 1 and isinstance(info["extra"], str)
            move = suggestion["moves"][0]
            location = move["location"]
            piece = Piece[location["type"]]
            if piece != queue[0]:  # the bot chose to hold
                if hold is None:
                    hold = queue.pop(0)
                else:
                    hold, queue[0] = queue[0], hold
            assert piece == queue[0]
            rotation = Rotation.parse(location["orientation"])
            # The move must be one our own rules can reach, with the spin it claims.
            legal = {(p.rotation, p.x, p.y, p.spin) for p in (m.placement for m in find_moves(board, piece, rules))}
            assert (rotation, location["x"], location["y"], SPINS[move["spin"]]) in legal
            played = Placement(
                piece=piece, rotation=rotation, x=location["x"], y=location["y"], spin=SPINS[move["spin"]]
            )
            board, result = lock_piece(board, played, b2b, combo)
            b2b, combo = result.b2b, result.combo
            lines += result.lines
            queue.pop(0)
            bot.send({"type": "play", "move": move})
            new = randomizer.draw()
            queue.append(new)
            bot.send({"type": "new_piece", "piece": new.name})
        assert lines >= 8  # 40 pieces fill 16 rows' worth of cells; a sane bot clears most of them
        assert board.height() < 10
        bot.send({"type": "stop"})
        assert bot.close() == 0
    finally:
        if bot.process.poll() is None:
            bot.process.kill()


def test_unknown_messages_are_ignored_and_bad_start_is_an_error() -> None:
    bot = Frontend()
    try:
        bot.receive()
        bot.send({"type": "frobnicate"})
        bot.send({"type": "rules"})
        assert bot.receive() == {"type": "ready"}
        bot.send({"type": "start", "hold": None, "queue": ["T"], "combo": 0, "back_to_back": False, "board": [[None]]})
        reply = bot.receive()
        assert reply["type"] == "error" and "board" in reply["reason"]
        assert bot.close() == 0
    finally:
        if bot.process.poll() is None:
            bot.process.kill()
