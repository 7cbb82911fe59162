"""End to end: the moves, bench and train commands through main.py."""

from __future__ import annotations

import json

import pytest

import main
from ai.eval import WeightSet
from game.board import Board

TSD_ROWS = ["XXXX______", "XXX___XXXX", "XXXX_XXXXX"]


def _fumen_of(rows: list[str]) -> str:
    fumen = pytest.importorskip("game.fumen")
    return fumen.encode([fumen.Page(fumen.Field.from_board(Board.from_rows(rows)))])


def test_moves_json_lists_the_tsd(capsys) -> None:
    assert main.main(["moves", "--field", _fumen_of(TSD_ROWS), "--piece", "T", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {"piece": "T", "orientation": "south", "x": 4, "y": 1, "spin": "full"}.items() <= next(
        r for r in rows if r["spin"] == "full" and r["orientation"] == "south"
    ).items()
    assert all(r["inputs"][-1] == "hard_drop" for r in rows)


def test_moves_empty_field_counts(capsys) -> None:
    assert main.main(["moves", "--piece", "O", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 9
    assert main.main(["moves", "--piece", "T", "--kicks", "srs+", "--180", "--drop", "harddrop"]) == 0
    assert capsys.readouterr().out.startswith("34 placements of T")


def test_moves_bad_input(capsys) -> None:
    assert main.main(["moves", "--piece", "Q"]) == 2
    assert capsys.readouterr().err.startswith("error:")
    assert main.main(["moves", "--piece", "T", "--field", "not-a-fumen"]) == 2


@pytest.mark.parametrize("rules", ["classic", "guideline"])
def test_bench_json(capsys, rules: str) -> None:
    assert (
        main.main(["bench", "--games", "2", "--rules", rules, "--max-pieces", "15", "--lookahead", "2", "--json"]) == 0
    )
    report = json.loads(capsys.readouterr().out)
    assert len(report["games"]) == 2 and report["mean"]["pieces"] == 15
    for game in report["games"]:
        assert game["pieces"] == 15 and not game["topped_out"]
        assert game["ms_p95"] >= game["ms_median"] > 0


def test_bench_table(capsys) -> None:
    assert (
        main.main(["bench", "--games", "1", "--rules", "classic", "--features", "el-tetris", "--max-pieces", "10"]) == 0
    )
    out = capsys.readouterr().out
    assert "el-tetris" in out and "mean" in out


def test_train_tiny_and_resume(tmp_path, capsys) -> None:
    out = tmp_path / "w.toml"
    args = [
        "train",
        "--method",
        "cem",
        "--games",
        "1",
        "--workers",
        "1",
        "--out",
        str(out),
        "--generations",
        "1",
        "--population",
        "3",
        "--max-pieces",
        "20",
        "--height",
        "8",
        "--quiet",
    ]
    assert main.main(args) == 0
    first = WeightSet.load(out)
    assert set(first.weights) == set(WeightSet.load("bcts").weights)
    checkpoint = tmp_path / "w.ckpt.json"
    state = json.loads(checkpoint.read_text())
    assert state["generation"] == 1 and len(state["history"]) == 1
    # Resume to two generations: one more generation runs, the history grows.
    resumed = ["--resume", str(checkpoint), "--generations", "2", "--epsilon", "0.1"]
    assert (
        main.main(
            args[: args.index("--generations")]
            + ["--population", "3", "--max-pieces", "20", "--height", "8", "--quiet"]
            + resumed
        )
        == 0
    )
    state = json.loads(checkpoint.read_text())
    assert state["generation"] == 2 and len(state["history"]) == 2
    assert WeightSet.load(out).weights != first.weights  # the mean moved to the second generation's elite


def test_train_guideline_tiny(tmp_path, capsys) -> None:
    """CEM over guideline games: tunes the modern-hand features by attack; fixed node budget, so deterministic."""
    out = tmp_path / "g.toml"
    args = [
        "train",
        "--rules",
        "guideline",
        "--games",
        "1",
        "--workers",
        "1",
        "--out",
        str(out),
        "--generations",
        "1",
        "--population",
        "2",
        "--max-pieces",
        "8",
        "--depth",
        "1",
        "--width",
        "1",
        "--nodes",
        "40",
        "--sigma-rel",
        "0.3",
        "--seed",
        "3",
        "--quiet",
    ]
    assert main.main(args) == 0
    assert "attack" in capsys.readouterr().out
    trained = WeightSet.load(out)
    assert set(trained.weights) == set(WeightSet.load("modern-hand").weights)
    state = json.loads((tmp_path / "g.ckpt.json").read_text())
    assert state["rules"] == "guideline" and state["generation"] == 1
    # Deterministic: the same command gives the same weights.
    again = tmp_path / "h.toml"
    assert main.main(args[: args.index("--out") + 1] + [str(again)] + args[args.index("--out") + 2 :]) == 0
    assert WeightSet.load(again).weights == trained.weights


def test_play_guideline_fitness_is_attack_minus_top_out_penalty() -> None:
    from ai.bench import play_game
    from ai.search import Budget
    from ai.train import play_guideline

    weights = WeightSet.load("modern-hand").weights
    fitness = play_guideline(weights, 5, 12, 1, 1, 40)
    stats = play_game(
        "guideline",
        "modern-hand",
        seed=5,
        max_pieces=12,
        lookahead=1,
        budget=Budget(time_ms=None, max_nodes=40, depth=1),
        width=1,
    )
    assert fitness == stats.attack - (12 if stats.topped_out else 0)


# --- regressions from the fuzzing pass ----------------------------------------------------------------------
def _refused(argv: list[str], capsys) -> str:
    code = main.main(argv)
    out = capsys.readouterr()
    assert code == 2 and out.out == "" and out.err.startswith("error: ") and out.err.count("\n") == 1, out.err
    return out.err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--games", "0"], "--games must be 1..100,000, got 0"),
        (["--rules", "classic", "--height", "-1"], "--height must be 4..40 rows, got -1"),
        (["--budget-ms", "inf"], "--budget-ms must be a number of milliseconds above 0"),
        (["--budget-ms", "nan"], "--budget-ms must be"),
        (["--budget-ms", "-1"], "--budget-ms must be"),
        (["--budget-ms", "0"], "--budget-ms must be"),
        (["--max-pieces", "0"], "--max-pieces must be"),
        (["--lookahead", "0"], "--lookahead must be 1..6 for guideline rules"),
        (["--rules", "classic", "--lookahead", "3"], "--lookahead must be 1..2 for classic rules"),
    ],
)
def test_bench_refuses_bad_options_before_playing(argv: list[str], message: str, capsys) -> None:
    assert message in _refused(["bench", *argv], capsys)


def _train_args(tmp_path, *extra: str) -> list[str]:
    return [
        "train",
        "--games",
        "1",
        "--workers",
        "1",
        "--out",
        str(tmp_path / "w.toml"),
        "--generations",
        "1",
        "--population",
        "3",
        "--max-pieces",
        "20",
        "--height",
        "8",
        "--quiet",
        *extra,
    ]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--elite", "100"], "--elite must be a fraction above 0 and at most 1"),
        (["--elite", "0"], "--elite must be"),
        (["--sigma", "nan"], "--sigma must be a finite number"),
        (["--sigma-rel", "inf"], "--sigma-rel must be"),
        (["--epsilon", "2"], "--epsilon must be a probability"),
        (["--epsilon", "-1"], "--epsilon must be"),
        (["--workers", "100000"], "--workers must be 1.."),
        (["--workers", "0"], "--workers must be 1.."),
        (["--noise", "-100"], "--noise must be a finite number, 0 or more"),
        (["--height", "-3"], "--height must be 4..40 rows, got -3"),
        (["--population", "1"], "--population must be 2.."),
        (["--depth", "0"], "--depth must be 1..6"),
        (["--base", "no-such-weights"], "--base: no weight set"),
    ],
)
def test_train_refuses_bad_options_before_the_first_generation(extra, message, capsys, tmp_path) -> None:
    assert message in _refused(_train_args(tmp_path, *extra), capsys)
    assert list(tmp_path.iterdir()) == []  # nothing was trained or written


def test_train_out_must_be_a_writable_file(capsys, tmp_path) -> None:
    args = _train_args(tmp_path)
    args[args.index("--out") + 1] = str(tmp_path)
    assert "is a directory" in _refused(args, capsys)
    args[args.index("--out") + 1] = str(tmp_path / "missing" / "w.toml")
    assert "does not exist" in _refused(args, capsys)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"features": ["holes"]}', "missing mean, sigma, generation, rng, best, history"),
        ("[1, 2]", "expected a JSON object"),
        ("[" * 100_000, "nested too deeply"),
        (
            '{"features": ["nope"], "mean": [1], "sigma": [1], "generation": 0, "rng": 1, "best": null, "history": []}',
            "unknown features",
        ),
        (
            '{"features": ["holes"], "mean": [NaN], "sigma": [1], "generation": 0, "rng": 1, "best": null, '
            '"history": []}',
            "mean must be a list of 1 finite numbers",
        ),
        (
            '{"features": ["holes"], "mean": [1], "sigma": [1], "generation": -1, "rng": 1, "best": null, '
            '"history": []}',
            "generation must be a whole number",
        ),
        (
            '{"features": ["holes"], "mean": [1], "sigma": [1], "generation": 0, "rng": 1, "best": 3, "history": []}',
            "best must be null",
        ),
    ],
)
def test_train_resume_checks_the_checkpoint(content: str, message: str, capsys, tmp_path) -> None:
    checkpoint = tmp_path / "bad.ckpt.json"
    checkpoint.write_text(content)
    assert message in _refused(_train_args(tmp_path, "--resume", str(checkpoint)), capsys)
    assert "file too large" in _refused(_train_args(tmp_path, "--resume", "/dev/zero"), capsys)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--piece", "T", "--page", "0"], "--page must be at least 1"),
        (["--piece", "T", "--field", "v115@vhAAgH", "--page", "3"], "page 3 does not exist (the code has 1)"),
        (["--piece", "T", "--kicks", "/dev/zero"], "file too large"),
        (["--piece", "T", "--kicks", "/dev/null"], "no kick table found"),
    ],
)
def test_moves_refuses_bad_input_in_one_line(argv: list[str], message: str, capsys) -> None:
    assert message in _refused(["moves", *argv], capsys)


def test_moves_names_the_kick_file_with_a_huge_number(capsys, tmp_path) -> None:
    path = tmp_path / "big.properties"
    path.write_text("T.NE=(0,0)(" + "9" * 5000 + ",0)\n")
    err = _refused(["moves", "--piece", "T", "--kicks", str(path)], capsys)
    assert str(path) in err and "more than 6 digits" in err and len(err) < 300


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[weights]\nholes = " + "9" * 400 + "\n", "finite number"),  # float() overflow
        ("[weights]\nholes = inf\n", "finite number"),  # the search crashed on it
        ("weights = 3\n", "finite number"),
        ("a = " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply"),
    ],
)
def test_weight_files_are_checked_before_use(content: str, message: str, capsys, tmp_path) -> None:
    path = tmp_path / "w.toml"
    path.write_text(content)
    for argv in (["bench", "--features", str(path), "--games", "1"], ["train", "--base", str(path)]):
        err = _status_2(argv, capsys)
        assert message in err and err.count("\n") == 1, err


def test_a_weights_path_must_be_a_small_regular_file(capsys, tmp_path) -> None:
    link = tmp_path / "zero.toml"
    link.symlink_to("/dev/zero")
    assert "not a regular file" in _status_2(["bench", "--features", str(link)], capsys)


def _status_2(argv: list[str], capsys) -> str:
    """Run a command that must fail with status 2 (returned, or from argparse's exit); its stderr."""
    try:
        status = main.main(argv)
    except SystemExit as leaving:
        status = leaving.code
    assert status == 2
    return capsys.readouterr().err
