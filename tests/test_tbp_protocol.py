"""The TBP bot driven in-process through a scripted transport (no subprocess): the spec's timing (info at once,
ready after rules and the kernels, thinking from start/play before suggest), move_info, unsupported_rules, and
the fuzz findings (inputs that killed the bot, a rejected play that still changed the position)."""

from __future__ import annotations

import io
import json
import queue
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from ai.protocol import Move, Snapshot
from ai.search import Budget
from ai.tbp import TbpBot, Thought, answer_line, engine_search, serve
from game.board import Board
from game.movegen import find_moves
from game.pieces import Piece, Rotation
from game.placement import Placement
from game.rules import Rules
from game.scoring import lock_piece

WAIT = 30.0  # generous bound for waiting on the bot's threads (a safety net, not a timing assertion)
EMPTY = [[None] * 10 for _ in range(40)]


def start_message(
    queue: list[str], *, hold: str | None = None, combo: int = 0, board: list | None = None, **extra: Any
) -> dict[str, Any]:
    return {
        "type": "start",
        "hold": hold,
        "queue": queue,
        "combo": combo,
        "back_to_back": False,
        "board": board if board is not None else EMPTY,
        **extra,
    }


def play_message(piece: str, orientation: str, x: Any, y: Any, spin: str = "none") -> dict[str, Any]:
    return {
        "type": "play",
        "move": {"location": {"type": piece, "orientation": orientation, "x": x, "y": y}, "spin": spin},
    }


class ScriptedLines:
    """Input lines fed one by one by the test; iteration blocks until the next line (None ends it)."""

    def __init__(self) -> None:
        self._lines: queue.Queue[str | None] = queue.Queue()

    def send(self, message: dict[str, Any] | str) -> None:
        self._lines.put(message if isinstance(message, str) else json.dumps(message))

    def close(self) -> None:
        self._lines.put(None)

    def __iter__(self) -> Iterator[str]:
        while (line := self._lines.get(timeout=WAIT)) is not None:
            yield line


class Recorder(io.StringIO):
    """The bot's output, as messages, each with what `note()` said when it was written."""

    def __init__(self, note: Any = lambda: None) -> None:
        super().__init__()
        self._note = note
        self._buffer = ""
        self.messages: queue.Queue[tuple[dict[str, Any], Any]] = queue.Queue()

    def write(self, text: str) -> int:
        self._buffer += text
        while "\n" in self._buffer:
            line, self._buffer = self._buffer.split("\n", 1)
            self.messages.put((json.loads(line), self._note()))
        return len(text)

    def receive(self) -> tuple[dict[str, Any], Any]:
        return self.messages.get(timeout=WAIT)


class FakeSearch:
    """A search that records the positions it was asked about. The one-piece search (depth 1) answers the first
    placement at once; the full search answers another one, after waiting for `should_stop` if `block` is set."""

    def __init__(self, *, block: bool = False) -> None:
        self.block = block
        self.calls: list[tuple[Snapshot, int | None, str]] = []
        self.full_started = threading.Event()

    def __call__(self, snapshot: Snapshot, budget: Budget) -> Thought:
        self.calls.append((snapshot, budget.depth, threading.current_thread().name))
        options = find_moves(snapshot.board, snapshot.current, snapshot.rules)
        if not options:
            return Thought(None)
        if budget.depth == 1:
            return Thought(Move(placement=options[0].placement, keys=()), nodes=len(options), depth=1, search_ms=1.0)
        self.full_started.set()
        stopped = False
        if self.block:
            assert budget.should_stop is not None
            stopped = _wait_for(budget.should_stop)
        return Thought(
            Move(placement=options[-1].placement, keys=()),
            nodes=1234,
            depth=5 if stopped else 6,
            search_ms=2.0,
            note="fake",
        )


def _wait_for(condition: Any) -> bool:
    """Poll `condition` until it holds (True) or WAIT seconds pass (False)."""
    pause = threading.Event()
    for _ in range(int(WAIT * 1000)):
        if condition():
            return True
        pause.wait(0.001)
    return False


def suggested(reply: dict[str, Any]) -> tuple[Piece, Rotation, int, int]:
    assert reply["type"] == "suggestion", reply
    location = reply["moves"][0]["location"]
    return Piece[location["type"]], Rotation.parse(location["orientation"]), location["x"], location["y"]


# --- timing: info, ready ---------------------------------------------------------------------------------------------


class TestStartup:
    def test_info_is_sent_before_the_kernels_load_and_ready_only_after_rules_and_kernels(self) -> None:
        release = threading.Event()
        loaded = threading.Event()

        def warm_up() -> None:
            release.wait(WAIT)
            loaded.set()

        bot = TbpBot(FakeSearch(), warm_up=warm_up)
        lines, out = ScriptedLines(), Recorder(note=loaded.is_set)
        server = threading.Thread(target=serve, args=(bot, lines, out))
        server.start()
        try:
            info, was_loaded = out.receive()
            assert info["type"] == "info" and was_loaded is False
            assert {"randomizer", "move_info"} <= set(info["features"])
            assert all(isinstance(info[k], str) and info[k] for k in ("name", "version", "author"))
            lines.send({"type": "rules", "randomizer": "seven_bag"})
            release.set()
            ready, was_loaded = out.receive()
            assert ready == {"type": "ready"} and was_loaded is True
        finally:
            release.set()
            lines.send({"type": "quit"})
            server.join(WAIT)
        assert not server.is_alive()

    def test_a_failing_warm_up_still_lets_the_bot_play(self, capsys: pytest.CaptureFixture[str]) -> None:
        def warm_up() -> None:
            raise ImportError("no numba here")

        bot = TbpBot(FakeSearch(), warm_up=warm_up)
        out = io.StringIO()
        serve(
            bot,
            [
                json.dumps({"type": "rules"}),
                json.dumps(start_message(["T", "I"])),
                json.dumps({"type": "suggest"}),
                json.dumps({"type": "quit"}),
            ],
            out,
        )
        replies = [json.loads(line) for line in out.getvalue().splitlines()]
        assert [r["type"] for r in replies] == ["info", "ready", "suggestion"]
        assert "no numba here" in capsys.readouterr().err


# --- rules -----------------------------------------------------------------------------------------------------------


class TestRules:
    @pytest.mark.parametrize(
        "rules",
        [
            {"type": "rules", "garbage": "general"},
            {"type": "rules", "randomizer": "seven_bag", "garbage": "change_on_attack"},
            {"type": "rules", "randomizer": 7},
            {"type": "rules", "randomizer": {"type": "seven_bag"}},
        ],
    )
    def test_rules_the_bot_cannot_honour_get_unsupported_rules_and_change_nothing(self, rules: dict) -> None:
        bot = TbpBot(FakeSearch())
        assert bot.handle({"type": "rules", "randomizer": "seven_bag"}) == [{"type": "ready"}]
        assert bot.handle(rules) == [{"type": "error", "reason": "unsupported_rules"}]
        assert bot.randomizer == "seven_bag"

    @pytest.mark.parametrize(
        ("value", "model"),
        [
            ("seven_bag", "seven_bag"),
            ("uniform", "uniform"),
            ("unknown", "unknown"),
            (None, "unknown"),
            ("general_bag", "general_bag"),
            ("tgm_history", "unknown"),  # the spec: unrecognised counts as unknown
        ],
    )
    def test_randomizers_the_spec_allows_are_ready(self, value: str | None, model: str) -> None:
        bot = TbpBot(FakeSearch())
        message = {"type": "rules"} if value is None else {"type": "rules", "randomizer": value}
        assert bot.handle(message) == [{"type": "ready"}]
        assert bot.randomizer == model

    def test_a_seven_bag_start_models_the_bag_it_is_given(self) -> None:
        search = FakeSearch()
        bot = TbpBot(search)
        bot.handle({"type": "rules", "randomizer": "seven_bag"})
        bot.handle(start_message(["T", "I", "O"], randomizer={"type": "seven_bag", "bag_state": ["S", "Z"]}))
        assert bot.thinker.wait_finished(WAIT)
        snapshot = search.calls[0][0]
        assert (snapshot.randomizer, snapshot.randomizer_state) == ("7bag", (Piece.S, Piece.Z))
        bot.handle({"type": "new_piece", "piece": "Z"})
        assert bot.state is not None and bot.state.bag == (Piece.S,)


# --- thinking ------------------------------------------------------------------------------------------------------


class TestThinking:
    def test_the_bot_thinks_from_start_in_the_background_and_suggest_answers_with_that(self) -> None:
        search = FakeSearch()
        bot = TbpBot(search, budget_ms=10_000)  # a suggestion must not need to wait for this
        bot.handle({"type": "rules"})
        assert bot.handle(start_message(["T", "I", "O"])) == []
        assert bot.thinker.wait_finished(WAIT)  # no suggest was sent: the search ran on its own
        assert [(s.current, depth) for s, depth, _ in search.calls] == [(Piece.T, 1), (Piece.T, None)]
        assert all(thread == "tbp-thinker" for _, _, thread in search.calls)
        calls = len(search.calls)
        [reply] = bot.handle({"type": "suggest"})
        assert len(search.calls) == calls  # answered from what was found, not by searching now
        last = find_moves(Board(), Piece.T, Rules())[-1].placement
        assert suggested(reply) == (Piece.T, last.rotation, last.x, last.y)  # the full search's
        info = reply["move_info"]
        assert info["nodes"] == 1234 and info["depth"] == 6 and info["nps"] == 617_000
        assert info["extra"].startswith("thought ") and "fake" in info["extra"]

    def test_play_and_new_piece_restart_thinking_on_the_new_position(self) -> None:
        search = FakeSearch()
        bot = TbpBot(search)
        bot.handle(start_message(["T", "I", "O"]))
        assert bot.thinker.wait_finished(WAIT)
        bot.handle(play_message("T", "north", 4, 0))
        assert bot.thinker.wait_finished(WAIT)
        after_play = search.calls[-1][0]
        assert after_play.current == Piece.I and after_play.board.is_filled(4, 0) and after_play.queue == (Piece.O,)
        bot.handle({"type": "new_piece", "piece": "L"})
        assert bot.thinker.wait_finished(WAIT)
        assert search.calls[-1][0].queue == (Piece.O, Piece.L)

    def test_suggest_cuts_a_long_search_short_after_the_minimum_and_gets_its_best_so_far(self) -> None:
        search = FakeSearch(block=True)  # the full search runs until told to stop
        bot = TbpBot(search, budget_ms=20)
        bot.handle(start_message(["S", "Z"]))
        assert search.full_started.wait(WAIT)
        [reply] = bot.handle({"type": "suggest"})
        assert reply["move_info"]["depth"] == 5  # the fake's "stopped early" answer: should_stop was set
        assert reply["moves"]

    def test_suggest_before_any_thought_still_gets_a_move(self) -> None:
        bot = TbpBot(FakeSearch(block=True), budget_ms=0)
        bot.handle(start_message(["I"]))
        [reply] = bot.handle({"type": "suggest"})
        assert suggested(reply)[0] == Piece.I

    def test_the_real_engine_suggests_a_reachable_move_with_move_info(self) -> None:
        bot = TbpBot(engine_search, budget_ms=50)
        bot.handle({"type": "rules", "randomizer": "seven_bag"})
        board = [list(row) for row in EMPTY]
        board[0] = ["G"] * 4 + [None] * 2 + ["G"] * 4
        bot.handle(
            start_message(
                ["O", "I", "T", "L", "J"], board=board, randomizer={"type": "seven_bag", "bag_state": ["S", "Z"]}
            )
        )
        assert bot.thinker.wait_finished(WAIT)
        [reply] = bot.handle({"type": "suggest"})
        piece, rotation, x, y = suggested(reply)
        state = bot.state
        assert state is not None
        legal = {(m.placement.rotation, m.placement.x, m.placement.y) for m in find_moves(state.board, piece, Rules())}
        assert piece in (Piece.O, Piece.I) and (rotation, x, y) in legal
        info = reply["move_info"]
        assert info["depth"] >= 2 and info["nodes"] > 0 and info["nps"] > 0 and "ms" in info["extra"]

    def test_stop_ends_thinking_and_suggest_then_has_no_moves(self) -> None:
        bot = TbpBot(FakeSearch())
        bot.handle(start_message(["T"]))
        bot.handle({"type": "stop"})
        assert bot.state is None
        assert bot.handle({"type": "suggest"}) == [{"type": "suggestion", "moves": []}]
        assert bot.handle(play_message("T", "north", 4, 0))[0]["type"] == "error"


# --- the fuzz findings -----------------------------------------------------------------------------------------------

KILLERS = {
    "orientation as a number": json.dumps(play_message("T", 2, 4, 0)),
    "x of 1e400": json.dumps(play_message("T", "north", 1, 0)).replace('"x": 1', '"x": 1e400'),
    "combo of 1e400": json.dumps(start_message(["S"], combo=7)).replace('"combo": 7', '"combo": 1e400'),
    "a list nested 100,000 deep": "[" * 100_000 + "]" * 100_000,
    "start with a queue nested 100,000 deep": '{"type": "start", "queue": ' + "[" * 100_000 + "]" * 100_000 + "}",
    "a 5,000-digit integer": '{"type": "new_piece", "piece": ' + "9" * 5000 + "}",
}


class TestFuzzFindings:
    @pytest.mark.parametrize("line", KILLERS.values(), ids=KILLERS.keys())
    def test_an_input_that_killed_the_bot_gets_an_error_and_changes_nothing(self, line: str) -> None:
        bot = TbpBot(FakeSearch())
        out = io.StringIO()
        lines = [
            json.dumps({"type": "rules"}),
            json.dumps(start_message(["T", "I", "O"])),
            line,
            json.dumps({"type": "suggest"}),
            json.dumps(play_message("T", "north", 4, 0)),
            json.dumps({"type": "suggest"}),
            json.dumps({"type": "quit"}),
        ]
        serve(bot, lines, out)
        replies = [json.loads(text) for text in out.getvalue().splitlines()]
        assert [r["type"] for r in replies] == ["info", "ready", "error", "suggestion", "suggestion"]
        assert len(replies[2]["reason"]) < 200 and "\n" not in replies[2]["reason"]
        assert suggested(replies[3])[0] == Piece.T and suggested(replies[4])[0] == Piece.I

    @pytest.mark.parametrize("field", ["x", "y", "combo"])
    @pytest.mark.parametrize("value", [True, 2.5, -1, 10**40, None, "3", float("nan")])
    def test_numbers_must_be_integers_in_range(self, field: str, value: Any) -> None:
        bot = TbpBot(FakeSearch())
        bot.handle(start_message(["T", "I", "O"]))
        before = bot.state
        if field == "combo":
            message = start_message(["S"], combo=value)
        else:
            message = play_message("T", "north", value if field == "x" else 4, value if field == "y" else 0)
        [reply] = bot.handle(message)
        assert reply["type"] == "error" and field in reply["reason"]
        assert bot.state is before

    def test_a_rejected_play_changes_nothing_and_bad_plays_do_not_drift(self) -> None:
        bot = TbpBot(FakeSearch())
        bot.handle(start_message(["T", "I", "O"]))
        before = bot.state
        for _ in range(3):
            [reply] = bot.handle(play_message("Z", "north", 4, 0))  # not T, not what hold gives (I)
            assert reply["type"] == "error"
            assert bot.state is before
        [reply] = bot.handle(play_message("I", "north", 4, 42))  # the piece hold gives, off the board
        assert reply["type"] == "error" and bot.state is before
        assert (before.queue, before.hold, before.board.bits) == ((Piece.T, Piece.I, Piece.O), None, 0)
        assert bot.handle(play_message("T", "north", 4, 0)) == []  # the position is still the one given
        assert bot.state is not None and bot.state.queue == (Piece.I, Piece.O) and bot.state.hold is None

    def test_a_play_that_overlaps_the_stack_changes_nothing(self) -> None:
        board = [list(row) for row in EMPTY]
        board[0] = ["G"] * 9 + [None]
        bot = TbpBot(FakeSearch())
        bot.handle(start_message(["I", "T"], hold="O", board=board))
        before = bot.state
        [reply] = bot.handle(play_message("O", "north", 4, 0))  # hold gives O, but row 0 is filled there
        assert reply["type"] == "error" and "does not fit" in reply["reason"]
        assert bot.state is before

    def test_a_legal_hold_play_swaps_hold_and_locks(self) -> None:
        bot = TbpBot(FakeSearch())
        bot.handle(start_message(["T", "I", "O"]))
        assert bot.handle(play_message("I", "north", 4, 0)) == []  # hold empty: T goes to hold, I is played
        state = bot.state
        assert state is not None and state.hold == Piece.T and state.queue == (Piece.O,)
        assert (
            state.board == lock_piece(Board(), Placement(piece=Piece.I, rotation=Rotation.NORTH, x=4, y=0), -1, -1)[0]
        )
        assert bot.handle(play_message("T", "north", 4, 1)) == []  # hold T: swap it for O
        state = bot.state
        assert state is not None and state.hold == Piece.O and state.queue == ()

    @pytest.mark.parametrize(
        "message",
        [
            start_message(["T", "X"]),
            start_message(["T"], hold="G"),
            start_message(["T"], board=[[None] * 10] * 39),
            start_message(["T"], board=[[None] * 9 + [3]] + [[None] * 10] * 39),
            {**start_message(["T"]), "back_to_back": 1},
            {key: value for key, value in start_message(["T"]).items() if key != "board"},
            start_message("TIO"),  # type: ignore[arg-type]
            play_message("T", "north", 4, 0, spin="tspin"),
            play_message("T", "NORTH", 4, 0),
            {"type": "play", "move": [1, 2]},
            {"type": "play", "move": {"location": "T north 4 0"}},
            {"type": "new_piece", "piece": "t"},
            {"type": "new_piece"},
        ],
    )
    def test_malformed_messages_are_errors_that_change_nothing(self, message: dict[str, Any]) -> None:
        bot = TbpBot(FakeSearch())
        bot.handle({"type": "rules", "randomizer": "seven_bag"})
        bot.handle(start_message(["T", "I", "O"], randomizer={"type": "seven_bag", "bag_state": ["L", "J"]}))
        before = bot.state
        [reply] = bot.handle(message)
        assert reply["type"] == "error" and reply["reason"].startswith(f"bad {message['type']} message: ")
        assert bot.state is before

    @pytest.mark.parametrize(
        ("rules", "randomizer"),
        [
            ("uniform", {"type": "seven_bag", "bag_state": ["S"]}),
            ("seven_bag", {"type": "uniform"}),
            ("seven_bag", {"bag_state": ["S"]}),
            (None, {"type": "seven_bag", "bag_state": ["S"]}),
            ("seven_bag", ["S"]),
        ],
    )
    def test_a_randomizer_object_must_be_the_one_the_rules_named(self, rules: str | None, randomizer: Any) -> None:
        bot = TbpBot(FakeSearch())
        bot.handle({"type": "rules", "randomizer": rules} if rules else {"type": "rules"})
        [reply] = bot.handle(start_message(["T"], randomizer=randomizer))
        assert reply["type"] == "error" and "randomizer" in reply["reason"] and bot.state is None

    def test_a_randomizer_the_bot_does_not_model_is_still_matched_by_name(self) -> None:
        bot = TbpBot(FakeSearch())
        bot.handle({"type": "rules", "randomizer": "tgm_history"})
        assert bot.handle(start_message(["T"], randomizer={"type": "tgm_history", "history": "SZSZ"})) == []
        assert bot.state is not None and bot.state.randomizer == "unknown"

    @pytest.mark.parametrize("bag", [[], ["S", "S"], ["S", "Q"], "SZ", None])
    def test_a_bad_bag_state_is_an_error(self, bag: Any) -> None:
        bot = TbpBot(FakeSearch())
        bot.handle({"type": "rules", "randomizer": "seven_bag"})
        [reply] = bot.handle(start_message(["T"], randomizer={"type": "seven_bag", "bag_state": bag}))
        assert reply["type"] == "error" and "bag_state" in reply["reason"] and bot.state is None

    def test_a_piece_a_seven_bag_cannot_deal_is_queued_and_the_bag_model_dropped(self) -> None:
        bot = TbpBot(FakeSearch())
        bot.handle({"type": "rules", "randomizer": "seven_bag"})
        bot.handle(start_message(["T"], randomizer={"type": "seven_bag", "bag_state": ["L", "J"]}))
        assert bot.handle({"type": "new_piece", "piece": "O"}) == []
        assert bot.state is not None and bot.state.queue == (Piece.T, Piece.O) and bot.state.randomizer == "unknown"

    @pytest.mark.parametrize("line", ["not json", "[1, 2]", "42", '"start"', '{"type": '])
    def test_a_line_that_is_not_a_json_object_gets_an_error(self, line: str) -> None:
        bot = TbpBot(FakeSearch())
        [reply] = answer_line(bot, line)
        assert reply["type"] == "error" and reply["reason"].startswith("unreadable message")

    @pytest.mark.parametrize(
        "message",
        [{"type": "frobnicate"}, {"kind": "start"}, {"type": ["start"]}, {"type": "__init__"}, {"type": "handle"}],
    )
    def test_messages_of_unknown_type_are_ignored(self, message: dict[str, Any]) -> None:
        bot = TbpBot(FakeSearch())
        bot.handle(start_message(["T"]))
        before = bot.state
        assert bot.handle(message) == []
        assert bot.state is before


def test_the_bots_warm_up_loads_the_engine_kernels_and_not_the_pc_solver(monkeypatch) -> None:
    """A TBP bot asks no PC question: its warm-up skips the PC solver's kernels and tables, which the worker's
    warm-up loads."""
    import gc
    import importlib.util

    import ai.pc.api
    from ai.service import kernels_ready, warm_up
    from ai.tbp import load_engine_kernels

    loaded: list[str] = []
    monkeypatch.setattr(ai.pc.api, "warm_up", lambda rules=None: loaded.append("pc"))
    try:
        load_engine_kernels()
        assert loaded == []
        assert kernels_ready() or importlib.util.find_spec("numba") is None
        warm_up()  # the worker's
        assert loaded == ["pc"]
    finally:
        gc.unfreeze()  # the rest of the test run keeps the usual collector
