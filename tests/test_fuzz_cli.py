"""Fuzz harness: pc, moves, bench and train arguments. Every run exits 0, or 2 with exactly one ``error:`` line
on stderr and nothing on stdout; no traceback, whatever the values. Work is kept small (short queues, few
pieces, a low --max-queues), so the whole harness takes seconds."""

from __future__ import annotations

import math
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import main

SCALE = int(os.environ.get("STACKCOACH_FUZZ_SCALE", "1"))  # e.g. 20 for a deeper run
FUZZ = settings(max_examples=40 * SCALE, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
PCO_NO_I = "v115@9gE8EeF8DeG8CeF8NeAgWBAUAAAA"
numbers = st.one_of(
    st.integers(-3, 12), st.sampled_from(["0", "-5", "10001", "100000000000", "x", "", "1e3", "³", "７"])
)
floats = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True, width=32),
    st.sampled_from(["inf", "-inf", "nan", "1e400", "abc", "5"]),
)


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    try:
        status = main.main([str(a) for a in argv])
    except SystemExit as leaving:  # argparse's own errors
        status = leaving.code
    out = capsys.readouterr()
    return status, out.out, out.err


def _clean(status: int, out: str, err: str) -> None:
    assert status in (0, 2), (status, err)
    if status == 2:
        assert out == "" and err.startswith("error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err


def _options(draw: st.DrawFn, choices: dict[str, st.SearchStrategy]) -> list[str]:
    argv: list[str] = []
    for name in draw(st.lists(st.sampled_from(sorted(choices)), unique=True, max_size=len(choices))):
        value = draw(choices[name])
        argv += [name] if value is None else [name, str(value)]
    return argv


PC_OPTIONS = {
    "--field": st.sampled_from([PCO_NO_I, "v115@vhAAgH", "v115@", "junk", "v115@" + "A" * 30]),
    "--hold": st.sampled_from(["use", "avoid", "maybe"]),
    "--held": st.sampled_from(["I", "T", "Q", "", "TT"]),
    "--kicks": st.sampled_from(["srs", "srs+", "none", "nrs", "ars", "/dev/null", "/dev/zero", "/nonexistent"]),
    "--drop": st.sampled_from(["softdrop", "harddrop", "180", "sonic"]),
    "--lines": st.one_of(st.integers(-1, 7).map(str), st.just("x")),
    "--all": st.none(),
    "--limit": numbers,
    "--json": st.none(),
    "--max-queues": st.sampled_from(["1", "50", "0", "-1", "2000001", "x"]),
}


@FUZZ
@given(st.data())
def test_pc(capsys, data) -> None:
    argv = data.draw(st.composite(lambda draw: _options(draw, PC_OPTIONS))())
    if data.draw(st.booleans()):
        argv += ["--queue", data.draw(st.text(alphabet="IJLOSTZXijl ³", max_size=6))]
    else:
        argv += ["--pattern", data.draw(st.text(alphabet="IJLOSTZ*[]^!p0123456789,;³", min_size=0, max_size=10))]
        argv += ["--max-queues", "60"]  # keeps any search small (a later --max-queues wins)
    _clean(*_run(["pc", *argv], capsys))


MOVES_OPTIONS = {
    "--field": st.one_of(st.sampled_from(["v115@vhAAgH", PCO_NO_I, ""]), st.text(max_size=12)),
    "--page": numbers,
    "--piece": st.sampled_from(["T", "I", "o", "Q", "", "TT"]),
    "--kicks": st.sampled_from(["srs", "SRS+", "none", "nrs", "/dev/null", "/dev/zero", "/"]),
    "--180": st.none(),
    "--drop": st.sampled_from(["softdrop", "harddrop", "180"]),
    "--json": st.none(),
}


@FUZZ
@given(st.composite(lambda draw: _options(draw, MOVES_OPTIONS))())
def test_moves(capsys, argv: list[str]) -> None:
    _clean(*_run(["moves", *argv], capsys))


BENCH_OPTIONS = {
    "--games": st.sampled_from(["-1", "0", "1", "x"]),
    "--rules": st.sampled_from(["classic", "guideline", "nes"]),
    "--max-pieces": st.sampled_from(["-1", "0", "1", "4"]),
    "--lookahead": st.sampled_from(["-1", "0", "1", "2", "3", "7"]),
    "--height": st.sampled_from(["-3", "0", "3", "4", "41", "12"]),
    "--budget-ms": floats,
    "--seed": st.integers(-(2**70), 2**70),
    "--features": st.sampled_from(["modern", "nope", "/dev/null"]),
    "--engine": st.sampled_from(["beam", "mcts", "x"]),
    "--json": st.none(),
}


@FUZZ
@given(st.composite(lambda draw: _options(draw, BENCH_OPTIONS))())
def test_bench(capsys, argv: list[str]) -> None:
    argv += ["--max-pieces", "3", "--games", "1"] if "--max-pieces" not in argv else []
    _clean(*_run(["bench", *argv], capsys))


TRAIN_OPTIONS = {
    "--elite": floats,
    "--sigma": floats,
    "--sigma-rel": floats,
    "--noise": floats,
    "--epsilon": floats,
    "--workers": numbers,
    "--population": numbers,
    "--games": numbers,
    "--generations": numbers,
    "--height": numbers,
    "--depth": numbers,
    "--width": numbers,
    "--nodes": numbers,
    "--max-pieces": numbers,
    "--rules": st.sampled_from(["classic", "guideline", "x"]),
    "--base": st.sampled_from(["bcts", "modern-hand", "nope"]),
    "--resume": st.sampled_from(["/dev/zero", "/dev/null", "/nonexistent", "/"]),
}


@FUZZ
@given(st.composite(lambda draw: _options(draw, TRAIN_OPTIONS))())
def test_train(capsys, monkeypatch, tmp_path_factory, argv: list[str]) -> None:
    """Training itself is replaced by a recorder: accepted arguments must be in the documented ranges."""
    import ai.train

    accepted = []
    monkeypatch.setattr(
        ai.train,
        "train",
        lambda args: accepted.append(args) or {"generation": 0, "best": {"score": 0.0}, "rules": "classic"},
    )
    out = tmp_path_factory.mktemp("train") / "w.toml"
    status, stdout, err = _run(["train", "--out", str(out), *argv], capsys)
    _clean(status, stdout, err)
    if status == 0:
        (args,) = accepted
        assert 0 < args.elite <= 1 and 0 <= args.epsilon <= 1
        assert all(math.isfinite(v) and v >= 0 for v in (args.sigma, args.sigma_rel, args.noise))
        assert 1 <= args.workers <= ai.train.MAX_WORKERS and args.population >= 2
        assert 4 <= args.height <= 40 and args.games >= 1 and args.generations >= 1
        assert args.resume is None  # none of the fuzzed checkpoints is one
    else:
        assert accepted == []


@pytest.mark.parametrize(
    "argv",
    [
        ["pc"],
        ["moves"],
        ["bench", "--games"],
        ["train", "--elite"],
        ["fumen"],
        ["nonsense"],
        ["pc", "--queue", "T", "--unknown"],
    ],
)
def test_argparse_errors_are_one_line(argv: list[str], capsys) -> None:
    status, out, err = _run(argv, capsys)
    assert status == 2
    _clean(status, out, err)
