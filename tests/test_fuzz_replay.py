"""Fuzz harness: replay files. A recorded replay with any field replaced by any JSON value, or any bytes at all,
either raises ReplayError on load or plays to the end."""

from __future__ import annotations

import json
import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.engine import Game
from game.replay import Replay, ReplayError

SCALE = int(os.environ.get("STACKCOACH_FUZZ_SCALE", "1"))  # e.g. 20 for a deeper run
FUZZ = settings(max_examples=120 * SCALE, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _recorded(randomizer: str) -> dict:
    from game.config import GameConfig

    game = Game(GameConfig(randomizer=randomizer), seed=5)
    for tick in range(60):
        game.tick(8 if tick % 20 == 0 else 2 if tick % 5 == 0 else 0)
    return json.loads(Replay.from_game(game).to_json())


RECORDED = {key: _recorded(key) for key in ("7bag", "14bag", "random", "nes", "tgm")}
leaf = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats()
    | st.text(alphabet="IJLOSTZX_.#a0", max_size=12)
)
json_values = st.recursive(
    leaf,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(["piece", "rules", "rotation", "handling", "das", "x"]), inner, max_size=3)
    ),
    max_leaves=12,
)
replaced = st.sampled_from(
    ["config", "seed", "board", "queue", "hold", "randomizer_state", "inputs", "precharge", "format", "bonus"]
)


def _plays_or_refused(text: str | bytes) -> None:
    try:
        replay = Replay.from_json(text)
    except ReplayError as error:
        assert str(error) and "\n" not in str(error)
        return
    if len(replay.inputs) <= 5_000:
        replay.play()  # a replay that loads also plays: no error may wait in play()


@FUZZ
@given(st.sampled_from(sorted(RECORDED)), replaced, json_values)
def test_any_field_replaced(randomizer: str, key: str, value) -> None:
    data = dict(RECORDED[randomizer])
    data[key] = value
    _plays_or_refused(json.dumps(data))


@FUZZ
@given(st.sampled_from(sorted(RECORDED)), st.sampled_from(["das", "arr", "sdf", "dcd"]), json_values)
def test_handling_replaced(randomizer: str, key: str, value) -> None:
    data = dict(RECORDED[randomizer])
    data["config"] = {**data["config"], "handling": {**data["config"]["handling"], key: value}}
    _plays_or_refused(json.dumps(data))


@FUZZ
@given(st.sampled_from(sorted(RECORDED)), st.sampled_from(sorted(RECORDED["7bag"]["config"])), json_values)
def test_config_replaced(randomizer: str, key: str, value) -> None:
    data = dict(RECORDED[randomizer])
    data["config"] = {**data["config"], key: value}
    _plays_or_refused(json.dumps(data))


@FUZZ
@given(
    st.sampled_from(sorted(RECORDED)),
    st.lists(st.sampled_from("IJLOSTZ"), max_size=14),
    st.sampled_from(["list", "first", "run"]),
)
def test_randomizer_states(randomizer: str, pieces: list[str], shape: str) -> None:
    state = [{"piece": p} for p in pieces]
    if shape != "list":
        state = [shape, state]
    _plays_or_refused(json.dumps({**RECORDED[randomizer], "randomizer_state": state}))


@FUZZ
@given(st.binary(max_size=200) | st.text(max_size=200))
def test_any_bytes(blob) -> None:
    _plays_or_refused(blob)
