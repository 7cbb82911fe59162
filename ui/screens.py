"""The screens the app can open, made for its services: the one module that imports every scene module.

Scenes open one another through `app.screens` (`ui.services.Screens`) instead of importing each other's
modules, so the title, the game, its pause and results menus and the practice menus form no import cycle.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ui.menus import PauseScene, ResultsScene, StatsScene, TitleScene
from ui.pc_menu import PCPracticeScene
from ui.play import PlayScene
from ui.review import ReviewScene
from ui.settings_screen import SettingsScene
from ui.setup_menu import SetupMenuScene

if TYPE_CHECKING:
    from ui.modes import Mode
    from ui.play_state import StartPosition
    from ui.services import Services
    from ui.store import SaveOutcome


class SceneFactory:
    """`ui.services.Screens` with the real scene classes."""

    def __init__(self, services: Services) -> None:
        self.services = services

    def title(self) -> TitleScene:
        return TitleScene(self.services)

    def play(self, mode: Mode, start: StartPosition | None = None, seed: int | None = None) -> PlayScene:
        return PlayScene(self.services, mode, start, seed)

    def pause(self, play: PlayScene) -> PauseScene:
        return PauseScene(self.services, play)

    def results(self, play: PlayScene, outcome: SaveOutcome | None, problem: str | None) -> ResultsScene:
        return ResultsScene(self.services, play, outcome, problem)

    def settings(self, note: str = "") -> SettingsScene:
        return SettingsScene(self.services, note=note)

    def stats(self) -> StatsScene:
        return StatsScene(self.services)

    def pc_practice(self) -> PCPracticeScene:
        return PCPracticeScene(self.services)

    def setup_practice(self) -> SetupMenuScene:
        return SetupMenuScene(self.services)

    def review(self, replay_text: str, *, game_id: int | None = None, title: str = "") -> ReviewScene:
        return ReviewScene(self.services, replay_text, game_id=game_id, title=title)
