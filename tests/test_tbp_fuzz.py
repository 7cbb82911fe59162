"""A hypothesis fuzz of the TBP message stream, in-process with the real engine: whatever lines arrive, the bot
answers only with well-formed TBP messages, never crashes, and a message it rejects changes nothing."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from ai.tbp import TbpBot, answer_line, engine_search
from game.pieces import Piece, Rotation

PIECES = [p.name for p in Piece]
ORIENTATIONS = ["north", "east", "south", "west"]

junk = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=10**30, max_value=10**60)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
piece = st.sampled_from(PIECES) | st.sampled_from(["G", "t", "", "TT"]) | junk


def maybe(valid: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly a valid value, sometimes anything."""
    return st.one_of(valid, valid, valid, junk)


@st.composite
def boards(draw: st.DrawFn) -> Any:
    rows: list[list[str | None]] = [[None] * 10 for _ in range(40)]
    for x, y, cell in draw(
        st.lists(st.tuples(st.integers(0, 9), st.integers(0, 39), st.sampled_from(PIECES + ["G"])), max_size=30)
    ):
        rows[y][x] = cell
    for y in draw(st.lists(st.integers(0, 39), max_size=2)):  # full rows: no game leaves one, a frontend might
        rows[y] = ["G"] * 10
    return rows


@st.composite
def starts(draw: st.DrawFn, valid: bool = False) -> dict[str, Any]:
    """A start message: mostly valid fields, sometimes junk or a missing one (all valid when `valid`)."""
    maybe_ = (lambda strategy: strategy) if valid else maybe
    message: dict[str, Any] = {
        "type": "start",
        "hold": draw(maybe_(st.none() | st.sampled_from(PIECES))),
        "queue": draw(maybe_(st.lists(st.sampled_from(PIECES), min_size=1 if valid else 0, max_size=7))),
        "combo": draw(maybe_(st.integers(0, 5))),
        "back_to_back": draw(maybe_(st.booleans())),
        "board": draw(maybe_(boards())),
    }
    if draw(st.booleans()):
        message["randomizer"] = draw(
            maybe_(
                st.fixed_dictionaries(
                    {
                        "type": st.just("seven_bag"),
                        "bag_state": st.lists(st.sampled_from(PIECES), min_size=1, max_size=7, unique=True),
                    }
                )
            )
        )
    if not valid and draw(st.integers(0, 9)) == 0:
        del message[draw(st.sampled_from(sorted(message)))]
    return message


@st.composite
def plays(draw: st.DrawFn) -> dict[str, Any]:
    location = {
        "type": draw(maybe(st.sampled_from(PIECES))),
        "orientation": draw(maybe(st.sampled_from(ORIENTATIONS))),
        "x": draw(maybe(st.integers(0, 9))),
        "y": draw(maybe(st.integers(0, 6))),
    }
    move = {"location": draw(maybe(st.just(location))), "spin": draw(maybe(st.sampled_from(["none", "mini", "full"])))}
    return {"type": "play", "move": draw(maybe(st.just(move)))}


other_messages = st.one_of(
    st.fixed_dictionaries(
        {
            "type": st.just("rules"),
            "randomizer": maybe(st.sampled_from(["seven_bag", "uniform", "unknown", "general_bag", "nes"])),
        }
    ),
    st.fixed_dictionaries({"type": st.just("rules"), "garbage": st.sampled_from(["general", None])}),
    starts(),
    starts(valid=True),
    plays(),
    st.sampled_from(PIECES).map(lambda p: {"type": "new_piece", "piece": p}),
    st.fixed_dictionaries({"type": st.just("new_piece"), "piece": piece}),
    st.just({"type": "suggest"}),
    st.just({"type": "suggest"}),
    st.just({"type": "stop"}),
    st.fixed_dictionaries({"type": junk | st.sampled_from(["garbage", "__init__", "_on_quit"])}),
    st.text(max_size=20).map(lambda text: ("raw", text)),
    st.integers(1, 3000).map(lambda depth: ("raw", '{"type": "start", "queue": ' + "[" * depth + "]" * depth + "}")),
    st.integers(4000, 5000).map(lambda digits: ("raw", '{"type": "play", "x": ' + "7" * digits + "}")),
)
# Half the time a frontend's turn (suggest, then play the first move): games get somewhere between the junk.
messages = st.booleans().flatmap(lambda turn: st.just("play the suggestion") if turn else other_messages)


def as_line(message: Any) -> str:
    return message[1] if isinstance(message, tuple) else json.dumps(message)


def check_suggestion(bot: TbpBot, reply: dict[str, Any]) -> None:
    """A suggested move is placeable in the bot's own position, with the current piece or the one hold gives."""
    assert isinstance(reply["moves"], list)
    state = bot.state
    for move in reply["moves"]:
        assert state is not None and state.queue
        location = move["location"]
        placed = Piece[location["type"]]
        held = state.hold if state.hold is not None else (state.queue[1] if len(state.queue) > 1 else None)
        assert placed in (state.queue[0], held)
        assert state.board.fits(placed, Rotation.parse(location["orientation"]), location["x"], location["y"])
        assert move["spin"] in ("none", "mini", "full")
    if reply["moves"]:
        info = reply["move_info"]
        assert {"nodes", "depth", "extra"} <= set(info) and all(type(info[k]) is int for k in ("nodes", "depth"))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    st.lists(messages, min_size=3, max_size=30),
    st.sampled_from(["seven_bag", "uniform", "unknown"]),
    starts(valid=True),
)
def test_the_bot_survives_any_message_stream_and_rejected_messages_change_nothing(
    stream: list[Any], randomizer: str, start: dict[str, Any]
) -> None:
    bot = TbpBot(engine_search, budget_ms=2)
    try:
        # A game in progress first (most of the stream would be rejected without one), then anything.
        assert answer_line(bot, json.dumps({"type": "rules", "randomizer": randomizer})) == [{"type": "ready"}]
        if randomizer != "seven_bag":
            start.pop("randomizer", None)
        assert answer_line(bot, json.dumps(start)) == []
        played = 0
        for message in stream:
            if message == "play the suggestion":  # what a frontend does: suggest, then play the first move
                [reply] = answer_line(bot, json.dumps({"type": "suggest"}))
                assert reply["type"] == "suggestion"
                check_suggestion(bot, reply)
                if reply["moves"]:
                    assert answer_line(bot, json.dumps({"type": "play", "move": reply["moves"][0]})) == []
                    played += 1
                continue
            before = (bot.state, bot.randomizer)
            replies = answer_line(bot, as_line(message))  # raising here is the crash this test is about
            json.dumps(replies, allow_nan=False)
            assert len(replies) <= 1
            for reply in replies:
                assert reply["type"] in ("ready", "error", "suggestion"), reply
                if reply["type"] == "error":
                    reason = reply["reason"]
                    assert isinstance(reason, str) and reason and "\n" not in reason and len(reason) < 300
                    assert not reason.startswith("the search failed"), reason
                    assert (bot.state, bot.randomizer) == before and bot.state is before[0]
                elif reply["type"] == "suggestion":
                    check_suggestion(bot, reply)
        event(f"suggested moves played: {'none' if not played else '1-4' if played < 5 else '5+'}")
    finally:
        bot.close()
