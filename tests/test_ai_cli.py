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
    assert main.main(["bench", "--games", "2", "--rules", rules, "--max-pieces", "15", "--lookahead", "2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert len(report["games"]) == 2 and report["mean"]["pieces"] == 15
    for game in report["games"]:
        assert game["pieces"] == 15 and not game["topped_out"]
        assert game["ms_p95"] >= game["ms_median"] > 0


def test_bench_table(capsys) -> None:
    assert main.main(["bench", "--games", "1", "--rules", "classic", "--features", "el-tetris", "--max-pieces", "10"]) == 0
    out = capsys.readouterr().out
    assert "el-tetris" in out and "mean" in out


def test_train_tiny_and_resume(tmp_path, capsys) -> None:
    out = tmp_path / "w.toml"
    args = ["train", "--method", "cem", "--games", "1", "--workers", "1", "--out", str(out), "--generations", "1",
            "--population", "3", "--max-pieces", "20", "--height", "8", "--quiet"]
    assert main.main(args) == 0
    first = WeightSet.load(out)
    assert set(first.weights) == set(WeightSet.load("bcts").weights)
    checkpoint = tmp_path / "w.ckpt.json"
    state = json.loads(checkpoint.read_text())
    assert state["generation"] == 1 and len(state["history"]) == 1
    # Resume to two generations: one more generation runs, the history grows.
    resumed = ["--resume", str(checkpoint), "--generations", "2", "--epsilon", "0.1"]
    assert main.main(args[:args.index("--generations")] + ["--population", "3", "--max-pieces", "20", "--height", "8",
                                                          "--quiet"] + resumed) == 0
    state = json.loads(checkpoint.read_text())
    assert state["generation"] == 2 and len(state["history"]) == 2
    assert WeightSet.load(out).weights != first.weights  # the mean moved to the second generation's elite


def test_train_guideline_tiny(tmp_path, capsys) -> None:
    """CEM over guideline games: tunes the modern-hand features by attack; fixed node budget, so deterministic."""
    out = tmp_path / "g.toml"
    args = ["train", "--rules", "guideline", "--games", "1", "--workers", "1", "--out", str(out), "--generations", "1",
            "--population", "2", "--max-pieces", "8", "--depth", "1", "--width", "1", "--nodes", "40",
            "--sigma-rel", "0.3", "--seed", "3", "--quiet"]
    assert main.main(args) == 0
    assert "attack" in capsys.readouterr().out
    trained = WeightSet.load(out)
    assert set(trained.weights) == set(WeightSet.load("modern-hand").weights)
    state = json.loads((tmp_path / "g.ckpt.json").read_text())
    assert state["rules"] == "guideline" and state["generation"] == 1
    # Deterministic: the same command gives the same weights.
    again = tmp_path / "h.toml"
    assert main.main(args[:args.index("--out") + 1] + [str(again)] + args[args.index("--out") + 2:]) == 0
    assert WeightSet.load(again).weights == trained.weights


def test_play_guideline_fitness_is_attack_minus_top_out_penalty() -> None:
    from ai.bench import play_game
    from ai.search import Budget
    from ai.train import play_guideline

    weights = WeightSet.load("modern-hand").weights
    fitness = play_guideline(weights, 5, 12, 1, 1, 40)
    stats = play_game("guideline", "modern-hand", seed=5, max_pieces=12, lookahead=1,
                      budget=Budget(time_ms=None, max_nodes=40, depth=1), width=1)
    assert fitness == stats.attack - (12 if stats.topped_out else 0)
