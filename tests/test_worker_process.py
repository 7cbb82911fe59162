"""One real worker process: it answers, it is restarted after a kill, and it is gone after close."""

from __future__ import annotations

import time

from ai.protocol import PcAnswer, Snapshot, Suggestion
from game.board import Board
from game.movegen import find_moves
from game.pieces import Piece
from game.rules import Rules
from tests.processes import pid_alive
from ui.worker_client import WorkerClient


def snapshot() -> Snapshot:
    board = Board.from_rows(["XXXXXXXXX_"] * 4)
    return Snapshot(
        board, Piece.I, (Piece.T, Piece.O, Piece.S, Piece.Z), None, False, -1, -1, Rules(), "7bag", (Piece.J, Piece.L)
    )


def final_answer(client: WorkerClient, kind: type, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for answer in client.poll():
            if isinstance(answer, kind) and answer.final:
                return answer
        time.sleep(0.01)
    raise AssertionError(f"no final {kind.__name__} within {timeout} s (status: {client.status})")


def test_real_worker_answers_restarts_and_leaves_nothing_behind() -> None:
    client = WorkerClient(deadline_s=20.0)
    try:
        client.suggest(snapshot(), budget_ms=20)
        answer = final_answer(client, Suggestion)
        move = answer.move
        assert move is not None and move.placement.piece is Piece.I and not move.hold
        legal = {m.placement for m in find_moves(snapshot().board, Piece.I, Rules())}
        assert move.placement in legal
        assert move.placement.x == 9  # the obvious quad: the I stood up in the well
        assert client.status.state == "ok"  # READY came before the answer
        first_pid = client.pid
        assert first_pid is not None and pid_alive(first_pid)

        client.kill_worker_for_test()
        client.solve_pc(snapshot(), budget_ms=200, want_chance=False)
        pc = final_answer(client, PcAnswer)
        assert pc.solvable and client.status.restarts >= 1
        second_pid = client.pid
        assert second_pid is not None and second_pid != first_pid and not pid_alive(first_pid)
    finally:
        client.close()
    assert second_pid is not None and not pid_alive(second_pid)
