"""A keyboard for tests that play as a person would: one button per tick, from a list (a hold pressed on its own
is a list of one) or from a placement's keys (game.executor.KeyExecutor), driving the real app tick by tick."""

from __future__ import annotations

import time

from game.executor import KeyExecutor
from game.handling import Button


class Keys:
    """Stands in for the keyboard: the app reads this tick's buttons here."""

    def __init__(self, app) -> None:
        self.pending: list[Button] = []
        self.executor: KeyExecutor | None = None
        self.scene = None
        app.input.tick_buttons = self.tick_buttons

    def tick_buttons(self) -> Button:
        if self.pending:
            return self.pending.pop(0)
        if self.executor is not None and self.scene is not None:
            buttons = self.executor.buttons(self.scene.game)
            if self.executor.done:
                self.executor = None
            return buttons
        return Button.NONE

    @property
    def idle(self) -> bool:
        return not self.pending and self.executor is None


def run_until(app, condition, timeout_s: float = 60.0) -> bool:
    """Tick the app until `condition()` holds (True) or the time is up (False)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        app.tick()
        if condition():
            return True
        time.sleep(0.001)
    return False


def use_thread_worker(app):
    """The app with the AI worker in a thread (no process start): what the coach tests play against."""
    import ai.pc_service
    import ai.service
    from ai.pc_ahead import ThinkingAhead
    from ui.worker_client import WorkerClient, spawn_thread_worker

    def spawn():
        ai.pc_service.AHEAD = ThinkingAhead()  # a new worker has nothing planned or kept, as a new process
        return spawn_thread_worker(ai.service.handle, ai.service.think_ahead)

    app.worker_factory = lambda: WorkerClient(spawn)
    return app


def choose(app, menu, label: str) -> None:
    """Pick `label` in a menu as the player does: down from the first item until it is selected, then return."""
    from ui.testing import tap

    for _ in range([item.label for item in menu.items].index(label)):
        tap(app, "down")
    tap(app, "return")


def open_stats(app):
    """The Stats screen, opened from the title menu with the keys a player presses, drawn once."""
    from ui.menus import StatsScene, TitleScene

    title = TitleScene(app)
    app.scenes.reset(title)
    choose(app, title.menu, "Stats")
    stats = app.scenes.top
    assert isinstance(stats, StatsScene)
    app.draw(app.screen)
    return stats


def pc_practice(app, seed: int, start=None):
    """PC practice from an empty field (or from `start`, a ui.play_state.StartPosition) pushed on the app, with a
    keyboard of one button per tick: (keys, scene)."""
    from ui.modes import PC_PRACTICE
    from ui.play import PlayScene

    keys = Keys(app)
    scene = PlayScene(app, PC_PRACTICE, start, seed)
    keys.scene = scene
    app.scenes.push(scene)
    return keys, scene


def drop_on_own_spot(app, keys, scene, wanted) -> int | None:
    """Play the piece in play of a game on an empty field (PC practice) on a spot of the player's own for which
    `wanted(piece, cells)` holds (not the panel's advice), one key per tick, hard drop at once; the spot's cells
    (None: the piece has no such spot)."""
    from ai import pc_service
    from ai.pc.search import searcher_for, step_of

    coach, game = scene.coach, scene.game
    assert run_until(app, lambda: pc_answered(coach))
    advised = coach.pc_panel().first_move
    piece, pieces = game.active.piece, game.stats.pieces
    advice = None if advised is None or advised.hold else advised.placement.mask
    own = [
        child
        for child in searcher_for(game.rules, True).gen.children(0, 4, piece)
        if wanted(piece, child.mask) and child.mask != advice
    ]
    if not own:
        return None
    move = pc_service.step_move(game.board, step_of(piece, own[-1], hold=False), game.rules, True)
    keys.executor = KeyExecutor(move.keys)
    assert run_until(app, lambda: game.stats.pieces == pieces + 1 and keys.idle)
    assert game.board.bits == own[-1].mask
    return own[-1].mask


def pc_answered(coach) -> bool:
    """The PC panel shows the worker's final answer for the position in play."""
    return coach.pc_shown is not None and coach.pc_shown.final
