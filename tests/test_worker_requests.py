"""Requests the worker must refuse, and requests the client cannot send: each is one failure, nothing more."""

from __future__ import annotations

import threading
import time
from dataclasses import replace

import pytest

from ai.protocol import PcRequest, Snapshot, Suggestion, SuggestRequest, WorkerFailure
from ai.service import RequestError, check_request, handle
from game.board import Board
from game.pieces import Piece
from game.rules import Rules
from ui.worker_client import WorkerClient, spawn_thread_worker


def snapshot(state=()) -> Snapshot:
    return Snapshot(Board(), Piece.T, (Piece.I, Piece.O), None, False, -1, -1, Rules(), "7bag", state)


def wait_for(client: WorkerClient, count: int = 1, timeout: float = 3.0) -> list:
    answers: list = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and len(answers) < count:
        answers.extend(client.poll())
        time.sleep(0.005)
    return answers


def final_handler(request, should_stop, send) -> None:
    send(Suggestion(request.generation, None, final=True, depth=1))


@pytest.mark.parametrize(
    ("request_", "message"),
    [
        (SuggestRequest(1, snapshot(), drop="sonicdrop"), "unknown drop 'sonicdrop'"),
        (SuggestRequest(1, snapshot(), budget_ms=float("inf")), "budget_ms"),
        (SuggestRequest(1, snapshot(), budget_ms=float("nan")), "budget_ms"),
        (SuggestRequest(1, snapshot(), budget_ms=-1.0), "budget_ms"),
        (SuggestRequest(1, snapshot(), budget_ms=True), "budget_ms"),
        (SuggestRequest(1, snapshot(), engine="alphazero"), "unknown engine"),
        (SuggestRequest(1, snapshot(), weights=""), "weights"),
        (SuggestRequest(1, "not a snapshot"), "snapshot must be a Snapshot"),
        (SuggestRequest("1", snapshot()), "generation"),
        (PcRequest(1, snapshot(), drop="180"), "unknown drop '180'"),
        (PcRequest(1, snapshot(), lines=7), "lines must be 1..6"),
        (PcRequest(1, snapshot(), budget_ms=float("inf")), "budget_ms"),
        (PcRequest(1, snapshot(), want_chance="yes"), "want_chance"),
    ],
)
def test_bad_requests_are_refused_by_name(request_, message) -> None:
    with pytest.raises(RequestError, match=message):
        check_request(request_)
    sent = []
    with pytest.raises(RequestError):  # refused before any engine runs: nothing is answered
        handle(request_, lambda: False, sent.append)
    assert sent == []


def test_good_requests_pass_the_check() -> None:
    check_request(SuggestRequest(1, snapshot(), drop="harddrop", budget_ms=5, engine="mcts"))
    check_request(PcRequest(2, snapshot(), lines=6, drop="softdrop", budget_ms=150.0, want_chance=False))


def test_an_unknown_drop_comes_back_as_a_worker_failure() -> None:
    """Through the real service handler: the worker answers with a failure naming the drop, and lives on."""
    with WorkerClient(lambda: spawn_thread_worker(handle)) as client:
        generation = client.suggest(snapshot(), drop="sonicdrop")
        answers = wait_for(client, 1)
        assert [type(a) for a in answers] == [WorkerFailure]
        assert answers[0].generation == generation and "unknown drop 'sonicdrop'" in answers[0].message


class _Unpicklable:
    def __init__(self) -> None:
        self.lock = threading.Lock()  # locks cannot be pickled


def test_an_unpicklable_snapshot_is_one_failure_and_the_client_keeps_working() -> None:
    spawned = []

    def spawn():
        spawned.append(spawn_thread_worker(final_handler))
        return spawned[-1]

    with WorkerClient(spawn) as client:
        bad = client.suggest(snapshot(_Unpicklable()))  # must not raise in the caller
        answers = wait_for(client, 1)
        assert len(answers) == 1 and isinstance(answers[0], WorkerFailure)
        assert answers[0].generation == bad and "cannot be sent to the worker" in answers[0].message
        # A restart re-sends the latest requests: the bad one is not among them, so poll() stays healthy.
        client.kill_worker_for_test()
        good = client.suggest(snapshot())
        answers = wait_for(client, 1, timeout=4.0)
        assert answers and answers[-1].generation == good and isinstance(answers[-1], Suggestion)
        assert len(spawned) == 2
        assert client.poll() == []


def test_a_stale_local_failure_is_dropped() -> None:
    with WorkerClient(lambda: spawn_thread_worker(final_handler)) as client:
        client.suggest(snapshot(_Unpicklable()))
        good = client.suggest(snapshot())  # asked again before polling: the failure belongs to an old position
        answers = wait_for(client, 1)
        assert [a.generation for a in answers] == [good] and isinstance(answers[0], Suggestion)


@pytest.mark.parametrize(
    ("aim", "message"),
    [
        (("not a request", (Piece.T, 0, 4, 0)), "needs the PC request"),
        ((PcRequest(1, snapshot(), lines=9), (Piece.T, 0, 4, 0)), "lines must be 1..6"),
        ((PcRequest(1, snapshot()), (Piece.I, 0, 4, 0)), "places the piece in play"),
        ((PcRequest(1, snapshot()), (Piece.T, 0, 12, 0)), "off the board"),
        ((PcRequest(1, replace(snapshot(), board=Board.from_rows(["XXXXXXXXX_"]))), (Piece.T, 0, 4, 0)), "overlaps"),
    ],
)
def test_an_aim_the_window_could_not_have_sent_is_refused_by_name(aim, message, monkeypatch) -> None:
    """A PcAim (where the piece in play would land) names the position's PC request and a placement of its piece
    in play on free cells; anything else is one RequestError, and nothing is planned or answered."""
    import ai.pc_service
    from ai.pc_ahead import ThinkingAhead
    from ai.protocol import PcAim, Placement
    from game.placement import Rotation

    monkeypatch.setattr(ai.pc_service, "AHEAD", ThinkingAhead())
    request, (piece, rotation, x, y) = aim
    before = ai.pc_service.AHEAD.aims
    sent = []
    with pytest.raises(RequestError, match=message):
        handle(PcAim(1, request, Placement(piece, Rotation(rotation), x, y)), lambda: False, sent.append)
    assert sent == [] and ai.pc_service.AHEAD.aims == before
    handle(PcAim(1, PcRequest(1, snapshot()), Placement(Piece.T, Rotation.NORTH, 4, 0)), lambda: False, sent.append)
    assert sent == [] and ai.pc_service.AHEAD.aims == before + 1
