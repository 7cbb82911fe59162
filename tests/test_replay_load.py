"""Replay files: anything that is not a replay this game wrote raises ReplayError on load, never later in play()."""

from __future__ import annotations

import json

import pytest

from game.engine import Game
from game.replay import MAX_TICKS, Replay, ReplayError


@pytest.fixture(scope="module")
def recorded() -> dict:
    game = Game(seed=3)
    for tick in range(150):
        game.tick(8 if tick % 25 == 0 else 1 if tick % 7 == 0 else 0)
    return json.loads(Replay.from_game(game).to_json())


def test_a_recorded_replay_loads_and_plays_the_same(recorded: dict, tmp_path) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps(recorded))
    replay = Replay.load(path)
    assert replay.play().ticks == 150 and Replay.from_json(replay.to_json()) == replay


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"inputs": [[0, 10**30]]}, f"more than {MAX_TICKS:,} ticks"),  # was OverflowError / MemoryError
        ({"inputs": [[0, MAX_TICKS], [1, 1]]}, "ticks of input"),
        ({"inputs": [[0, 0]]}, "ticks must be a whole number above 0"),
        ({"inputs": [[True, 1]]}, "button set"),
        ({"inputs": [[4096, 1]]}, "button set"),
        ({"inputs": [[1.5, 1]]}, "button set"),
        ({"inputs": "0"}, "inputs must be a list"),
        ({"precharge": [-1]}, "precharge[0]"),
        ({"board": ["XXXXXXXXXX"] * 41}, "board has 41 rows"),
        ({"board": ["abc"]}, "board row 1"),
        ({"board": [3]}, "list of text rows"),
        ({"queue": "TQ"}, "queue must be a piece letter"),
        ({"hold": "TT"}, "hold must be a piece letter"),
        ({"seed": "7"}, "seed must be an integer"),
        ({"seed": 1.5}, "seed must be an integer"),
        ({"randomizer_state": [{"piece": "I"}, {"piece": "I"}]}, "not a state of the 7bag randomizer"),
        ({"randomizer_state": [{"piece": "T"}, {"piece": "I"}]}, "not a state of the 7bag randomizer"),  # unsorted
        ({"randomizer_state": {"colour": 1}}, "randomizer_state objects"),
        ({"randomizer_state": 5}, "randomizer_state holds 5"),
        ({"randomizer_state": [[[[[[[]]]]]]]}, "nested too deeply"),
        ({"format": 2}, "unsupported replay format"),
        ({"extra": 1}, "unknown key(s) 'extra'"),
        ({"config": {"rules": {"rotation": "/dev/zero"}}}, "neither built in"),
        ({"config": None}, "config must be an object with rules"),
    ],
)
def test_bad_values_are_replay_errors_on_load(recorded: dict, change: dict, message: str) -> None:
    data = {**recorded, **change}
    with pytest.raises(ReplayError) as caught:
        Replay.from_json(json.dumps(data))
    assert message in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("previews", 2.5, "config.previews has the wrong type"),
        ("previews", 9, "previews = 9 is out of range"),
        ("randomizer", "lottery", "unknown randomizer"),
        ("gravity", float("nan"), "gravity"),
        ("track_finesse", 1, "config.track_finesse has the wrong type"),
    ],
)
def test_bad_config_values_are_replay_errors(recorded: dict, key: str, value, message: str) -> None:
    data = {**recorded, "config": {**recorded["config"], key: value}}
    with pytest.raises(ReplayError, match=message):
        Replay.from_json(json.dumps(data))


def test_handling_values_are_checked(recorded: dict) -> None:
    config = recorded["config"]
    for handling, message in (
        ({**config["handling"], "das": "10"}, "config"),
        ({**config["handling"], "arr": -1}, "handling.arr"),
    ):
        with pytest.raises(ReplayError, match=message):
            Replay.from_json(json.dumps({**recorded, "config": {**config, "handling": handling}}))


@pytest.mark.parametrize(
    "text", ["[" * 100_000, '{"format": 1, "seed": ' + "9" * 5000 + "}", "", "null", b"\xff\xfe\xfa", '{"format": 1}']
)
def test_unreadable_text_is_a_replay_error(text) -> None:
    with pytest.raises(ReplayError):
        Replay.from_json(text)


def test_files_that_cannot_be_loaded(tmp_path) -> None:
    with pytest.raises(ReplayError, match="file too large"):
        Replay.load("/dev/zero")
    with pytest.raises(ReplayError, match="cannot read replay"):
        Replay.load(tmp_path)
    with pytest.raises(ReplayError, match="cannot read replay"):
        Replay.load(tmp_path / "missing.json")
    binary = tmp_path / "b.json"
    binary.write_bytes(b"\x80\x81{")
    with pytest.raises(ReplayError):
        Replay.load(binary)
