"""ai.cluster without Ray: task order on the local backend, the --backend/--address/--workers checks, the message
without Ray installed, the progress bar, Ctrl+C on a local process pool, and batch review and `pc --percent` on a
pool giving the same output as in this process."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import main
from ai import cluster
from tests.processes import ROOT, alive, family_of, processes, start_in_own_group

TINY_CEM = [
    "--games",
    "2",
    "--generations",
    "2",
    "--population",
    "4",
    "--max-pieces",
    "25",
    "--height",
    "8",
    "--seed",
    "5",
    "--quiet",
]


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    try:
        status = main.main(argv)
    except SystemExit as leaving:
        status = leaving.code
    out = capsys.readouterr()
    return status, out.out, out.err


def _without_timing(state: dict) -> dict:
    return dict(state, history=[{k: v for k, v in h.items() if k != "seconds"} for h in state["history"]])


def test_local_pool_returns_values_in_task_order_whatever_finishes_first() -> None:
    tasks = [0.05 * (i % 3 == 0) for i in range(12)]  # every third task sleeps: batches finish out of order
    seen: list[int] = []
    backend = cluster.LocalBackend(2)
    try:
        results = backend.map(time.sleep, tasks, on_result=lambda index, value: seen.append(index), batch=1)
        words = backend.map(str.upper, ["a", "bc", "d"] * 5, batch=2)
    finally:
        backend.close()
    assert results == [None] * 12 and sorted(seen) == list(range(12))
    assert words == ["A", "BC", "D"] * 5


def test_local_cem_is_the_same_with_one_or_two_workers(tmp_path, capsys) -> None:
    states = []
    for workers in ("1", "2"):
        out = tmp_path / f"w{workers}.toml"
        assert _run(["train", *TINY_CEM, "--workers", workers, "--out", str(out)], capsys)[0] == 0
        states.append(json.loads(out.with_suffix(".ckpt.json").read_text()))
    assert states[0]["generation"] == 2
    assert _without_timing(states[0]) == _without_timing(states[1])


def test_bench_rows_are_the_same_in_this_process_and_on_a_pool(capsys) -> None:
    argv = [
        "bench",
        "--games",
        "3",
        "--rules",
        "guideline",
        "--max-pieces",
        "12",
        "--lookahead",
        "2",
        "--nodes",
        "60",
        "--json",
    ]
    reports = []
    for extra in ([], ["--workers", "2"]):
        status, out, _ = _run([*argv, *extra], capsys)
        assert status == 0
        reports.append(json.loads(out))
    timing = ("ms_median", "ms_p95", "pps")
    rows = [[{k: v for k, v in row.items() if k not in timing} for row in report["games"]] for report in reports]
    assert [row["seed"] for row in rows[0]] == [1, 2, 3]
    assert rows[0] == rows[1] and reports[1]["workers"] == 2


@pytest.mark.parametrize(
    "argv, message",
    [
        (["train", "--address", "auto"], "--address needs --backend ray"),
        (["bench", "--address", "auto"], "--address needs --backend ray"),
        (["train", "--workers", "0"], "--workers must be 1.."),
        (["bench", "--workers", "100000"], "--workers must be 1.."),
        (["train", "--backend", "ray", "--workers", "0"], "--workers must be 1..10,000 with --backend ray"),
        (["train", "--backend", "ray", "--address", "nowhere"], "--address must be auto, host:port or ray://host:port"),
        (["bench", "--backend", "ray", "--address", "host:99999"], "--address must be auto"),
        (["bench", "--backend", "ray", "--engine", "random"], "--engine random play in this process"),
        (["bench", "--rules", "classic", "--nodes", "100"], "--nodes is for guideline rules"),
        (["bench", "--nodes", "0"], "--nodes must be 1.."),
        (["train", "--backend", "cloud"], "invalid choice"),
        (["review", "1", "--address", "auto"], "--address needs --backend ray"),
        (["review", "1", "--workers", "0"], "--workers must be 1.."),
        (["pc", "--pattern", "*p7", "--backend", "ray", "--address", "x"], "--address must be auto"),
        (["pc", "--pattern", "*p7", "--workers", "100000"], "--workers must be 1.."),
        (["pc", "--queue", "TIJLSZO", "--workers", "2"], "--backend and --workers are for --percent"),
        (["pc", "--queue", "TIJLSZO", "--backend", "ray"], "--backend and --workers are for --percent"),
    ],
)
def test_bad_backend_options_get_one_error_line(argv, message, capsys, tmp_path) -> None:
    if argv[0] == "train":
        argv = [*argv, "--out", str(tmp_path / "w.toml")]
    status, out, err = _run(argv, capsys)
    assert status == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1 and message in err, err
    assert list(tmp_path.iterdir()) == []


def test_backend_ray_without_ray_says_how_to_install_it(monkeypatch, capsys, tmp_path) -> None:
    monkeypatch.setattr(cluster, "ray_available", lambda: False)
    for argv in (["train", "--out", str(tmp_path / "w.toml")], ["bench"], ["review", "1"], ["pc", "--pattern", "*p7"]):
        status, out, err = _run([*argv, "--backend", "ray"], capsys)
        assert status == 2 and out == "" and err.count("\n") == 1
        assert "needs Ray" in err and 'pip install -e ".[cluster]"' in err
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` fails as if it were not installed
    with pytest.raises(cluster.BackendError, match=r"\[cluster\]"):
        cluster.open_backend("ray", 2)


PCO_NO_I = "v115@9gE8EeF8DeG8CeF8NeAgWBAUAAAA"


def test_the_local_backend_never_imports_ray(tmp_path) -> None:
    code = (
        "import sys, main; status = main.main(['train', '--games', '1', '--generations', '1', '--population', '2',"
        f" '--max-pieces', '5', '--height', '6', '--quiet', '--out', {str(tmp_path / 'w.toml')!r}]);"
        f" status += main.main(['pc', '--field', {PCO_NO_I!r}, '--pattern', '[IOSJZ]p3,*', '--workers', '2']);"
        " print(status, 'ray' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], check=False, cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.stdout.split()[-2:] == ["0", "False"], result.stderr


def test_unreachable_address_is_one_error_line_at_once(capsys, tmp_path) -> None:
    pytest.importorskip("ray")
    import socket

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    started = time.perf_counter()
    status, out, err = _run(["bench", "--backend", "ray", "--address", f"127.0.0.1:{port}"], capsys)
    assert status == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"error: cannot reach a Ray cluster at 127.0.0.1:{port}")
    assert time.perf_counter() - started < cluster.PROBE_SECONDS + 5  # not Ray's minutes of retries


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("with_tqdm", [True, False])
def test_progress_bar_on_a_terminal_has_an_eta(with_tqdm: bool, monkeypatch) -> None:
    if with_tqdm:
        pytest.importorskip("tqdm")
    else:
        monkeypatch.setitem(sys.modules, "tqdm", None)
    screen = _Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    progress = cluster.Progress(8, "gen 1/2")
    for _ in range(8):
        progress.update()
    progress.write("gen 1/2: best 3.0")
    progress.close()
    text = screen.getvalue()
    assert "gen 1/2" in text and "8/8" in text and "gen 1/2: best 3.0\n" in text
    assert ("<00:00" in text) if with_tqdm else ("ETA 00:00" in text)


def test_progress_bar_stays_off_without_a_terminal(monkeypatch) -> None:
    piped = io.StringIO()
    monkeypatch.setattr(sys, "stderr", piped)
    progress = cluster.Progress(5, "games")
    progress.update(5)
    progress.write("a line")
    progress.close()
    assert piped.getvalue() == "a line\n"


def interrupt_training(
    argv: list[str], out: Path, *, after_generation: int = 1, then_seconds: float = 1.0, timeout: float = 180
):
    """Start `train ... --out OUT` in its own process group, press Ctrl+C (SIGINT to the group, as a terminal does)
    `then_seconds` after the checkpoint shows `after_generation` (0: after the start), and return (status, stderr,
    the processes the run had started, those of them still running after it ended)."""
    checkpoint = out.with_suffix(".ckpt.json")
    process = start_in_own_group([sys.executable, "main.py", "train", *argv, "--out", str(out)])
    family: set[int] = set()
    try:
        deadline = time.monotonic() + timeout
        while after_generation and time.monotonic() < deadline and process.poll() is None:
            try:
                if json.loads(checkpoint.read_text())["generation"] >= after_generation:
                    break
            except (OSError, ValueError, KeyError):
                pass
            time.sleep(0.2)
        pressed = time.monotonic() + then_seconds
        while time.monotonic() < pressed:
            family |= family_of(process.pid)
            time.sleep(0.1)
        assert process.poll() is None, "training ended before it could be interrupted"
        family |= family_of(process.pid)
        os.killpg(process.pid, signal.SIGINT)
        _, err = process.communicate(timeout=60)
        time.sleep(1.0)
        return process.returncode, err, family, alive(family | family_of(process.pid))
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


LONG_CEM = ["--games", "2", "--generations", "100", "--population", "6", "--max-pieces", "3000", "--seed", "2"]


def test_ctrl_c_on_a_local_pool_stops_every_process_and_leaves_the_weights(tmp_path) -> None:
    out = tmp_path / "w.toml"
    status, err, family, left = interrupt_training([*LONG_CEM, "--workers", "2"], out)
    assert status == 130 and left == [], (err, left)
    assert len(family) >= 3  # the run and its two pool workers were running when Ctrl+C came
    assert "Traceback" not in err and f"continue with --resume {out.with_suffix('.ckpt.json')}" in err
    state = json.loads(out.with_suffix(".ckpt.json").read_text())
    assert 1 <= state["generation"] < 100
    from ai.eval import WeightSet

    assert WeightSet.load(out).weights == dict(zip(state["features"], state["mean"]))  # the last finished generation


def test_an_interrupted_generation_resumes_without_playing_its_finished_games_again(
    tmp_path, capsys, monkeypatch
) -> None:
    import ai.train

    real = ai.train.play_task
    straight_games: list[tuple] = []
    monkeypatch.setattr(ai.train, "play_task", lambda task: straight_games.append(task) or real(task))
    straight = tmp_path / "straight.toml"
    assert _run(["train", *TINY_CEM, "--workers", "1", "--out", str(straight)], capsys)[0] == 0
    assert len(straight_games) == 16
    out = tmp_path / "w.toml"
    checkpoint = out.with_suffix(".ckpt.json")
    played: list[tuple] = []
    on_disk: list[dict] = []

    def stopped_in_generation_two(task: tuple) -> float:
        if len(played) == 11:  # generation 1 is 4 samples x 2 games; 3 games of generation 2 are done
            on_disk.append(json.loads(checkpoint.read_text()))  # saved while the generation runs
            raise KeyboardInterrupt
        played.append(task)
        return real(task)

    monkeypatch.setattr(ai.train, "PARTIAL_EVERY_S", 0.0)
    monkeypatch.setattr(ai.train, "play_task", stopped_in_generation_two)
    status, _, err = _run(["train", *TINY_CEM, "--workers", "1", "--out", str(out)], capsys)
    assert status == 130 and f"continue with --resume {checkpoint}" in err
    state = json.loads(checkpoint.read_text())
    assert state["generation"] == 1 and [game for game, _ in state["partial"]["fitness"]] == [0, 1, 2]
    assert on_disk[0]["partial"] == state["partial"]  # saved as the games finished, before Ctrl+C

    again: list[tuple] = []
    monkeypatch.setattr(ai.train, "play_task", lambda task: again.append(task) or real(task))
    resumed = tmp_path / "resumed.toml"
    assert (
        _run(["train", *TINY_CEM, "--workers", "1", "--resume", str(checkpoint), "--out", str(resumed)], capsys)[0] == 0
    )
    assert played == straight_games[:11] and again == straight_games[11:]  # only the games not yet played
    finished = json.loads(resumed.with_suffix(".ckpt.json").read_text())
    assert "partial" not in finished
    assert _without_timing(finished) == _without_timing(json.loads(straight.with_suffix(".ckpt.json").read_text()))
    assert resumed.read_text().split("\n", 1)[1] == straight.read_text().split("\n", 1)[1]


@pytest.mark.parametrize(
    "partial",
    [
        "x",
        {"generation": 0, "key": [], "fitness": [[0, "nan"]]},
        {"generation": 0, "key": [], "fitness": [[0.5, 1.0]]},
        {"fitness": []},
    ],
)
def test_resume_refuses_a_damaged_partial_generation(partial, tmp_path, capsys) -> None:
    state = {
        "features": ["holes"],
        "mean": [-1.0],
        "sigma": [1.0],
        "generation": 0,
        "rng": 1,
        "best": None,
        "history": [],
        "partial": partial,
    }
    checkpoint = tmp_path / "c.json"
    checkpoint.write_text(json.dumps(state))
    status, out, err = _run(["train", "--resume", str(checkpoint), "--out", str(tmp_path / "w.toml")], capsys)
    assert status == 2 and out == "" and err.count("\n") == 1 and "partial must be" in err


def test_a_pool_process_that_dies_ends_the_run_with_one_error_line_not_a_hang(tmp_path) -> None:
    out = tmp_path / "w.toml"
    checkpoint = out.with_suffix(".ckpt.json")
    process = start_in_own_group([sys.executable, "main.py", "train", *LONG_CEM, "--workers", "2", "--out", str(out)])
    try:
        deadline = time.monotonic() + 180
        while not checkpoint.exists() and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.2)
        workers = [
            pid
            for pid, ppid, _, stat, command in processes()
            if ppid == process.pid and "spawn_main" in command and not stat.startswith("Z")
        ]
        assert len(workers) == 2 and process.poll() is None
        os.kill(workers[0], signal.SIGKILL)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == 1 and "Traceback" not in err, err
    assert err.strip().splitlines()[-1] == (
        f"error: a worker process died (killed, or out of memory?); --resume {checkpoint} continues"
    )
    assert json.loads(checkpoint.read_text())["generation"] >= 1


def test_in_order_hands_values_on_in_task_order_as_soon_as_the_earlier_ones_are_done() -> None:
    seen: list[tuple[int, str]] = []
    in_order = cluster.InOrder(lambda index, value: seen.append((index, value)))
    in_order(2, "c")
    in_order(1, "b")
    assert seen == [] and in_order.emitted == 0  # task 0 is not done: nothing can be printed yet
    in_order(0, "a")
    assert seen == [(0, "a"), (1, "b"), (2, "c")]
    in_order(3, "d")
    assert seen[-1] == (3, "d") and in_order.emitted == 4


def save_replays(folder: Path) -> Path:
    """Three short games (greedy and random players) saved as replays in `folder`, for the batch review."""
    from ai.recorded import play_recorded

    for number, (player, seed) in enumerate([("greedy", 7), ("random", 31), ("greedy", 8)], 1):
        play_recorded(player, seed, max_pieces=10).replay.save(folder / f"game-{number * 5}.json")
    return folder


@pytest.fixture(scope="module")
def replay_folder(tmp_path_factory) -> Path:
    return save_replays(tmp_path_factory.mktemp("replays"))


def test_batch_review_on_a_pool_prints_what_this_process_prints(replay_folder: Path, capsys) -> None:
    outputs = {}
    for name, extra in (("here", []), ("pool", ["--workers", "2"])):
        for style in ([], ["--json"]):
            status, out, err = _run(["review", str(replay_folder), "--depth", "3", "--no-pc", *style, *extra], capsys)
            assert status == 0, err
            outputs[name, bool(style)] = out
    assert outputs["here", False] == outputs["pool", False]
    assert outputs["here", True] == outputs["pool", True]
    lines = outputs["pool", True].splitlines()
    assert [Path(json.loads(line)["replay"]).name for line in lines] == ["game-5.json", "game-10.json", "game-15.json"]
    status, single, _ = _run(
        ["review", str(replay_folder / "game-10.json"), "--depth", "3", "--no-pc", "--json"], capsys
    )
    assert status == 0 and json.loads(lines[1])["review"] == json.loads(single)  # a batch row is the replay's review
    table = outputs["pool", False].splitlines()
    assert len(table) == 5 and table[0].split()[:3] == ["replay", "placements", "accuracy"]
    assert table[-1].startswith("all 3 replays") and table[-1].split()[3] == "30"


def test_a_batch_review_is_checked_before_any_work(replay_folder: Path, tmp_path, capsys) -> None:
    (tmp_path / "broken.json").write_text("{")
    status, out, err = _run(["review", str(replay_folder), str(tmp_path / "broken.json")], capsys)
    assert status == 2 and out == "" and err.count("\n") == 1 and "broken.json" in err
    empty = tmp_path / "empty"
    empty.mkdir()
    status, out, err = _run(["review", str(empty)], capsys)
    assert status == 2 and out == "" and err.strip() == f"error: {empty} has no replays (*.json)"
    status, out, err = _run(["review", str(replay_folder), "--png", str(tmp_path / "g.png")], capsys)
    assert status == 2 and out == "" and "--png draws the graph of one replay" in err


def test_ctrl_c_in_a_batch_review_keeps_the_rows_already_printed(replay_folder: Path, monkeypatch, capsys) -> None:
    import ai.review_cli

    real = ai.review_cli.review_task
    reviewed: list[int] = []

    def stopped_at_the_third(task: tuple) -> dict:
        if len(reviewed) == 2:
            raise KeyboardInterrupt
        reviewed.append(1)
        return real(task)

    monkeypatch.setattr(ai.review_cli, "review_task", stopped_at_the_third)
    status, out, err = _run(["review", str(replay_folder), "--depth", "2", "--no-pc", "--json"], capsys)
    assert status == 130 and len(out.splitlines()) == 2
    assert err.strip() == "interrupted: the workers are stopped; 2 of 3 replays reported"


def test_pc_percent_on_a_pool_counts_what_this_process_counts(monkeypatch, capsys) -> None:
    import ai.pc.cli

    # 420 queues in 9 chunks of at most 50: two waves of 4 chunks per worker, the second one short
    monkeypatch.setattr(ai.pc.cli, "PERCENT_CHUNK", 50)
    monkeypatch.setattr(ai.pc.cli, "PERCENT_MIN_CHUNK", 20)
    argv = ["pc", "--field", PCO_NO_I, "--pattern", "[IOSJZ]p3,*"]
    results = {}
    for name, extra in (("here", []), ("pool", ["--workers", "2"])):
        status, out, err = _run([*argv, "--json", *extra], capsys)
        assert status == 0, err
        results[name] = {k: v for k, v in json.loads(out).items() if k != "elapsed_ms"}
        status, out, _ = _run([*argv, *extra], capsys)
        assert status == 0
        results[name, "text"] = out.split(" in ", 1)[0] + out.split(" ms", 1)[1]  # without the time taken
    assert results["here"] == results["pool"] and 0 < results["pool"]["success"] < results["pool"]["total"] == 420
    assert results["here", "text"] == results["pool", "text"]


def test_ctrl_c_in_pc_percent_is_one_line_and_status_130(monkeypatch, capsys) -> None:
    import ai.pc.cli

    def interrupted(task: tuple):
        raise KeyboardInterrupt

    monkeypatch.setattr(ai.pc.cli, "percent_task", interrupted)
    status, out, err = _run(["pc", "--field", PCO_NO_I, "--pattern", "[IOSJZ]p3,*"], capsys)
    assert status == 130 and out == "" and err == "interrupted: the workers are stopped; no result\n"
