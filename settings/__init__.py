"""The player's persistent settings: plain data, no pygame / game / ai / ui imports.

Typical use::

    result = load_settings()            # never raises for a bad file; see result.problems
    settings = rebind(result.settings, "hold", ["c", "left shift"])   # SettingsError on a key conflict
    settings = change(settings, "handling", das=117, arr=0)            # SettingsError if out of range
    save_settings(without_overrides(settings, result.file_settings, result.overrides))  # atomic
    ticks = settings.handling.to_ticks()
"""

from settings.errors import SettingsError
from settings.keys import BUTTONS, KeySettings, find_conflicts, normalize_key, rebind
from settings.migrate import MIGRATIONS, migrate
from settings.model import (
    CURRENT_SCHEMA,
    GROUPS,
    AISettings,
    AudioSettings,
    DisplaySettings,
    HandlingSettings,
    HandlingTicks,
    RulesSettings,
    Settings,
    change,
)
from settings.store import (
    CONFIG_DIR_ENV,
    FILE_NAME,
    LoadResult,
    backup_file,
    config_dir,
    load_settings,
    save_settings,
    settings_path,
    to_toml,
    without_overrides,
)

__all__ = [
    "BUTTONS",
    "CONFIG_DIR_ENV",
    "CURRENT_SCHEMA",
    "FILE_NAME",
    "GROUPS",
    "MIGRATIONS",
    "AISettings",
    "AudioSettings",
    "DisplaySettings",
    "HandlingSettings",
    "HandlingTicks",
    "KeySettings",
    "LoadResult",
    "RulesSettings",
    "Settings",
    "SettingsError",
    "backup_file",
    "change",
    "config_dir",
    "find_conflicts",
    "load_settings",
    "migrate",
    "normalize_key",
    "rebind",
    "save_settings",
    "settings_path",
    "to_toml",
    "without_overrides",
]
