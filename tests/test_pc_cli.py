"""`main.py pc`: JSON shapes, human output, and one-line errors with exit status 2 for bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import main

ROOT = Path(__file__).resolve().parents[1]
PCO_NO_I = "v115@9gE8EeF8DeG8CeF8NeAgWBAUAAAA"


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    code = main.main(["pc", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_json_solution(capsys) -> None:
    code, out, _ = _run(["--field", PCO_NO_I, "--queue", "IOISJ", "--json"], capsys)
    assert code == 0
    data = json.loads(out)
    assert data["solvable"] is True and isinstance(data["elapsed_ms"], float)
    placement = data["solutions"][0]["placements"][0]
    assert set(placement) == {"piece", "orientation", "x", "y", "hold"}
    assert placement["orientation"] in ("north", "east", "south", "west")
    fumen = data["solutions"][0]["fumen"]
    assert fumen is None or fumen.startswith("v115@")


def test_json_all_and_unsolvable(capsys) -> None:
    code, out, _ = _run(["--field", PCO_NO_I, "--queue", "IOISJ", "--all", "--json"], capsys)
    assert code == 0 and len(json.loads(out)["solutions"]) > 1
    code, out, _ = _run(["--field", PCO_NO_I, "--queue", "ILOJS", "--json"], capsys)
    assert code == 0 and json.loads(out) == {**json.loads(out), "solvable": False, "solutions": []}


def test_json_percent(capsys) -> None:
    code, out, _ = _run(["--field", PCO_NO_I, "--pattern", "I,[SZO]p2,T", "--json"], capsys)
    data = json.loads(out)
    assert code == 0 and data["total"] == 6 and data["success"] + len(data["failed"]) == 6
    assert data["rate"] == pytest.approx(data["success"] / 6)
    assert all(len(q) == 4 for q in data["failed"])


def test_human_output_shows_board_and_link(capsys, tmp_path) -> None:
    field_file = tmp_path / "field.txt"
    field_file.write_text("XXXXXX____\nXXXXXX____\n")
    code, out, _ = _run(["--field-file", str(field_file), "--queue", "OO", "--lines", "2", "--hold", "avoid"], capsys)
    assert code == 0
    assert "XXXXXXOOOO" in out
    assert "fumen.zui.jp/?v115@" in out or "fumen encoder not available" in out


def test_drop_modes_and_kick_file(capsys, tmp_path) -> None:
    field = tmp_path / "f.txt"
    field.write_text("XXX____XXX\nXXXX____XX\n")
    assert (
        '"solvable": true' in _run(["--field-file", str(field), "--queue", "ZZ", "--lines", "2", "--json"], capsys)[1]
    )
    code, out, _ = _run(
        ["--field-file", str(field), "--queue", "ZZ", "--lines", "2", "--drop", "harddrop", "--json"], capsys
    )
    assert json.loads(out)["solvable"] is False
    srs = ROOT / "game" / "data" / "kicks" / "srs.toml"
    code, out, _ = _run(
        ["--field-file", str(field), "--queue", "ZZ", "--lines", "2", "--kicks", str(srs), "--drop", "180", "--json"],
        capsys,
    )
    assert code == 0 and json.loads(out)["solvable"] is True


BAD_INPUTS = [
    ["--queue", "TIQ"],
    ["--queue", ""],
    ["--pattern", "[SZ"],
    ["--pattern", "*p8"],
    ["--pattern", "[^IJLOSTZ]"],
    ["--field", "v115@notafumen", "--queue", "T"],
    ["--field", "hello", "--queue", "T"],
    ["--queue", "T", "--kicks", "/no/such/kicks.toml"],
    ["--queue", "T", "--lines", "0"],
    ["--queue", "T", "--lines", "7"],
    ["--queue", "T", "--held", "Q"],
    ["--queue", "T", "--held", "I", "--hold", "avoid"],
    ["--field", PCO_NO_I, "--queue", "IOISJ", "--lines", "2"],  # blocks above the clear line
]


@pytest.mark.parametrize("argv", BAD_INPUTS)
def test_bad_input_is_one_line_and_exit_2(argv: list[str], capsys) -> None:
    code, out, err = _run(argv, capsys)
    assert code == 2
    assert err.startswith("error: ") and err.count("\n") == 1
    assert out == ""


def test_bad_files(capsys, tmp_path) -> None:
    bad_kicks = tmp_path / "k.toml"
    bad_kicks.write_text("this is = = not toml")
    code, _, err = _run(["--queue", "T", "--kicks", str(bad_kicks)], capsys)
    assert code == 2 and err.count("\n") == 1
    bad_field = tmp_path / "f.txt"
    bad_field.write_text("XXXX\n")
    code, _, err = _run(["--field-file", str(bad_field), "--queue", "T"], capsys)
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1
    code, _, err = _run(["--field-file", str(tmp_path / "missing.txt"), "--queue", "T"], capsys)
    assert code == 2 and err.count("\n") == 1


def test_subprocess_exit_status() -> None:
    done = subprocess.run(
        [sys.executable, "main.py", "pc", "--queue", "TX"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 2 and done.stderr.startswith("error: ") and done.stderr.count("\n") == 1


# --- regressions from the fuzzing pass ----------------------------------------------------------------------
def _one_error_line(code: int, out: str, err: str) -> str:
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1, err
    return err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--queue", "TIJ", "--all", "--limit", "0"], "--limit must be 1..10,000, got 0"),
        (["--queue", "TIJ", "--all", "--limit", "-5"], "--limit must be 1..10,000, got -5"),
        (["--queue", "TIJ", "--all", "--limit", "100000000000"], "--limit must be 1..10,000"),
        (["--pattern", "*p³"], "digits 0-9"),
        (["--pattern", "*p７"], "digits 0-9"),
        (["--pattern", "*p٣"], "digits 0-9"),
        (["--pattern", "*p7,*p3"], "needs 1,058,400 distinct queues searched"),
        (["--pattern", "*p7,*p7,*p7"], "at most 2,000,000 are supported"),
        (["--pattern", "*p7", "--max-queues", "0"], "--max-queues must be"),
    ],
)
def test_bad_options_are_refused_up_front(argv: list[str], message: str, capsys) -> None:
    import time

    started = time.perf_counter()
    err = _one_error_line(*_run(argv, capsys))
    assert message in err
    assert time.perf_counter() - started < 5  # refused before any search


@pytest.mark.parametrize(
    "argv",
    [
        ["--queue", "T", "--lines", "x"],
        ["--queue"],
        ["--queue", "T", "--drop", "x"],
        ["--queue", "T", "--pattern", "T"],
    ],
)
def test_argument_errors_are_one_line(argv: list[str], capsys) -> None:
    with pytest.raises(SystemExit) as leaving:
        main.main(["pc", *argv])
    out = capsys.readouterr()
    assert leaving.value.code == 2 and out.out == ""
    assert out.err.startswith("error: stackcoach pc: ") and out.err.count("\n") == 1, out.err


@pytest.mark.parametrize("pattern", ["[TTTTTTTTTTTT]p12", "[IIIIIIIIIIIIIIIIIIII]p10"])
def test_repeated_letter_bags_finish_at_once(pattern: str, capsys) -> None:
    code, out, _ = _run(["--pattern", pattern, "--json"], capsys)
    assert code == 0 and json.loads(out)["total"] == 1


def test_percent_counts_only_the_queues_that_matter(capsys) -> None:
    """`*p4,*p3` on a field that needs 4 pieces: 176,400 queues but only the 5,880 distinct 5-piece prefixes (the
    pieces needed plus one for hold) are searched, and the counts equal one api.percent call over the pattern."""
    from ai.pc.api import percent
    from game.fumen import decode

    code, out, _ = _run(["--field", PCO_NO_I, "--pattern", "*p4,*p3", "--json", "--max-queues", "5880"], capsys)
    assert code == 0
    data = json.loads(out)
    direct = percent(decode(PCO_NO_I)[0].field.to_board().bits, "*p4,*p3")
    assert (data["success"], data["total"]) == (direct.success, direct.total) == (direct.success, 176_400)
    assert data["failed"] == ["".join(p.name for p in seq) for seq in direct.failed]
    code, out, err = _run(["--field", PCO_NO_I, "--pattern", "*p4,*p3", "--max-queues", "5879"], capsys)
    assert "needs 5,880 distinct queues" in _one_error_line(code, out, err)


def test_percent_in_chunks_equals_one_call(capsys, monkeypatch) -> None:
    import ai.pc.cli as cli

    monkeypatch.setattr(cli, "PERCENT_CHUNK", 7)  # many small solver calls
    code, out, _ = _run(["--field", PCO_NO_I, "--pattern", "[IOSJZ]p3,*", "--json"], capsys)
    assert code == 0
    chunked = json.loads(out)
    monkeypatch.setattr(cli, "PERCENT_CHUNK", 100_000)
    code, out, _ = _run(["--field", PCO_NO_I, "--pattern", "[IOSJZ]p3,*", "--json"], capsys)
    whole = json.loads(out)
    assert {k: chunked[k] for k in ("success", "total", "failed")} == {
        k: whole[k] for k in ("success", "total", "failed")
    }
    assert 0 < chunked["success"] < chunked["total"] == 60 * 7


def test_progress_goes_to_a_terminal_only(capsys, monkeypatch) -> None:
    import ai.pc.cli as cli

    monkeypatch.setattr(cli, "PERCENT_CHUNK", 10)
    code, _, err = _run(["--field", PCO_NO_I, "--pattern", "[IOSJZ]p3,*", "--json"], capsys)
    assert code == 0 and err == ""  # captured stderr is not a terminal
    monkeypatch.setattr(cli.sys.stderr, "isatty", lambda: True, raising=False)
    code, _, err = _run(["--field", PCO_NO_I, "--pattern", "[IOSJZ]p3,*", "--json"], capsys)
    assert code == 0 and "percent: 10/420 queues (2%)" in err and "420/420" in err


def test_device_and_huge_field_files(capsys, tmp_path) -> None:
    err = _one_error_line(*_run(["--field-file", "/dev/zero", "--queue", "T"], capsys))
    assert "file too large" in err
    err = _one_error_line(*_run(["--field-file", str(tmp_path), "--queue", "T"], capsys))
    assert "cannot read field file" in err
    err = _one_error_line(*_run(["--kicks", "/dev/zero", "--queue", "T"], capsys))
    assert "file too large" in err
    err = _one_error_line(*_run(["--kicks", "/dev/null", "--queue", "T"], capsys))
    assert "no kick table found" in err


def test_field_file_uses_only_the_first_page(capsys, tmp_path) -> None:
    """A code whose page 2 is broken (decode() of it fails): only page 1 is decoded, so it is accepted."""
    path = tmp_path / "f.txt"
    path.write_text(PCO_NO_I + "AAAA" * 100, encoding="utf-8")  # page 2: "field overflow"
    code, out, _ = _run(["--field-file", str(path), "--queue", "IOISJ", "--json"], capsys)
    assert code == 0 and json.loads(out)["solvable"] is True


@pytest.mark.parametrize(
    "argv", [["pc", "--pattern", "*p5", "--lines", "2"], ["pc", "--queue", "IOISJ", "--all", "--field", PCO_NO_I]]
)
def test_closed_pipe_and_full_disk_end_cleanly(argv: list[str], tmp_path) -> None:
    pipe = subprocess.run(
        f"{sys.executable} main.py {' '.join(repr(a) for a in argv)} | head -c 1",
        shell=True,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert "Traceback" not in pipe.stderr and "Error" not in pipe.stderr
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "main.py", *argv], cwd=ROOT, stdout=full, stderr=subprocess.PIPE, text=True, check=False
        )
    assert done.returncode == 1
    assert done.stderr == "error: cannot write the output: No space left on device\n"


def test_text_output_keeps_only_the_failures_it_shows(capsys) -> None:
    code, out, _ = _run(["--field", PCO_NO_I, "--pattern", "*p4,*p3", "--max-queues", "6000"], capsys)
    assert code == 0
    import re

    success, total = map(int, re.search(r"\((\d+)/(\d+)\)", out.splitlines()[0]).groups())
    assert total == 176_400 and 50 < total - success < total
    fail_line = out.splitlines()[1]
    assert fail_line.startswith(f"fail ({total - success}): ") and fail_line.endswith(" ...")
    assert len(fail_line.split(": ", 1)[1].split()) == 50 + 1  # 50 queues and the "..."
