"""What a scene may use of the app: a typed list of services, so scenes do not reach into an untyped app.

`ui.app.App` provides them; tests may hand a scene anything with the same members. Types are imported for the
checker only, so this module adds no import at run time (and no cycle between the scene modules). A scene opens
another one through `screens` (built by `ui.screens`), never by importing its module: that is what keeps the
scene modules free of import cycles (tests/test_layering.py checks it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from pathlib import Path

    from pygame.event import Event

    from settings import Settings
    from ui.input import InputState, KeyMap
    from ui.modes import Mode
    from ui.play import PlayScene
    from ui.play_state import StartPosition
    from ui.scene import Scene, SceneManager
    from ui.sound import Sounds
    from ui.store import GameRecord, HistoryStore, SaveOutcome
    from ui.worker_client import WorkerClient


class Screens(Protocol):
    """Makes each screen for the services it is given; `ui.screens.SceneFactory` is the real one."""

    def title(self) -> Scene: ...

    def play(self, mode: Mode, start: StartPosition | None = None, seed: int | None = None) -> Scene: ...

    def pause(self, play: PlayScene) -> Scene:
        """The pause menu over a running game."""
        ...

    def results(self, play: PlayScene, outcome: SaveOutcome | None, problem: str | None) -> Scene:
        """The end of a run (`outcome`: how saving it went; `problem`: why it could not be saved)."""
        ...

    def settings(self, note: str = "") -> Scene: ...

    def stats(self) -> Scene: ...

    def pc_practice(self) -> Scene:
        """The PC-practice entry menu."""
        ...

    def setup_practice(self) -> Scene:
        """The set-up practice library."""
        ...

    def review(self, replay_text: str, *, game_id: int | None = None, title: str = "") -> Scene:
        """The coach's review of a replay (JSON text)."""
        ...


class Services(Protocol):
    """The app as scenes see it."""

    settings: Settings  # the settings in force (environment overrides included)
    settings_file: Path
    overrides: dict[str, str]  # "group.field" -> the STACKCOACH_ variable that sets it (used, never saved)
    keymap: KeyMap  # virtual buttons for keys and pads
    input: InputState  # the buttons held this tick
    sounds: Sounds
    store: HistoryStore | None  # None: history unavailable (the title says why)
    store_problem: str | None
    scenes: SceneManager
    screens: Screens  # opens other scenes, so scene modules need not import one another
    size: tuple[int, int]
    running: bool

    def worker(self) -> WorkerClient:
        """The AI worker client, started on first use."""
        ...

    def worker_if_started(self) -> WorkerClient | None:
        """The worker client if something started it, without starting it."""
        ...

    def close_worker(self) -> None: ...

    def new_seed(self) -> int: ...

    def messages(self) -> list[tuple[str, tuple[int, int, int]]]:
        """Problems to show on the title screen (settings, history), with their colours."""
        ...

    def store_failed(self, message: str) -> None: ...

    def save_record(self, record: GameRecord) -> tuple[SaveOutcome | None, str | None]: ...

    def save_pc_attempts(self, setup: str, rules: str, attempts: list[tuple[bool, float]]) -> None: ...

    def update_settings(self, settings: Settings) -> str | None:
        """Apply and save new settings; a one-line problem, or None."""
        ...

    def quit(self) -> None: ...

    def dispatch(self, event: Event) -> None: ...

    def tick(self) -> None: ...
