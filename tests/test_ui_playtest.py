"""Findings of the user test, replayed as a player meets them: keys in, what the screen states out."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pytest

import ai.service
from tests.players import choose, open_stats, run_until
from ui.testing import tap
from ui.worker_client import WorkerClient, spawn_thread_worker


def _ticks(app, n: int) -> None:
    for _ in range(n):
        app.tick()


def _run_until(app, condition) -> bool:
    return run_until(app, condition, timeout_s=15.0)


def _drop(app, times: int = 1) -> None:
    for _ in range(times):
        tap(app, "space")
        app.tick()
        app.tick()


def _start(app, mode):
    from ui.menus import TitleScene
    from ui.play import PlayScene

    app.scenes.reset(TitleScene(app))
    play = PlayScene(app, mode, seed=4)
    app.scenes.push(play)
    _ticks(app, play.countdown)
    return play


def _end_run(app):
    """Esc, then "End run (results)" in the pause menu, as the player does it."""
    from ui.menus import PauseScene, ResultsScene

    tap(app, "escape")
    pause = app.scenes.top
    assert isinstance(pause, PauseScene)
    choose(app, pause.menu, "End run (results)")
    results = app.scenes.top
    assert isinstance(results, ResultsScene)
    app.draw(app.screen)
    return results


# --- 1. AI-played, unfinished and Zen runs are no personal bests ------------------------------------------------


def test_an_autoplayed_sprint_does_not_replace_a_hand_played_best(ai_app):
    from ui.modes import SPRINT, rules_summary
    from ui.store import GameRecord

    app = ai_app
    hand = GameRecord(
        mode="sprint",
        rules=rules_summary(app.settings, SPRINT),
        finished=True,
        seconds=129.38,
        pieces=100,
        lines=40,
        score=0,
        pps=0.77,
        apm=0,
        kpp=3,
        finesse=0,
        ending="finished",
    )
    app.store.save(hand)
    play = _start(app, SPRINT)
    tap(app, "f2")  # autoplay on
    assert _run_until(app, lambda: play.game.stats.pieces >= 3), "autoplay placed no pieces"
    tap(app, "left")  # any key takes over
    app.tick()
    assert not play.coach.autoplay
    play.end_reason = "finished"  # as if the 40th line was cleared now
    _ticks(app, 61)
    results = app.scenes.top
    assert results.name == "results"
    app.draw(app.screen)
    assert results.heading == "40 Lines — Finished!"
    assert results.assist_line == "Assisted run (autoplay)"
    assert not results.outcome.is_new_best
    assert [text for text, _, _ in results.best_lines] == ["assisted: not a personal best", "best: 2:09.38 (0.77 PPS)"]
    assert app.store.best("sprint", hand.rules).seconds == 129.38
    stats = open_stats(app)
    assert stats.recent_rows()[0][1] == "finished · assisted"
    assert stats.summary_rows()[0][-1] == "2:09.38 (0.77 PPS)"


def test_a_sprint_with_the_hint_ghost_on_is_assisted(ai_app):
    from ui.modes import SPRINT

    app = ai_app
    play = _start(app, SPRINT)
    tap(app, "h")  # hint ghost on
    app.tick()
    tap(app, "h")  # and off again: the run was still helped
    _drop(app, 2)
    play.end_reason = "finished"
    _ticks(app, 61)
    results = app.scenes.top
    assert results.assist_line == "Assisted run (hint ghost)" and not results.outcome.is_new_best
    assert results.best_lines[0][0] == "assisted: not a personal best"


def test_a_marathon_ended_early_is_no_personal_best_and_stats_say_it_was_ended(app):
    from ui.modes import MARATHON

    _start(app, MARATHON)
    _drop(app, 3)
    results = _end_run(app)
    assert results.heading == "Marathon — Run ended" and results.assist_line == ""
    assert not results.outcome.is_new_best
    assert results.best_lines[0][0] == "150 lines not reached: not a personal best"
    stats = open_stats(app)
    assert stats.recent_rows()[0][1] == "ended"
    assert stats.summary_rows()[0][-1] == "no personal best yet"


def test_zen_has_no_personal_best_anywhere(app):
    from ui.menus import TitleScene
    from ui.modes import ZEN

    _start(app, ZEN)
    _drop(app, 2)
    tap(app, "ctrl+z")  # undo: assisted too
    app.tick()
    results = _end_run(app)
    assert [text for text, _, _ in results.best_lines] == ["Zen keeps no personal best"]
    assert results.assist_line == "Assisted run (undo)"
    assert results.outcome.previous_best is None and not results.outcome.is_new_best
    stats = open_stats(app)
    assert stats.summary_rows()[0][0].startswith("Zen") and stats.summary_rows()[0][-1] == "—"
    assert stats.recent_rows()[0][1] == "ended · assisted"
    title = TitleScene(app)
    app.scenes.reset(title)
    assert "zen" not in title.bests  # the title shows no "Personal best" line for Zen


def test_a_sprint_played_by_hand_to_the_goal_is_a_personal_best(app):
    from ui.modes import SPRINT

    play = _start(app, SPRINT)
    _drop(app, 2)
    play.end_reason = "finished"
    _ticks(app, 61)
    results = app.scenes.top
    assert results.heading == "40 Lines — Finished!" and results.assist_line == ""
    assert results.outcome.is_new_best and results.best_lines[0][0] == "NEW PERSONAL BEST!"


# --- 3. results after a top-out, R in Zen, quitting from the title --------------------------------------------


def test_space_mashed_at_a_top_out_does_not_press_retry(app):
    from ui.menus import ResultsScene
    from ui.modes import SPRINT

    play = _start(app, SPRINT)
    for _ in range(40):
        if play.end_reason == "topout":
            break
        _drop(app)
    assert play.end_reason == "topout"
    while not isinstance(app.scenes.top, ResultsScene):
        tap(app, "space")  # still mashing hard drop while the top-out banner shows
        app.tick()
    results = app.scenes.top
    for _ in range(10):
        tap(app, "space")  # ... and on into the results screen
        app.tick()
    tap(app, "r")
    assert app.scenes.top is results and results.heading == "40 Lines — Topped out"
    _ticks(app, 30)
    tap(app, "return")  # half a second later the menu answers: Retry
    assert app.scenes.top.name == "play" and app.scenes.top is not play


def test_r_in_zen_clears_the_board_and_ctrl_z_brings_it_back(app):
    from ui.modes import ZEN

    play = _start(app, ZEN)
    _drop(app, 4)
    board, pieces = play.game.board.bits, play.game.stats.pieces
    assert board and pieces == 4
    tap(app, "r")
    app.tick()
    assert play.game.board.bits == 0 and play.game.stats.pieces == 0
    assert [p.text for p in play.popups] == ["BOARD CLEARED", "CTRL+Z: BRING IT BACK"]
    tap(app, "ctrl+z")
    app.tick()
    assert play.game.board.bits == board and play.game.stats.pieces == 4
    app.tick()
    assert play.game.stats.pieces == 4  # the same Ctrl+Z did not also take back a placement
    tap(app, "ctrl+z")
    _ticks(app, 2)
    assert play.game.stats.pieces == 3  # from here on undo works on the restored run as before
    app.draw(app.screen)


def test_a_held_ctrl_z_brings_the_cleared_board_back_and_nothing_more(app):
    from ui.modes import ZEN
    from ui.testing import key

    play = _start(app, ZEN)
    _drop(app, 3)
    board = play.game.board.bits
    tap(app, "r")
    app.tick()
    key(app, "ctrl+z")  # pressed and held for a while
    _ticks(app, 20)
    key(app, "ctrl+z", down=False)
    app.tick()
    assert play.game.board.bits == board and play.game.stats.pieces == 3


def test_zen_undo_after_r_reaches_back_past_the_new_placements(app):
    from ui.modes import ZEN

    play = _start(app, ZEN)
    _drop(app, 3)
    board = play.game.board.bits
    tap(app, "r")
    app.tick()
    _drop(app, 1)
    tap(app, "ctrl+z")
    _ticks(app, 2)
    assert play.game.stats.pieces == 0 and play.game.board.bits == 0  # first the new placement
    tap(app, "ctrl+z")
    _ticks(app, 2)
    assert play.game.board.bits == board and play.game.stats.pieces == 3  # then the cleared board


def test_quit_on_the_title_asks_first_and_up_does_not_wrap_onto_quit(app):
    from ui.menus import ConfirmScene, TitleScene

    title = TitleScene(app)
    app.scenes.reset(title)
    tap(app, "up")
    assert title.menu.items[title.menu.index].label == "Zen"  # stays on the first item
    for _ in range(10):
        tap(app, "down")
    assert title.menu.items[title.menu.index].label == "Quit"
    tap(app, "down")
    assert title.menu.items[title.menu.index].label == "Quit"  # and stops at the last
    tap(app, "return")
    confirm = app.scenes.top
    assert isinstance(confirm, ConfirmScene) and app.running
    app.draw(app.screen)
    assert confirm.question == "Quit Stack Coach?"
    assert [item.label for item in confirm.menu.items] == ["Cancel", "Quit"]
    tap(app, "return")  # Cancel is chosen first
    assert app.scenes.top is title and app.running
    tap(app, "escape")  # Esc on the title asks too
    assert isinstance(app.scenes.top, ConfirmScene) and app.running
    tap(app, "escape")
    assert app.scenes.top is title and app.running
    tap(app, "return")
    tap(app, "down")
    tap(app, "return")
    assert not app.running


# --- 4. wording ------------------------------------------------------------------------------------------------


def test_the_play_screen_states_the_rules_in_words(app):
    from ui.modes import MARATHON, ZEN

    play = _start(app, MARATHON)
    app.draw(app.screen)
    assert play.rules_text == "SRS · 7-bag · 5 previews · hold · 180° · level 1"
    zen = _start(app, ZEN)
    assert zen.rules_text == "SRS · 7-bag · 5 previews · hold · 180°"
    _drop(app)
    assert _end_run(app).rules_line == "SRS · 7-bag · 5 previews · hold · 180°"  # the results screen too


def test_a_long_title_keeps_clear_of_the_spawn_rows(app, monkeypatch):
    """A set-up's long name ("Set-up Practice — 2nd PC: Tub (save I)") ran over the piece spawning above the field;
    the name now gets a line of its own, and no text above the field reaches its columns 3-6."""
    from game.setups import read_library
    from ui import render as R
    from ui.modes import SETUP_PRACTICE
    from ui.play import PlayScene
    from ui.playfield import play_layout
    from ui.setup_menu import setup_practice_start

    entry = next(e for e in read_library() if e.key == "pc2_tub_save_i")
    play = PlayScene(app, SETUP_PRACTICE, setup_practice_start(entry, 3))
    app.scenes.push(play)
    drawn: dict[str, object] = {}
    blit = R.blit_text

    def recording(surface, s, *args, **kwargs):
        drawn[s] = blit(surface, s, *args, **kwargs)
        return drawn[s]

    monkeypatch.setattr(R, "blit_text", recording)
    app.draw(app.screen)
    lay = play_layout(app.screen.get_size(), app.settings.display.scale)
    assert {"Set-up Practice", entry.name, play.rules_text} <= set(drawn)
    above = [(s, rect) for s, rect in drawn.items() if rect.top < lay.field.y]
    assert above and all(rect.right <= lay.field.x + 3 * lay.c for _, rect in above), above


class _Hands:
    """Plays a planned placement through the same per-tick input the keyboard feeds (key executor)."""

    def __init__(self, app) -> None:
        self.executor = None
        self.keyboard = app.input.tick_buttons
        self.app = app
        app.input.tick_buttons = self.tick_buttons

    def tick_buttons(self):
        keys = self.keyboard()  # keys the test taps still count (Esc, R ...)
        scene = self.app.scenes.top
        if self.executor is None or scene is None or scene.name != "play":
            return keys
        buttons = self.executor.buttons(scene.game)
        if self.executor.done:
            self.executor = None
        return keys | buttons


def _choose_grace(app):
    from ui.menus import TitleScene
    from ui.pc_menu import PCPracticeScene

    app.scenes.reset(TitleScene(app))
    for _ in range(3):
        tap(app, "down")
    tap(app, "return")
    menu = app.scenes.top
    assert isinstance(menu, PCPracticeScene)
    return menu


@pytest.fixture
def seeded_ai_app(tmp_path, monkeypatch):
    """The AI app with repeatable seeds: its first Grace start deals T T S I Z L (a PC with T, T, S, Z)."""
    from ui.testing import make_app

    monkeypatch.setenv("STACKCOACH_CONFIG_DIR", str(tmp_path))
    monkeypatch.setenv("STACKCOACH_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("STACKCOACH_SEED", "13")
    app, screen = make_app(tmp_path)
    app.screen = screen
    app.worker_factory = lambda: WorkerClient(lambda: spawn_thread_worker(ai.service.handle))
    yield app
    app.close_worker()


def test_one_start_with_one_pc_reads_1_pc_in_1_attempt(seeded_ai_app):
    from game.executor import KeyExecutor
    from game.finesse import Key

    app = seeded_ai_app
    hands = _Hands(app)
    menu = _choose_grace(app)
    tap(app, "down")  # Setup: PCO (with I)
    while menu.setup.key != "grace":
        tap(app, "right")
    tap(app, "return")
    play = app.scenes.top
    assert play.name == "play" and play.start.setup == "Grace system"
    coach = play.coach
    for _ in range(12):
        if play.game.stats.perfect_clears:
            break
        assert _run_until(app, lambda: coach.pc_shown is not None and coach.pc_shown.solvable), (
            play.game.board.to_rows(),
            play.game.active,
            play.game.hold,
            coach.failure,
            coach.pc,
        )
        move = coach.pc_shown.solution[0]
        before = play.game.stats.pieces
        hands.executor = KeyExecutor(move.keys, hold_first=move.hold)
        assert _run_until(app, lambda before=before: play.game.stats.pieces > before)
    assert play.game.stats.perfect_clears == 1
    hands.executor = KeyExecutor([Key.HARD_DROP])  # one piece of the next PC the game deals by itself ...
    assert _run_until(app, lambda: play.game.board.bits != 0)
    tap(app, "escape")  # ... then leave: Pause > Quit to title
    pause = app.scenes.top
    for _ in range(len(pause.menu.items) - 1):
        tap(app, "down")
    tap(app, "return")
    assert app.scenes.top.name == "title"
    menu = _choose_grace(app)
    assert menu.menu.items[menu.menu.index] is menu.setup_item and menu.setup.key == "grace"  # remembered
    app.draw(app.screen)
    assert menu.stats_line.startswith("Your record: 1 PC in 1 attempt (100%), ")


def test_the_pc_menu_plural_wording(app):
    from ui.pc_menu import record_text
    from ui.store import PcStats

    assert record_text(PcStats("x", 1, 1, 6.0)) == "1 PC in 1 attempt (100%), 6.0 s per PC"
    assert record_text(PcStats("x", 3, 2, 4.5)) == "2 PCs in 3 attempts (67%), 4.5 s per PC"
    assert record_text(PcStats("x", 2, 0, None)) == "0 PCs in 2 attempts (0%)"
    # one miss in 200 is not a perfect record, nor one make in 200 none
    assert record_text(PcStats("x", 200, 199, 5.0)) == "199 PCs in 200 attempts (>99%), 5.0 s per PC"
    assert record_text(PcStats("x", 200, 1, 5.0)) == "1 PC in 200 attempts (<1%), 5.0 s per PC"
    from ui.menus import pc_stats_rows  # the game-over panel's record says the same

    assert dict(pc_stats_rows(PcStats("x", 200, 199, 5.0)))["Success rate"] == ">99%"
    assert pc_stats_rows(PcStats("x", 2, 0, None)) == [
        ("Attempts", "2"),
        ("PCs", "0"),
        ("Success rate", "0%"),
        ("Time per PC", "—"),
    ]


def test_the_pc_menu_remembers_setup_and_mirror_across_visits_and_restarts(app, tmp_path):
    from ui.pc_menu import PCPracticeScene
    from ui.testing import make_app

    menu = _choose_grace(app)
    assert menu.menu.items[menu.menu.index] is menu.loop_item and menu.stats_line == "No attempts yet."
    tap(app, "right")
    tap(app, "right")  # 3rd PC
    tap(app, "down")
    tap(app, "right")
    tap(app, "right")  # the third setup of the library
    chosen = menu.setup.key
    tap(app, "down")
    tap(app, "return")  # Mirror: on
    assert menu.mirror_item.label == "Mirror: on"
    tap(app, "escape")  # back to the title without playing
    menu = _choose_grace(app)
    assert (menu.setup.key, menu.mirrored, menu.pc_number) == (chosen, True, 3)
    assert menu.menu.items[menu.menu.index] is menu.setup_item
    assert menu.setup_item.label == f"Setup: {menu.setup.name}  < >" and menu.mirror_item.label == "Mirror: on"
    app.draw(app.screen)
    later, _ = make_app(tmp_path)  # the app started again with the same settings folder
    again = PCPracticeScene(later)
    later.scenes.push(again)
    assert (again.setup.key, again.mirrored, again.pc_number) == (chosen, True, 3)
    assert again.menu.items[again.menu.index] is again.setup_item


def test_pc_practice_results_offer_a_new_queue_and_the_same_one(app, monkeypatch):
    from ui.modes import PC_PRACTICE
    from ui.pc_setups import loop_start
    from ui.play import PlayScene

    monkeypatch.setattr(app, "new_seed", iter(range(100, 200)).__next__)  # repeatable "new" queues
    play = PlayScene(app, PC_PRACTICE, loop_start(1, 3), 3)
    app.scenes.push(play)
    queue = [play.game.active.piece, *play.game.preview(6)]
    _drop(app)
    results = _end_run(app)
    assert [item.label for item in results.menu.items] == ["New queue", "Same queue again", "Title"]
    _ticks(app, 30)
    tap(app, "shift+r")
    again = app.scenes.top
    assert again.name == "play" and again is not play
    assert [again.game.active.piece, *again.game.preview(6)] == queue
    _drop(app)
    results = _end_run(app)
    _ticks(app, 30)
    tap(app, "r")
    fresh = app.scenes.top
    assert fresh.name == "play" and fresh.start.setup == "Empty board, 1st PC"
    assert [fresh.game.active.piece, *fresh.game.preview(6)] != queue


def test_a_sprint_with_the_live_pc_overlay_on_is_assisted(ai_app):
    from ui.modes import SPRINT

    app = ai_app
    s = app.settings
    app.settings = s.model_copy(update={"ai": s.ai.model_copy(update={"pc_hints_enabled": True})})
    play = _start(app, SPRINT)
    _drop(app, 2)
    play.end_reason = "finished"
    _ticks(app, 61)
    results = app.scenes.top
    assert results.assist_line == "Assisted run (PC overlay)" and not results.outcome.is_new_best


def test_a_long_run_s_row_in_the_stats_list_does_not_run_into_how_it_ended(app, monkeypatch):
    """A 20-minute Set-up Practice run with 1,234 finesse faults, reviewed, topped out with help: its numbers and
    "topped out · assisted" are drawn side by side without overlapping, at a smaller size if need be."""
    from ui import render as R
    from ui.store import GameRecord

    saved = app.store.save(
        GameRecord("setup", "srs-180", False, 1234.5, 1234, 400, 1, 2.34, 1, 1, 1234, True, "topout")
    )
    app.store.save_review(saved.record.id, "engine", 99.96, "{}")
    stats = open_stats(app)
    line, ending = stats.recent_rows()[0]
    assert "Set-up Practice" in line and line.endswith(">99.9%") and ending == "topped out · assisted"
    drawn: dict[str, tuple] = {}
    blit = R.blit_text

    def recording(surface, s, pos, size, *args, **kwargs):
        drawn[s] = (blit(surface, s, pos, size, *args, **kwargs), size)
        return drawn[s][0]

    monkeypatch.setattr(R, "blit_text", recording)
    app.draw(app.screen)
    (line_rect, line_size), (ending_rect, ending_size) = drawn[line], drawn[ending]
    assert line_rect.right < ending_rect.left and line_size == ending_size
    footer = next(text for text in drawn if text.startswith("Up/Down choose a run"))
    assert drawn[footer][1] == drawn["Mode (rules)"][1]  # the rest of the screen keeps its size


def test_pausing_a_timed_run_hides_the_stack_and_hold(app):
    """40 Lines stops its clock on pause, so the paused screen must not let a player plan: the stack, the next
    pieces and hold are hidden under the menu (the stack's cells and hold checked here). Zen keeps no time and no
    best: its paused field stays in view."""
    import pygame

    from ui import render as R
    from ui.menus import PauseScene
    from ui.modes import SPRINT, ZEN
    from ui.playfield import play_layout

    dimmed = tuple(round(v * (255 - 150) / 255) for v in R.FIELD_BG)  # the field's colour under the pause's dimming

    def hidden_when_paused(mode) -> bool:
        play = _start(app, mode)
        _drop(app)
        tap(app, "c")  # a piece in hold
        app.tick()
        assert play.game.hold is not None
        cell = next((x, y) for y in range(20) for x in range(10) if play.game.board.is_filled(x, y))
        lay = play_layout(app.screen.get_size(), app.settings.display.scale)
        tap(app, "escape")
        assert isinstance(app.scenes.top, PauseScene)
        app.draw(app.screen)
        colours = [  # (the next queue lies under the menu's panel either way)
            app.screen.get_at(lay.cell_rect(*cell).center)[:3],
            pygame.transform.average_color(app.screen, lay.hold)[:3],
        ]
        return all(max(abs(a - b) for a, b in zip(colour, dimmed, strict=True)) <= 2 for colour in colours)

    assert hidden_when_paused(SPRINT)
    assert not hidden_when_paused(ZEN)
