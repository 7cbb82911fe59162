"""The real main loop with the script / screenshot hook, silent sound without a mixer, fumen starts."""

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
import pytest

from game.pieces import Piece


def test_run_with_script_saves_a_screenshot_and_returns_zero(tmp_path, monkeypatch):
    from ui import app as app_module

    monkeypatch.setenv("STACKCOACH_CONFIG_DIR", str(tmp_path))
    monkeypatch.setenv("STACKCOACH_DATA_DIR", str(tmp_path))
    shot = tmp_path / "play.png"
    script = "tap return; wait 3; tap space; wait 2; tap escape; wait 2; shot " + str(tmp_path / "pause.png")
    code = app_module.run(screenshot=str(shot), frames=5, script=script)
    assert code == 0
    assert shot.is_file() and (tmp_path / "pause.png").is_file()
    image = pygame.image.load(str(shot))
    assert image.get_size() == (1280, 720)


def test_sound_is_silent_when_the_mixer_fails(monkeypatch):
    from ui import sound

    def broken(*args, **kwargs):
        raise pygame.error("no audio device")

    monkeypatch.setattr(pygame.mixer, "get_init", lambda: None)
    monkeypatch.setattr(pygame.mixer, "init", broken)
    sounds = sound.Sounds()
    assert not sounds.available and "audio device" in sounds.problem
    sounds.play("lock")  # a no-op, not a crash


def test_synthesised_effects_are_short_and_in_range():
    from ui.sound import RATE, synthesize

    waves = synthesize()
    assert {"move", "rotate", "lock", "clear", "spin", "pc"} <= set(waves)
    for name, wave in waves.items():
        assert 0 < len(wave) <= RATE, name
        assert abs(wave).max() <= 1.0, name


def test_fumen_quiz_sets_board_and_queue():
    from game.fumen import Field, Page, encode
    from ui.menus import start_from_fumen

    code = encode([Page(Field.from_text("IIII______\nXXXXXX_XXX", garbage_row=False), None, "#Q=[S](T)IO")])
    start = start_from_fumen(code)
    assert start.board.to_rows() == ["IIII______", "XXXXXX_XXX"]
    assert start.queue == [Piece.T, Piece.I, Piece.O] and start.hold == Piece.S
    with pytest.raises(ValueError):
        start_from_fumen("v115@not a fumen")
    with pytest.raises(ValueError, match="paste"):
        start_from_fumen("   ")


def test_pc_practice_shift_r_replays_the_same_queue_and_r_deals_a_new_one(tmp_path, monkeypatch):
    from ui.modes import PC_PRACTICE
    from ui.pc_setups import loop_start
    from ui.play import PlayScene
    from ui.testing import make_app, tap

    monkeypatch.setenv("STACKCOACH_CONFIG_DIR", str(tmp_path))
    monkeypatch.setenv("STACKCOACH_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("STACKCOACH_SEED", "7")  # the app's seeds are repeatable, so "new" is checkable
    app, _ = make_app(tmp_path)
    scene = PlayScene(app, PC_PRACTICE, loop_start(1, 3), 3)
    app.scenes.push(scene)

    def dealt():
        return [scene.game.active.piece, *scene.game.preview(6)]

    queue = dealt()
    assert "R new queue   Shift+R same queue" in scene.footer_text  # the keys are on the play screen
    tap(app, "space")
    app.tick()
    tap(app, "shift+r")
    assert scene.game.stats.pieces == 0 and dealt() == queue
    assert scene.popups[-1].text == "SAME QUEUE AGAIN"
    seen = {tuple(queue)}
    for _ in range(3):
        tap(app, "space")
        app.tick()
        tap(app, "r")
        assert scene.game.stats.pieces == 0 and scene.popups[-1].text == "NEW QUEUE"
        assert scene.start.setup == "Empty board, 1st PC"  # the same practice start, other pieces
        seen.add(tuple(dealt()))
    assert len(seen) == 4  # every R dealt pieces not seen before
    again = dealt()
    tap(app, "shift+r")
    assert dealt() == again  # "same queue" now means the new one


def test_main_without_subcommand_opens_the_app(tmp_path, monkeypatch):
    import main

    monkeypatch.setenv("STACKCOACH_CONFIG_DIR", str(tmp_path))
    monkeypatch.setenv("STACKCOACH_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("STACKCOACH_SCREENSHOT", str(tmp_path / "menu.png"))
    monkeypatch.setenv("STACKCOACH_FRAMES", "2")
    assert main.main([]) == 0
    assert (tmp_path / "menu.png").is_file()


def test_the_window_size_the_player_left_is_remembered(app) -> None:
    from settings import load_settings
    from ui.app import remember_window_size

    remember_window_size(app, (1000, 640))
    assert tuple(load_settings(app.settings_file).settings.display.window_size) == (1000, 640)
    remember_window_size(app, (10, 10))  # outside the allowed range: not remembered, no error
    assert tuple(load_settings(app.settings_file).settings.display.window_size) == (1000, 640)
