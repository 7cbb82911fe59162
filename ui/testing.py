"""Headless helpers for tests and benchmarks: an App on SDL's dummy drivers with its files in a folder.

Import this module before pygame is imported elsewhere so the dummy drivers take effect.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame

if TYPE_CHECKING:
    from ui.app import App

SIZE = (1280, 720)


def make_app(folder: Path, size: tuple[int, int] = SIZE) -> tuple[App, pygame.Surface]:
    """An App whose settings and history live in `folder`, with a dummy window of `size`.

    Returns (app, screen). The caller's environment gets STACKCOACH_CONFIG_DIR / STACKCOACH_DATA_DIR set to
    `folder` (tests should use monkeypatch.setenv first so it is undone).
    """
    from ui.app import App
    from ui.store import HistoryStore

    os.environ["STACKCOACH_CONFIG_DIR"] = str(folder)
    os.environ["STACKCOACH_DATA_DIR"] = str(folder)
    pygame.init()
    screen = pygame.display.set_mode(size)
    app = App(store=HistoryStore(Path(folder) / "history.sqlite3"), size=size)
    return app, screen


def key(app: App, name: str, down: bool = True) -> None:
    """Send a key event by name ('left', 'space', 'ctrl+z') through the app, as the window would."""
    from ui.app import _key_event

    app.dispatch(_key_event(pygame.KEYDOWN if down else pygame.KEYUP, name))


def tap(app: App, name: str) -> None:
    key(app, name, True)
    key(app, name, False)
