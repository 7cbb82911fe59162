"""Every run is kept as a replay beside the history, and old replay files stay readable."""

from __future__ import annotations

import json
import os
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pytest

from game.replay import REPLAY_FORMAT, Replay, ReplayError
from ui.testing import tap

STORED = Path(__file__).parent / "data" / "replays" / "format1_beam_seed3.json"


class TestStoredReplay:
    """A replay written by format 1 (24 placements of the engine, seed 3) must keep loading and playing the same."""

    def test_the_file_carries_its_format_version(self):
        data = json.loads(STORED.read_text())
        assert data["format"] == 1 <= REPLAY_FORMAT

    def test_it_still_plays_to_the_same_game(self):
        game = Replay.load(STORED).play()
        assert (game.stats.pieces, game.stats.lines, game.ticks, game.b2b) == (24, 4, 286, 0)
        assert game.board.to_rows(colours=False) == [
            "____XX____",
            "__XXX_____",
            "_XXXXX_XXX",
            "_XXXXX_XXX",
            "XXXXXX__XX",
            "XXXXXX_XXX",
            "XXXXXX_XXX",
            "XXXXXX_XXX",
        ]

    def test_a_future_format_is_refused_with_one_line(self, tmp_path):
        data = json.loads(STORED.read_text())
        data["format"] = REPLAY_FORMAT + 1
        path = tmp_path / "future.json"
        path.write_text(json.dumps(data))
        with pytest.raises(ReplayError, match="unsupported replay format"):
            Replay.load(path)


def _play_a_few_pieces(app, mode, drops: int):
    from ui.play import PlayScene

    play = PlayScene(app, mode, seed=11)
    app.scenes.push(play)
    for _ in range(play.countdown + 1):
        app.tick()
    for _ in range(drops):
        tap(app, "space")
        app.tick()
        app.tick()
    return play


@pytest.mark.parametrize("mode_name", ["ZEN", "SPRINT"])
def test_a_run_ended_from_the_game_is_kept_as_a_replay_that_plays_back_the_same(app, mode_name):
    from ui import modes

    play = _play_a_few_pieces(app, getattr(modes, mode_name), drops=5)
    game = play.game
    play.finish()
    run = app.store.recent(1)[0]
    assert run.pieces == 5 and run.mode == getattr(modes, mode_name).key and run.ending == "ended"
    path = app.store.replay_path(run.id)
    assert path.is_file() and path.parent.name == "replays"
    again = Replay.load(path).play()
    assert again.board.bits == game.board.bits and again.stats.pieces == game.stats.pieces
    assert again.stats.lines == game.stats.lines and again.ticks == game.ticks


def test_reviews_are_cached_per_run_and_engine(tmp_path):
    from ui.store import GameRecord, HistoryStore

    store = HistoryStore(tmp_path / "h.sqlite3")
    saved = store.save(GameRecord("sprint", "srs", True, 60.0, 100, 40, 0, 1.7, 30.0, 3.0, 2)).record
    assert store.cached_review(saved.id) is None and store.accuracies([saved.id]) == {}
    store.save_review(saved.id, "engine-a", 81.5, '{"accuracy": 81.5}')
    store.save_review(saved.id, "engine-b", 79.0, '{"accuracy": 79.0}')  # a newer engine replaces the review
    assert store.cached_review(saved.id) == ("engine-b", '{"accuracy": 79.0}')
    assert store.accuracies([saved.id, saved.id + 1]) == {saved.id: 79.0}
