"""`python main.py tbp`: the Stack Coach engine as a Tetris Bot Protocol bot on stdin/stdout (JSON lines).

Supported (tetris-bot-protocol/tbp-spec): info, rules, ready, error, start, suggest, suggestion, play, new_piece,
stop, quit, and the `randomizer` (seven_bag, uniform, unknown; general_bag is played as unknown) and `move_info`
features. The `garbage` feature is not: rules asking for it get `error` with reason `unsupported_rules`.

Timing, as the spec asks: `info` goes out before anything slow happens; the compiled kernels load in the background
and `ready` (the answer to `rules`) waits for them, so the frontend's clock starts at full speed. From `start`,
`play` and `new_piece` on, a background thread searches the position, and `suggest` answers with the best move
found so far (waiting at most until the position has been thought about for `--budget-ms`).

Every message is validated completely before it is applied: a message the bot cannot act on gets
`{"type": "error", "reason": "..."}` and changes nothing; a line that is not a JSON object gets such an error too;
messages of an unknown type are ignored (the spec).
"""

from __future__ import annotations

import argparse
import io
import json
import reprlib
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import IO, Any

from ai.protocol import Move, Snapshot
from ai.search import Budget
from game.board import HEIGHT, WIDTH, Board
from game.movement import Spin
from game.pieces import ALL_PIECES, Piece, Rotation
from game.placement import Placement
from game.rules import Rules
from game.scoring import lock_piece

BOT_NAME = "Stack Coach"
BOT_VERSION = "0.2"
BOT_AUTHOR = "Stack Coach developers"
FEATURES = ["randomizer", "move_info"]
RANDOMIZERS = ("seven_bag", "uniform", "general_bag", "unknown")
MAX_COMBO = 1000  # TBP sets no limit; past this a frontend is broken (scoring turns combos into floats)
_SPINS = {Spin.NONE: "none", Spin.MINI: "mini", Spin.FULL: "full"}
_SPIN_OF = {name: spin for spin, name in _SPINS.items()}
_ORIENTATION = {rotation.tbp_name: rotation for rotation in Rotation}
_CELL = {p.name: int(p) + 1 for p in Piece}
_CELL["G"] = 8
_short = reprlib.Repr()
_short.maxstring = _short.maxother = _short.maxlong = 40
_short.maxlevel = 3
_short.maxlist = _short.maxdict = _short.maxtuple = 4


class TbpError(ValueError):
    """A message the bot cannot act on (sent back as a TBP `error`)."""


class SearchFailed(RuntimeError):
    """The engine raised while thinking (a bug; the frontend gets an `error` and the bot keeps running)."""


def describe(value: Any) -> str:
    """A short repr (at most 60 characters) for error reasons, safe for huge or deeply nested values."""
    text = _short.repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# --- the position ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BotState:
    """The position the frontend told us about. `queue[0]` is the piece in play. Immutable: a message builds a
    new state and the bot switches to it only once the whole message was found valid."""

    board: Board = field(default_factory=Board)
    queue: tuple[Piece, ...] = ()
    hold: Piece | None = None
    combo: int = -1  # ours: -1 for none, 0 after the first clear (TBP counts the clears)
    b2b: int = -1
    randomizer: str = "unknown"
    bag: tuple[Piece, ...] = ()  # the bag after the last queued piece (seven_bag only; all 7 = a fresh bag)
    pieces: int = 0

    def snapshot(self, rules: Rules) -> Snapshot:
        if not self.queue:
            raise TbpError("the queue is empty")
        if self.randomizer == "seven_bag":
            key, state = "7bag", tuple(sorted(self.bag)) if len(self.bag) < 7 else ()
        else:
            key, state = "random", None
        return Snapshot(
            self.board,
            self.queue[0],
            self.queue[1:],
            self.hold,
            False,
            self.b2b,
            self.combo,
            rules,
            key,
            state,
            self.pieces,
        )


def parse_int(value: Any, name: str, low: int, high: int) -> int:
    if type(value) is not int or not low <= value <= high:
        raise TbpError(f"{name} must be an integer from {low} to {high}, not {describe(value)}")
    return value


def parse_piece(value: Any, name: str = "piece") -> Piece:
    if not isinstance(value, str) or value not in Piece.__members__:
        raise TbpError(f"bad {name} {describe(value)}: expected one of I, J, L, O, S, T, Z")
    return Piece[value]


def parse_pieces(value: Any, name: str) -> tuple[Piece, ...]:
    if not isinstance(value, list):
        raise TbpError(f"{name} must be a list of pieces, not {describe(value)}")
    return tuple(parse_piece(p, f"{name} piece") for p in value)


def parse_board(rows: Any) -> Board:
    if (
        not isinstance(rows, list)
        or len(rows) != HEIGHT
        or any(not isinstance(r, list) or len(r) != WIDTH for r in rows)
    ):
        raise TbpError("board must be a list of 40 lists of 10 cells")
    bits = 0
    colours = [0] * (WIDTH * HEIGHT)
    for y, row in enumerate(rows):
        for x, cell in enumerate(row):
            if cell is None:
                continue
            if not isinstance(cell, str) or cell not in _CELL:
                raise TbpError(f'bad board cell {describe(cell)} at x={x}, y={y}: expected null, a piece or "G"')
            bits |= 1 << (y * WIDTH + x)
            colours[y * WIDTH + x] = _CELL[cell]
    return Board(bits, tuple(colours))


def _required(message: dict[str, Any], name: str) -> Any:
    if name not in message:
        raise TbpError(f"no {name!r} field")
    return message[name]


def parse_move(value: Any) -> Placement:
    """A TBP move object (location + spin) as a placement, checked field by field (not yet against a position)."""
    if not isinstance(value, dict):
        raise TbpError(f"move must be an object, not {describe(value)}")
    location = value.get("location")
    if not isinstance(location, dict):
        raise TbpError(f"move location must be an object, not {describe(location)}")
    piece = parse_piece(location.get("type"), "location type")
    orientation = location.get("orientation")
    if not isinstance(orientation, str) or orientation not in _ORIENTATION:
        raise TbpError(f"bad orientation {describe(orientation)}: expected north, east, south or west")
    x = parse_int(location.get("x"), "x", 0, WIDTH - 1)
    y = parse_int(location.get("y"), "y", 0, HEIGHT - 1)
    spin = value.get("spin", "none")
    if not isinstance(spin, str) or spin not in _SPIN_OF:
        raise TbpError(f"bad spin {describe(spin)}: expected none, mini or full")
    return Placement(piece=piece, rotation=_ORIENTATION[orientation], x=x, y=y, spin=_SPIN_OF[spin])


def move_to_json(move: Move) -> dict[str, Any]:
    p = move.placement
    return {
        "location": {"type": p.piece.name, "orientation": p.rotation.tbp_name, "x": p.x, "y": p.y},
        "spin": _SPINS[p.spin],
    }


def parse_line(line: str) -> dict[str, Any]:
    """One input line as a message object; TbpError (one line) for anything else."""
    try:
        message = json.loads(line)
    except RecursionError:
        raise TbpError("unreadable message: JSON nested too deeply") from None
    except ValueError as error:  # JSONDecodeError, and integers past Python's digit limit
        why = str(error).split("; ")[0]  # Python's digit-limit message goes on with advice for programmers
        raise TbpError(f"unreadable message: {why[:120]}") from None
    if not isinstance(message, dict):
        raise TbpError(f"unreadable message: expected a JSON object, got {type(message).__name__}")
    return message


# --- thinking in the background ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Thought:
    """What a search found for one position: the move (None: the piece cannot be placed) and how it was found."""

    move: Move | None
    nodes: int = 0
    depth: int = 0
    search_ms: float = 0.0  # the search that found it
    elapsed_ms: float = 0.0  # since thinking on the position began (set by the Thinker)
    note: str = ""

    def move_info(self) -> dict[str, Any]:
        """The `move_info` object of a suggestion (tbp-spec 0003: nodes, nps, depth, extra)."""
        info: dict[str, Any] = {"nodes": self.nodes, "depth": self.depth}
        if self.search_ms > 0:
            info["nps"] = round(self.nodes / (self.search_ms / 1000))
        extra = f"thought {self.elapsed_ms:.1f} ms"
        info["extra"] = f"{extra}, {self.note}" if self.note else extra
        return info


Search = Callable[[Snapshot, Budget], Thought]


def engine_search(snapshot: Snapshot, budget: Budget) -> Thought:
    """The default search: the game's beam engine (compiled once the kernels are loaded)."""
    from ai.service import engine_for, kernels_ready, search_state, to_move

    started = time.perf_counter()
    compiled = kernels_ready()
    found = engine_for(snapshot).suggest(search_state(snapshot), budget)
    info = found.info if found else {}
    return Thought(
        to_move(found),
        int(info.get("nodes", 0)),
        int(info.get("depth", 0)),
        (time.perf_counter() - started) * 1000,
        note="compiled" if compiled else "pure Python",
    )


class Thinker:
    """Searches the latest position in one background thread: a one-piece search first (so there is always an
    answer within a few milliseconds), then the full search, which a `best` call may cut short."""

    def __init__(self, search: Search) -> None:
        self._search = search
        self._cond = threading.Condition()
        self._generation = 0
        self._job: Snapshot | None = None
        self._active = False  # a position is being (or was) thought about
        self._best: Thought | None = None
        self._failure: str | None = None
        self._finished = False
        self._hurry = False
        self._started = 0.0
        self._closed = False
        self._thread: threading.Thread | None = None

    def think(self, snapshot: Snapshot) -> None:
        """Start thinking about `snapshot`, dropping whatever was being thought about."""
        with self._cond:
            self._generation += 1
            self._job = snapshot
            self._active, self._best, self._failure, self._finished, self._hurry = True, None, None, False, False
            self._started = time.perf_counter()
            if self._thread is None:
                self._thread = threading.Thread(target=self._work, name="tbp-thinker", daemon=True)
                self._thread.start()
            self._cond.notify_all()

    def stop(self) -> None:
        with self._cond:
            self._generation += 1
            self._job, self._active, self._best = None, False, None
            self._cond.notify_all()

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._generation += 1
            self._cond.notify_all()

    def wait_finished(self, timeout: float | None = None) -> bool:
        """Block until the current position's full search ended (True) or `timeout` seconds passed."""
        with self._cond:
            return self._cond.wait_for(lambda: self._finished or not self._active, timeout)

    def best(self, min_ms: float) -> Thought | None:
        """The best move found so far for the current position (None when there is none). Waits until the full
        search ends or the position has been thought about for `min_ms`; then the search is told to stop, and it
        answers with what it has within one node expansion."""
        with self._cond:
            deadline = self._started + min_ms / 1000
            while True:
                if not self._active:
                    return None
                if self._failure is not None:
                    raise SearchFailed(self._failure)
                if self._finished:
                    return self._best
                remaining = deadline - time.perf_counter()
                if remaining <= 0:
                    self._hurry = True
                self._cond.wait(remaining if remaining > 0 else None)

    def _work(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._job is not None or self._closed)
                if self._closed:
                    return
                snapshot, generation = self._job, self._generation
                self._job = None
            assert snapshot is not None

            def should_stop(generation: int = generation) -> bool:
                return self._hurry or self._closed or self._generation != generation

            try:
                for depth in (1, None):
                    thought = self._search(
                        snapshot, Budget(time_ms=None, depth=depth, should_stop=should_stop if depth is None else None)
                    )
                    with self._cond:
                        if self._generation != generation:
                            break
                        self._best = replace(thought, elapsed_ms=(time.perf_counter() - self._started) * 1000)
                        self._cond.notify_all()
                    if should_stop() or thought.move is None:
                        break
            except Exception as error:  # noqa: BLE001 - a bug in the engine: the frontend hears of it, the bot lives
                traceback.print_exc(file=sys.stderr)
                with self._cond:
                    if self._generation == generation:
                        self._failure = f"{type(error).__name__}: {describe(str(error))}"
            with self._cond:
                if self._generation == generation:
                    self._finished = True
                    self._cond.notify_all()


# --- the protocol --------------------------------------------------------------------------------------------------


class TbpBot:
    """The protocol state machine. `handle(message)` returns the messages to send back; the position is changed
    only by a message found valid in full."""

    def __init__(
        self,
        search: Search = engine_search,
        *,
        budget_ms: float = 50.0,
        rules: Rules | None = None,
        warm_up: Callable[[], None] | None = None,
    ) -> None:
        self.budget_ms = budget_ms  # thinking time a suggestion may wait for (the search may end sooner)
        self.rules = rules or Rules()
        self.state: BotState | None = None
        self.randomizer = "unknown"  # the model: a name from RANDOMIZERS
        self._randomizer_named = "unknown"  # as the rules message named it (start's randomizer object must match)
        self.running = True
        self.thinker = Thinker(search)
        self._warm_up = warm_up
        self._loading: threading.Thread | None = None
        self._handlers: dict[str, Callable[[dict[str, Any]], list[dict[str, Any]]]] = {
            "rules": self._on_rules,
            "start": self._on_start,
            "suggest": self._on_suggest,
            "play": self._on_play,
            "new_piece": self._on_new_piece,
            "stop": self._on_stop,
            "quit": self._on_quit,
        }

    def greeting(self) -> dict[str, Any]:
        return {
            "type": "info",
            "name": BOT_NAME,
            "version": BOT_VERSION,
            "author": BOT_AUTHOR,
            "features": list(FEATURES),
        }

    def start_loading(self) -> None:
        """Load the compiled kernels in the background (call after sending `info`); `ready` waits for them."""
        if self._warm_up is None or self._loading is not None:
            return
        warm_up = self._warm_up

        def load() -> None:
            try:
                warm_up()
            except Exception:  # noqa: BLE001 - no kernels then: the pure-Python engine plays
                traceback.print_exc(file=sys.stderr)

        self._loading = threading.Thread(target=load, name="tbp-warm-up", daemon=True)
        self._loading.start()

    def handle(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        kind = message.get("type")
        handler = self._handlers.get(kind) if isinstance(kind, str) else None
        if handler is None:
            return []  # the spec: ignore unknown messages
        try:
            return handler(message)
        except TbpError as error:
            return [{"type": "error", "reason": f"bad {kind} message: {error}"}]

    def close(self) -> None:
        self.thinker.close()

    def _set_state(self, state: BotState | None) -> None:
        self.state = state
        if state is not None and state.queue:
            self.thinker.think(state.snapshot(self.rules))
        else:
            self.thinker.stop()

    def _on_rules(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        randomizer = message.get("randomizer", "unknown")
        if randomizer is None:
            randomizer = "unknown"
        unsupported = []
        if not isinstance(randomizer, str):
            unsupported.append(f"randomizer {describe(randomizer)} is not a string")
        if message.get("garbage") is not None:
            unsupported.append(f"garbage {describe(message['garbage'])} (the garbage feature is not supported)")
        if unsupported:
            print(f"tbp: unsupported rules: {'; '.join(unsupported)}", file=sys.stderr)
            return [{"type": "error", "reason": "unsupported_rules"}]
        # The spec: a randomizer not present or not recognised counts as "unknown".
        self.randomizer = randomizer if randomizer in RANDOMIZERS else "unknown"
        self._randomizer_named = randomizer
        if self._loading is not None:
            self._loading.join()
        return [{"type": "ready"}]

    def _on_start(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        hold = _required(message, "hold")
        hold = parse_piece(hold, "hold") if hold is not None else None
        queue = parse_pieces(_required(message, "queue"), "queue")
        combo = parse_int(_required(message, "combo"), "combo", 0, MAX_COMBO)
        back_to_back = _required(message, "back_to_back")
        if not isinstance(back_to_back, bool):
            raise TbpError(f"back_to_back must be true or false, not {describe(back_to_back)}")
        board = parse_board(_required(message, "board"))
        bag: tuple[Piece, ...] = ALL_PIECES
        randomizer = message.get("randomizer")
        if randomizer is not None:
            if not isinstance(randomizer, dict):
                raise TbpError(f"randomizer must be an object, not {describe(randomizer)}")
            if randomizer.get("type") != self._randomizer_named:
                raise TbpError(
                    f"randomizer type {describe(randomizer.get('type'))} is not the one the rules named "
                    f"({describe(self._randomizer_named)})"
                )
            if self.randomizer == "seven_bag":
                bag = parse_pieces(randomizer.get("bag_state"), "bag_state")
                if not bag or len(set(bag)) != len(bag):
                    raise TbpError("bag_state must be a non-empty list of different pieces")
        self._set_state(
            BotState(
                board=board,
                queue=queue,
                hold=hold,
                combo=combo - 1,
                b2b=0 if back_to_back else -1,
                randomizer=self.randomizer,
                bag=bag,
            )
        )
        return []

    def _calculating(self) -> BotState:
        if self.state is None:
            raise TbpError("the bot is not calculating (send start first)")
        return self.state

    def _on_suggest(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        if self.state is None or not self.state.queue:
            return [{"type": "suggestion", "moves": []}]
        try:
            thought = self.thinker.best(self.budget_ms)
        except SearchFailed as error:
            return [{"type": "error", "reason": f"the search failed: {error}"}]
        if thought is None:
            return [{"type": "suggestion", "moves": []}]
        moves = [move_to_json(thought.move)] if thought.move is not None else []
        return [{"type": "suggestion", "moves": moves, "move_info": thought.move_info()}]

    def _on_play(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        state = self._calculating()
        placement = parse_move(_required(message, "move"))
        piece = placement.piece
        queue, hold = state.queue, state.hold
        if not queue:
            raise TbpError("the queue is empty")
        if piece != queue[0]:  # TBP: a hold is inferred from the piece type
            held = hold if hold is not None else (queue[1] if len(queue) > 1 else None)
            if not self.rules.hold or piece != held:
                raise TbpError(
                    f"{piece.name} is neither the current piece {queue[0].name} nor the one hold gives "
                    f"({held.name if held is not None else 'none'})"
                )
            queue, hold = ((held,) + queue[2:], queue[0]) if hold is None else ((hold,) + queue[1:], queue[0])
        if not state.board.fits(piece, placement.rotation, placement.x, placement.y):
            raise TbpError(
                f"{piece.name} {placement.rotation.tbp_name} at x={placement.x}, y={placement.y} does not fit the board"
            )
        board, result = lock_piece(state.board, placement, state.b2b, state.combo)
        self._set_state(
            replace(
                state,
                board=board,
                queue=queue[1:],
                hold=hold,
                b2b=result.b2b,
                combo=result.combo,
                pieces=state.pieces + 1,
            )
        )
        return []

    def _on_new_piece(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        state = self._calculating()
        piece = parse_piece(_required(message, "piece"))
        bag, randomizer = state.bag, state.randomizer
        if randomizer == "seven_bag":
            if piece in bag:
                bag = tuple(p for p in bag if p != piece) or ALL_PIECES
            else:
                # Not what a 7-bag can deal: the frontend's word stands (the queue must stay in step with it), but
                # the bag model is wrong, so this game goes on without one.
                print(
                    f"tbp: {piece.name} cannot come from a 7-bag holding {''.join(p.name for p in bag)}; "
                    "playing this game with an unknown randomizer",
                    file=sys.stderr,
                )
                bag, randomizer = (), "unknown"
        self._set_state(replace(state, queue=state.queue + (piece,), bag=bag, randomizer=randomizer))
        return []

    def _on_stop(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        self._set_state(None)
        return []

    def _on_quit(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        self._set_state(None)
        self.running = False
        return []


def serve(bot: TbpBot, lines: Iterable[str], out: IO[str]) -> None:
    """Talk TBP over `lines` (one message each) and `out`: `info` first, then the kernels load meanwhile."""

    def send(message: dict[str, Any]) -> None:
        out.write(json.dumps(message) + "\n")
        out.flush()

    send(bot.greeting())
    bot.start_loading()
    try:
        for line in lines:
            for reply in answer_line(bot, line):
                send(reply)
            if not bot.running:
                return
    finally:
        bot.close()


def answer_line(bot: TbpBot, line: str) -> list[dict[str, Any]]:
    """The replies to one input line (blank lines get none)."""
    if not line.strip():
        return []
    try:
        message = parse_line(line)
    except TbpError as error:
        return [{"type": "error", "reason": str(error)}]
    return bot.handle(message)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--budget-ms",
        type=float,
        default=50.0,
        help="how long a suggestion may wait for the search of its position (it answers at once "
        "when the search has ended)",
    )
    parser.add_argument("--kicks", default="srs", help="srs, srs+, none, nrs or a kick-table file")
    parser.add_argument("--allow-180", action="store_true", help="let the bot use 180 degree rotations")


def load_engine_kernels() -> None:
    """The bot's warm-up: the engine's compiled kernels, not the PC solver's (a TBP bot asks no PC question; the PC
    warm-up, its kernels and its tables of about 150 MB, took 0.55 s and 190 MB more), and then freeze them out of
    the garbage collector's walks, as the worker does (ai.worker.freeze_survivors)."""
    from ai.service import warm_up
    from ai.worker import freeze_survivors

    warm_up(pc=False)
    freeze_survivors()


def run(args: argparse.Namespace) -> int:
    from game.rotation import KickTableError

    if not args.budget_ms >= 0 or args.budget_ms == float("inf"):
        print(f"error: --budget-ms must be a finite number of milliseconds >= 0, not {args.budget_ms}", file=sys.stderr)
        return 2
    try:
        rules = Rules.named(args.kicks, allow_180=args.allow_180)
    except KickTableError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2

    bot = TbpBot(engine_search, budget_ms=args.budget_ms, rules=rules, warm_up=load_engine_kernels)
    # The thinker holds the GIL while it searches; a short switch interval lets the reading thread take the next
    # line (a new position, or a suggest to answer) within a millisecond instead of the default 5.
    sys.setswitchinterval(0.0005)
    # Bytes that are not UTF-8 become U+FFFD (and then a bad message), never a crash while reading.
    lines = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
    serve(bot, lines, sys.stdout)
    return 0
