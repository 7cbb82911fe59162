"""Tests for the settings package: round trips, every kind of bad file, env overrides, keys, migration."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st
from pydantic import ValidationError

import settings as settings_pkg
from settings import (
    BUTTONS,
    CURRENT_SCHEMA,
    MIGRATIONS,
    HandlingSettings,
    HandlingTicks,
    KeySettings,
    Settings,
    SettingsError,
    change,
    load_settings,
    rebind,
    save_settings,
    settings_path,
)

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No test sees the developer's STACKCOACH_* variables or touches the real config folder."""
    for name in list(os.environ):
        if name.upper().startswith("STACKCOACH_"):
            monkeypatch.delenv(name)
    folder = tmp_path / "config"
    monkeypatch.setenv("STACKCOACH_CONFIG_DIR", str(folder))
    return folder


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "settings.toml"


def write(path: Path, text: str) -> bytes:
    data = text.encode("utf-8")
    path.write_bytes(data)
    return data


def custom_settings() -> Settings:
    """Settings with a non-default value in every group (and the awkward types: None, floats, chords)."""
    base = Settings()
    updated = base.model_copy(
        update={
            "rules": base.rules.model_copy(
                update={
                    "randomizer": "14bag",
                    "kick_file": "kicks/my srs.json",
                    "fixed_gravity": 0.0166,
                    "previews": 3,
                }
            ),
            "handling": HandlingSettings(unit="frames", das=7.5, arr=1, sdf=20, dcd=2),
            "display": base.display.model_copy(update={"scale": 1.25, "window_size": (1920, 1080), "skin": "café"}),
            "audio": base.audio.model_copy(update={"mute": True, "sfx_volume": 35}),
            "ai": base.ai.model_copy(update={"engine": "mcts", "autoplay_pps": 0, "hint_enabled": True}),
        }
    )
    return rebind(updated, "undo", ["ctrl+z", "backspace"])


# --- defaults and the model -------------------------------------------------------------------------------


def test_defaults_follow_the_issue() -> None:
    s = Settings()
    assert s.schema_version == CURRENT_SCHEMA == 1
    assert (s.rules.randomizer, s.rules.rotation, s.rules.previews, s.rules.lock_delay) == (
        "7bag",
        "srs",
        5,
        30,
    )
    assert (s.rules.move_reset_limit, s.rules.are, s.rules.line_clear_delay) == (15, 0, 0)
    assert (s.handling.unit, s.handling.das, s.handling.arr, s.handling.sdf, s.handling.dcd) == (
        "ms",
        133,
        0,
        "instant",
        0,
    )
    assert s.keys.hard_drop == ("space",) and s.keys.rotate_cw == ("up", "x") and s.keys.hold == ("c", "left shift")
    assert s.keys.undo == ("ctrl+z",) and s.keys.redo == ("ctrl+y",) and s.keys.toggle_autoplay == ("f2",)
    assert s.ai.weights == "modern" and s.ai.think_budget_ms == 15
    assert set(BUTTONS) == set(KeySettings.model_fields) and len(BUTTONS) == 14


def test_handling_to_ticks() -> None:
    assert HandlingSettings().to_ticks() == HandlingTicks(das_ticks=7.98, arr_ticks=0.0, dcd_ticks=0.0, sdf=None)
    frames = HandlingSettings(unit="frames", das=10, arr=2, sdf=6, dcd=1).to_ticks()
    assert frames == HandlingTicks(das_ticks=10.0, arr_ticks=2.0, dcd_ticks=1.0, sdf=6.0)
    assert HandlingSettings(das=1000, arr=50).to_ticks().arr_ticks == 3.0
    assert HandlingSettings(sdf=41).sdf == "instant"  # Jstris' "41" means instant


def test_frames_unit_gets_frame_defaults() -> None:
    h = HandlingSettings(unit="frames")
    assert (h.das, h.arr, h.dcd) == (8, 0, 0)
    with pytest.raises(ValidationError, match=r"allowed 0\.\.60 frames"):
        HandlingSettings(unit="frames", das=133)


def test_settings_package_is_plain_data() -> None:
    code = (
        "import sys, settings\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in {'pygame', 'game', 'ai', 'ui'})\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True)


# --- round trip and saving ------------------------------------------------------------------------------


def test_round_trip_is_exact(path: Path) -> None:
    original = custom_settings()
    save_settings(original, path)
    result = load_settings(path)
    assert result.problems == [] and result.backup_path is None
    assert result.settings == original
    first = path.read_bytes()
    save_settings(result.settings, path)
    assert path.read_bytes() == first  # saving what was loaded changes nothing
    assert "kick_file" not in Settings().model_dump(exclude_none=True)["rules"]


@hyp_settings(max_examples=40, deadline=None)
@given(
    gravity=st.floats(0, 20, allow_nan=False),
    das=st.floats(0, 1000, allow_nan=False),
    scale=st.floats(0.5, 3.0, allow_nan=False),
    skin=st.text(st.characters(categories=["L", "Nd"]), min_size=1, max_size=12).map(lambda s: s + " x-y_z"),
)
def test_round_trip_floats_and_text(tmp_path_factory: pytest.TempPathFactory, gravity, das, scale, skin) -> None:
    path = tmp_path_factory.mktemp("rt") / "settings.toml"
    original = change(Settings(), "rules", fixed_gravity=gravity)
    original = change(change(original, "handling", das=das), "display", scale=scale, skin=skin)
    save_settings(original, path)
    result = load_settings(path)
    assert result.problems == []
    assert result.settings == original


def test_save_is_atomic_and_leaves_no_temp_files(path: Path) -> None:
    save_settings(Settings(), path)
    save_settings(custom_settings(), path)
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.toml"]
    assert tomllib.loads(path.read_text("utf-8"))["schema_version"] == CURRENT_SCHEMA


def test_failed_save_keeps_old_file_and_cleans_up(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    save_settings(Settings(), path)
    before = path.read_bytes()

    def broken_replace(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        save_settings(custom_settings(), path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.toml"]


def test_save_backs_up_a_file_it_could_not_read_cleanly(path: Path) -> None:
    hand_edited = write(path, "schema_version = 1\n[audio]\nmute = true\nmy_note = 'keep me'\n")
    save_settings(Settings(), path)
    assert path.with_name("settings.toml.bak").read_bytes() == hand_edited
    save_settings(custom_settings(), path)  # replacing a file it wrote itself needs no backup
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.toml", "settings.toml.bak"]


def test_default_location_honours_config_dir_env(isolated_env: Path) -> None:
    assert settings_path() == isolated_env / "settings.toml"
    written = save_settings(custom_settings())  # creates the folder
    assert written == isolated_env / "settings.toml"
    assert load_settings().settings == custom_settings()
    assert settings_path(isolated_env) == written  # a folder means the file inside it


def test_default_location_falls_back_to_platformdirs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("STACKCOACH_CONFIG_DIR")
    seen = []

    def fake_user_config_dir(app: str) -> str:
        seen.append(app)
        return str(tmp_path / "platform")

    monkeypatch.setattr(settings_pkg.store.platformdirs, "user_config_dir", fake_user_config_dir)
    assert settings_path() == tmp_path / "platform" / "settings.toml" and seen == ["stackcoach"]


# --- loading bad files ----------------------------------------------------------------------------------


def test_missing_file_gives_defaults_silently(path: Path) -> None:
    result = load_settings(path)
    assert result.settings == Settings() and result.problems == [] and result.backup_path is None
    assert not path.exists()


def test_truncated_file_keeps_what_it_can(path: Path) -> None:
    save_settings(custom_settings(), path)
    text = path.read_text("utf-8")
    cut = text.index("[audio]") + len("[audio]\nmaster_volume = ")  # ends mid-assignment
    original = write(path, text[:cut])
    result = load_settings(path)
    assert result.backup_path == path.with_name("settings.toml.bak")
    assert result.backup_path.read_bytes() == original
    line = text[:cut].count("\n") + 1
    assert any(
        p.startswith(f"settings.toml is not valid TOML (line {line}): ") and "kept as settings.toml.bak" in p
        for p in result.problems
    ), result.problems
    kept = custom_settings()
    assert result.settings.rules == kept.rules and result.settings.handling == kept.handling
    assert result.settings.display == kept.display and result.settings.keys == kept.keys
    assert result.settings.audio == Settings().audio  # the group after the cut is lost, nothing else
    assert path.read_bytes() == original  # loading never rewrites the player's file


def test_broken_line_in_the_middle_is_skipped(path: Path) -> None:
    original = write(
        path,
        "schema_version = 1\n[handling]\ndas = 1 00\narr = 2\n[audio\nmute = true\n[display]\nghost = false\n",
    )
    result = load_settings(path)
    assert result.backup_path.read_bytes() == original
    assert result.settings.handling.arr == 2 and result.settings.handling.das == 133
    assert result.settings.display.ghost is False
    assert result.settings.audio.mute is False  # keys under a broken header are not guessed into another table
    assert "skipped lines 3, 5 and read the rest" in result.problems[0]


def test_duplicate_key_keeps_the_first(path: Path) -> None:
    write(path, "schema_version = 1\n[rules]\npreviews = 2\npreviews = 6\nhold = false\n")
    result = load_settings(path)
    assert (result.settings.rules.previews, result.settings.rules.hold) == (2, False)
    assert result.problems[0].startswith("settings.toml is not valid TOML (line 4): Cannot overwrite a value")


def test_wrong_types_keep_the_other_fields(path: Path) -> None:
    original = write(
        path,
        'schema_version = 1\n[handling]\ndas = "fast"\narr = 2\n[rules]\npreviews = "5"\nhold = false\n'
        '[display]\nghost = "yes"\ngrid = false\n[audio]\nmaster_volume = 5.0\nsfx_volume = 40\n'
        "[ai]\nthink_budget_ms = true\nbeam_width = 16\n",
    )
    result = load_settings(path)
    s = result.settings
    assert (s.handling.das, s.handling.arr) == (133, 2)
    assert (s.display.ghost, s.display.grid) == (True, False)
    assert (s.audio.master_volume, s.audio.sfx_volume) == (80, 40)
    assert (s.ai.think_budget_ms, s.ai.beam_width) == (15, 16)
    assert (s.rules.previews, s.rules.hold) == (5, False)
    assert 'rules.previews: expected a whole number, got "5"; using 5' in result.problems  # no guessing
    assert 'handling.das: expected a number, got "fast"; using 133' in result.problems
    assert 'display.ghost: expected true or false, got "yes"; using true' in result.problems
    assert "audio.master_volume: expected a whole number, got 5.0; using 80" in result.problems
    assert "ai.think_budget_ms: expected a whole number, got true; using 15" in result.problems
    assert result.backup_path.read_bytes() == original


def test_unknown_keys_are_reported_and_dropped(path: Path) -> None:
    write(path, "schema_version = 1\ntheme = 'dark'\n[rules]\nfoo = 1\npreviews = 4\n[plugins]\nx = 1\n")
    result = load_settings(path)
    assert "unknown key 'rules.foo' ignored" in result.problems
    assert "unknown key 'theme' ignored" in result.problems
    assert "unknown key 'plugins.x' ignored" in result.problems
    assert result.settings.rules.previews == 4
    assert result.backup_path is not None and "foo" in result.backup_path.read_text("utf-8")
    save_settings(result.settings, path)
    saved = tomllib.loads(path.read_text("utf-8"))
    assert "foo" not in saved["rules"] and "theme" not in saved and "plugins" not in saved


def test_non_utf8_file(path: Path) -> None:
    original = b'schema_version = 1\n# caf\xe9\n[display]\nskin = "caf\xe9"\nghost = false\n[audio]\nmute = true\n'
    path.write_bytes(original)
    result = load_settings(path)
    assert result.backup_path.read_bytes() == original
    assert result.problems[0].startswith("settings.toml is not valid UTF-8 text (line 2")
    assert "kept as settings.toml.bak" in result.problems[0]
    assert "display.skin: could not be read (not valid UTF-8); using the default" in result.problems
    assert result.settings.display.skin == "default"
    assert result.settings.display.ghost is False and result.settings.audio.mute is True


def test_binary_garbage_gives_defaults_and_a_backup(path: Path) -> None:
    original = bytes(range(256)) * 4
    path.write_bytes(original)
    result = load_settings(path)
    assert result.settings == Settings()
    assert result.backup_path.read_bytes() == original
    assert result.problems


def test_out_of_range_message_names_the_range(path: Path) -> None:
    write(
        path,
        "schema_version = 1\n[handling]\ndas = 99999\narr = 5\n[rules]\nlock_delay = 0\n",
    )
    result = load_settings(path)
    assert "handling.das: 99999 is out of range (allowed 0..1000 ms); using 133" in result.problems
    assert "rules.lock_delay: 0 is out of range (allowed 1..600 ticks); using 30" in result.problems
    assert result.settings.handling.arr == 5  # a bad handling.das keeps the rest of handling
    assert result.problems[-1] == "settings.toml had problems; the original is kept as settings.toml.bak"


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("rules.previews", "7", "7 is out of range (allowed 0..6)"),
        ("rules.fixed_gravity", "20.5", "20.5 is out of range (allowed 0..20 cells/tick)"),
        ("rules.randomizer", '"8bag"', "\"8bag\" is not one of '7bag', '14bag', 'random', 'nes' or 'tgm'"),
        ("handling.sdf", "0", 'out of range (allowed 1..40, or "instant")'),
        ("display.scale", "3.5", "3.5 is out of range (allowed 0.5..3.0)"),
        ("display.window_size", "[100, 100]", "out of range"),
        ("audio.master_volume", "101", "101 is out of range (allowed 0..100 %)"),
        ("ai.think_budget_ms", "0", "0 is out of range (allowed 1..5000 ms)"),
        ("ai.autoplay_pps", "0.5", "allowed 1..60, or 0 for as fast as possible"),
        ("ai.weights", '"../etc"', "is not a valid name"),
        ("display.skin", '"..\\\\evil"', "is not a valid name"),
        ("keys.hold", '["hyper+x"]', "unknown modifier 'hyper'"),
    ],
)
def test_each_range_is_enforced(path: Path, field: str, value: str, message: str) -> None:
    group, key = field.split(".")
    write(path, f"schema_version = 1\n[{group}]\n{key} = {value}\n")
    result = load_settings(path)
    assert any(p.startswith(f"{field}: ") and message in p for p in result.problems), result.problems
    assert getattr(getattr(result.settings, group), key) == getattr(getattr(Settings(), group), key)


def test_group_that_is_not_a_table(path: Path) -> None:
    original = write(
        path,
        'schema_version = 1\nhandling = 5\nkeys = "wasd"\n[[rules]]\npreviews = 1\n[audio]\nmute = true\n',
    )
    result = load_settings(path)
    assert "handling: expected a table [handling], got 5; using the defaults for [handling]" in result.problems
    assert any(p.startswith("keys: expected a table") for p in result.problems)
    assert any(p.startswith("rules: expected a table") for p in result.problems)
    assert result.settings.audio.mute is True
    assert result.backup_path.read_bytes() == original


def test_newer_schema_keeps_a_backup_and_loads_what_it_can(path: Path) -> None:
    original = write(path, "schema_version = 2\n[handling]\ndas = 90\nhyperdas = 3\n[telemetry]\non = true\n")
    result = load_settings(path)
    assert result.backup_path.read_bytes() == original
    assert "written by a newer Stack Coach (settings version 2" in result.problems[0]
    assert "unknown key 'handling.hyperdas' ignored" in result.problems
    assert "unknown key 'telemetry.on' ignored" in result.problems
    assert result.settings.handling.das == 90 and result.settings.schema_version == CURRENT_SCHEMA


def test_bad_schema_version_is_reported(path: Path) -> None:
    write(path, 'schema_version = "one"\n[audio]\nmute = true\n')
    result = load_settings(path)
    assert result.problems[0].startswith('schema_version: "one" is not a version number')
    assert result.settings.audio.mute is True and result.backup_path is not None


def test_backups_never_clobber_older_ones(path: Path) -> None:
    older = path.with_name("settings.toml.bak")
    older.write_bytes(b"an older backup")
    first = write(path, "schema_version = 1\n[rules]\nnope = 1\n")
    assert load_settings(path).backup_path == path.with_name("settings.toml.bak.1")
    assert load_settings(path).backup_path == path.with_name("settings.toml.bak.1")  # same bytes: reused
    second = write(path, "schema_version = 1\n[rules]\nnope = 2\n")
    assert load_settings(path).backup_path == path.with_name("settings.toml.bak.2")
    assert older.read_bytes() == b"an older backup"
    assert path.with_name("settings.toml.bak.1").read_bytes() == first
    assert path.with_name("settings.toml.bak.2").read_bytes() == second


def test_failed_backup_is_reported_loudly(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_space(target: Path, content: bytes) -> Path:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(settings_pkg.store, "backup_file", no_space)
    original = write(path, "schema_version = 1\n[audio\nmute = true\n")
    result = load_settings(path)
    assert result.backup_path is None
    assert "could not keep a copy of the original (No space left on device)" in result.problems[0]
    assert path.read_bytes() == original


def test_unreadable_path_is_reported_not_raised(path: Path) -> None:
    path.mkdir()  # a folder where the file should be: settings_path() picks settings.toml inside it
    (path / "settings.toml").mkdir()
    result = load_settings(path)
    assert result.settings == Settings() and result.problems and result.problems[0].startswith("could not read")


def test_valid_file_with_bom_loads_cleanly(path: Path) -> None:
    path.write_bytes(b"\xef\xbb\xbfschema_version = 1\n[audio]\nmute = true\n")
    result = load_settings(path)
    assert result.problems == [] and result.backup_path is None and result.settings.audio.mute is True


# --- environment overrides ------------------------------------------------------------------------------


def test_env_overrides_the_file(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(path, "schema_version = 1\n[handling]\ndas = 150\narr = 2\n[audio]\nmute = false\n")
    monkeypatch.setenv("STACKCOACH_HANDLING__DAS", "100")
    monkeypatch.setenv("STACKCOACH_AUDIO__MUTE", "true")
    monkeypatch.setenv("STACKCOACH_KEYS__HOLD", '["v", "Left Shift"]')
    result = load_settings(path)
    assert result.problems == [] and result.backup_path is None
    s = result.settings
    assert (s.handling.das, s.handling.arr, s.audio.mute) == (100, 2, True)
    assert s.keys.hold == ("v", "left shift")
    assert "handling.das = 100 (from STACKCOACH_HANDLING__DAS)" in result.notices
    # Plain construction reads the environment too, and it wins over values passed in.
    assert Settings().handling.das == 100
    assert Settings(handling={"das": 50, "arr": 3}).handling.das == 100
    assert Settings(handling={"das": 50, "arr": 3}).handling.arr == 3


def test_bad_env_override_is_ignored_with_a_message(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(path, "schema_version = 1\n[handling]\ndas = 150\n[display]\nscale = 2.0\n")
    monkeypatch.setenv("STACKCOACH_HANDLING__DAS", "lots")
    monkeypatch.setenv("STACKCOACH_DISPLAY__SCALE", "9")
    monkeypatch.setenv("STACKCOACH_DISPLAY__GHOST", "false")
    monkeypatch.setenv("STACKCOACH_AUDIO__LOUDNESS", "11")
    monkeypatch.setenv("STACKCOACH_KEYS__HOLD", '["z"]')  # z already rotates ccw
    result = load_settings(path)
    s = result.settings
    assert (s.handling.das, s.display.scale, s.display.ghost) == (150, 2.0, False)
    assert s.keys == KeySettings()
    assert 'STACKCOACH_HANDLING__DAS: expected a number, got "lots"; ignored' in result.problems
    assert 'STACKCOACH_DISPLAY__SCALE: "9" is out of range (allowed 0.5..3.0); ignored' in result.problems
    assert "STACKCOACH_AUDIO__LOUDNESS: unknown setting 'audio.loudness'; ignored" in result.problems
    assert 'STACKCOACH_KEYS__HOLD ignored: key "z" is bound to both rotate_ccw and hold' in result.problems
    assert result.backup_path is None  # the file itself is fine


def test_malformed_env_list_is_reported(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STACKCOACH_KEYS__HOLD", "[not json")
    monkeypatch.setenv("STACKCOACH_AUDIO__MUTE", "1")
    result = load_settings(path)
    assert result.settings.keys == KeySettings() and result.settings.audio.mute is True  # the rest still applies
    assert result.problems[0].startswith("STACKCOACH_KEYS__HOLD ignored: not valid JSON")


# --- key bindings ---------------------------------------------------------------------------------------


def test_change_validates_like_the_file() -> None:
    s = change(Settings(), "audio", mute=True, sfx_volume=30)
    assert (s.audio.mute, s.audio.sfx_volume) == (True, 30)
    with pytest.raises(SettingsError, match=r"handling\.das: 5000 is out of range \(allowed 0\.\.1000 ms\)"):
        change(s, "handling", das=5000)
    with pytest.raises(SettingsError, match="unknown settings group"):
        change(s, "sound", mute=True)
    with pytest.raises(SettingsError, match=r"display\.skin: .* is not a valid name"):
        change(s, "display", skin="../../etc")


def test_rebind_refuses_conflicts_naming_both_buttons() -> None:
    s = Settings()
    with pytest.raises(SettingsError) as caught:
        rebind(s, "hold", ["Z"])
    message = str(caught.value)
    assert '"z"' in message and "rotate_ccw" in message and "hold" in message
    with pytest.raises(SettingsError, match="unknown button"):
        rebind(s, "jump", ["j"])
    with pytest.raises(SettingsError, match="cannot be empty"):
        rebind(s, "hold", [" "])


def test_rebind_returns_a_new_settings() -> None:
    s = Settings()
    changed = rebind(s, "hold", ["Shift + C", "c", "v"])
    assert changed.keys.hold == ("shift+c", "c", "v")
    assert s.keys.hold == ("c", "left shift")  # the original is untouched
    assert rebind(changed, "rotate_cw", "x").keys.rotate_cw == ("x",)
    assert rebind(s, "hold", []).keys.hold == ()
    assert changed.keys.button_for("SHIFT+c") == "hold"


def test_key_settings_validator_refuses_conflicts() -> None:
    with pytest.raises(ValidationError, match='key "space" is bound to both hard_drop and pause'):
        KeySettings(hard_drop=["space"], pause=["space"])
    # A button left out keeps its defaults minus keys claimed elsewhere, so this is no conflict:
    assert KeySettings(hold=["a"]).rotate_180 == ()


def test_conflict_in_file_keeps_the_first_button(path: Path) -> None:
    write(path, 'schema_version = 1\n[keys]\nrotate_ccw = ["z"]\nhold = ["z", "c"]\nhard_drop = ["space"]\n')
    result = load_settings(path)
    assert result.settings.keys.rotate_ccw == ("z",) and result.settings.keys.hold == ("c",)
    assert 'keys: key "z" is bound to both rotate_ccw and hold; kept it on rotate_ccw' in result.problems
    assert result.backup_path is not None


# --- migration ------------------------------------------------------------------------------------------

V0_FILE = """\
volume = 70
ghost = false

[controls]
das = 10
arr = 2
soft_drop = 0
left = "a"
right = "d"
hold = "left shift"
ccw = "q"
macro = "x"
"""


def test_migrations_cover_every_older_version() -> None:
    assert sorted(MIGRATIONS) == list(range(CURRENT_SCHEMA))


def test_migration_from_v0(path: Path) -> None:
    original = write(path, V0_FILE)
    result = load_settings(path)
    s = result.settings
    assert result.migrated_from == 0
    assert result.backup_path.read_bytes() == original
    assert any("upgraded from settings version 0 to 1" in n for n in result.notices)
    assert s.handling == HandlingSettings(unit="frames", das=10, arr=2, sdf="instant", dcd=0)
    assert (s.keys.move_left, s.keys.move_right, s.keys.hold, s.keys.rotate_ccw) == (
        ("a",),
        ("d",),
        ("left shift",),
        ("q",),
    )
    assert s.keys.rotate_180 == ()  # its default "a" now moves left
    assert s.audio.master_volume == 70 and s.display.ghost is False
    assert result.problems == ["unknown key 'controls.macro' ignored"]  # leftovers are reported, not lost
    save_settings(s, path)
    again = load_settings(path)
    assert again.settings == s and again.migrated_from is None and again.problems == []


def test_failing_migration_is_reported(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(data: dict) -> dict:
        raise KeyError("boom")

    monkeypatch.setitem(MIGRATIONS, 0, broken)
    write(path, "[audio]\nmute = true\n")
    result = load_settings(path)
    assert any(p.startswith("could not upgrade settings from version 0") for p in result.problems)
    assert result.settings.audio.mute is True and result.backup_path is not None
