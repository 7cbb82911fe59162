"""Scene routing: the stack itself, and the routes between title, play, pause, settings and results."""

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")


from ui.scene import Scene, SceneManager
from ui.testing import tap


class Probe(Scene):
    def __init__(self, name, transparent=False):
        super().__init__(None)
        self.name, self.transparent, self.log = name, transparent, []

    def on_enter(self):
        self.log.append("enter")

    def on_exit(self):
        self.log.append("exit")

    def update(self):
        self.log.append("update")


def test_push_pop_replace_reset_and_overlays():
    scenes = SceneManager()
    a, b, c = Probe("a"), Probe("b", transparent=True), Probe("c")
    scenes.push(a)
    scenes.push(b)
    assert scenes.top is b and a.log == ["enter", "exit"]
    assert scenes.visible() == [a, b]  # the overlay is drawn over the scene below
    scenes.update()
    assert b.log[-1] == "update" and "update" not in a.log  # only the top scene ticks
    assert scenes.pop() is b and scenes.top is a and a.log[-1] == "enter"
    scenes.replace(c)
    assert scenes.stack == [c] and a.log[-1] == "exit"
    scenes.push(Probe("d"))
    scenes.reset(a)
    assert scenes.stack == [a]
    assert scenes.pop() is a and scenes.pop() is None and scenes.top is None


def test_title_to_play_pause_and_back(app):
    from ui.menus import PauseScene, TitleScene
    from ui.play import PlayScene

    app.scenes.push(TitleScene(app))
    tap(app, "return")  # first item: Zen
    play = app.scenes.top
    assert isinstance(play, PlayScene) and play.mode.key == "zen"
    tap(app, "escape")
    assert isinstance(app.scenes.top, PauseScene)
    assert app.scenes.visible() == [play, app.scenes.top]
    app.draw(app.screen)  # play drawn, then the dimmed pause menu over it
    ticks = play.game.ticks
    app.tick()
    assert play.game.ticks == ticks  # paused: the game does not advance
    tap(app, "escape")
    assert app.scenes.top is play
    app.tick()
    assert play.game.ticks == ticks + 1


def test_pause_settings_overlay_and_quit_to_title(app):
    from ui.menus import PauseScene, TitleScene
    from ui.modes import ZEN
    from ui.play import PlayScene
    from ui.settings_screen import SettingsScene

    app.scenes.push(TitleScene(app))
    app.scenes.push(PlayScene(app, ZEN))
    tap(app, "escape")
    pause = app.scenes.top
    assert isinstance(pause, PauseScene)
    tap(app, "down")
    tap(app, "down")  # Resume, Restart, Settings
    tap(app, "return")
    assert isinstance(app.scenes.top, SettingsScene)
    tap(app, "escape")
    assert app.scenes.top is pause
    pause.menu.index = len(pause.menu.items) - 1  # Quit to title
    tap(app, "return")
    assert len(app.scenes.stack) == 1 and isinstance(app.scenes.top, TitleScene)


def test_sprint_finish_goes_to_results_and_retry(app):
    from ui.menus import ResultsScene
    from ui.modes import SPRINT
    from ui.play import PlayScene

    play = PlayScene(app, SPRINT, seed=3)
    app.scenes.push(play)
    for _ in range(play.countdown):
        app.tick()
    tap(app, "space")
    app.tick()
    assert play.game.stats.pieces == 1
    play.end_reason = "finished"  # as if the 40th line was cleared; the end banner shows for a moment
    for _ in range(61):
        app.tick()
    results = app.scenes.top
    assert isinstance(results, ResultsScene) and len(app.scenes.stack) == 1
    assert results.outcome is not None and results.outcome.record.mode == "sprint"
    app.draw(app.screen)
    for _ in range(30):  # keys do nothing for half a second after the results appear
        app.tick()
    tap(app, "r")  # restart key = retry
    assert isinstance(app.scenes.top, PlayScene) and app.scenes.top is not play
