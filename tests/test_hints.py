"""Coach hints and autoplay in the play scene: ghost hint drawing, stale answers, autoplay, worker faults,
and the worker process never outliving the app. Worker in a thread (fast) except where the process matters."""

from __future__ import annotations

import time

import pygame
import pytest

import ai.service
from ai.protocol import Move, Placement, Suggestion, SuggestRequest
from game.finesse import Key
from game.movement import drop_y
from game.pieces import Piece, Rotation
from tests.processes import pid_alive
from ui import testing
from ui.modes import ZEN
from ui.play import PlayScene
from ui.playfield import play_layout
from ui.worker_client import WorkerClient, spawn_thread_worker


def _upright(piece: Piece, x: int, y: int, keys: tuple[Key, ...]) -> Move:
    """A move of the piece in its spawn rotation to (x, y), as a fake worker suggests it."""
    return Move(placement=Placement(piece=piece, rotation=Rotation.NORTH, x=x, y=y), keys=keys)


def _with_ai(app, **ai_options) -> None:
    s = app.settings
    app.settings = s.model_copy(update={"ai": s.ai.model_copy(update=ai_options)})


@pytest.fixture
def app_screen(tmp_path, monkeypatch):
    monkeypatch.setenv("STACKCOACH_CONFIG_DIR", str(tmp_path))
    monkeypatch.setenv("STACKCOACH_DATA_DIR", str(tmp_path))
    app, screen = testing.make_app(tmp_path)
    yield app, screen
    app.close_worker()


def _run_until(app, condition, timeout_s: float = 5.0, sleep_s: float = 0.002) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        app.tick()
        if condition():
            return True
        time.sleep(sleep_s)
    return False


def _leftmost_handler(delay_s: float = 0.0):
    """A scripted worker: the current piece, spawn rotation, as far left as it goes, dropped."""

    def handle(request, should_stop, send):
        if not isinstance(request, SuggestRequest):
            return
        if delay_s:
            time.sleep(delay_s)
        snap = request.snapshot
        bits = snap.board.bits
        x = 4
        while snap.board.fits(snap.current, Rotation.NORTH, x - 1, 20):
            x -= 1
        y = drop_y(bits, snap.current, Rotation.NORTH, x, 20)
        move = _upright(snap.current, x, y, (Key.DAS_LEFT, Key.HARD_DROP))
        send(Suggestion(request.generation, move, final=True))

    return handle


def test_ghost_hint_is_drawn_where_the_suggestion_says(app_screen):
    app, screen = app_screen
    app.worker_factory = lambda: WorkerClient(lambda: spawn_thread_worker(_leftmost_handler()))
    _with_ai(app, hint_enabled=True, show_key_sequence=True)
    scene = PlayScene(app, ZEN)
    app.scenes.push(scene)
    assert _run_until(app, lambda: scene.coach.show_hint)
    move = scene.coach.hint
    assert move.placement.piece == scene.game.active.piece
    app.draw(screen)
    lay = play_layout(screen.get_size(), app.settings.display.scale)
    from game.pieces import COLOURS
    from ui.coach import move_cells

    cells = set(move_cells(move))
    r0, g0, b0 = COLOURS[move.placement.piece]
    edge = pygame.Color((r0 + 255) // 2, (g0 + 255) // 2, (b0 + 255) // 2)  # the piece's own colour, lightened
    for x, y in cells:
        r = lay.cell_rect(x, y)
        # the hatch lightens every hint cell well above the empty field colour
        assert sum(screen.get_at(r.center)[:3]) > 3 * 60 or sum(screen.get_at((r.x + 3, r.bottom - 4))[:3]) > 180
        if (x - 1, y) not in cells:  # an outer edge carries the outline in the piece's colour
            assert screen.get_at((r.left + 1, r.centery)) == edge
    # the ghost is tinted with the piece's hue: its strongest channel is the piece colour's strongest one
    inside = [screen.get_at(lay.cell_rect(x, y).center)[:3] for x, y in cells]
    strongest = max(range(3), key=lambda i: (r0, g0, b0)[i])
    assert sum(max(range(3), key=lambda i: px[i]) == strongest for px in inside) >= 2
    # an empty cell far from the hint is left alone
    far = lay.cell_rect(9, 10)
    assert screen.get_at((far.left + 1, far.centery)) != edge


def test_an_answer_for_an_old_piece_is_ignored(app_screen):
    app, _ = app_screen
    app.worker_factory = lambda: WorkerClient(lambda: spawn_thread_worker(_leftmost_handler(delay_s=0.05)))
    _with_ai(app, hint_enabled=True)
    scene = PlayScene(app, ZEN)
    app.scenes.push(scene)
    app.tick()
    coach = scene.coach
    old_generation = coach.hints.generation
    old_piece = scene.game.active.piece
    testing.tap(app, "space")  # the piece locks before the worker answers
    app.tick()
    assert scene.game.stats.pieces == 1
    # a (late) answer for the old position, even with a matching generation, is not shown
    stale = _upright(old_piece, 0, 0, (Key.HARD_DROP,))
    coach._take(Suggestion(old_generation, stale, final=True))
    assert coach.hint is not stale
    # the real late answer arrives while the new piece is in play: only the new piece's hint is ever shown
    seen = []

    def shown() -> bool:
        if coach.show_hint:
            seen.append((coach.hint.placement.piece, scene.game.active.piece))
        return len(seen) > 3

    assert _run_until(app, shown)
    assert all(hint == active for hint, active in seen)


def test_autoplay_plays_200_pieces_without_topping_out(app_screen):
    app, _ = app_screen
    app.worker_factory = lambda: WorkerClient(lambda: spawn_thread_worker(ai.service.handle))
    _with_ai(app, autoplay_pps=0, hint_enabled=False)
    scene = PlayScene(app, ZEN)
    app.scenes.push(scene)
    testing.tap(app, "f2")
    assert scene.coach.autoplay
    assert _run_until(app, lambda: scene.game.stats.pieces >= 200 or scene.game.over, timeout_s=40, sleep_s=0.0005)
    assert not scene.game.over
    assert scene.game.stats.pieces >= 200
    assert scene.game.stats.lines >= 60  # it clears lines rather than just stacking


def test_player_takes_over_from_autoplay(app_screen):
    app, _ = app_screen
    app.worker_factory = lambda: WorkerClient(lambda: spawn_thread_worker(_leftmost_handler()))
    _with_ai(app, autoplay_pps=1)
    scene = PlayScene(app, ZEN)
    app.scenes.push(scene)
    testing.tap(app, "f2")
    assert _run_until(app, lambda: scene.coach.show_hint)
    x_before = scene.game.active.x
    testing.key(app, "right")
    app.tick()
    testing.key(app, "right", down=False)
    assert not scene.coach.autoplay
    assert scene.game.active.x == x_before + 1  # the key acted normally


def test_worker_death_is_shown_and_hints_come_back(app_screen):
    app, screen = app_screen
    app.worker_factory = lambda: WorkerClient(lambda: spawn_thread_worker(_leftmost_handler()))
    _with_ai(app, hint_enabled=True)
    scene = PlayScene(app, ZEN)
    app.scenes.push(scene)
    assert _run_until(app, lambda: scene.coach.show_hint)
    app.worker().kill_worker_for_test()
    ticks = scene.game.ticks
    testing.tap(app, "space")  # a new piece needs a new hint
    assert _run_until(app, lambda: "restarting" in scene.coach.status_text()[0])
    text, tone = scene.coach.status_text()
    assert tone == "bad" and text == "The AI stopped unexpectedly; restarting it…"  # a player's words
    assert "Error" not in text and "(" not in text
    app.draw(screen)  # the panel draws the fault without raising
    # the moment the new worker says anything (its READY), the warning goes, before any hint arrives
    assert _run_until(app, lambda: app.worker().status.state == "ok", timeout_s=5)
    assert scene.coach.status_text()[1] != "bad"
    assert _run_until(app, lambda: scene.coach.show_hint, timeout_s=5)
    assert scene.game.ticks > ticks  # the game kept ticking throughout
    assert scene.coach.status_text()[1] == "good"


def test_no_worker_process_is_left_after_the_app_closes(app_screen):
    app, _ = app_screen  # the default factory: a real worker process
    _with_ai(app, hint_enabled=True)
    scene = PlayScene(app, ZEN)
    app.scenes.push(scene)
    assert app.worker_if_started() is None  # started lazily, by the first request
    assert _run_until(app, lambda: scene.coach.show_hint, timeout_s=30, sleep_s=0.01)
    pid = app.worker().pid
    assert pid is not None and pid_alive(pid)
    app.close_worker()
    assert not pid_alive(pid)


def test_menus_do_not_start_the_worker(app_screen):
    app, screen = app_screen
    from ui.menus import TitleScene

    app.scenes.push(TitleScene(app))
    for _ in range(5):
        app.tick()
        app.draw(screen)
    assert app.worker_if_started() is None


def test_the_main_loop_stops_the_worker_when_a_scene_raises(tmp_path, monkeypatch):
    from ui import app as app_module
    from ui.menus import TitleScene

    monkeypatch.setenv("STACKCOACH_CONFIG_DIR", str(tmp_path))
    monkeypatch.setenv("STACKCOACH_DATA_DIR", str(tmp_path))
    pids: list[int] = []

    def crash(self) -> None:
        client = self.app.worker()
        client.poll()  # starts the real worker process
        pids.append(client.pid)
        raise RuntimeError("a bug in a scene")

    monkeypatch.setattr(TitleScene, "update", crash)
    with pytest.raises(RuntimeError):
        app_module.run(script="wait 3")
    assert pids and pids[0] is not None
    assert not pid_alive(pids[0])


def test_streamed_hint_shows_first_and_the_final_one_replaces_it(app_screen):
    app, _ = app_screen
    release = []

    def handle(request, should_stop, send):
        if not isinstance(request, SuggestRequest):
            return
        snap = request.snapshot
        y = drop_y(snap.board.bits, snap.current, Rotation.NORTH, 4, 20)
        quick = _upright(snap.current, 4, y, (Key.HARD_DROP,))
        send(Suggestion(request.generation, quick, final=False))
        deadline = time.monotonic() + 2
        while not release and time.monotonic() < deadline and not should_stop():
            time.sleep(0.002)
        x = 4
        while snap.board.fits(snap.current, Rotation.NORTH, x + 1, 20):
            x += 1
        y = drop_y(snap.board.bits, snap.current, Rotation.NORTH, x, 20)
        send(
            Suggestion(
                request.generation,
                _upright(snap.current, x, y, (Key.DAS_RIGHT, Key.HARD_DROP)),
                final=True,
            )
        )

    app.worker_factory = lambda: WorkerClient(lambda: spawn_thread_worker(handle))
    _with_ai(app, hint_enabled=True)
    scene = PlayScene(app, ZEN)
    app.scenes.push(scene)
    assert _run_until(app, lambda: scene.coach.show_hint)
    assert not scene.coach.hint_final and scene.coach.hint.placement.x == 4
    release.append(True)
    assert _run_until(app, lambda: scene.coach.hint_final)
    assert scene.coach.hint.placement.x > 4 and scene.coach.show_hint


def test_a_worker_failure_is_shown_not_raised(app_screen):
    app, screen = app_screen

    def broken(request, should_stop, send):
        raise ValueError("engine bug")

    app.worker_factory = lambda: WorkerClient(lambda: spawn_thread_worker(broken))
    _with_ai(app, hint_enabled=True)
    scene = PlayScene(app, ZEN)
    app.scenes.push(scene)
    assert _run_until(app, lambda: scene.coach.failure is not None)
    text, tone = scene.coach.status_text()
    assert tone == "bad" and "problem" in text and "ValueError" not in text  # a player's words, no traceback
    app.draw(screen)
    ticks = scene.game.ticks
    for _ in range(10):
        app.tick()
    assert scene.game.ticks == ticks + 10


def test_a_position_left_before_its_hint_arrived_gets_one_when_it_comes_back(app_screen):
    """Undo away from a position whose hint is still being thought about, wait for that answer to be dropped, redo:
    the position is asked about again instead of staying without a hint."""
    from ui.coach import position_key

    app, _ = app_screen
    app.worker_factory = lambda: WorkerClient(lambda: spawn_thread_worker(_leftmost_handler(delay_s=0.3)))
    _with_ai(app, hint_enabled=True)
    scene = PlayScene(app, ZEN)
    app.scenes.push(scene)
    coach = scene.coach
    assert _run_until(app, lambda: coach.show_hint)
    testing.tap(app, "space")
    assert _run_until(app, lambda: scene.game.stats.pieces == 1 and coach.hints.asked == position_key(scene.game))
    testing.tap(app, "ctrl+z")
    assert _run_until(app, lambda: scene.game.stats.pieces == 0)
    # the answer for the position just left (0.3 s of "thinking") arrives meanwhile and is dropped
    end = time.monotonic() + 0.6
    while time.monotonic() < end:
        app.tick()
        time.sleep(0.005)
    testing.tap(app, "ctrl+y")
    assert _run_until(app, lambda: scene.game.stats.pieces == 1)
    assert _run_until(app, lambda: coach.show_hint, timeout_s=3.0)
