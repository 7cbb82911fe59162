"""The Ray backend on this machine: a local Ray instance started by the run (num_cpus=2) and a head node started
with `ray start --head` (as the README's cluster section does), checked against the local backend: the same seeds
give the same CEM weights, the same bench rows, the same batch review and the same `pc --percent` counts; a resume
crosses backends; Ctrl+C leaves no process behind.
Every command runs in a subprocess (Ray changes its process's environment)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.processes import ROOT, family_of
from tests.test_cluster import (
    LONG_CEM,
    PCO_NO_I,
    TINY_CEM,
    _without_timing,
    interrupt_training,
    save_replays,
)

pytest.importorskip("ray")

TIMING = ("ms_median", "ms_p95", "pps")


def stackcoach(*argv: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "main.py", *argv], check=False, cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )


def _free_ports(count: int) -> list[int]:
    probes = [socket.socket() for _ in range(count)]
    try:
        for probe in probes:
            probe.bind(("127.0.0.1", 0))
        return [probe.getsockname()[1] for probe in probes]
    finally:
        for probe in probes:
            probe.close()


@pytest.fixture(scope="module")
def head() -> str:
    """A one-node Ray cluster with 2 CPUs (`ray start --head --block` in its own process group); its address."""
    port, dashboard, agent = _free_ports(3)  # fixed defaults would clash with a test run beside this one
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0")
    process = subprocess.Popen(
        [
            str(Path(sys.executable).with_name("ray")),
            "start",
            "--head",
            "--block",
            f"--port={port}",
            "--num-cpus=2",
            "--include-dashboard=false",
            f"--dashboard-port={dashboard}",
            f"--dashboard-agent-listen-port={agent}",
            "--disable-usage-stats",
            "--node-ip-address=127.0.0.1",
        ],
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert process.poll() is None and time.monotonic() < deadline, "ray start --head did not come up"
                time.sleep(0.2)
        yield f"127.0.0.1:{port}"
    finally:
        family = family_of(process.pid)  # the raylet's workers are in sessions of their own
        for pid in family:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        for pid in family:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        process.wait()


def _cem(tmp_path: Path, name: str, *extra: str) -> dict:
    out = tmp_path / f"{name}.toml"
    result = stackcoach("train", *TINY_CEM, "--out", str(out), *extra)
    assert result.returncode == 0, result.stderr
    return json.loads(out.with_suffix(".ckpt.json").read_text()) | {"toml": out.read_text().split("\n", 1)[1]}


def test_cem_on_a_local_ray_instance_equals_the_local_backend(tmp_path) -> None:
    local = _cem(tmp_path, "local", "--workers", "1")
    on_ray = _cem(tmp_path, "ray", "--backend", "ray", "--workers", "2")  # starts Ray with num_cpus=2
    assert local["generation"] == 2 and len(local["history"]) == 2
    assert _without_timing(on_ray) == _without_timing(local)  # mean, sigma, best sample, scores, weights file


def test_resume_crosses_backends(tmp_path, head: str) -> None:
    straight = _cem(tmp_path, "straight", "--workers", "2")
    first = tmp_path / "half.toml"
    half = stackcoach("train", *TINY_CEM, "--generations", "1", "--out", str(first), "--workers", "1")
    assert half.returncode == 0, half.stderr
    resumed = _cem(
        tmp_path, "resumed", "--resume", str(first.with_suffix(".ckpt.json")), "--backend", "ray", "--address", head
    )
    assert _without_timing(resumed) | {"toml": ""} == _without_timing(straight) | {"toml": ""}
    assert resumed["toml"] == straight["toml"]


@pytest.mark.parametrize("rules, extra", [("classic", ["--height", "10"]), ("guideline", ["--nodes", "80"])])
def test_bench_rows_are_the_same_on_a_ray_cluster(head: str, rules: str, extra: list[str]) -> None:
    argv = ["bench", "--games", "4", "--rules", rules, "--max-pieces", "20", "--seed", "11", "--json", *extra]
    local = stackcoach(*argv)
    on_ray = stackcoach(*argv, "--backend", "ray", "--address", head)
    assert local.returncode == 0 and on_ray.returncode == 0, on_ray.stderr
    reports = [json.loads(result.stdout) for result in (local, on_ray)]
    rows = [[{k: v for k, v in row.items() if k not in TIMING} for row in report["games"]] for report in reports]
    assert [row["seed"] for row in rows[1]] == [11, 12, 13, 14] and rows[0] == rows[1]
    assert reports[1]["backend"] == "ray" and reports[1]["workers"] == 2  # one actor per CPU of the cluster


def test_batch_review_on_a_ray_cluster_prints_what_this_process_prints(head: str, tmp_path) -> None:
    """The JSON lines (the text rows are made from the same reviews; the pool test compares them too)."""
    argv = ["review", str(save_replays(tmp_path)), "--depth", "3", "--no-pc", "--json"]
    local = stackcoach(*argv)
    on_ray = stackcoach(*argv, "--backend", "ray", "--address", head)
    assert local.returncode == 0 and on_ray.returncode == 0, on_ray.stderr
    assert on_ray.stdout == local.stdout and len(local.stdout.splitlines()) == 3


def test_pc_percent_on_a_ray_cluster_counts_what_this_process_counts(head: str) -> None:
    argv = ["pc", "--field", PCO_NO_I, "--pattern", "*p4,*p3", "--max-queues", "5880", "--json"]
    local = stackcoach(*argv)
    on_ray = stackcoach(*argv, "--backend", "ray", "--address", head)  # 5,880 queues: 2 actors, chunks of 2,940
    assert local.returncode == 0 and on_ray.returncode == 0, on_ray.stderr
    counts = [{k: v for k, v in json.loads(result.stdout).items() if k != "elapsed_ms"} for result in (local, on_ray)]
    assert counts[0] == counts[1] and counts[1]["total"] == 176_400 and 0 < counts[1]["success"] < 176_400


def test_more_workers_than_cluster_cpus_is_refused(head: str) -> None:
    result = stackcoach("bench", "--games", "1", "--backend", "ray", "--address", head, "--workers", "3")
    assert result.returncode == 2 and result.stdout == ""
    assert (
        result.stderr.strip().splitlines()[-1]
        == "error: --workers 3 is more than the 2 free CPUs of the Ray cluster (2 in all; one actor per CPU)"
    )


def test_ctrl_c_on_ray_stops_the_actors_and_the_instance_and_leaves_the_weights(tmp_path) -> None:
    out = tmp_path / "w.toml"
    status, err, family, left = interrupt_training([*LONG_CEM, "--backend", "ray", "--workers", "2"], out)
    assert status == 130 and left == [], (err, left)  # no actor, raylet or GCS left running
    assert len(family) >= 4  # the run, Ray's own processes and the two actors were running when Ctrl+C came
    assert "Traceback" not in err and "continue with --resume" in err
    state = json.loads(out.with_suffix(".ckpt.json").read_text())
    assert 1 <= state["generation"] < 100 and out.exists()


LOSE_AN_ACTOR = """
import json, os, signal, sys, threading
from ai import cluster
from ai.train import play_task

tasks = [({"holes": -30.0 - i, "bumpiness": -5.0}, 7 + i, 400, 12, 0.0, None) for i in range(16)]
expected = [play_task(task) for task in tasks]
backend = cluster.RayBackend(2)
try:
    victim = backend.actor_pids[0]
    done = []
    def on_result(index, value):
        done.append(index)
        if len(done) == 2:  # the actor dies with work queued and in hand
            os.kill(victim, signal.SIGKILL)
    results = backend.map(play_task, tasks, on_result=on_result, batch=1)
    try:
        backend.map(int, ["12", "twelve"])  # an error in a task is not retried: it is the run's error
        failure = None
    except cluster.WorkerFailed as error:
        failure = str(error)
finally:
    backend.close()
print(json.dumps({"same": results == expected, "games": len(results), "killed_after": 2 if len(done) >= 2 else None,
                  "failure": failure}))
"""


def test_a_lost_actor_is_restarted_and_its_games_played_again_but_a_task_error_stops_the_run() -> None:
    result = subprocess.run(
        [sys.executable, "-c", LOSE_AN_ACTOR], check=False, cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report == {
        "same": True,
        "games": 16,
        "killed_after": 2,
        "failure": "a Ray worker failed: ValueError: invalid literal for int() with base 10: 'twelve'",
    }


@pytest.mark.parametrize("seconds", [1.5, 4.0])
def test_ctrl_c_while_ray_starts_leaves_nothing_running(tmp_path, seconds: float) -> None:
    """Ray's own processes do not take the terminal's Ctrl+C: the run stops them in order, even mid-start.
    By 4 s a generation may have finished on a fast machine, so the checkpoint is checked against the weights
    written, not against a generation count."""
    out = tmp_path / "w.toml"
    status, err, family, left = interrupt_training(
        [*LONG_CEM, "--backend", "ray", "--workers", "2"], out, after_generation=0, then_seconds=seconds
    )
    assert status == 130 and left == [], (err, left)
    assert len(family) >= 2 and "Traceback" not in err
    state = json.loads(out.with_suffix(".ckpt.json").read_text())
    assert 0 <= state["generation"] < 100
    from ai.eval import WeightSet

    assert WeightSet.load(out).weights == dict(zip(state["features"], state["mean"]))  # the last finished generation
