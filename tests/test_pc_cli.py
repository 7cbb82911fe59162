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
    assert '"solvable": true' in _run(["--field-file", str(field), "--queue", "ZZ", "--lines", "2", "--json"], capsys)[1]
    code, out, _ = _run(["--field-file", str(field), "--queue", "ZZ", "--lines", "2", "--drop", "harddrop",
                         "--json"], capsys)
    assert json.loads(out)["solvable"] is False
    srs = ROOT / "game" / "data" / "kicks" / "srs.toml"
    code, out, _ = _run(["--field-file", str(field), "--queue", "ZZ", "--lines", "2", "--kicks", str(srs),
                         "--drop", "180", "--json"], capsys)
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
    done = subprocess.run([sys.executable, "main.py", "pc", "--queue", "TX"], cwd=ROOT, capture_output=True,
                          text=True, check=False)
    assert done.returncode == 2 and done.stderr.startswith("error: ") and done.stderr.count("\n") == 1
