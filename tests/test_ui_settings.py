"""Settings screen round trips through the file, and key rebinding with conflicts refused."""

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
import pytest

from settings import load_settings
from ui import render as R
from ui.testing import key, tap


def _open_settings(app):
    from ui.settings_screen import SettingsScene

    scene = SettingsScene(app)
    app.scenes.push(scene)
    return scene


def _go_to(app, scene, group, field):
    for _ in range(len(scene.rows)):
        row = scene.rows[scene.index]
        if (row.group, row.field) == (group, field):
            return
        tap(app, "down")
    raise AssertionError(f"no row {group}.{field}")


def test_toggle_is_saved_to_the_file_at_once(app):
    scene = _open_settings(app)
    assert app.settings.display.ghost
    _go_to(app, scene, "display", "ghost")
    tap(app, "return")
    assert not app.settings.display.ghost
    assert load_settings(app.settings_file).settings.display.ghost is False
    assert scene.status[1] == R.GOOD
    scene.draw(app.screen)


def test_numbers_choices_and_unit_conversion(app):
    scene = _open_settings(app)
    _go_to(app, scene, "handling", "das")
    before = app.settings.handling.das
    tap(app, "right")
    assert load_settings(app.settings_file).settings.handling.das == before + 1
    _go_to(app, scene, "handling", "unit")
    tap(app, "right")  # ms -> frames keeps the durations
    saved = load_settings(app.settings_file).settings.handling
    assert saved.unit == "frames" and saved.das == pytest.approx((before + 1) * 60 / 1000, abs=0.05)
    _go_to(app, scene, "rules", "rotation")
    tap(app, "right")
    assert load_settings(app.settings_file).settings.rules.rotation == "srs+"
    _go_to(app, scene, "rules", "previews")
    for _ in range(3):
        tap(app, "right")  # 5 -> 6, then clamped at the maximum
    assert load_settings(app.settings_file).settings.rules.previews == 6
    scene.draw(app.screen)


def test_bad_kick_file_is_refused(app, tmp_path):
    scene = _open_settings(app)
    _go_to(app, scene, "rules", "kick_file")
    tap(app, "return")
    app.dispatch(pygame.event.Event(pygame.TEXTINPUT, text=str(tmp_path / "missing.toml")))
    tap(app, "return")
    assert scene.status[1] == R.BAD and "kick file" in scene.status[0]
    assert app.settings.rules.kick_file is None
    assert not app.settings_file.exists()  # nothing was saved


def _open_rebind(app):
    from ui.settings_screen import RebindScene

    scene = RebindScene(app)
    app.scenes.push(scene)
    return scene


def test_rebind_by_pressing_a_key(app):
    scene = _open_rebind(app)
    scene.index = scene.items.index("hold")
    tap(app, "return")
    assert scene.capturing
    tap(app, "v")
    assert not scene.capturing
    assert "v" in load_settings(app.settings_file).settings.keys.hold
    assert app.keymap.resolve(pygame.K_v) == "hold"  # in effect at once
    scene.draw(app.screen)


def test_rebind_modifier_alone_and_chord(app):
    scene = _open_rebind(app)
    scene.index = scene.items.index("toggle_hint")
    tap(app, "return")
    key(app, "right ctrl")
    key(app, "right ctrl", False)  # a modifier pressed alone binds itself
    assert "right ctrl" in app.settings.keys.toggle_hint
    scene.index = scene.items.index("redo")
    tap(app, "return")
    tap(app, "ctrl+shift+z")
    assert "ctrl+shift+z" in app.settings.keys.redo


def test_rebind_conflict_is_refused_with_a_clear_message(app):
    scene = _open_rebind(app)
    scene.index = scene.items.index("hold")
    tap(app, "return")
    tap(app, "z")  # z already rotates counter-clockwise
    message, colour = scene.status
    assert colour == R.BAD
    assert message.startswith("Z is already bound to Rotate counter-clockwise")
    assert "z" not in app.settings.keys.hold and "z" in app.settings.keys.rotate_ccw
    assert app.keymap.resolve(pygame.K_z) == "rotate_ccw"


def test_remove_keys_and_restore_defaults(app):
    scene = _open_rebind(app)
    scene.index = scene.items.index("hold")
    tap(app, "backspace")  # removes the last key only
    assert app.settings.keys.hold == ("c",)
    scene.index = scene.items.index("pause")
    tap(app, "backspace")
    assert app.settings.keys.pause == ("escape",) and scene.status[1] == R.BAD  # never left without pause
    scene.index = scene.items.index("rotate_180")
    tap(app, "backspace")
    assert load_settings(app.settings_file).settings.keys.rotate_180 == ()
    scene.index = len(scene.items) - 1
    tap(app, "return")
    assert load_settings(app.settings_file).settings.keys.rotate_180 == ("a",)
