"""Settings screen round trips through the file, and key rebinding with conflicts refused."""

import os
import tomllib

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


# --- Coach section, overrides, messages (user-test findings) ----------------------------------------------


class Drawn:
    """Every string the settings screen draws (plain and glyph text), for asserting what the player sees."""

    def __init__(self, monkeypatch) -> None:
        import ui.settings_screen as screen

        self.texts: list[str] = []
        plain, glyphs = R.blit_text, screen.blit_glyph_text

        def record_plain(surface, s, *args, **kwargs):
            self.texts.append(s)
            return plain(surface, s, *args, **kwargs)

        def record_glyphs(surface, s, *args, **kwargs):
            self.texts.append(s)
            return glyphs(surface, s, *args, **kwargs)

        monkeypatch.setattr(R, "blit_text", record_plain)
        monkeypatch.setattr(screen, "blit_glyph_text", record_glyphs)

    def of(self, app) -> str:
        self.texts.clear()
        app.draw(app.screen)
        return "\n".join(self.texts)


def _app_with(tmp_path, monkeypatch, file_text: str | bytes | None = None, **env):
    """An app started with `file_text` as settings.toml and `env` as STACKCOACH_ variables."""
    from ui.testing import make_app

    for name in list(os.environ):
        if name.upper().startswith("STACKCOACH_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("STACKCOACH_CONFIG_DIR", str(tmp_path))
    monkeypatch.setenv("STACKCOACH_DATA_DIR", str(tmp_path))
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    if isinstance(file_text, str):
        (tmp_path / "settings.toml").write_text(file_text, "utf-8")
    elif file_text is not None:
        (tmp_path / "settings.toml").write_bytes(file_text)
    app, screen = make_app(tmp_path)
    app.screen = screen
    return app


def test_coach_settings_are_on_the_settings_screen(app, monkeypatch):
    drawn = Drawn(monkeypatch)
    scene = _open_settings(app)
    _go_to(app, scene, "ai", "hint_enabled")
    text = drawn.of(app)
    assert "COACH" in text and "H turns it on and off in a game" in text  # the help names the player's key
    tap(app, "return")
    _go_to(app, scene, "ai", "show_key_sequence")
    tap(app, "right")
    _go_to(app, scene, "ai", "pc_hints_enabled")
    tap(app, "return")
    _go_to(app, scene, "ai", "autoplay_pps")
    tap(app, "right")  # 2 -> 3 pieces per second
    assert "< 3 pieces/s >" in drawn.of(app)
    _go_to(app, scene, "ai", "engine")
    tap(app, "right")
    _go_to(app, scene, "ai", "weights")
    tap(app, "right")
    _go_to(app, scene, "ai", "think_budget_ms")
    tap(app, "left")  # 15 -> 10 ms
    saved = load_settings(app.settings_file).settings.ai
    assert (saved.hint_enabled, saved.show_key_sequence, saved.pc_hints_enabled) == (True, True, True)
    assert (saved.autoplay_pps, saved.engine, saved.think_budget_ms) == (3, "mcts", 10)
    from ui.settings_screen import weight_names

    assert saved.weights != "modern" and saved.weights in weight_names()
    assert scene.status[1] == R.GOOD


def test_autoplay_speed_reaches_as_fast_as_possible(app, monkeypatch):
    drawn = Drawn(monkeypatch)
    scene = _open_settings(app)
    _go_to(app, scene, "ai", "autoplay_pps")
    for _ in range(3):
        tap(app, "left")  # 2 -> 1.5 -> 1 -> wraps round to 0, "max"
    assert load_settings(app.settings_file).settings.ai.autoplay_pps == 0
    assert "max (as fast as possible)" in drawn.of(app)


def test_legend_explains_every_hint_key_glyph(app, monkeypatch):
    from ui.coach import KEY_ASCII, KEY_GLYPHS
    from ui.settings_screen import KEY_MEANINGS

    drawn = Drawn(monkeypatch)
    scene = _open_settings(app)
    _go_to(app, scene, "ai", "think_budget_ms")  # the legend follows the Coach settings
    text = drawn.of(app)
    assert "Hint keys" in text
    for name, glyph in KEY_GLYPHS.items():
        shown = [label for label in (glyph, "⇓", KEY_ASCII[name]) if f"{label} {KEY_MEANINGS[name]}" in text]
        assert shown, f"no legend entry for {glyph} ({KEY_MEANINGS[name]})"
    assert "HOLD hold first" in text
    # the legend is read, not chosen: moving down from the last Coach setting skips it
    tap(app, "down")
    assert scene.rows[scene.index].label == "Key bindings…"


def test_hint_key_works_with_default_settings(app):
    """README: "in any mode, H shows the engine's suggested placement" — with the hint off by default, H
    turns it on (and off again), and the choice is saved."""
    from ui.modes import ZEN
    from ui.play import PlayScene
    from ui.worker_client import WorkerClient, spawn_thread_worker

    app.worker_factory = lambda: WorkerClient(lambda: spawn_thread_worker(lambda *args: None))
    assert app.settings.ai.hint_enabled is False
    scene = PlayScene(app, ZEN)
    app.scenes.push(scene)
    tap(app, "h")
    assert app.settings.ai.hint_enabled is True and scene.coach.hints_on
    assert load_settings(app.settings_file).settings.ai.hint_enabled is True
    tap(app, "h")
    assert load_settings(app.settings_file).settings.ai.hint_enabled is False


def test_environment_override_is_marked_and_never_saved(tmp_path, monkeypatch):
    app = _app_with(tmp_path, monkeypatch, "schema_version = 1\n[handling]\ndas = 100\n", STACKCOACH_HANDLING__DAS="50")
    drawn = Drawn(monkeypatch)
    scene = _open_settings(app)
    _go_to(app, scene, "handling", "arr")
    tap(app, "right")  # only ARR changes
    stored = tomllib.loads(app.settings_file.read_text("utf-8"))["handling"]
    assert (stored["das"], stored["arr"]) == (100, 1)  # was: das = 50, the override written into the file
    assert app.settings.handling.das == 50  # still in effect
    _go_to(app, scene, "handling", "das")
    assert "50 ms  (set by STACKCOACH_HANDLING__DAS)" in drawn.of(app)
    tap(app, "right")
    refusal = "DAS is set by STACKCOACH_HANDLING__DAS; unset that variable to change it here"
    assert scene.status == (refusal, R.BAD)
    assert app.settings.handling.das == 50
    _go_to(app, scene, "handling", "unit")
    tap(app, "right")  # converting units would change DAS too: refused
    assert scene.status[1] == R.BAD and app.settings.handling.unit == "ms"
    assert tomllib.loads(app.settings_file.read_text("utf-8"))["handling"]["das"] == 100


def test_hint_toggled_over_an_override_is_not_saved(tmp_path, monkeypatch):
    app = _app_with(tmp_path, monkeypatch, STACKCOACH_AI__HINT_ENABLED="true")
    scene = _open_settings(app)
    _go_to(app, scene, "display", "grid")
    tap(app, "return")  # any save
    assert tomllib.loads(app.settings_file.read_text("utf-8"))["ai"]["hint_enabled"] is False


def test_overridden_keys_cannot_be_rebound_and_survive_restoring_defaults(tmp_path, monkeypatch):
    app = _app_with(tmp_path, monkeypatch, STACKCOACH_KEYS__HOLD='["v"]')
    scene = _open_rebind(app)
    scene.index = scene.items.index("hold")
    tap(app, "return")
    assert not scene.capturing and "set by STACKCOACH_KEYS__HOLD" in scene.status[0]
    tap(app, "backspace")
    assert app.settings.keys.hold == ("v",) and scene.status[1] == R.BAD
    scene.index = scene.items.index("undo")
    tap(app, "backspace")  # undo loses ctrl+z
    scene.index = len(scene.items) - 1
    tap(app, "return")
    assert app.settings.keys.hold == ("v",) and app.settings.keys.undo == ("ctrl+z",)
    stored = tomllib.loads(app.settings_file.read_text("utf-8"))["keys"]
    assert stored["hold"] == ["c", "left shift"]


def test_title_names_environment_problems_as_such(tmp_path, monkeypatch):
    app = _app_with(tmp_path, monkeypatch, STACKCOACH_FOO__BAR="1", STACKCOACH_HANDLING__DAS="lots")
    text = "\n".join(t for t, _ in app.messages())
    assert "Problems reading settings.toml" not in text  # the file is fine
    assert "Ignored STACKCOACH_ environment variables" in text
    assert "STACKCOACH_FOO__BAR is not a Stack Coach setting; ignored" in text
    assert 'STACKCOACH_HANDLING__DAS: expected a number, got "lots"; ignored' in text


def test_title_shows_an_unreadable_file_as_one_message(tmp_path, monkeypatch):
    import random

    app = _app_with(tmp_path, monkeypatch, random.Random(3).randbytes(3000))
    messages = app.messages()
    assert len(messages) == 1, messages
    text, colour = messages[0]
    assert colour == R.BAD and text.startswith("settings.toml could not be read at all")
    assert text.endswith("kept as settings.toml.bak; using the default settings")
    from ui.menus import TitleScene

    drawn = Drawn(monkeypatch)
    app.scenes.push(TitleScene(app))
    assert "upgraded" not in drawn.of(app) and "could not be read at all" in " ".join(drawn.texts)


def test_save_into_a_folder_named_settings_toml_is_an_error(tmp_path, monkeypatch):
    (tmp_path / "settings.toml").mkdir()
    app = _app_with(tmp_path, monkeypatch)
    ((message, colour),) = app.messages()  # one message, not "the rest of your settings were used"
    assert colour == R.BAD and message.startswith("could not read settings.toml: it is a folder, not a file")
    scene = _open_settings(app)
    _go_to(app, scene, "display", "ghost")
    tap(app, "return")
    assert scene.status[1] == R.BAD
    assert "settings.toml is a folder, not a file; nothing was saved" in scene.status[0]
    assert list((tmp_path / "settings.toml").iterdir()) == []


def test_deeply_nested_kick_file_is_refused(app, tmp_path):
    deep = tmp_path / "deep.toml"
    deep.write_text("a = " + "[" * 3000, "utf-8")
    scene = _open_settings(app)
    _go_to(app, scene, "rules", "kick_file")
    tap(app, "return")
    app.dispatch(pygame.event.Event(pygame.TEXTINPUT, text=str(deep)))
    tap(app, "return")  # used to raise RecursionError out of the settings screen
    assert scene.status[1] == R.BAD and "kick file not used" in scene.status[0]
    assert app.settings.rules.kick_file is None and not app.settings_file.exists()


@pytest.mark.parametrize("suffix", [".toml", ".properties"])
def test_game_starts_with_a_deeply_nested_kick_file_in_settings(tmp_path, monkeypatch, suffix):
    """The kick file named in settings.toml is read when a game starts: a file that nests 3,000 deep falls
    back to the rotation system with a message instead of crashing the game."""
    from ui.modes import ZEN
    from ui.play import PlayScene

    deep = tmp_path / f"deep{suffix}"
    deep.write_text("a = " + "[" * 3000, "utf-8")
    app = _app_with(tmp_path, monkeypatch, f"schema_version = 1\n[rules]\nkick_file = {str(deep)!r}\n")
    assert app.settings.rules.kick_file == str(deep)
    scene = PlayScene(app, ZEN)
    app.scenes.push(scene)
    assert scene.game.rules.rotation.name.lower() == "srs"
    assert any("could not be loaded" in p and "using srs" in p for p in scene.problems), scene.problems
    app.draw(app.screen)


def test_long_kick_file_error_is_one_short_status_line(app, tmp_path):
    bad = tmp_path / "bad.properties"
    bad.write_text("x=" + "[" * 3000, "utf-8")
    scene = _open_settings(app)
    _go_to(app, scene, "rules", "kick_file")
    tap(app, "return")
    app.dispatch(pygame.event.Event(pygame.TEXTINPUT, text=str(bad)))
    tap(app, "return")
    assert scene.status[1] == R.BAD and scene.status[0].startswith("kick file not used")
    assert len(scene.status[0]) <= 160


@pytest.mark.parametrize(
    "content",
    [b"[" * 3000, b"a = " + b"[" * 3000, b"x = " + b"9" * 5000, b"\x00\xff" * 500, b"[\n" * 3000],
    ids=["nested", "nested-array", "huge-int", "nul-and-bad-utf8", "nested-lines"],
)
def test_app_starts_whatever_the_settings_file_holds(tmp_path, monkeypatch, content):
    """A settings file used to be able to stop the app on every start (RecursionError): now the title screen
    opens with the default settings, one message, and an exact copy of the file."""
    from ui.menus import TitleScene

    app = _app_with(tmp_path, monkeypatch, content)
    assert app.settings == type(app.settings)()
    ((message, colour),) = app.messages()
    assert colour == R.BAD and "settings.toml could not be read at all" in message
    assert (tmp_path / "settings.toml.bak").read_bytes() == content
    app.scenes.push(TitleScene(app))
    app.draw(app.screen)


def test_the_lock_and_finesse_rows_say_what_they_do(app, monkeypatch):
    """The line under the chosen row, as drawn: lock delay, start level and finesse explain themselves, and the lock
    mode's help names the move-reset limit the game uses (set to 10 here), not a fixed 15."""
    from settings import change

    assert app.update_settings(change(app.settings, "rules", move_reset_limit=10)) is None
    drawn = Drawn(monkeypatch)
    scene = _open_settings(app)
    _go_to(app, scene, "rules", "lock_delay_mode")
    assert "moves reset the lock timer up to 10 times" in drawn.of(app)
    for group, field, words in (
        ("rules", "lock_delay", "before it locks"),
        ("rules", "start_level", "The level Marathon starts at"),
        ("display", "show_finesse", "more key presses than the fewest"),
    ):
        _go_to(app, scene, group, field)
        assert words in drawn.of(app)
