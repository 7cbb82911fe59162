"""`python main.py tbp`: the Stack Coach engine as a Tetris Bot Protocol bot on stdin/stdout (JSON lines).

Supported: info, rules (with the randomizer extension: seven_bag, uniform, unknown), ready/error, start, suggest,
suggestion, play, new_piece, stop, quit. The bot keeps its own copy of the position (board, queue, hold, combo,
back-to-back, bag state) and advances it with the same `lock_piece` the game uses.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import IO, Any

from ai.protocol import Move, Snapshot
from game.board import HEIGHT, WIDTH, Board
from game.movement import Spin
from game.pieces import ALL_PIECES, Piece, Rotation
from game.rules import Rules
from game.scoring import lock_piece

BOT_NAME = "Stack Coach"
BOT_VERSION = "0.1"
BOT_AUTHOR = "Stack Coach developers"
FEATURES = ["randomizer"]
_SPINS = {Spin.NONE: "none", Spin.MINI: "mini", Spin.FULL: "full"}
_CELL = {p.name: int(p) + 1 for p in Piece}
_CELL["G"] = 8

Suggest = Callable[[Snapshot, float], list[Move]]


class TbpError(ValueError):
    """A message the bot cannot act on (sent back as a TBP `error`)."""


@dataclass
class BotState:
    """The position the frontend told us about. `queue[0]` is the piece in play."""

    board: Board = field(default_factory=Board)
    queue: list[Piece] = field(default_factory=list)
    hold: Piece | None = None
    combo: int = -1
    b2b: int = -1
    randomizer: str = "unknown"
    bag: tuple[Piece, ...] = ()  # the bag after the last queued piece (seven_bag only)
    pieces: int = 0

    def snapshot(self, rules: Rules) -> Snapshot:
        if not self.queue:
            raise TbpError("the queue is empty")
        key, state = ("7bag", tuple(sorted(self.bag)) if len(self.bag) < 7 else ()) if self.randomizer == "seven_bag" \
            else ("random", None)
        return Snapshot(self.board, self.queue[0], tuple(self.queue[1:]), self.hold, False, self.b2b, self.combo,
                        rules, key, state, self.pieces)


def parse_board(rows: Any) -> Board:
    if not isinstance(rows, list) or len(rows) != HEIGHT or any(not isinstance(r, list) or len(r) != WIDTH for r in rows):
        raise TbpError("board must be a list of 40 lists of 10 cells")
    bits = 0
    colours = [0] * (WIDTH * HEIGHT)
    for y, row in enumerate(rows):
        for x, cell in enumerate(row):
            if cell is None:
                continue
            if cell not in _CELL:
                raise TbpError(f"bad board cell {cell!r} at x={x}, y={y}")
            bits |= 1 << (y * WIDTH + x)
            colours[y * WIDTH + x] = _CELL[cell]
    return Board(bits, tuple(colours))


def parse_piece(value: Any) -> Piece:
    if not isinstance(value, str) or value not in Piece.__members__:
        raise TbpError(f"bad piece {value!r}")
    return Piece[value]


def move_to_json(move: Move) -> dict[str, Any]:
    return {
        "location": {"type": move.piece.name, "orientation": move.rotation.tbp_name, "x": move.x, "y": move.y},
        "spin": _SPINS[move.spin],
    }


class TbpBot:
    """The protocol state machine. `handle(message)` returns the messages to send back."""

    def __init__(self, suggest: Suggest, *, budget_ms: float = 50.0, rules: Rules | None = None) -> None:
        self._suggest = suggest
        self._budget = budget_ms
        self.rules = rules or Rules()
        self.state: BotState | None = None
        self.randomizer = "unknown"
        self.running = True

    def greeting(self) -> dict[str, Any]:
        return {"type": "info", "name": BOT_NAME, "version": BOT_VERSION, "author": BOT_AUTHOR, "features": FEATURES}

    def handle(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        kind = message.get("type")
        handler = getattr(self, f"_on_{kind}", None) if isinstance(kind, str) else None
        if handler is None:
            return []  # the spec: ignore unknown messages
        return handler(message)

    def _on_rules(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        randomizer = message.get("randomizer", "unknown")
        self.randomizer = randomizer if randomizer in ("seven_bag", "uniform") else "unknown"
        return [{"type": "ready"}]

    def _on_start(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        try:
            queue = [parse_piece(p) for p in message.get("queue", [])]
            hold = parse_piece(message["hold"]) if message.get("hold") is not None else None
            bag: tuple[Piece, ...] = ()
            randomizer = message.get("randomizer")
            if self.randomizer == "seven_bag" and isinstance(randomizer, dict):
                bag = tuple(parse_piece(p) for p in randomizer.get("bag_state", []))
            combo = int(message.get("combo", 0))
            self.state = BotState(
                board=parse_board(message.get("board")),
                queue=queue,
                hold=hold,
                combo=combo - 1,  # TBP counts clears in a row; ours is -1 for none, 0 after the first
                b2b=0 if message.get("back_to_back") else -1,
                randomizer=self.randomizer,
                bag=bag,
            )
        except (TbpError, KeyError, TypeError, ValueError) as error:
            self.state = None
            return [{"type": "error", "reason": f"bad start message: {error}"}]
        return []

    def _on_suggest(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        if self.state is None or not self.state.queue:
            return [{"type": "suggestion", "moves": []}]
        moves = self._suggest(self.state.snapshot(self.rules), self._budget)
        return [{"type": "suggestion", "moves": [move_to_json(m) for m in moves]}]

    def _on_play(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        state = self.state
        if state is None:
            return []
        try:
            location = message["move"]["location"]
            piece = parse_piece(location["type"])
            rotation = Rotation.parse(location["orientation"])
            x, y = int(location["x"]), int(location["y"])
            spin = {v: k for k, v in _SPINS.items()}[message["move"].get("spin", "none")]
        except (KeyError, TypeError, ValueError) as error:
            return [{"type": "error", "reason": f"bad play message: {error}"}]
        if state.queue and piece != state.queue[0]:
            # TBP: a hold is inferred from the piece type.
            if state.hold is None:
                state.hold = state.queue.pop(0)
            else:
                state.hold, state.queue[0] = state.queue[0], state.hold
        if not state.queue or state.queue[0] != piece or not state.board.fits(piece, rotation, x, y):
            return [{"type": "error", "reason": "the played move does not fit the position"}]
        state.queue.pop(0)
        state.board, result = lock_piece(state.board, piece, rotation, x, y, spin, state.b2b, state.combo)
        state.b2b, state.combo = result.b2b, result.combo
        state.pieces += 1
        return []

    def _on_new_piece(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        if self.state is None:
            return []
        try:
            piece = parse_piece(message.get("piece"))
        except TbpError as error:
            return [{"type": "error", "reason": str(error)}]
        self.state.queue.append(piece)
        if self.state.randomizer == "seven_bag":
            bag = list(self.state.bag) if self.state.bag else list(ALL_PIECES)
            if piece in bag:
                bag.remove(piece)
            self.state.bag = tuple(bag) if bag else tuple(ALL_PIECES)
        return []

    def _on_stop(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        self.state = None
        return []

    def _on_quit(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        self.running = False
        return []


def run_lines(bot: TbpBot, lines: Iterable[str], out: IO[str]) -> None:
    def send(message: dict[str, Any]) -> None:
        out.write(json.dumps(message) + "\n")
        out.flush()

    send(bot.greeting())
    for line in lines:
        line = line.strip()
        if not line:
            continue
        try:
            message = json.loads(line)
        except json.JSONDecodeError:
            continue  # not JSON: nothing a frontend can be answered about
        if not isinstance(message, dict):
            continue
        for reply in bot.handle(message):
            send(reply)
        if not bot.running:
            return


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--budget-ms", type=float, default=50.0, help="thinking time per suggestion")
    parser.add_argument("--kicks", default="srs", help="srs, srs+, none, nrs or a kick-table file")
    parser.add_argument("--allow-180", action="store_true", help="let the bot use 180 degree rotations")


def run(args: argparse.Namespace) -> int:
    from ai.service import suggest_moves, warm_up
    from game.rotation import KickTableError

    try:
        rules = Rules.named(args.kicks, allow_180=args.allow_180)
    except KickTableError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    warm_up()  # before the bot says anything: a frontend's clock starts at "ready"
    bot = TbpBot(suggest_moves, budget_ms=args.budget_ms, rules=rules)
    run_lines(bot, sys.stdin, sys.stdout)
    return 0

