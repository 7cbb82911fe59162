"""The key map: chords, repeats, and a scripted key sequence that must build a known board."""

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame

from game.board import Board
from game.handling import Button
from game.movement import drop_y, slide, try_rotate
from game.pieces import Rotation
from settings import Settings
from ui.input import InputState, KeyMap
from ui.testing import key, tap


def _down(key_code, mod=0):
    return pygame.event.Event(pygame.KEYDOWN, key=key_code, mod=mod, unicode="", scancode=0)


def _up(key_code):
    return pygame.event.Event(pygame.KEYUP, key=key_code, mod=0, unicode="", scancode=0)


def test_default_keys_and_chords():
    pygame.init()
    keymap = KeyMap.from_settings(Settings.model_construct())
    assert keymap.resolve(pygame.K_z) == "rotate_ccw"
    assert keymap.resolve(pygame.K_z, pygame.KMOD_LCTRL) == "undo"  # the chord wins over the plain key
    assert keymap.resolve(pygame.K_y, pygame.KMOD_LCTRL) == "redo"
    assert keymap.resolve(pygame.K_LSHIFT, pygame.KMOD_LSHIFT) == "hold"  # a modifier alone is a key
    assert keymap.resolve(pygame.K_z, pygame.KMOD_LSHIFT) == "rotate_ccw"  # unbound chord: plain key
    assert keymap.resolve(pygame.K_UP) == keymap.resolve(pygame.K_x) == "rotate_cw"
    assert keymap.resolve(pygame.K_F12) is None


def test_held_state_ignores_os_repeat_and_keeps_chord_button():
    pygame.init()
    state = InputState(KeyMap.from_settings(Settings.model_construct()))
    assert state.handle(_down(pygame.K_LEFT)) == "move_left"
    assert state.handle(_down(pygame.K_LEFT)) is None  # OS auto-repeat: no new press
    assert state.tick_buttons() == Button.LEFT
    state.handle(_down(pygame.K_z, pygame.KMOD_LCTRL))
    assert state.tick_buttons() == Button.LEFT | Button.UNDO  # z held as part of ctrl+z is not a rotation
    state.handle(_up(pygame.K_z))
    state.handle(_up(pygame.K_LEFT))
    assert state.tick_buttons() == Button.NONE
    state.handle(_down(pygame.K_SPACE))
    state.handle(_up(pygame.K_SPACE))  # pressed and released between two ticks: still one tick of input
    assert state.tick_buttons() == Button.HARD_DROP
    assert state.tick_buttons() == Button.NONE


def test_scripted_keys_build_the_expected_board(app):
    from ui.modes import ZEN
    from ui.play import PlayScene

    scene = PlayScene(app, ZEN, seed=11)
    app.scenes.push(scene)
    game = scene.game
    rules = game.rules
    first = game.active.piece
    tap(app, "space")
    app.tick()
    second = game.active.piece
    tap(app, "x")  # rotate clockwise
    app.tick()
    app.tick()
    key(app, "left")  # held past DAS: slides to the wall (default ARR 0)
    for _ in range(20):
        app.tick()
    key(app, "left", False)
    tap(app, "space")
    app.tick()

    # The same placements computed from the rules directly, not through the key map.
    expected = Board(0, (0,) * 400)
    expected = expected.place(first, Rotation.NORTH, 4, drop_y(0, first, Rotation.NORTH, 4, 20))
    rot, x, y, _ = try_rotate(expected.bits, rules, second, Rotation.NORTH, 4, 20, 1)
    x = slide(expected.bits, second, rot, x, y, -1)
    expected = expected.place(second, rot, x, drop_y(expected.bits, second, rot, x, y))
    expected, _ = expected.clear_lines()
    assert game.stats.pieces == 2
    assert game.board.to_rows() == expected.to_rows()

    # Ctrl+Z takes the second piece back (zen allows undo) and z does not also rotate.
    key(app, "ctrl+z")
    app.tick()
    app.tick()
    key(app, "ctrl+z", False)
    assert game.stats.pieces == 1
    assert game.active.piece == second and game.active.rotation == Rotation.NORTH
    tap(app, "ctrl+y")
    app.tick()
    assert game.stats.pieces == 2 and game.board.to_rows() == expected.to_rows()


def test_undo_is_ignored_in_sprint(app):
    from ui.modes import SPRINT
    from ui.play import PlayScene

    scene = PlayScene(app, SPRINT, seed=2)
    app.scenes.push(scene)
    for _ in range(scene.countdown):
        app.tick()
    tap(app, "space")
    app.tick()
    tap(app, "ctrl+z")
    app.tick()
    assert scene.game.stats.pieces == 1


def test_fast_double_tap_is_not_merged_into_one_hold():
    pygame.init()
    state = InputState(KeyMap.from_settings(Settings.model_construct()))
    state.handle(_down(pygame.K_LEFT))
    state.handle(_up(pygame.K_LEFT))
    assert state.tick_buttons() == Button.LEFT
    state.handle(_down(pygame.K_LEFT))  # tapped again before the next tick
    state.handle(_up(pygame.K_LEFT))
    assert state.tick_buttons() == Button.NONE  # the engine sees the release first...
    assert state.tick_buttons() == Button.LEFT  # ...then the second press
    assert state.tick_buttons() == Button.NONE


def test_gamepad_controls_map_to_buttons():
    pygame.init()
    state = InputState(KeyMap.from_settings(Settings.model_construct()))
    state.handle(pygame.event.Event(pygame.JOYHATMOTION, instance_id=0, hat=0, value=(-1, 0)))
    assert state.tick_buttons() == Button.LEFT
    state.handle(pygame.event.Event(pygame.JOYHATMOTION, instance_id=0, hat=0, value=(0, 1)))
    assert state.tick_buttons() == Button.HARD_DROP  # hat moved: left released, up pressed
    state.handle(pygame.event.Event(pygame.JOYHATMOTION, instance_id=0, hat=0, value=(0, 0)))
    assert state.handle(pygame.event.Event(pygame.JOYBUTTONDOWN, instance_id=0, button=7)) == "pause"
    state.handle(pygame.event.Event(pygame.JOYBUTTONDOWN, instance_id=0, button=1))
    state.handle(pygame.event.Event(pygame.JOYAXISMOTION, instance_id=0, axis=0, value=0.9))
    assert state.tick_buttons() == Button.ROTATE_CW | Button.RIGHT
    state.handle(pygame.event.Event(pygame.JOYAXISMOTION, instance_id=0, axis=0, value=0.1))
    state.handle(pygame.event.Event(pygame.JOYBUTTONUP, instance_id=0, button=1))
    assert state.tick_buttons() == Button.NONE
