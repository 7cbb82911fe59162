"""Menu scenes: title, pause overlay, results and stats (the PC-practice entry is in ui.pc_menu)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

import pygame

from ai.protocol import accuracy_text, percent_text
from game.fumen import decode, parse_quiz
from game.pieces import SHAPES, Piece, Rotation
from ui import render as R
from ui.input import pretty_key
from ui.modes import MODES, PC_PRACTICE, SETUP_PRACTICE, Mode, describe_rules, rules_summary
from ui.play_state import ASSIST_NAMES, StartPosition
from ui.playfield import play_layout
from ui.progress import PLOT_RUNS, Series, draw_series, progress_series
from ui.scene import Scene
from ui.store import GameRecord, PcStats, SaveOutcome, StoreUnavailable, has_best

if TYPE_CHECKING:
    from ui.play import PlayScene  # the game paused or ended (ui.play opens these menus through app.screens)
    from ui.services import Services

NAV_UP = (pygame.K_UP, pygame.K_w)
NAV_DOWN = (pygame.K_DOWN, pygame.K_s)
ACCEPT = (pygame.K_RETURN, pygame.K_KP_ENTER, pygame.K_SPACE)
RESULTS_GRACE_TICKS = 30  # the results screen ignores keys and clicks this long (keys mashed at the end of a run)
ENDINGS = {"finished": "Finished!", "topout": "Topped out", "ended": "Run ended"}


@dataclass
class Item:
    label: str
    action: Callable[[], object]  # what it returns is not used (scenes.pop gives the scene it removed)
    detail: str = ""


class Menu:
    """A vertical list navigated with arrows / W S (stopping at the ends), Enter or Space to choose, or the
    mouse."""

    def __init__(
        self, items: list[Item], x: float, y: float, width: float = 360, step: float = 52, size: float = 40
    ) -> None:
        self.items, self.index = items, 0
        self.x, self.y, self.width, self.step, self.size = x, y, width, step, size
        self._rects: list[pygame.Rect] = []
        self._view_size: tuple[int, int] | None = None

    def _rect(self, view: R.View, i: int) -> pygame.Rect:
        return view.rect(self.x, self.y + i * self.step, self.width, self.step - 6)

    def handle(self, event: pygame.event.Event, app: Services) -> bool:
        """True if the event was used."""
        if event.type == pygame.KEYDOWN:
            if event.key in NAV_UP:
                self.index = max(0, self.index - 1)
            elif event.key in NAV_DOWN:
                self.index = min(len(self.items) - 1, self.index + 1)
            elif event.key in ACCEPT:
                app.sounds.play("menu")
                self.items[self.index].action()
            else:
                return False
            return True
        if event.type in (pygame.MOUSEMOTION, pygame.MOUSEBUTTONDOWN) and self._view_size:
            view = R.View(self._view_size)
            for i in range(len(self.items)):
                if self._rect(view, i).collidepoint(event.pos):
                    self.index = i
                    if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
                        app.sounds.play("menu")
                        self.items[i].action()
                    return True
        return False

    def draw(self, surface: pygame.Surface, view: R.View) -> None:
        # Remembers the window size so clicks map to the same rectangles (layout cache, not game state).
        self._view_size = surface.get_size()
        for i, item in enumerate(self.items):
            rect = self._rect(view, i)
            chosen = i == self.index
            if chosen:
                pygame.draw.rect(surface, (44, 48, 66), rect, border_radius=view.s(6))
                pygame.draw.rect(surface, R.ACCENT, (rect.x, rect.y, view.s(5), rect.h))
            R.blit_text(
                surface,
                item.label,
                (rect.x + view.s(18), rect.centery),
                view.font_size(self.size),
                R.TEXT if chosen else R.DIM,
                "midleft",
            )


def _fmt_time(seconds: float) -> str:
    minutes, rest = divmod(seconds, 60)
    return f"{int(minutes)}:{rest:05.2f}"


def best_text(mode_key: str, record: GameRecord | None) -> str:
    if not has_best(mode_key):
        return "—"  # Zen and PC practice keep no personal best
    if record is None:
        return "no personal best yet"
    if mode_key == "sprint":
        return f"{_fmt_time(record.seconds)} ({record.pps:.2f} PPS)"
    if mode_key == "marathon":
        return f"{record.score} points, {record.lines} lines"
    return f"{record.lines} lines in {_fmt_time(record.seconds)}"


def draw_messages(
    surface: pygame.Surface,
    view: R.View,
    messages: list[tuple[str, tuple[int, int, int]]],
    x: float,
    y: float,
    width: float,
) -> None:
    """A boxed list of messages (problems in red, notices in grey), wrapped to `width` design pixels."""
    if not messages:
        return
    size = view.font_size(22)
    lines = []
    for text, colour in messages:
        lines += [(part, colour) for part in R.wrap(text, size, view.s(width - 24))]
    line_h = int(size * 0.95)
    box = pygame.Rect(view.x(x), view.y(y), view.s(width), line_h * len(lines) + view.s(16))
    R.panel(surface, box, (40, 22, 26) if any(c == R.BAD for _, c in messages) else R.PANEL, R.PANEL_EDGE)
    ty = box.y + view.s(8)
    for part, colour in lines:
        R.blit_text(surface, part, (box.x + view.s(12), ty), size, colour)
        ty += line_h


def _draw_logo_pieces(surface: pygame.Surface, view: R.View) -> None:
    """The seven pieces in a row beside the title (decoration)."""
    size = view.s(20)
    x = view.x(690)
    for piece in (Piece.T, Piece.I, Piece.S, Piece.Z, Piece.O, Piece.J, Piece.L):
        cells = SHAPES[piece, Rotation.NORTH]
        left = min(dx for dx, _ in cells)
        width = max(dx for dx, _ in cells) - left + 1
        sprite = R.block(R.CODE_COLOURS[int(piece) + 1], size)
        for dx, dy in cells:
            surface.blit(sprite, (x + (dx - left) * size, view.y(140) - (dy + 1) * size))
        x += width * size + size // 2


class TitleScene(Scene):
    name = "title"

    def __init__(self, app: Services) -> None:
        super().__init__(app)
        items = [Item(m.title, partial(self.start, m), m.blurb) for m in MODES]
        items += [
            Item("Stats", self.open_stats, "Your history and personal bests."),
            Item("Settings", self.open_settings, "Rules, handling, keys, display and sound."),
            Item("Quit", self.ask_quit, "Close Stack Coach."),
        ]
        self.menu = Menu(items, 110, 250, 380)
        self.bests: dict[str, GameRecord | None] = {}

    def on_enter(self) -> None:
        self.bests = {}
        store = self.app.store
        if store is None:
            return
        try:
            for mode in MODES:
                if has_best(mode.key):
                    self.bests[mode.key] = store.best(mode.key, rules_summary(self.app.settings, mode))
        except StoreUnavailable as error:
            self.app.store_failed(str(error))

    def start(self, mode: Mode) -> None:
        screens = self.app.screens
        if mode is PC_PRACTICE:
            self.app.scenes.push(screens.pc_practice())
        elif mode is SETUP_PRACTICE:
            self.app.scenes.push(screens.setup_practice())
        else:
            self.app.scenes.push(screens.play(mode))

    def open_stats(self) -> None:
        self.app.scenes.push(self.app.screens.stats())

    def open_settings(self) -> None:
        self.app.scenes.push(self.app.screens.settings())

    def ask_quit(self) -> None:
        self.app.scenes.push(ConfirmScene(self.app, "Quit Stack Coach?", "Quit", self.app.quit))

    def handle(self, event: pygame.event.Event) -> None:
        if self.menu.handle(event, self.app):
            return
        if event.type == pygame.KEYDOWN and event.key == pygame.K_ESCAPE:
            self.ask_quit()

    def draw(self, surface: pygame.Surface) -> None:
        view = R.View(surface.get_size())
        surface.fill(R.BG)
        R.blit_text(surface, "STACK COACH", view.pt(110, 90), view.font_size(96), R.ACCENT)
        R.blit_text(surface, "a trainer for modern Tetris", view.pt(114, 170), view.font_size(30), R.DIM)
        _draw_logo_pieces(surface, view)
        self.menu.draw(surface, view)
        item = self.menu.items[self.menu.index]
        info = view.rect(560, 250, 610, 200)
        R.panel(surface, info)
        R.blit_text(surface, item.label, (info.x + view.s(20), info.y + view.s(16)), view.font_size(40), R.TEXT)
        y = info.y + view.s(64)
        for line in R.wrap(item.detail, view.font_size(26), info.w - view.s(40)):
            R.blit_text(surface, line, (info.x + view.s(20), y), view.font_size(26), R.DIM)
            y += view.s(26)
        mode = next((m for m in MODES if m.title == item.label), None)
        if mode is not None and mode.key in self.bests:
            R.blit_text(
                surface,
                "Personal best: " + best_text(mode.key, self.bests[mode.key]),
                (info.x + view.s(20), info.bottom - view.s(40)),
                view.font_size(26),
                R.GOOD,
            )
        draw_messages(surface, view, self.app.messages(), 560, 470, 610)
        R.blit_text(surface, "Arrows + Enter to choose · Esc quits", view.pt(110, 680), view.font_size(22), R.DIM)


class ConfirmScene(Scene):
    """A yes/no question over the scene below; "Cancel" is chosen first and Esc cancels."""

    transparent = True
    name = "confirm"

    def __init__(self, app: Services, question: str, yes: str, action: Callable[[], None]) -> None:
        super().__init__(app)
        self.question = question
        self.action = action
        self.menu = Menu([Item("Cancel", app.scenes.pop), Item(yes, self.confirm)], 470, 330, 340)

    def confirm(self) -> None:
        self.app.scenes.pop()
        self.action()

    def handle(self, event: pygame.event.Event) -> None:
        if event.type == pygame.KEYDOWN and event.key == pygame.K_ESCAPE:
            self.app.scenes.pop()
            return
        self.menu.handle(event, self.app)

    def draw(self, surface: pygame.Surface) -> None:
        view = R.View(surface.get_size())
        R.dim_overlay(surface, 170)
        R.panel(surface, view.rect(430, 220, 420, 240), (20, 22, 31), R.PANEL_EDGE, 2)
        R.blit_text(surface, self.question, view.pt(640, 270), view.font_size(40), R.ACCENT, "center")
        self.menu.draw(surface, view)


class PauseScene(Scene):
    """Drawn over the paused game."""

    transparent = True
    name = "pause"

    def __init__(self, app: Services, play: PlayScene) -> None:
        super().__init__(app)
        self.play = play
        items = [Item("Resume", app.scenes.pop)]
        if play.mode is PC_PRACTICE:
            items += [Item("New queue", self.restart), Item("Same queue again", self.same_queue)]
        else:
            items.append(Item("Restart", self.restart))
        items.append(Item("Settings", self.settings))
        if play.game.stats.pieces:
            items.append(Item("End run (results)", self.end_run))
        items.append(Item("Quit to title", self.quit_to_title))
        self.menu = Menu(items, 470, 250 if len(items) < 6 else 230, 340)

    def restart(self) -> None:
        self.app.scenes.pop()
        self.play.restart()

    def same_queue(self) -> None:
        self.app.scenes.pop()
        self.play.restart(same_queue=True)

    def quit_to_title(self) -> None:
        self.play.save_attempts()  # PC-practice attempts are kept even when the run is abandoned
        self.app.scenes.reset(TitleScene(self.app))

    def settings(self) -> None:
        self.app.scenes.push(self.app.screens.settings(note="Rule and handling changes apply from the next game."))

    def end_run(self) -> None:
        self.app.scenes.pop()
        self.play.finish()

    def handle(self, event: pygame.event.Event) -> None:
        if event.type == pygame.KEYDOWN and event.key == pygame.K_ESCAPE:
            self.app.scenes.pop()
            return
        self.menu.handle(event, self.app)

    def draw(self, surface: pygame.Surface) -> None:
        view = R.View(surface.get_size())
        if has_best(self.play.mode.key):  # a timed run: no planning on a stopped clock (the field and queue hidden)
            lay = play_layout(surface.get_size(), self.app.settings.display.scale)
            surface.fill(R.BG, pygame.Rect(lay.field.x, lay.field.y - 2 * lay.c, lay.field.w, 2 * lay.c))  # spawn rows
            for rect in (lay.field, lay.queue, lay.hold):
                surface.fill(R.FIELD_BG, rect)
        R.dim_overlay(surface, 150)
        bottom = self.menu.y + len(self.menu.items) * self.menu.step + 20
        R.panel(surface, view.rect(430, 120, 420, max(410, bottom - 120)), (20, 22, 31), R.PANEL_EDGE, 2)
        R.blit_text(surface, "PAUSED", view.pt(640, 180), view.font_size(72), R.ACCENT, "center")
        self.menu.draw(surface, view)


def clipboard_text() -> str:
    """Text on the system clipboard, or "" when there is none or no clipboard support."""
    try:
        text = pygame.scrap.get_text()  # pygame-ce 2.2+
    except (pygame.error, AttributeError):
        return ""
    return text or ""


def start_from_fumen(code: str) -> StartPosition:
    """A StartPosition from the first page of a fumen; ValueError (FumenError) with a readable message."""
    code = code.strip()
    if not code:
        raise ValueError("paste a fumen code first (it starts with v115@)")
    page = decode(code)[0]
    board = page.field.to_board() if page.field is not None else None  # None: the game's own empty board
    queue, hold = [], None
    if page.comment.startswith("#Q="):
        hold, current, rest = parse_quiz(page.comment)
        queue = ([current] if current is not None else []) + list(rest)
    return StartPosition(board=board, queue=queue, hold=hold, label="fumen", setup="fumen")


class ResultsScene(Scene):
    """The end of a run: its numbers, how it ended, whether it was assisted, and the personal best. Keys and
    clicks do nothing for RESULTS_GRACE_TICKS after it appears (a hard drop mashed at the top-out must not
    press Retry)."""

    name = "results"

    def __init__(self, app: Services, play: PlayScene, outcome: SaveOutcome | None, problem: str | None) -> None:
        super().__init__(app)
        self.play = play
        self.outcome = outcome
        self.problem = problem
        self.summary = play.summary()
        self.finished = play.end_reason == "finished"
        self.age = 0  # ticks since the screen appeared
        mode = play.mode
        self.heading = f"{mode.title} — {ENDINGS[play.ending]}"
        self.rules_line = describe_rules(play.rules_key)
        used = [name for key, name in ASSIST_NAMES.items() if key in play.assists]
        self.assist_line = f"Assisted run ({', '.join(used)})" if used else ""
        self.pc_stats: PcStats | None = None  # PC practice: the all-time statistics of the setup just played
        setup = play.start.setup if play.start is not None else ""
        if mode is PC_PRACTICE and setup and app.store is not None:
            try:
                self.pc_stats = app.store.pc_stats(setup)
            except StoreUnavailable as error:
                app.store_failed(str(error))
        self.best_lines = self._best_lines()
        # The run's replay, when it was kept: the results offer its review.
        self.replay_id = (
            outcome.record.id
            if outcome is not None
            and app.store is not None
            and outcome.record.id is not None
            and app.store.has_replay(outcome.record.id)
            else None
        )
        title = Item("Title", lambda: app.scenes.reset(TitleScene(app)))
        if mode is PC_PRACTICE:
            items = [
                Item("New queue", self.retry),
                Item("Same queue again", lambda: self.retry(same_queue=True)),
                title,
            ]
        else:
            items = [Item("Retry", self.retry), title]
            if self.replay_id is not None:
                items.append(Item("Review this run", self.review, "The coach's review of every placement."))
        self.menu = Menu(items, 110, 560 if len(items) == 2 else 510, 300)

    def _best_lines(self) -> list[tuple[str, int, tuple[int, int, int]]]:
        """What the personal-best panel says: (text, font size, colour) per line."""
        mode, outcome = self.play.mode, self.outcome
        if self.problem:
            return [(self.problem, 22, R.BAD)]
        if not has_best(mode.key):
            return [(f"{mode.title} keeps no personal best", 26, R.DIM)]
        if outcome is None:
            return [("not recorded (no pieces placed)", 24, R.DIM)]
        if outcome.is_new_best:
            lines = [("NEW PERSONAL BEST!", 38, R.GOOD), (best_text(mode.key, outcome.record), 30, R.TEXT)]
            if outcome.previous_best is not None:
                lines.append(("previous: " + best_text(mode.key, outcome.previous_best), 24, R.DIM))
            return lines
        record = outcome.record
        if record.assisted:
            reason = "assisted: not a personal best"
        elif not record.finished:
            reason = f"{mode.goal_lines} lines not reached: not a personal best"
        else:
            reason = ""
        lines = [(reason, 26, R.BAD)] if reason else []
        return lines + [("best: " + best_text(mode.key, outcome.previous_best), 24, R.DIM)]

    def retry(self, *, same_queue: bool = False) -> None:
        """Play the mode again. PC practice: a new queue from the same start, or `same_queue`."""
        play = self.play
        start, seed = play.start, None
        if play.mode is PC_PRACTICE:
            seed = play.seed if same_queue else self.app.new_seed()
            if start is not None and not same_queue:
                start = start.with_seed(seed)
        self.app.scenes.replace(self.app.screens.play(play.mode, start, seed))

    def review(self) -> None:
        """Open the review screen on this run (Esc there comes back here)."""
        store = self.app.store
        if store is None or self.replay_id is None:  # the menu offers no review then
            return
        try:
            text = store.replay_path(self.replay_id).read_text(encoding="utf-8")
        except OSError as error:
            self.problem = f"the replay of this run cannot be read ({error})"
            self.best_lines = self._best_lines()
            return
        title = f"Review — {self.play.mode.title}, this run"
        self.app.scenes.push(self.app.screens.review(text, game_id=self.replay_id, title=title))

    def update(self) -> None:
        self.age += 1

    @property
    def accepting_input(self) -> bool:
        return self.age >= RESULTS_GRACE_TICKS

    def handle(self, event: pygame.event.Event) -> None:
        if not self.accepting_input and event.type in (pygame.KEYDOWN, pygame.MOUSEBUTTONDOWN):
            return
        if self.menu.handle(event, self.app):
            return
        if event.type == pygame.KEYDOWN:
            if event.key == pygame.K_ESCAPE:
                self.app.scenes.reset(TitleScene(self.app))
            elif self.app.keymap.resolve(event.key, event.mod) == "restart":
                self.retry(same_queue=bool(event.mod & pygame.KMOD_SHIFT))

    def draw(self, surface: pygame.Surface) -> None:
        view = R.View(surface.get_size())
        surface.fill(R.BG)
        mode = self.play.mode
        R.blit_text(surface, self.heading, view.pt(110, 80), view.font_size(64), R.ACCENT)
        rules = self.rules_line + ("   ·   " if self.assist_line else "")
        R.blit_text(surface, rules, view.pt(112, 140), view.font_size(24), R.DIM)
        if self.assist_line:
            width = R.font(view.font_size(24)).size(rules)[0]
            R.blit_text(surface, self.assist_line, (view.x(112) + width, view.y(140)), view.font_size(24), R.BAD)
        s = self.summary
        rows = [
            ("Time", _fmt_time(s["seconds"])),
            ("Pieces", f"{int(s['pieces'])}"),
            ("Lines", f"{int(s['lines'])}"),
            ("PPS", f"{s['pps']:.2f}"),
            ("APM", f"{s['apm']:.1f}"),
            ("KPP", f"{s['kpp']:.2f}"),
            ("Finesse faults", f"{int(s['finesse'])}"),
        ]
        if mode.shows_level:
            rows += [("Score", f"{int(s['score'])}"), ("Level", f"{int(s['level'])}")]
        if mode is PC_PRACTICE:
            rows.append(("Perfect clears", f"{int(s['pcs'])}"))
        for i, (label, value) in enumerate(rows):
            x = 110 + (i % 2) * 330
            y = 200 + (i // 2) * 64
            R.blit_text(surface, label, view.pt(x, y), view.font_size(26), R.DIM)
            R.blit_text(surface, value, view.pt(x, y + 24), view.font_size(40), R.TEXT)
        if self.pc_stats is not None and not self.problem:
            self._draw_pc_stats(surface, view, self.pc_stats, 200)  # PC practice: the setup's record instead of a best
        else:
            self._draw_best(surface, view)
        self.menu.draw(surface, view)
        keys = self.app.keymap.keys_for("restart")
        if keys:
            key = pretty_key(keys[0])
            hint = (
                f"{key} new queue · Shift+{key} same queue · Esc title"
                if mode is PC_PRACTICE
                else f"{key} retry · Esc title"
            )
            R.blit_text(surface, hint, view.pt(110, 690), view.font_size(22), R.DIM)

    def _draw_pc_stats(self, surface: pygame.Surface, view: R.View, stats: PcStats, top: float = 440) -> None:
        box = view.rect(800, top, 400, 190)
        R.panel(surface, box)
        x, y = box.x + view.s(18), box.y + view.s(14)
        R.blit_text(surface, f"Setup: {stats.setup}", (x, y), view.font_size(28), R.TEXT)
        for i, (label, value) in enumerate(pc_stats_rows(stats)):
            rx = x + (i % 2) * view.s(190)
            ry = y + view.s(40) + (i // 2) * view.s(66)
            R.blit_text(surface, label, (rx, ry), view.font_size(22), R.DIM)
            R.blit_text(surface, value, (rx, ry + view.s(22)), view.font_size(34), R.TEXT)

    def _draw_best(self, surface: pygame.Surface, view: R.View) -> None:
        box = view.rect(800, 200, 400, 220)
        R.panel(surface, box)
        x, y = box.x + view.s(18), box.y + view.s(16)
        R.blit_text(surface, "Personal best", (x, y), view.font_size(30), R.TEXT)
        if self.problem:
            draw_messages(surface, view, [(self.problem, R.BAD)], 810, 250, 380)
            return
        y += view.s(50)
        for text, size, colour in self.best_lines:
            for part in R.wrap(text, view.font_size(size), box.w - view.s(36)):
                R.blit_text(surface, part, (x, y), view.font_size(size), colour)
                y += int(view.font_size(size) * 1.15)


ENDING_WORDS = {"finished": "finished", "topout": "topped out", "ended": "ended"}
_TITLES = {m.key: m.title for m in MODES}


def pc_stats_rows(stats: PcStats) -> list[tuple[str, str]]:
    """The game-over panel's PC-practice record, (label, value) as drawn."""
    per = f"{stats.seconds_per_pc:.1f} s" if stats.seconds_per_pc else "—"
    return [
        ("Attempts", f"{stats.attempts}"),
        ("PCs", f"{stats.pcs}"),
        ("Success rate", percent_text(stats.rate)),
        ("Time per PC", per),
    ]


ROW_WIDTH = 596  # a run's row in the stats list: its numbers from x 80, how it ended up to x 676 (design pixels)


def how_it_ended(record: GameRecord) -> str:
    """How a stored run ended, and "assisted" when it was: "topped out · assisted"."""
    ending = ENDING_WORDS.get(record.ending or "", "finished" if record.finished else "not finished")
    return ending + (" · assisted" if record.assisted else "")


class StatsScene(Scene):
    """Per mode and rules: games, pieces, lines and the personal best; below, the runs newest first (filter by
    mode with ←/→, choose with ↑/↓, Enter opens the review of a run that has a replay) and the progress plots of
    the mode in view (ui.progress)."""

    name = "stats"
    FILTERS: tuple[str | None, ...] = (None, *(m.key for m in MODES))
    ROWS = 15

    def __init__(self, app: Services) -> None:
        super().__init__(app)
        self.summary: list[dict] = []
        self.recent: list[GameRecord] = []
        self.accuracies: dict[int, float] = {}
        self.problem: str | None = None
        self.notice: str = ""
        self.filter = 0
        self.selected = 0

    def on_enter(self) -> None:
        store = self.app.store
        if store is None:
            self.problem = self.app.store_problem or "history is unavailable"
            return
        try:
            self.summary = store.summary()
            self.recent = store.runs(limit=300)
            self.accuracies = store.accuracies([r.id for r in self.recent if r.id is not None])
        except StoreUnavailable as error:
            self.problem = str(error)
            self.app.store_failed(str(error))
            return
        if self.recent:
            # Reviews are opened from here: start the AI worker now (a poll starts it without waiting), so a
            # review's first results come in about a second rather than after the worker's start-up.
            self.app.worker().poll()

    @property
    def mode_filter(self) -> str | None:
        return self.FILTERS[self.filter]

    def runs(self) -> list[GameRecord]:
        """The runs listed, newest first, under the mode filter."""
        mode = self.mode_filter
        return [r for r in self.recent if mode is None or r.mode == mode]

    @property
    def selected_run(self) -> GameRecord | None:
        runs = self.runs()
        return runs[self.selected] if 0 <= self.selected < len(runs) else None

    @property
    def plot_mode(self) -> str | None:
        """The mode the plots are about: the filter's, or the chosen run's when all modes are listed."""
        if self.mode_filter is not None:
            return self.mode_filter
        run = self.selected_run
        return run.mode if run is not None else None

    def plots(self) -> list[Series]:
        mode = self.plot_mode
        return progress_series(self.recent, self.accuracies, mode) if mode is not None else []

    def summary_rows(self) -> list[tuple[str, str, str, str, str]]:
        """(mode and rules, games, pieces, lines, personal best) per group, as the table shows them."""
        return [
            (
                f"{_TITLES.get(e['mode'], e['mode'])}  ({describe_rules(e['rules'])})",
                f"{e['games']}",
                f"{e['pieces']}",
                f"{e['lines']}",
                best_text(e["mode"], e["best"]),
            )
            for e in self.summary[:8]
        ]

    def recent_rows(self) -> list[tuple[str, str]]:
        """(the game's numbers, how it ended) per listed run, newest first."""
        rows = []
        for r in self.runs():
            accuracy = self.accuracies.get(r.id) if r.id is not None else None
            rows.append(
                (
                    f"{r.played_at[:16].replace('T', ' ')}  {_TITLES.get(r.mode, r.mode):<10} "
                    f"{_fmt_time(r.seconds)}  {r.pieces} pcs  {r.pps:.2f} PPS  finesse {r.finesse}"
                    + (f"  {accuracy_text(accuracy)}" if accuracy is not None else ""),
                    how_it_ended(r),
                )
            )
        return rows

    def open_selected(self) -> None:
        run = self.selected_run
        store = self.app.store
        if run is None or store is None or run.id is None:
            return
        path = store.replay_path(run.id)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError:
            self.notice = "no replay was kept for this run (played before replays were kept)"
            return
        title = f"Review — {_TITLES.get(run.mode, run.mode)}, {run.played_at[:16].replace('T', ' ')}"
        self.notice = ""
        self.app.scenes.push(self.app.screens.review(text, game_id=run.id, title=title))

    def handle(self, event: pygame.event.Event) -> None:
        if event.type == pygame.KEYDOWN:
            count = len(self.runs())
            if event.key in (pygame.K_ESCAPE, pygame.K_BACKSPACE):
                self.app.scenes.pop()
            elif event.key == pygame.K_DOWN and count:
                self.selected = min(count - 1, self.selected + 1)
            elif event.key == pygame.K_UP and count:
                self.selected = max(0, self.selected - 1)
            elif event.key in (pygame.K_RIGHT, pygame.K_TAB):
                self.filter = (self.filter + 1) % len(self.FILTERS)
                self.selected = 0
            elif event.key == pygame.K_LEFT:
                self.filter = (self.filter - 1) % len(self.FILTERS)
                self.selected = 0
            elif event.key in (pygame.K_RETURN, pygame.K_KP_ENTER):
                self.open_selected()
        elif (
            event.type == pygame.MOUSEBUTTONDOWN
            and event.button == 1
            and (window := pygame.display.get_surface()) is not None
        ):
            view = R.View(window.get_size())
            for row in range(self.ROWS):
                if view.rect(80, self._list_top + 26 + 22 * row, 600, 22).collidepoint(event.pos):
                    index = self._first + row
                    if index == self.selected:
                        self.open_selected()
                    elif index < len(self.runs()):
                        self.selected = index
                    return

    @property
    def _first(self) -> int:
        return max(0, self.selected - self.ROWS + 1)

    @property
    def _list_top(self) -> int:
        return 120 + 26 * min(4, len(self.summary)) + 30

    def draw(self, surface: pygame.Surface) -> None:
        view = R.View(surface.get_size())
        surface.fill(R.BG)
        R.blit_text(surface, "Stats", view.pt(80, 30), view.font_size(56), R.ACCENT)
        if self.problem:
            draw_messages(surface, view, [(self.problem, R.BAD)], 80, 130, 1100)
            return
        size = view.font_size(20)
        y = 96
        columns = ((700, "games"), (790, "pieces"), (870, "lines"))
        R.blit_text(surface, "Mode (rules)", view.pt(80, y), size, R.DIM)
        for x, title in columns:
            R.blit_text(surface, title, view.pt(x, y), size, R.DIM, "topright")
        R.blit_text(surface, "personal best (unassisted)", view.pt(900, y), size, R.DIM)
        for label, *numbers, best in self.summary_rows()[:4]:
            y += 26
            R.blit_text(surface, label, view.pt(80, y), size, R.TEXT)
            for (x, _), number in zip(columns, numbers, strict=True):
                R.blit_text(surface, number, view.pt(x, y), size, R.TEXT, "topright")
            R.blit_text(surface, best, view.pt(900, y), size, R.GOOD)
        if not self.summary:
            R.blit_text(surface, "No games yet — finish a run and it shows up here.", view.pt(80, y + 30), size, R.DIM)
            return
        top = self._list_top
        tab_x = 80.0  # the mode filter's labels, left to right
        for i, key in enumerate(self.FILTERS):
            label = "All" if key is None else _TITLES.get(key, key)
            rect = R.blit_text(
                surface, label, view.pt(tab_x, top), view.font_size(22), R.ACCENT if i == self.filter else R.DIM
            )
            tab_x += rect.w / view.k + 22
        rows = self.recent_rows()
        small = view.font_size(18)
        for row, (line, ending) in enumerate(rows[self._first : self._first + self.ROWS]):
            index = self._first + row
            y = top + 26 + 22 * row
            if index == self.selected:
                pygame.draw.rect(surface, R.PANEL, view.rect(74, y - 2, 606, 22))
                pygame.draw.rect(surface, R.ACCENT, view.rect(74, y - 2, 606, 22), 1)
            fitting = R.fit_size(small, view.s(ROW_WIDTH), line, "  ", ending)
            R.blit_text(surface, line, view.pt(80, y), fitting, R.TEXT if index == self.selected else R.DIM)
            R.blit_text(surface, ending, view.pt(676, y), fitting, R.BAD if "assisted" in ending else R.DIM, "topright")
        if not rows:
            R.blit_text(surface, "No runs in this mode yet.", view.pt(80, top + 30), size, R.DIM)
        mode = self.plot_mode
        if mode is not None:
            R.blit_text(
                surface,
                f"Progress — {_TITLES.get(mode, mode)}, last {PLOT_RUNS} runs",
                view.pt(710, top),
                view.font_size(22),
                R.TEXT,
            )
            runs = min(PLOT_RUNS, sum(1 for r in self.recent if r.mode == mode and r.pieces > 0))
            for i, series in enumerate(self.plots()):
                px, py = 710 + (i % 2) * 265, top + 30 + (i // 2) * ((690 - top - 40) // 3)
                draw_series(surface, view, series, px, py, 250, (690 - top - 40) // 3 - 10, runs)
        footer = self.notice or "Up/Down choose a run   Enter review it   Left/Right mode   Esc back"
        R.blit_text(surface, footer, view.pt(80, 700), size, R.BAD if self.notice else R.DIM, "bottomleft")
