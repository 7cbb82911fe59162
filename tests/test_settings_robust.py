"""Regression tests for the settings loader under hostile input (user test + fuzzing findings): files nothing
can be read from, deep nesting, huge numbers, hundreds of bad lines, a folder where the file should be, failed
backups, environment overrides that must never reach the file, misspelt STACKCOACH_ variables. Ends with a
hypothesis test: the loader never raises, for any bytes."""

from __future__ import annotations

import os
import random
import tempfile
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

import settings as settings_pkg
from settings import (
    GROUPS,
    KeySettings,
    Settings,
    SettingsError,
    change,
    load_settings,
    rebind,
    save_settings,
    to_toml,
    without_overrides,
)
from settings.store import MAX_FILE_BYTES


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in list(os.environ):
        if name.upper().startswith("STACKCOACH_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("STACKCOACH_CONFIG_DIR", str(tmp_path / "config"))


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "settings.toml"


def backups(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if ".bak" in p.name)


def leftovers(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.name.endswith(".tmp"))


def assert_valid(settings: Settings) -> None:
    """Every group validates as the file would be (strictly), and the settings can be written as TOML."""
    for name, model in GROUPS.items():
        model.model_validate(getattr(settings, name).model_dump(), strict=True)
    assert tomllib.loads(to_toml(settings))["schema_version"] == settings.schema_version


# --- a file nothing can be read from: one message ---------------------------------------------------------


def test_random_bytes_give_one_clear_message(path: Path) -> None:
    original = random.Random(7).randbytes(4096)
    path.write_bytes(original)
    result = load_settings(path)
    assert result.unreadable
    assert len(result.problems) == 1, result.problems
    message = result.problems[0]
    assert message.startswith("settings.toml could not be read at all: not valid UTF-8 text (line 1, byte ")
    assert message.endswith("; kept as settings.toml.bak; using the default settings")
    assert result.notices == []  # no "upgraded from settings version 0 to 1" for bytes that were never a file
    assert result.settings == Settings()
    assert path.with_name("settings.toml.bak").read_bytes() == original
    assert path.read_bytes() == original  # the file itself is left alone


def test_file_without_schema_version_is_not_called_an_upgrade(path: Path) -> None:
    """A hand-written file in today's layout without ``schema_version`` loads cleanly: nothing upgraded."""
    path.write_text("[handling]\ndas = 100\n[audio]\nmute = true\n", "utf-8")
    result = load_settings(path)
    assert (result.problems, result.notices, result.backup_path) == ([], [], None)
    assert (result.settings.handling.das, result.settings.audio.mute) == (100, True)


def test_v0_file_is_still_reported_as_upgraded(path: Path) -> None:
    path.write_text("volume = 70\n[controls]\ndas = 10\n", "utf-8")
    result = load_settings(path)
    assert result.notices == [
        "settings.toml was upgraded from settings version 0 to 1; the original is kept as settings.toml.bak"
    ]
    assert result.settings.audio.master_volume == 70 and result.settings.handling.das == 10


# --- deep nesting and huge numbers: never an exception --------------------------------------------------


@pytest.mark.parametrize(
    "nasty",
    ["[" * 3000, "a = " + "[" * 3000, "[\n" * 3000, "a = " + "{ b = " * 3000, "[" + "a." * 3000 + "a]"],
    ids=["headers", "array", "array-lines", "inline-tables", "dotted-header"],
)
def test_deeply_nested_file_never_stops_the_game(path: Path, nasty: str) -> None:
    original = nasty.encode("utf-8")
    path.write_bytes(original)
    result = load_settings(path)  # used to raise RecursionError on every start
    assert result.problems and result.settings == Settings()
    assert result.backup_path is not None and result.backup_path.read_bytes() == original
    save_settings(result.settings, path)  # the next save works too, and keeps the damaged file's copy
    assert load_settings(path).problems == []
    assert result.backup_path.read_bytes() == original


def test_deep_nesting_loses_only_its_own_line(path: Path) -> None:
    path.write_text("schema_version = 1\n[audio]\nmaster_volume = 7\nbad = " + "[" * 3000 + "\nmute = true\n", "utf-8")
    result = load_settings(path)
    assert (result.settings.audio.master_volume, result.settings.audio.mute) == (7, True)
    assert any("(line 4): nested too deeply" in p for p in result.problems), result.problems


def test_deep_tables_in_a_non_utf8_file_keep_the_valid_values(path: Path) -> None:
    """Found by the fuzz test: a header 3,000 tables deep in a file that is also not UTF-8 overflowed the
    recursive clean-up and lost every value."""
    deep = b"[" + b"a." * 3000 + b'a]\nx = "\xff"\n'
    valid = b"schema_version = 1\n[audio]\nmaster_volume = 7\n"
    path.write_bytes(valid + deep + b"[" + b"a." * 3000 + b"b]\n")
    result = load_settings(path)
    assert not result.unreadable and result.settings.audio.master_volume == 7
    assert "unknown key 'a.a' ignored" in result.problems


def test_huge_integer_is_skipped_and_the_rest_kept(path: Path) -> None:
    path.write_text(f"schema_version = 1\n[audio]\nsfx_volume = {'9' * 5000}\nmaster_volume = 7\n", "utf-8")
    result = load_settings(path)
    assert result.settings.audio.master_volume == 7 and result.settings.audio.sfx_volume == 100
    assert any("(line 3): a number with too many digits" in p for p in result.problems), result.problems


def test_huge_value_is_quoted_short(path: Path) -> None:
    path.write_text(f"schema_version = 1\n[audio]\nmaster_volume = {'9' * 4000}\n", "utf-8")
    result = load_settings(path)
    (message,) = [p for p in result.problems if p.startswith("audio.master_volume")]
    assert len(message) < 200 and "…" in message


# --- however many bad lines -----------------------------------------------------------------------------


def test_valid_values_survive_any_number_of_bad_lines(path: Path) -> None:
    lines = ["schema_version = 1", *(f"garbage line {i}" for i in range(150)), "[audio]", "master_volume = 7"]
    path.write_text("\n".join(lines) + "\n", "utf-8")
    result = load_settings(path)
    assert result.settings.audio.master_volume == 7  # was 80: the parser gave up after 100 bad lines
    (message,) = [p for p in result.problems if "is not valid TOML" in p]
    assert "skipped lines 2, 3, 4" in message and "and 138 more and read the rest" in message


def test_multi_line_key_lists_survive_hundreds_of_bad_lines(path: Path) -> None:
    custom = rebind(change(Settings(), "audio", master_volume=7), "hold", ["v", "left shift"])
    text = to_toml(custom).replace("[keys]\n", "[keys]\n" + "junk\n" * 300 + "%%%\n" * 300)
    path.write_text(text, "utf-8")
    result = load_settings(path)
    assert result.settings.keys.hold == ("v", "left shift")  # a list written over several lines
    assert result.settings.audio.master_volume == 7
    assert result.settings.keys.rotate_cw == KeySettings().rotate_cw


def test_thousands_of_bad_lines_are_read_quickly(path: Path) -> None:
    import time

    body = "".join(f"bad {i}\nalso bad\n" for i in range(20_000))
    path.write_text(f"schema_version = 1\n{body}[audio]\nmaster_volume = 7\n", "utf-8")
    start = time.perf_counter()
    result = load_settings(path)
    assert time.perf_counter() - start < 10
    assert result.problems  # reported, whether read to the end or stopped with "too many unreadable lines"


# --- the file's place -----------------------------------------------------------------------------------


def test_folder_named_settings_toml_is_an_error_and_nothing_is_saved(path: Path) -> None:
    path.mkdir()
    result = load_settings(path)
    assert result.problems[0].startswith("could not read settings.toml: it is a folder, not a file")
    assert result.unreadable and len(result.problems) == 1
    with pytest.raises(IsADirectoryError, match=r"settings\.toml is a folder, not a file; nothing was saved"):
        save_settings(result.settings, path)
    assert list(path.iterdir()) == []  # the save used to "succeed" into settings.toml/settings.toml


def test_a_folder_still_means_the_file_inside_it(tmp_path: Path) -> None:
    folder = tmp_path / "my settings"
    folder.mkdir()
    written = save_settings(change(Settings(), "audio", mute=True), folder)
    assert written == folder / "settings.toml" and load_settings(folder).settings.audio.mute is True


def test_file_too_large_is_left_alone_and_not_saved_over(path: Path) -> None:
    original = b"# " + b"x" * (MAX_FILE_BYTES + 10) + b"\n"
    path.write_bytes(original)
    result = load_settings(path)
    assert result.unreadable and len(result.problems) == 1 and "too large" in result.problems[0]
    assert result.settings == Settings()
    with pytest.raises(OSError, match="too large to be a settings file"):
        save_settings(result.settings, path)
    assert path.read_bytes() == original


# --- backups are atomic ---------------------------------------------------------------------------------


def test_failed_backup_write_leaves_no_partial_backup(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def disk_full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    original = b"schema_version = 1\n[audio\nmute = true\n" + b"# padding\n" * 500
    path.write_bytes(original)
    monkeypatch.setattr(settings_pkg.store.os, "fsync", disk_full)
    result = load_settings(path)
    assert result.backup_path is None
    assert "could not keep a copy of the original (No space left on device)" in result.problems[0]
    assert backups(path.parent) == [] and leftovers(path.parent) == []  # no truncated .bak, no temp file
    assert path.read_bytes() == original


def test_backup_without_hard_links_is_still_exact(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_links(src: str, dst: str) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(settings_pkg.store.os, "link", no_links)
    path.with_name("settings.toml.bak").write_bytes(b"older")
    original = b"schema_version = 1\n[audio]\nmute = 5\n"
    path.write_bytes(original)
    result = load_settings(path)
    assert result.backup_path == path.with_name("settings.toml.bak.1")
    assert result.backup_path.read_bytes() == original
    assert path.with_name("settings.toml.bak").read_bytes() == b"older" and leftovers(path.parent) == []


# --- environment overrides --------------------------------------------------------------------------------


def test_override_is_never_written_to_the_file(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path.write_text("schema_version = 1\n[handling]\ndas = 100\narr = 2\n", "utf-8")
    monkeypatch.setenv("STACKCOACH_HANDLING__DAS", "50")
    result = load_settings(path)
    assert result.settings.handling.das == 50 and result.file_settings.handling.das == 100
    assert result.overrides == {"handling.das": "STACKCOACH_HANDLING__DAS"}
    changed = change(result.settings, "handling", arr=5)  # the player changes only ARR
    save_settings(without_overrides(changed, result.file_settings, result.overrides), path)
    stored = tomllib.loads(path.read_text("utf-8"))["handling"]
    assert (stored["das"], stored["arr"]) == (100, 5)


def test_override_that_would_leave_a_conflict_is_not_saved(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    monkeypatch.setenv("STACKCOACH_KEYS__HOLD", '["v"]')
    result = load_settings(path)
    assert result.settings.keys.hold == ("v",)
    taken = rebind(result.settings, "undo", ["c"])  # fine while hold is "v"; the file's hold is "c"
    with pytest.raises(SettingsError, match=r'key "c" is bound to both .*STACKCOACH_KEYS__HOLD'):
        without_overrides(taken, result.file_settings, result.overrides)


def test_misspelt_variable_is_reported_as_unknown(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STACKCOACH_FOO__BAR", "1")
    monkeypatch.setenv("STACKCOACH_HANDLNG__DAS", "50")
    monkeypatch.setenv("STACKCOACH_SEED", "3")  # a variable the app reads, not a setting: not reported
    monkeypatch.setenv("STACKCOACH_DATA_DIR", str(path.parent))
    monkeypatch.setenv("STACKCOACH_LOG_DIR", str(path.parent))
    monkeypatch.setenv("STACKCOACH_FUZZ_SCALE", "2")
    result = load_settings(path)
    assert result.file_problems == []
    assert len(result.env_problems) == 2, result.env_problems
    assert result.env_problems[0].startswith("STACKCOACH_FOO__BAR is not a Stack Coach setting; ignored")
    assert result.env_problems[1].startswith("STACKCOACH_HANDLNG__DAS is not a Stack Coach setting; ignored")
    assert "RULES, HANDLING, KEYS, DISPLAY, AUDIO, AI" in result.env_problems[0]
    assert result.problems == result.env_problems and result.settings == Settings()


def test_file_and_environment_problems_are_kept_apart(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path.write_text("schema_version = 1\n[audio]\nmaster_volume = 101\n", "utf-8")
    monkeypatch.setenv("STACKCOACH_HANDLING__DAS", "lots")
    result = load_settings(path)
    assert all(p.startswith(("audio.", "settings.toml")) for p in result.file_problems), result.file_problems
    assert result.env_problems == ['STACKCOACH_HANDLING__DAS: expected a number, got "lots"; ignored']
    assert result.problems == result.file_problems + result.env_problems


# --- recovery does not depend on the wording of a library's errors --------------------------------------


def _reworded_toml(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make tomllib fail as before but with a message that names no line or column."""
    real = tomllib.loads

    def loads(text: str, **kwargs):
        try:
            return real(text, **kwargs)
        except tomllib.TOMLDecodeError as error:
            raise tomllib.TOMLDecodeError("das Dokument ist kaputt") from error

    monkeypatch.setattr(tomllib, "loads", loads)


def test_bad_lines_are_skipped_whatever_tomllib_says(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _reworded_toml(monkeypatch)
    path.write_text(
        "schema_version = 1\n[handling]\ndas = 1 00\narr = 2\n[audio\nmute = true\n[display]\nghost = false\n"
        "[keys]\nhold = [\n  'v',\n  'left shift',\n]\n%%%\n[rules]\npreviews = 3\n",
        "utf-8",
    )
    result = load_settings(path)
    s = result.settings
    assert (s.handling.das, s.handling.arr, s.audio.mute, s.display.ghost) == (133, 2, False, False)
    assert (s.keys.hold, s.rules.previews) == (("v", "left shift"), 3)  # read after the bad lines too
    (message,) = [p for p in result.problems if "is not valid TOML" in p]
    assert message.startswith("settings.toml is not valid TOML (line 3): das Dokument ist kaputt;")
    assert "skipped lines 3, 5, 14 and read the rest" in message


def test_brackets_in_strings_and_comments_do_not_join_lines(path: Path) -> None:
    """Where a multi-line value ends comes from the text (brackets outside strings and comments)."""
    path.write_text(
        "schema_version = 1\n[keys]\nhold = [  # a ] in a comment\n  'v',\n  'left shift',\n]\n"
        "bad = '[\nrotate_180 = ['q']\nrotate_cw = [\n  \"]\",\n  'up',\n]\n[display]\n??\nghost = false\n",
        "utf-8",
    )
    result = load_settings(path)
    s = result.settings
    assert (s.keys.hold, s.keys.rotate_180, s.keys.rotate_cw, s.display.ghost) == (
        ("v", "left shift"),
        ("q",),
        ("]", "up"),
        False,
    )
    (message,) = [p for p in result.problems if "is not valid TOML" in p]
    assert "skipped lines 7, 14 and read the rest" in message


def test_unparsable_override_is_found_whatever_the_error_says(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pydantic_settings import EnvSettingsSource
    from pydantic_settings import SettingsError as EnvError

    real = EnvSettingsSource.__call__

    def call(self):
        try:
            return real(self)
        except EnvError as error:
            raise EnvError("something went wrong") from error.__cause__

    monkeypatch.setattr(EnvSettingsSource, "__call__", call)
    monkeypatch.setenv("STACKCOACH_KEYS__HOLD", "[not json")
    monkeypatch.setenv("STACKCOACH_AUDIO__MUTE", "1")
    monkeypatch.setenv("STACKCOACH_KEYS__MOVE_LEFT", '["j"]')
    result = load_settings(path)
    assert result.settings.audio.mute is True and result.settings.keys.move_left == ("j",)
    assert result.settings.keys.hold == KeySettings().hold
    assert (
        [p for p in result.problems if "ignored" in p and "JSON" in p]
        == [p for p in result.problems if p.startswith("STACKCOACH_KEYS__HOLD ignored: not valid JSON")]
        != []
    )


# --- never raises, for any bytes ------------------------------------------------------------------------

_FRAGMENTS = st.sampled_from(
    [
        b"schema_version = 1",
        b"schema_version = 0",
        b"schema_version = 99",
        b"[audio]",
        b"master_volume = 7",
        b"[handling]",
        b'unit = "frames"',
        b"das = 1e999",
        b"[keys]",
        b'hold = ["v", "left shift"]',
        b"hold = [",
        b'"c",',
        b"]",
        b"[controls]",
        b"volume = 70",
        b"[[rules]]",
        b"\x00",
        b"a = \x00",
        b"\xff\xfe\xfd",
        b"\xef\xbb\xbf",
        b'skin = "caf\xe9"',
        b"\r",
        b'"""',
        b"x = {",
    ]
)


@st.composite
def nasty_toml(draw: st.DrawFn) -> bytes:
    """Lines mixing valid settings, broken TOML, deep nesting, huge numbers, NULs and invalid UTF-8."""
    depth = draw(st.integers(1, 4000))
    digits = draw(st.integers(1, 6000))
    special = st.sampled_from(
        [
            b"[" * depth,
            b"a = " + b"[" * depth,
            b"[\n" * depth,
            b"b = " + b"{ c = " * depth,
            b"[" + b"a." * depth + b"a]",
            b"n = " + b"9" * digits,
            b"master_volume = " + b"9" * digits,
            b"x = 1" + b"0" * digits + b".5",
        ]
    )
    parts = draw(st.lists(st.one_of(_FRAGMENTS, special, st.binary(max_size=40)), max_size=25))
    return draw(st.sampled_from([b"\n", b"\r\n", b""])).join(parts)


_SLOW_OK = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture]


def _check_never_raises(content: bytes) -> None:
    with tempfile.TemporaryDirectory(prefix="settings-fuzz-") as folder:
        target = Path(folder) / "settings.toml"
        target.write_bytes(content)
        _check_file(target, content)


def _check_file(target: Path, content: bytes) -> None:
    result = load_settings(target)
    assert_valid(result.settings)
    assert target.read_bytes() == content  # never modified
    if result.file_problems:
        # Whatever was wrong, the exact bytes are kept beside the file...
        assert result.backup_path is not None and result.backup_path.read_bytes() == content
    if result.unreadable:
        # ...and a file nothing could be read from gets one message and the defaults.
        assert len(result.file_problems) == 1 and result.settings == Settings()
        assert "kept as settings.toml.bak" in result.file_problems[0]
    save_settings(result.settings, target)  # and the next save works
    assert load_settings(target).problems == []


@hyp_settings(max_examples=200, deadline=None, suppress_health_check=_SLOW_OK)
@given(st.binary(max_size=2000))
def test_any_bytes_load_without_raising(content: bytes) -> None:
    _check_never_raises(content)


@hyp_settings(max_examples=200, deadline=None, suppress_health_check=_SLOW_OK)
@given(nasty_toml())
def test_nasty_toml_loads_without_raising(content: bytes) -> None:
    _check_never_raises(content)
