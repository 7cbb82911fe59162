"""The game review: honest labels on seeded games, determinism, missed T-spins and PCs, the review command."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path

import pytest

from ai.recorded import play_recorded, recorded_config
from ai.review import CLASSES, THRESHOLDS, classify, review_replay, turns_of
from ai.search import Budget
from game.board import Board
from game.engine import Game
from game.executor import play_keys
from game.finesse import Key
from game.pieces import Piece
from game.replay import Replay

# The engine at its default settings (width 6, depth 6), its search cut by nodes instead of the 14 ms clock so the
# games are the same on every machine: 900 nodes is about 80% of a full search from an empty field (1139), i.e. a
# slightly loaded machine (bench/review.py plays with the real clock).
LIVE_LIKE = Budget(time_ms=None, max_nodes=900)


@pytest.fixture(scope="module")
def engine_reviews():
    return [
        review_replay(play_recorded("beam", seed, max_pieces=50, budget=LIVE_LIKE).replay, check_pc=False)
        for seed in (21, 22)
    ]


@pytest.fixture(scope="module")
def random_reviews():
    return [
        review_replay(play_recorded("random", seed, max_pieces=60).replay, check_pc=False) for seed in (31, 32, 33, 34)
    ]


class TestHonestLabels:
    def test_the_engines_own_games_are_at_least_95_percent_best_or_good(self, engine_reviews):
        counts = {name: sum(r.counts()[name] for r in engine_reviews) for name in CLASSES}
        rated = sum(counts.values())
        assert rated == sum(r.total for r in engine_reviews) == 100
        assert (counts["best"] + counts["good"]) / rated >= 0.95, counts
        assert all(r.accuracy > 90 for r in engine_reviews)

    def test_random_placements_are_mostly_mistakes_or_blunders(self, random_reviews):
        counts = {name: sum(r.counts()[name] for r in random_reviews) for name in CLASSES}
        rated = sum(counts.values())
        assert rated >= 60
        assert (counts["mistake"] + counts["blunder"]) / rated > 0.5, counts
        assert max(r.accuracy for r in random_reviews) < 75

    def test_a_loss_is_classed_by_the_documented_bounds(self):
        bounds = [THRESHOLDS[name] for name in ("best", "good", "inaccuracy", "mistake")]
        assert bounds == sorted(bounds)
        assert [classify(b) for b in bounds] == ["best", "good", "inaccuracy", "mistake"]
        assert classify(bounds[-1] * 1.01) == "blunder" and classify(0.0) == "best"


class TestDeterminism:
    def test_the_same_replay_gets_the_same_review(self):
        replay = play_recorded("greedy", 41, max_pieces=30).replay
        first = review_replay(replay).to_dict()
        other = review_replay(play_recorded("random", 42, max_pieces=20).replay)  # warms caches on another game
        assert other.placements
        again = review_replay(Replay.from_json(replay.to_json())).to_dict()
        assert first == again
        assert any(p["class"] != "best" for p in first["placements"])  # a review with something to say


def _turns(replay: Replay):
    return turns_of(replay)


class TestTurns:
    def test_each_placement_carries_what_the_player_saw_and_pressed(self):
        replay = play_recorded("beam", 5, max_pieces=12, budget=LIVE_LIKE).replay
        turns = _turns(replay)
        game = replay.play()
        assert len(turns) == game.stats.pieces == 12
        assert all(len(t.queue) == 5 for t in turns)
        assert all(t.presses and t.presses[-1] == "⤓" for t in turns)  # each piece ends with its hard drop
        assert turns[-1].board_after.bits == game.board.bits
        for before, after in pairwise(turns):
            assert after.board.bits == before.board_after.bits


def _position_game(rows: list[str], queue: str) -> Game:
    return Game(recorded_config(), 3, board=Board.from_rows(rows), queue=[Piece[c] for c in queue])


class TestMissed:
    def test_a_t_that_skips_an_open_t_spin_double_misses_it(self):
        # A T-spin double slot at columns 0-2 (the overhang at row 2), and the T dropped flat on the right.
        rows = ["XX________", "X___XXXXXX", "XX_XXXXXXX"]
        game = _position_game(rows, "TIOLJSZ")
        play_keys(game, (Key.DAS_RIGHT, Key.HARD_DROP))
        review = review_replay(Replay.from_game(game))
        first = review.placements[0]
        assert first.piece == "T" and "tspin" in first.missed
        assert first.tspin is not None and first.tspin["lines"] == 2 and first.tspin["piece"] == "T"
        assert first.cls in ("inaccuracy", "mistake", "blunder")

    def test_taking_the_t_spin_is_not_a_miss(self):
        rows = ["XX________", "X___XXXXXX", "XX_XXXXXXX"]
        game = _position_game(rows, "TIOLJSZ")
        from game.movegen import find_moves
        from game.movement import Spin

        tsd = next(m for m in find_moves(game.board, Piece.T, game.rules) if m.placement.spin is Spin.FULL)
        play_keys(game, tsd.keys)
        assert game.stats.tspins == 1
        review = review_replay(Replay.from_game(game))
        assert "tspin" not in review.placements[0].missed

    def test_a_placement_that_kills_the_perfect_clear_misses_it(self):
        rows = ["____XXXXXX", "____XXXXXX"]  # two I pieces lying flat clear both rows: a perfect clear
        game = _position_game(rows, "IIOTSZL")
        play_keys(game, (Key.CW, Key.DAS_LEFT, Key.HARD_DROP))  # the first I stood up: no PC with what is known
        review = review_replay(Replay.from_game(game))
        first = review.placements[0]
        assert "pc" in first.missed and [step["piece"] for step in first.pc] == ["I", "I"]

    def test_the_start_of_the_perfect_clear_is_not_a_miss(self):
        rows = ["____XXXXXX", "____XXXXXX"]
        game = _position_game(rows, "IIOTSZL")
        play_keys(game, (Key.DAS_LEFT, Key.HARD_DROP))
        play_keys(game, (Key.DAS_LEFT, Key.HARD_DROP))
        assert game.stats.perfect_clears == 1
        review = review_replay(Replay.from_game(game))
        assert [p.missed for p in review.placements] == [(), ()]


# --- the command -----------------------------------------------------------------------------------------------
def _cli(argv: list[str], capsys) -> tuple[int, str, str]:
    from main import main

    status = main(["review", *argv])
    out, err = capsys.readouterr()
    return status, out, err


class TestCommand:
    def test_json_has_per_placement_and_game_fields(self, tmp_path, capsys):
        path = tmp_path / "g.json"
        play_recorded("greedy", 7, max_pieces=20).replay.save(path)
        status, out, err = _cli([str(path), "--json", "--png", str(tmp_path / "g.png")], capsys)
        assert status == 0, err
        data = json.loads(out)
        assert len(data["placements"]) == 20 and 0 <= data["accuracy"] <= 100
        assert sum(data["counts"].values()) == 20 and set(data["counts"]) == set(CLASSES)
        for p in data["placements"]:
            assert set(p["played"]) == set(p["best"]) == {"piece", "orientation", "x", "y", "hold"}
            assert p["class"] in CLASSES and p["loss"] >= 0 and set(p["missed"]) <= {"tspin", "pc"}
            assert p["class"] == classify(p["loss"])
        assert (tmp_path / "g.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    def test_a_run_number_reads_its_replay_from_the_data_folder(self, tmp_path, capsys, monkeypatch):
        monkeypatch.setenv("STACKCOACH_DATA_DIR", str(tmp_path))
        (tmp_path / "replays").mkdir()
        play_recorded("greedy", 8, max_pieces=8).replay.save(tmp_path / "replays" / "12.json")
        status, out, _ = _cli(["12", "--json", "--no-pc"], capsys)
        assert status == 0 and len(json.loads(out)["placements"]) == 8
        status, out, err = _cli(["13"], capsys)
        assert status == 2 and out == "" and err.startswith("error: run 13 has no replay") and err.count("\n") == 1

    @pytest.mark.parametrize("content", [b"", b"{", b'{"format": 1}', b"\xff\xfe", b'{"format": 99}'])
    def test_a_broken_replay_is_one_error_line_and_status_2(self, tmp_path, capsys, content):
        path = tmp_path / "broken.json"
        path.write_bytes(content)
        status, out, err = _cli([str(path), "--json"], capsys)
        assert status == 2 and out == "" and err.startswith("error: ") and err.count("\n") == 1

    def test_bench_saves_replays_the_review_reads(self, tmp_path, capsys):
        from main import main

        assert (
            main(
                [
                    "bench",
                    "--engine",
                    "random",
                    "--games",
                    "2",
                    "--max-pieces",
                    "15",
                    "--seed",
                    "3",
                    "--replay-dir",
                    str(tmp_path),
                    "--json",
                ]
            )
            == 0
        )
        bench = json.loads(capsys.readouterr().out)
        files = sorted(Path(tmp_path).glob("game-*.json"))
        assert [f.name for f in files] == ["game-3.json", "game-4.json"]
        status, out, _ = _cli([str(files[0]), "--json", "--no-pc"], capsys)
        assert status == 0 and len(json.loads(out)["placements"]) == bench["games"][0]["pieces"]


class TestWorkerRequest:
    """The worker's side (ai.service.handle): progress at once, then batches, then the whole review."""

    def _answers(self, request):
        import ai.service

        out = []
        ai.service.handle(request, lambda: False, out.append)
        return out

    def test_the_review_streams_and_ends_with_the_same_review_as_the_command(self):
        from ai.protocol import ReviewRequest

        replay = play_recorded("greedy", 51, max_pieces=12).replay
        answers = self._answers(ReviewRequest(7, replay.to_json()))
        assert answers[0].done == 0 and answers[0].total == 12 and not answers[0].final  # before any search
        done = [a.done for a in answers]
        assert done == sorted(done) and answers[-1].final and answers[-1].generation == 7
        streamed = [p for a in answers[:-1] for p in a.placements]
        expected = review_replay(replay).to_dict()
        assert [p["index"] for p in streamed] == list(range(12))
        assert json.loads(answers[-1].review) == expected and answers[-1].accuracy == expected["accuracy"]

    def test_a_cached_review_of_the_same_engine_is_the_answer_and_another_engines_is_redone(self):
        from ai.protocol import ReviewRequest

        replay = play_recorded("greedy", 52, max_pieces=6).replay
        review = review_replay(replay).to_dict()
        answers = self._answers(ReviewRequest(1, replay.to_json(), cached=json.dumps(review)))
        assert len(answers) == 1 and answers[0].final and json.loads(answers[0].review) == review
        stale = dict(review, engine="review-0/an older engine")
        answers = self._answers(ReviewRequest(2, replay.to_json(), cached=json.dumps(stale)))
        assert len(answers) > 1 and json.loads(answers[-1].review) == review

    def test_a_broken_replay_is_refused_with_a_message(self):
        import ai.service
        from ai.protocol import ReviewRequest

        with pytest.raises(ai.service.RequestError, match="cannot be reviewed"):
            self._answers(ReviewRequest(3, '{"format": 1}'))
