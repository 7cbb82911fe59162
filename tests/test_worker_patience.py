"""A worker that said it is still working (a partial answer) gets the streaming patience, not the short answer
deadline: a long PC chance search must not get the worker killed and restarted over and over."""

from __future__ import annotations

from ai.protocol import PcAnswer, Pong
from tests.test_worker_protocol import snapshot
from ui.worker_client import STREAMING_PATIENCE_S, WorkerClient, WorkerHandle


class _Scripted:
    """A connection that delivers queued messages, records what was sent, and never closes."""

    def __init__(self) -> None:
        self.inbox: list = []
        self.sent: list = []

    def send(self, message) -> None:
        self.sent.append(message)

    def poll(self, timeout=0.0) -> bool:
        return bool(self.inbox)

    def recv(self):
        return self.inbox.pop(0)


def _client(now):
    connection = _Scripted()
    spawned = []

    def spawn() -> WorkerHandle:
        spawned.append(1)
        return WorkerHandle(connection, alive=lambda: True, stop=lambda: None, kill=lambda: None)

    client = WorkerClient(spawn, deadline_s=1.0, startup_s=1.0, clock=lambda: now[0])
    return client, connection, spawned


def test_a_partial_answer_buys_the_streaming_patience():
    now = [0.0]
    client, connection, spawned = _client(now)
    try:
        connection.inbox.append(Pong(0))  # READY
        generation = client.solve_pc(snapshot())
        connection.inbox.append(PcAnswer(generation, solvable=False, final=False))
        client.poll()
        now[0] = STREAMING_PATIENCE_S - 1  # long past the 1 s deadline, still searching
        client.poll()
        assert client.status.restarts == 0 and len(spawned) == 1
        now[0] = STREAMING_PATIENCE_S + 2
        client.poll()
        assert client.status.restarts == 1  # silent for longer than that: the worker is restarted
    finally:
        client.close()


def test_without_a_partial_answer_the_short_deadline_holds():
    now = [0.0]
    client, connection, _ = _client(now)
    try:
        connection.inbox.append(Pong(0))
        client.solve_pc(snapshot())
        client.poll()
        now[0] = 2.0
        client.poll()
        assert client.status.restarts == 1 and "1.0 s" in client.status.last_problem
    finally:
        client.close()


def test_a_newer_request_waits_for_the_streaming_job_without_a_restart():
    """The worker checks for newer requests as a long search goes: a hint asked while it finishes
    one must not get it killed for silence, as long as the streaming job is within its patience."""
    now = [0.0]
    client, connection, spawned = _client(now)
    try:
        connection.inbox.append(Pong(0))
        generation = client.solve_pc(snapshot())
        connection.inbox.append(PcAnswer(generation, solvable=False, final=False))
        client.poll()
        now[0] = 5.0
        client.suggest(snapshot())  # the player moved on
        now[0] = 20.0
        client.poll()
        assert client.status.restarts == 0 and len(spawned) == 1
        now[0] = STREAMING_PATIENCE_S + 1  # the long job went silent past its patience
        client.poll()
        assert client.status.restarts == 1
    finally:
        client.close()
