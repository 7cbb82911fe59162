"""Stopping the scripts that make the PC tables (scripts/make_opening_table.py, make_seconds_table.py and
make_later_start_table.py): Ctrl+C pressed as a terminal does (SIGINT to the whole process group, the pool's workers
too), the same to a script that a shell started in the background with SIGINT ignored, or `kill PID` (SIGTERM to
the script alone). Each gives a one-line message, status 130, every process gone, and the table on disk holding
what was there and finished, so a second run goes on."""

from __future__ import annotations

import os
import signal
import sys
import time

import pytest

from ai.pc import later_start, opening, seconds
from tests.processes import alive, family_of, start_in_own_group

RULES = opening.RULES["srs-180"]


# how the script is stopped: (started with SIGINT ignored, the signal, to the whole process group)
WAYS = {
    "ctrl-c": (False, signal.SIGINT, True),
    "ctrl-c-started-in-background": (True, signal.SIGINT, True),
    "kill": (False, signal.SIGTERM, False),
}


def _interrupt(script: str, *argv: str, ready: str, way: str = "ctrl-c") -> tuple[int, str, list[str]]:
    """Run the script in its own process group until its output shows `ready` and its pool has started, stop it
    the `way` named (WAYS); (status, stderr, its processes still running after it ended)."""
    ignored, sent, to_group = WAYS[way]
    process = start_in_own_group([sys.executable, f"scripts/{script}", *argv, "--jobs", "2"], sigint_ignored=ignored)
    try:
        assert process.stdout is not None
        for line in process.stdout:  # (the scripts flush each line)
            if ready in line:
                break
        deadline = time.monotonic() + 30
        family = family_of(process.pid)
        while len(family) < 3 and time.monotonic() < deadline:  # the script and its two workers
            time.sleep(0.1)
            family = family_of(process.pid)
        assert len(family) >= 3 and process.poll() is None, family
        time.sleep(1.0)  # the workers inside a search
        if to_group:
            os.killpg(process.pid, sent)
        else:
            os.kill(process.pid, sent)
        _, err = process.communicate(timeout=60)
        time.sleep(0.5)
        return process.returncode, err, alive(family | family_of(process.pid))
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def _assert_stopped_cleanly(status: int, err: str, left: list[str]) -> None:
    """Status 130, no process left, one line on stderr and no traceback."""
    assert status == 130 and left == [], (err, left)
    assert "Traceback" not in err and err.strip().count("\n") == 0, err


@pytest.mark.parametrize("way", sorted(WAYS))
def test_stopping_the_second_position_generator_keeps_the_groups_it_had(tmp_path, way: str) -> None:
    shipped = seconds.load_table(seconds.SECONDS.path("srs-180"), RULES)
    kept = {
        (*group, order): answer
        for group in sorted(shipped.groups_held())[:3]
        for order, answer in shipped.answers(group).items()
    }
    out = tmp_path / "seconds.txt.gz"
    seconds.write_table(out, RULES, [seconds.format_line(*key, answer) for key, answer in kept.items()])
    status, err, left = _interrupt("make_seconds_table.py", "--out", str(out), ready="to search", way=way)
    _assert_stopped_cleanly(status, err, left)
    assert "stopped: 3 of 162 groups" in err, err
    assert dict(seconds.load_table(out, RULES)) == kept  # (none finishes in that second: 0.5-2 CPU min each)


@pytest.mark.parametrize("way", ["ctrl-c", "kill"])
def test_stopping_the_opening_table_generator_saves_what_it_had(tmp_path, way: str) -> None:
    shipped = opening.load_table(opening.table_path("srs-180"), RULES)
    orders = sorted(shipped)[:1000]  # the others left to search, as after a run that was killed
    out = tmp_path / "opening.txt"
    opening.write_table(out, RULES, [opening.format_entry(shipped[order]) for order in orders])
    status, err, left = _interrupt("make_opening_table.py", "--update", "--out", str(out), ready="0/5040", way=way)
    _assert_stopped_cleanly(status, err, left)
    assert "stopped:" in err and "--update goes on" in err, err
    saved = opening.load_table(out, RULES)
    assert set(saved) >= set(orders) and all(saved[order] == shipped[order] for order in orders)


@pytest.mark.parametrize("way", ["ctrl-c", "kill"])
def test_stopping_the_later_start_generator_saves_what_it_had(tmp_path, way: str) -> None:
    shipped = later_start.load_table(later_start.path("srs-180"), RULES)
    kept = dict(sorted(shipped.items())[:1000])  # the others left to search, as after a run that was killed
    out = tmp_path / "later-start.txt.gz"
    later_start.write_table(out, RULES, [later_start.format_line(key, entry) for key, entry in kept.items()])
    status, err, left = _interrupt("make_later_start_table.py", "--update", "--out", str(out), ready="0/29240", way=way)
    _assert_stopped_cleanly(status, err, left)
    assert "stopped:" in err and "--update goes on" in err, err
    saved = later_start.load_table(out, RULES)
    assert set(saved) >= set(kept) and all(saved[key] == kept[key] for key in kept)
    assert all(saved[key][0].count == shipped[key][0].count for key in saved)  # those finished meanwhile too
