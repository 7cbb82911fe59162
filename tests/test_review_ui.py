"""The review screen and the Stats screen, driven by keys as a player does, checked on the values they draw."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import itertools

import pytest

from ai.review import review_replay
from game.replay import Replay
from tests.players import choose, open_stats, run_until
from ui.testing import tap


def _play_and_end(app, mode, moves: list[list[str]]):
    """Start a run, play each piece's keys, end it from the pause menu; returns the saved run."""
    from ui.menus import TitleScene
    from ui.play import PlayScene

    app.scenes.reset(TitleScene(app))
    play = PlayScene(app, mode, seed=9)
    app.scenes.push(play)
    for _ in range(play.countdown + 1):
        app.tick()
    for keys in moves:
        for key in keys:
            tap(app, key)
            app.tick()
            app.tick()
    tap(app, "escape")
    pause = app.scenes.top
    choose(app, pause.menu, "End run (results)")
    return app.store.recent(1)[0]


MOVES = [
    ["space"],
    ["left", "left", "space"],
    ["right", "right", "right", "space"],
    ["x", "space"],
    ["z", "left", "space"],
    ["space"],
    ["right", "space"],
    ["left", "left", "left", "left", "space"],
    ["left", "right", "left", "left", "space"],
]  # the last one with two presses too many


def test_a_run_is_listed_opened_and_reviewed_as_the_command_reviews_it(ai_app, monkeypatch):
    from ui.modes import ZEN
    from ui.review import ReviewScene

    app = ai_app
    run = _play_and_end(app, ZEN, MOVES)
    assert run.pieces == len(MOVES)
    stats = open_stats(app)
    assert stats.recent_rows()[0][0].split()[2] == "Zen" and stats.selected_run.id == run.id
    tap(app, "return")
    review = app.scenes.top
    assert isinstance(review, ReviewScene)
    app.draw(app.screen)
    assert review.computing and review.progress_text().startswith("Analysing…")
    assert run_until(app, lambda: review.review is not None), review.problem
    app.draw(app.screen)
    expected = review_replay(Replay.load(app.store.replay_path(run.id))).to_dict()
    shown = review.summary()
    assert shown["accuracy"] == expected["accuracy"] and shown["counts"] == expected["counts"]
    assert sum(shown["counts"].values()) == len(MOVES)
    phases = expected["phases"]  # what the card says per phase, in words: "1 mistake or blunder", "2 placements"
    for line in review.phase_lines():
        name = next(p for p in ("opener", "mid-game", "under pressure") if line.startswith(p))
        data = phases[{"mid-game": "midgame", "under pressure": "pressure"}.get(name, name)]
        bad = data["counts"]["mistake"] + data["counts"]["blunder"]
        assert f": {data['placements']} placement{'' if data['placements'] == 1 else 's'}, " in line
        assert line.endswith(f", {bad} {'mistake or blunder' if bad == 1 else 'mistakes or blunders'}")
    assert len(review.phase_lines()) == sum(1 for data in phases.values() if data["placements"])
    _counts_side_by_side(review, monkeypatch)

    # the viewer: placement by placement, with the class of each as the card shows it
    assert review.index == 0
    # the first piece was hard-dropped where it spawned: where the guideline spawns it, in a player's words
    first = expected["placements"][0]["piece"]
    spawn = {"I": "columns 4-7", "O": "columns 5-6"}.get(first, "columns 4-6")
    flat = "O" if first == "O" else f"{first} flat"
    assert review.placement_lines()[1][0] == f"You: {flat} in {spawn}, bottom row 1"
    tap(app, "right")
    assert review.index == 1
    head = review.placement_lines()[0][0]
    second = expected["placements"][1]
    assert head.startswith(f"Placement 2 of {len(MOVES)}: {second['piece']} — {second['class'].upper()}")
    assert review.placement_lines()[3][0] == "Keys: ← ← drop  (3)"  # what was pressed for the second piece
    tap(app, "left")
    assert review.index == 0
    marked = [p["index"] for p in expected["placements"] if p["class"] in ("inaccuracy", "mistake", "blunder")]
    later = [i for i in marked if i > 0]
    tap(app, "down")  # the next inaccuracy, mistake or blunder
    assert review.index == (later[0] if later else 0)
    # playback and speed
    tap(app, "home")
    start = review.cursor.tick
    tap(app, "space")
    for _ in range(30):
        app.tick()
    assert review.playing and review.cursor.tick == start + 30
    for _ in range(3):
        tap(app, "=")
    assert review.speed == 4.0
    for _ in range(6):
        tap(app, "-")
    assert review.speed == 0.25
    tap(app, "space")
    assert not review.playing
    tap(app, "end")
    assert review.index == len(MOVES) - 1
    last = expected["placements"][-1]
    assert last["finesse"] == 2 and last["optimal_keys"]
    optimal = " ".join(last["optimal_keys"]).replace("⤓", "drop")
    assert (f"Finesse fault +2 — optimal: {optimal}", (240, 96, 96)) in review.placement_lines()
    assert "Keys: ← → ← ← drop  (5)" in [text for text, _ in review.placement_lines()]

    # kept in the history: the next visit reads the cached review
    assert app.store.cached_review(run.id)[0] == review.engine
    tap(app, "escape")
    stats = app.scenes.top
    stats.on_enter()
    assert stats.accuracies[run.id] == pytest.approx(expected["accuracy"])
    assert stats.recent_rows()[0][0].endswith(f"  {review.accuracy_shown()}")  # the list says what the card says
    tap(app, "return")
    again = app.scenes.top
    assert run_until(app, lambda: again.review is not None)
    assert again.from_cache and again.progress_text() == "review from the history"
    assert again.summary()["accuracy"] == expected["accuracy"]


def _counts_side_by_side(review, monkeypatch) -> None:
    """A long game's counts ("123 inaccuracy") drawn after their colours, inside the card, none over the next
    colour (each label starts 18 design pixels after its colour square)."""
    from ui import render as R
    from ui.review import CARD, CLASSES

    drawn = []
    blit = R.blit_text

    def recording(surface, s, *args, **kwargs):
        rect = blit(surface, s, *args, **kwargs)
        drawn.append((s, rect))
        return rect

    with monkeypatch.context() as patch:
        patch.setattr(review, "review", dict(review.review, counts=dict.fromkeys(CLASSES, 123)))
        patch.setattr(R, "blit_text", recording)
        review.app.draw(review.app.screen)
    rects = [rect for s, rect in drawn if s in {f"123 {name}" for name in CLASSES}]
    view = R.View(review.app.screen.get_size())
    assert len(rects) == len(CLASSES)
    assert all(a.right < b.left - view.s(18) for a, b in itertools.pairwise(rects))  # (the next colour between)
    assert rects[-1].right <= view.x(CARD[0] + CARD[2])


def test_a_run_without_a_replay_says_so(app):
    from ui.store import GameRecord

    app.store.save(GameRecord("sprint", "srs", True, 60.0, 100, 40, 0, 1.7, 30.0, 3.0, 2))
    stats = open_stats(app)
    tap(app, "return")
    assert app.scenes.top is stats and stats.notice.startswith("no replay was kept")


def test_the_stats_screen_filters_by_mode_and_plots_progress(app):
    from ui.store import GameRecord

    runs = [
        ("sprint", 80.0, 100, 1.25, 12.0, 9, False),
        ("zen", 30.0, 20, 0.66, 0.0, 4, False),
        ("sprint", 70.0, 100, 1.43, 15.0, 5, True),
        ("sprint", 65.0, 100, 1.54, 18.0, 3, False),
    ]
    ids = []
    for mode, seconds, pieces, pps, apm, finesse, assisted in runs:
        record = GameRecord(
            mode,
            "srs",
            mode == "sprint",
            seconds,
            pieces,
            40,
            0,
            pps,
            apm,
            3.0,
            finesse,
            assisted=assisted,
            ending="finished" if mode == "sprint" else "ended",
        )
        ids.append(app.store.save(record).record.id)
    app.store.save_review(ids[0], "e", 61.5, "{}")
    app.store.save_review(ids[3], "e", 72.25, "{}")
    stats = open_stats(app)
    assert [r.mode for r in stats.runs()] == ["sprint", "sprint", "zen", "sprint"]  # newest first
    tap(app, "right")  # the Zen filter
    assert stats.mode_filter == "zen" and [r.mode for r in stats.runs()] == ["zen"]
    tap(app, "right")  # 40 Lines
    assert stats.mode_filter == "sprint" and len(stats.runs()) == 3
    app.draw(app.screen)
    plots = {series.title.split(" (")[0].split(" %")[0]: series.points for series in stats.plots()}
    assert [v for _, v in plots["PPS"]] == [1.25, 1.43, 1.54]  # oldest first
    assert plots["accuracy"] == ((0, 61.5), (2, 72.25))
    assert [round(v, 3) for _, v in plots["finesse faults per piece"]] == [0.09, 0.05, 0.03]
    assert [round(v, 3) for _, v in plots["APP"]] == [
        round(12 * 80 / 60 / 100, 3),
        round(15 * 70 / 60 / 100, 3),
        round(18 * 65 / 60 / 100, 3),
    ]
    # the assisted 70 s run is no personal best: the best goes 80 -> 80 -> 65
    assert [v for _, v in plots["personal best"]] == [80.0, 80.0, 65.0]


def test_the_progress_chart_places_one_run_and_a_flat_line_in_the_middle():
    """A first run's point sat in the chart's bottom left corner, under the range's label; now it is centred."""
    import pygame

    from ui.progress import plot_positions

    inner = pygame.Rect(10, 20, 200, 100)
    assert plot_positions(((0, 1.25),), 1, inner) == [inner.center]
    flat = plot_positions(((0, 80.0), (1, 80.0), (2, 80.0)), 3, inner)
    assert [y for _, y in flat] == [inner.centery] * 3 and [x for x, _ in flat] == [10, 110, 210]
    rising = plot_positions(((0, 1.0), (2, 3.0), (3, 2.0)), 4, inner)
    assert rising[0] == (10, 120) and rising[1][1] == 20 and rising[2] == (210, 70)  # low at the bottom, high on top


def test_the_results_of_a_run_open_its_review(ai_app):
    from ui.menus import RESULTS_GRACE_TICKS, ResultsScene
    from ui.modes import SPRINT
    from ui.review import ReviewScene

    app = ai_app
    run = _play_and_end(app, SPRINT, MOVES[:3])
    results = app.scenes.top
    assert isinstance(results, ResultsScene)
    assert [item.label for item in results.menu.items] == ["Retry", "Title", "Review this run"]
    for _ in range(RESULTS_GRACE_TICKS):
        app.tick()
    tap(app, "down")
    tap(app, "down")
    tap(app, "return")
    review = app.scenes.top
    assert isinstance(review, ReviewScene) and review.game_id == run.id and review.cursor.count == 3
    assert run_until(app, lambda: review.review is not None), review.problem
    assert sum(review.summary()["counts"].values()) == 3
    tap(app, "escape")
    assert app.scenes.top is results


def test_the_stats_screen_starts_the_worker_only_when_there_is_a_run_to_review(ai_app):
    from ui.modes import ZEN

    app = ai_app
    open_stats(app)
    assert app.worker_if_started() is None  # nothing to review yet: no AI process for a look at empty stats
    app.close_worker()
    _play_and_end(app, ZEN, MOVES[:2])
    app.close_worker()
    open_stats(app)
    client = app.worker_if_started()
    assert client is not None and client._handle is not None  # running while the player picks a run
