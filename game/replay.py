"""Replays: a game is its config, seed, start position and the buttons of every tick. Saved as JSON."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from game.board import Board
from game.config import GameConfig
from game.engine import Game
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
            self.config, self.seed, board=board, queue=list(self.queue), hold=self.hold,
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
    def from_json(cls, text: str) -> Replay:
        try:
            data = json.loads(text)
            if not isinstance(data, dict):
                raise ReplayError("not a valid replay: expected a JSON object")
            if data.get("format") != REPLAY_FORMAT:
                raise ReplayError(f"unsupported replay format {data.get('format')!r} (expected {REPLAY_FORMAT})")
            inputs: list[int] = []
            for buttons, count in data["inputs"]:
                inputs.extend([int(buttons)] * int(count))
            return cls(
                config=GameConfig.from_dict(data["config"]),
                seed=int(data["seed"]),
                inputs=tuple(inputs),
                board_rows=tuple(data.get("board", ())),
                queue=tuple(Piece[c] for c in data.get("queue", "")),
                hold=Piece[data["hold"]] if data.get("hold") else None,
                randomizer_state=_state_from_json(data.get("randomizer_state")),
                precharge=tuple(int(b) for b in data.get("precharge", ())),
            )
        except ReplayError:
            raise
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise ReplayError(f"not a valid replay: {error}") from None

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.to_json(), encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> Replay:
        return cls.from_json(Path(path).read_text(encoding="utf-8"))


def _state_to_json(state: Any) -> Any:
    if isinstance(state, Piece):
        return {"piece": state.name}
    if isinstance(state, tuple):
        return [_state_to_json(item) for item in state]
    return state


def _state_from_json(data: Any) -> Any:
    if isinstance(data, dict) and set(data) == {"piece"}:
        return Piece[data["piece"]]
    if isinstance(data, list):
        return tuple(_state_from_json(item) for item in data)
    return data
