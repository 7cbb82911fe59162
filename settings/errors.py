"""The one exception the settings package raises on purpose."""

from __future__ import annotations


class SettingsError(ValueError):
    """A settings change was refused; ``str(error)`` is a message fit to show the player."""
