"""Replays: a game is its config, seed, start position and the buttons of every tick. Saved as JSON."""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from game.board import Board
from game.config import GameConfig
from game.engine import Game
from game.handling import Button
from game.pieces import Piece

REPLAY_FORMAT = 1


class ReplayError(ValueError):
    """A replay file that cannot be read; the message says what is wrong."""


@dataclass(frozen=True)
class Replay:
    config: GameConfig
    seed: int
    inputs: tuple[int, ...]
    board_rows: tuple[str, ...] = ()
    queue: tuple[Piece, ...] = ()
    hold: Piece | None = None
    randomizer_state: Any = None
    precharge: tuple[int, ...] = ()

    @classmethod
    def from_game(cls, game: Game) -> Replay:
        return cls(
            config=game.config,
            seed=game.seed,
            inputs=tuple(game.inputs),
            board_rows=tuple(game.start_board.to_rows()),
            queue=game.start_queue,
            hold=game.start_hold,
            randomizer_state=game.start_randomizer_state,
            precharge=tuple(game.precharge_inputs),
        )

    def new_game(self) -> Game:
        board = Board.from_rows(list(self.board_rows)) if self.board_rows else None
        return Game(
            self.config,
            self.seed,
            board=board,
            queue=list(self.queue),
            hold=self.hold,
            randomizer_state=self.randomizer_state,
        )

    def play(self) -> Game:
        """Run every recorded tick on a fresh game and return it."""
        game = self.new_game()
        for buttons in self.precharge:
            game.precharge(buttons)
        for buttons in self.inputs:
            game.tick(buttons)
        return game

    # --- JSON ---------------------------------------------------------------------------------------------
    def to_json(self) -> str:
        runs: list[list[int]] = []
        for buttons in self.inputs:
            if runs and runs[-1][0] == buttons:
                runs[-1][1] += 1
            else:
                runs.append([buttons, 1])
        data = {
            "format": REPLAY_FORMAT,
            "config": self.config.to_dict(),
            "seed": self.seed,
            "board": list(self.board_rows),
            "queue": "".join(p.name for p in self.queue),
            "hold": self.hold.name if self.hold is not None else None,
            "randomizer_state": _state_to_json(self.randomizer_state),
            "inputs": runs,
            "precharge": list(self.precharge),
        }
        return json.dumps(data, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | bytes) -> Replay:
        """Read and fully check a replay: anything wrong raises ReplayError (a ValueError) with one line saying
        what, so a replay that loads also plays."""
        try:
            data = json.loads(text)
        except RecursionError:
            raise ReplayError("not a valid replay: JSON nested too deeply") from None
        except (ValueError, TypeError) as error:  # also UnicodeDecodeError and numbers of thousands of digits
            raise ReplayError(f"not a valid replay: {str(error).splitlines()[0]}") from None
        if not isinstance(data, dict):
            raise ReplayError("not a valid replay: expected a JSON object")
        if data.get("format") != REPLAY_FORMAT:
            raise ReplayError(f"unsupported replay format {_short(data.get('format'))} (expected {REPLAY_FORMAT})")
        unknown = set(data) - _KEYS
        if unknown:
            raise ReplayError(f"not a valid replay: unknown key(s) {', '.join(sorted(map(_short, unknown)))}")
        try:
            replay = cls(
                config=_config(data.get("config")),
                seed=_integer(data.get("seed"), "seed"),
                inputs=_inputs(data.get("inputs")),
                board_rows=_board(data.get("board", [])),
                queue=_pieces(data.get("queue", ""), "queue"),
                hold=_hold(data.get("hold")),
                randomizer_state=_state_from_json(data.get("randomizer_state")),
                precharge=_precharge(data.get("precharge", [])),
            )
        except ReplayError:
            raise
        except (ValueError, KeyError, TypeError, AttributeError, OverflowError, RecursionError) as error:
            raise ReplayError(f"not a valid replay: {_first_line(error)}") from None
        _check_state(replay.config.randomizer, replay.randomizer_state)
        try:
            replay.new_game()
        except (ValueError, KeyError, TypeError, AttributeError, OverflowError, IndexError, AssertionError) as error:
            raise ReplayError(
                f"not a valid replay: the start position cannot be played ({_first_line(error)})"
            ) from None
        return replay

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.to_json(), encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> Replay:
        from game.textfile import InputFileError, read_bytes

        try:
            data = read_bytes(path, MAX_REPLAY_BYTES, what="replay")
        except InputFileError as error:
            raise ReplayError(str(error)) from None
        return cls.from_json(data)


# --- checks: every value a replay holds, before a game is built from it -------------------------------------
MAX_REPLAY_BYTES = 16_000_000
MAX_TICKS = 1_000_000  # 4.6 hours at 60 ticks a second
MAX_PRECHARGE = 6_000  # a countdown of 100 s
_ALL_BUTTONS = sum(int(b) for b in Button)
_KEYS = {"format", "config", "seed", "board", "queue", "hold", "randomizer_state", "inputs", "precharge"}


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _first_line(error: BaseException) -> str:
    text = str(error)
    return text.splitlines()[0] if text else type(error).__name__


def _integer(value: Any, what: str) -> int:
    if type(value) is not int:
        raise ReplayError(f"not a valid replay: {what} must be an integer, got {_short(value)}")
    return value


def _buttons(value: Any, what: str) -> int:
    if type(value) is not int or value & ~_ALL_BUTTONS or value < 0:
        raise ReplayError(f"not a valid replay: {what} must be a button set 0..{_ALL_BUTTONS}, got {_short(value)}")
    return value


def _inputs(value: Any) -> tuple[int, ...]:
    if not isinstance(value, list):
        raise ReplayError("not a valid replay: inputs must be a list of [buttons, ticks] pairs")
    total = 0
    for number, pair in enumerate(value):
        if not isinstance(pair, list) or len(pair) != 2:
            raise ReplayError(f"not a valid replay: inputs[{number}] must be a [buttons, ticks] pair")
        _buttons(pair[0], f"inputs[{number}] buttons")
        count = pair[1]
        if type(count) is not int or count < 1:
            raise ReplayError(f"not a valid replay: inputs[{number}] ticks must be a whole number above 0")
        total += count
        if total > MAX_TICKS:
            raise ReplayError(f"not a valid replay: more than {MAX_TICKS:,} ticks of input")
    return tuple(buttons for buttons, count in value for _ in range(count))


def _precharge(value: Any) -> tuple[int, ...]:
    if not isinstance(value, list) or len(value) > MAX_PRECHARGE:
        raise ReplayError(f"not a valid replay: precharge must be a list of at most {MAX_PRECHARGE:,} button sets")
    return tuple(_buttons(b, f"precharge[{i}]") for i, b in enumerate(value))


def _board(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(row, str) for row in value):
        raise ReplayError("not a valid replay: board must be a list of text rows")
    if value:
        try:
            Board.from_rows(list(value))
        except ValueError as error:
            raise ReplayError(f"not a valid replay: board: {_first_line(error)}") from None
    return tuple(value)


def _piece(value: Any, what: str) -> Piece:
    if not isinstance(value, str) or len(value) != 1 or value not in "IJLOSTZ":
        raise ReplayError(f"not a valid replay: {what} must be a piece letter I J L O S T Z, got {_short(value)}")
    return Piece[value]


def _pieces(value: Any, what: str) -> tuple[Piece, ...]:
    if not isinstance(value, str):
        raise ReplayError(f"not a valid replay: {what} must be a string of piece letters")
    return tuple(_piece(c, what) for c in value)


def _hold(value: Any) -> Piece | None:
    return None if value is None else _piece(value, "hold")


def _config(value: Any) -> GameConfig:
    from game.rotation import BUILTIN_FILES

    if not isinstance(value, dict) or not isinstance(value.get("rules"), dict):
        raise ReplayError("not a valid replay: config must be an object with rules")
    rotation = value["rules"].get("rotation")
    if isinstance(rotation, str) and rotation.lower() not in BUILTIN_FILES:
        # replays carry their kick table; a file name would make the replay depend on (and read) another file
        raise ReplayError(
            f"not a valid replay: rotation {_short(rotation)} is neither built in "
            f"({', '.join(BUILTIN_FILES)}) nor a kick table"
        )
    try:
        config = GameConfig.from_dict(value)
    except (ValueError, KeyError, TypeError, AttributeError, OverflowError, RecursionError, AssertionError) as error:
        raise ReplayError(f"not a valid replay: config: {_first_line(error)}") from None
    for owner, what in ((config, "config"), (config.handling, "config.handling")):
        for item in dataclasses.fields(owner):
            if item.default is not dataclasses.MISSING:
                value = getattr(owner, item.name)
                if not (value is None and "None" in str(item.type)):
                    _same_type(value, item.default, f"{what}.{item.name}")
    return config


def _same_type(value: Any, default: Any, what: str) -> None:
    if isinstance(default, bool):
        ok = isinstance(value, bool)
    elif isinstance(default, int):
        ok = type(value) is int
    elif isinstance(default, float):
        ok = type(value) in (int, float) and math.isfinite(value)
    else:
        return
    if not ok:
        raise ReplayError(f"not a valid replay: {what} has the wrong type ({_short(value)})")


def _check_state(randomizer: str, state: Any) -> None:
    """The randomizer state must be one the randomizer can be in (None: its start)."""
    if state is None:
        return
    bad = ReplayError(
        f"not a valid replay: randomizer_state {_short(_state_to_json(state))} is not a state of "
        f"the {randomizer} randomizer"
    )
    if randomizer in ("7bag", "14bag"):
        copies = 1 if randomizer == "7bag" else 2
        if (
            not isinstance(state, tuple)
            or not all(isinstance(p, Piece) for p in state)
            or len(state) >= 7 * copies
            or list(state) != sorted(state)
            or any(state.count(p) > copies for p in state)
        ):
            raise bad
    elif randomizer == "nes":
        if not isinstance(state, Piece):
            raise bad
    elif randomizer == "tgm":
        if not (
            isinstance(state, tuple)
            and len(state) == 2
            and state[0] in ("first", "run")
            and isinstance(state[1], tuple)
            and len(state[1]) == 4
            and all(isinstance(p, Piece) for p in state[1])
        ):
            raise bad
    else:  # pure random has no state
        raise bad


def _state_to_json(state: Any) -> Any:
    if isinstance(state, Piece):
        return {"piece": state.name}
    if isinstance(state, tuple):
        return [_state_to_json(item) for item in state]
    return state


def _state_from_json(data: Any, depth: int = 0) -> Any:
    if depth > 4:  # states are at most a pair holding a tuple of pieces
        raise ReplayError("not a valid replay: randomizer_state nested too deeply")
    if isinstance(data, dict):
        if set(data) != {"piece"}:
            raise ReplayError('not a valid replay: randomizer_state objects must be {"piece": letter}')
        return _piece(data["piece"], "randomizer_state piece")
    if isinstance(data, list):
        return tuple(_state_from_json(item, depth + 1) for item in data)
    if data is None or isinstance(data, str):
        return data
    raise ReplayError(f"not a valid replay: randomizer_state holds {_short(data)}")
