"""The PC-practice entry: the n-th PC of the 7-bag loop, a setup from the library (optionally mirrored), or a
pasted fumen; with the player's statistics for the chosen start. The last choice is kept in the settings
(`practice` group), so the menu opens where the player left it, also after a restart of the app."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

import pygame

from ai.protocol import percent_text
from settings import SettingsError, change
from ui import render as R
from ui.menus import Item, Menu, clipboard_text, draw_messages, start_from_fumen
from ui.modes import PC_PRACTICE
from ui.pc_setups import PIECES_LEFT, PcSetup, load_setups, loop_start, ordinal, setup_start
from ui.play_state import StartPosition
from ui.scene import Scene
from ui.store import PcStats, StoreUnavailable

if TYPE_CHECKING:
    from ui.services import Services


def record_text(stats: PcStats) -> str:
    """The player's record for a start: "1 PC in 1 attempt (100%), 6.0 s per PC"."""
    pcs = f"{stats.pcs} PC{'' if stats.pcs == 1 else 's'}"
    attempts = f"{stats.attempts} attempt{'' if stats.attempts == 1 else 's'}"
    per = f", {stats.seconds_per_pc:.1f} s per PC" if stats.seconds_per_pc else ""
    return f"{pcs} in {attempts} ({percent_text(stats.rate)}){per}"


class PCPracticeScene(Scene):
    """Choose the PC practice start: the n-th PC of the 7-bag loop on an empty board, a setup from the library
    (optionally mirrored), or a fumen the player pastes (Ctrl+V) or types. Left/Right change a choice."""

    name = "pc_setup"

    def __init__(self, app: Services) -> None:
        super().__init__(app)
        self.code = ""
        self.error = ""
        self.editing = False
        self.pc_number = 1
        self.mirrored = False
        try:
            self.setups = load_setups()
        except (OSError, ValueError) as error:
            self.setups = []
            self.error = f"the setup library could not be read ({error})"
        self.setup_index = 0
        remembered = app.settings.practice
        self.pc_number = remembered.pc_number
        self.mirrored = remembered.mirrored
        keys = [setup.key for setup in self.setups]
        if remembered.setup in keys:
            self.setup_index = keys.index(remembered.setup)
        self.loop_item = Item("", self.start_empty)
        self.setup_item = Item("", self.start_setup)
        self.mirror_item = Item("", self.toggle_mirror)
        items = [self.loop_item] + ([self.setup_item, self.mirror_item] if self.setups else [])
        items += [Item("Paste a fumen", self.edit), Item("Back", app.scenes.pop)]
        self.menu = Menu(items, 110, 250, 420)
        if remembered.start == "setup" and self.setups:
            self.menu.index = items.index(self.setup_item)
        self.stats: PcStats | None = None
        self._relabel()

    def remember(self) -> None:
        """Keep the current choice in the settings (saved at once; a failure to save is shown on the title)."""
        item = self.menu.items[self.menu.index]
        start = (
            "setup"
            if item in (self.setup_item, self.mirror_item)
            else "loop"
            if item is self.loop_item
            else self.app.settings.practice.start
        )
        choice = {
            "start": start,
            "pc_number": self.pc_number,
            "mirrored": self.mirrored,
            "setup": self.setup.key if self.setup is not None else "",
        }
        if self.app.settings.practice.model_dump() == choice:
            return
        # A choice the settings cannot hold (a setup key longer than allowed) is simply not remembered.
        with contextlib.suppress(SettingsError):
            self.app.update_settings(change(self.app.settings, "practice", **choice))

    def on_exit(self) -> None:
        self.remember()

    def _relabel(self) -> None:
        self.loop_item.label = f"Empty board: {ordinal(self.pc_number)} PC  < >"
        self.loop_item.detail = f"{PIECES_LEFT[self.pc_number]} pieces left in the bag"
        if self.setups:
            self.setup_item.label = f"Setup: {self.setups[self.setup_index].name}  < >"
            self.mirror_item.label = f"Mirror: {'on' if self.mirrored else 'off'}"
        self.stats = self._load_stats()

    @property
    def setup(self) -> PcSetup | None:
        return self.setups[self.setup_index] if self.setups else None

    def _load_stats(self) -> PcStats | None:
        store = self.app.store
        item = self.menu.items[self.menu.index] if hasattr(self, "menu") else None
        if store is None or item is None:
            return None
        if item is self.loop_item:
            key = f"Empty board, {ordinal(self.pc_number)} PC"
        elif item in (self.setup_item, self.mirror_item) and self.setup is not None:
            key = self.setup.stats_key(self.mirrored)
        else:
            return None
        try:
            return store.pc_stats(key)
        except StoreUnavailable as error:
            self.app.store_failed(str(error))
            return None

    def _play(self, start: StartPosition, seed: int | None = None) -> None:
        self.app.scenes.replace(self.app.screens.play(PC_PRACTICE, start, seed))

    def start_empty(self) -> None:
        seed = self.app.new_seed()
        self._play(loop_start(self.pc_number, seed), seed)

    def start_setup(self) -> None:
        if self.setup is None:
            return
        seed = self.app.new_seed()
        self._play(setup_start(self.setup, seed, self.mirrored and self.setup.mirror), seed)

    def toggle_mirror(self) -> None:
        self.mirrored = not self.mirrored
        self._relabel()

    def _step(self, delta: int) -> None:
        item = self.menu.items[self.menu.index]
        if item is self.loop_item:
            self.pc_number = (self.pc_number - 1 + delta) % 7 + 1
        elif item is self.setup_item:
            self.setup_index = (self.setup_index + delta) % len(self.setups)
        elif item is self.mirror_item:
            self.mirrored = not self.mirrored
        self._relabel()

    def edit(self) -> None:
        self.editing = True
        self.error = ""
        pygame.key.start_text_input()

    def start_fumen(self) -> None:
        try:
            start = start_from_fumen(self.code)
        except ValueError as error:
            self.error = str(error)
            return
        pygame.key.stop_text_input()
        self._play(start)

    def handle(self, event: pygame.event.Event) -> None:
        if not self.editing:
            if event.type == pygame.KEYDOWN and event.key in (pygame.K_LEFT, pygame.K_RIGHT, pygame.K_a, pygame.K_d):
                self._step(-1 if event.key in (pygame.K_LEFT, pygame.K_a) else 1)
                return
            index = self.menu.index
            if not self.menu.handle(event, self.app) and event.type == pygame.KEYDOWN and event.key == pygame.K_ESCAPE:
                self.app.scenes.pop()
            if self.menu.index != index:
                self.stats = self._load_stats()
            return
        if event.type == pygame.TEXTINPUT:
            self.code += event.text
        elif event.type == pygame.KEYDOWN:
            if event.key == pygame.K_ESCAPE:
                self.editing = False
                pygame.key.stop_text_input()
            elif event.key in (pygame.K_RETURN, pygame.K_KP_ENTER):
                self.start_fumen()
            elif event.key == pygame.K_BACKSPACE:
                self.code = self.code[:-1]
            elif event.key == pygame.K_v and event.mod & pygame.KMOD_CTRL:
                self.code += clipboard_text()

    def draw(self, surface: pygame.Surface) -> None:
        view = R.View(surface.get_size())
        surface.fill(R.BG)
        R.blit_text(surface, "PC Practice", view.pt(110, 110), view.font_size(72), R.ACCENT)
        R.blit_text(
            surface, "Up/Down choose · Left/Right change · Enter start", view.pt(112, 185), view.font_size(24), R.DIM
        )
        self.menu.draw(surface, view)
        box = view.rect(580, 250, 610, 380)
        item = self.menu.items[self.menu.index]
        if self.editing or item.label == "Paste a fumen":
            self._draw_paste(surface, view, box)
        elif item is self.loop_item:
            self._draw_loop(surface, view, box)
        elif item in (self.setup_item, self.mirror_item) and self.setup is not None:  # (only with a library)
            self._draw_setup(surface, view, box, self.setup)
        if self.error:
            draw_messages(surface, view, [(self.error, R.BAD)], 580, 640, 610)

    def _draw_lines(
        self,
        surface: pygame.Surface,
        view: R.View,
        box: pygame.Rect,
        lines: list[tuple[str, R.Colour]],
        y: int | None = None,
    ) -> int:
        size = view.font_size(24)
        y = box.y + view.s(14) if y is None else y
        for text, colour in lines:
            for part in R.wrap(text, size, box.w - view.s(30)):
                R.blit_text(surface, part, (box.x + view.s(15), y), size, colour)
                y += int(size * 1.05)
        return y

    @property
    def stats_line(self) -> str:
        """The record line under the chosen start, as drawn."""
        if self.stats is None or not self.stats.attempts:
            return "No attempts yet."
        return f"Your record: {record_text(self.stats)}"

    def _draw_stats(self, surface: pygame.Surface, view: R.View, box: pygame.Rect, y: int) -> int:
        colour = R.GOOD if self.stats is not None and self.stats.attempts else R.DIM
        return self._draw_lines(surface, view, box, [(self.stats_line, colour)], y)

    def _draw_loop(self, surface: pygame.Surface, view: R.View, box: pygame.Rect) -> None:
        R.panel(surface, box, R.PANEL, R.PANEL_EDGE, 2)
        n = self.pc_number
        y = self._draw_lines(
            surface,
            view,
            box,
            [
                (f"The {ordinal(n)} perfect clear of the 7-bag loop", R.TEXT),
                (
                    (
                        f"Empty board; {PIECES_LEFT[n]} of the current bag's pieces are still to come, then the bags "
                        f"go on. After a PC the game continues with the next PC of the loop."
                    ),
                    R.DIM,
                ),
                ("", R.DIM),
            ],
        )
        self._draw_stats(surface, view, box, y)

    def _draw_setup(self, surface: pygame.Surface, view: R.View, box: pygame.Rect, setup: PcSetup) -> None:
        R.panel(surface, box, R.PANEL, R.PANEL_EDGE, 2)
        mirrored = self.mirrored and setup.mirror
        left = (
            "a fresh bag"
            if not setup.bag_left
            else ("one unknown piece" if setup.bag_left == "*1" else ", ".join(setup.bag_left))
        )
        y = self._draw_lines(
            surface,
            view,
            box,
            [
                (setup.name + (" (mirrored)" if mirrored else ""), R.TEXT),
                (f"{ordinal(setup.pc)} PC · built from {setup.uses} · then in the bag: {left}", R.DIM),
            ],
        )
        board = setup.board(mirrored)
        c = view.s(18)
        left_x = box.x + view.s(15)
        top = y + view.s(8)
        for row in range(4):
            for col in range(10):
                rect = pygame.Rect(left_x + col * c, top + (3 - row) * c, c, c)
                if board.is_filled(col, row):
                    surface.blit(R.block(R.CODE_COLOURS[board.colour_at(col, row)], c), rect)
                else:
                    pygame.draw.rect(surface, R.FIELD_BG, rect)
        if self.mirrored and not setup.mirror:
            self._draw_lines(surface, view, box, [("(this setup is not played mirrored)", R.BAD)], top + 4 * c + 4)
        y = self._draw_lines(surface, view, box, [(setup.note, R.DIM)], top + 4 * c + view.s(30))
        self._draw_stats(surface, view, box, y + view.s(6))

    def _draw_paste(self, surface: pygame.Surface, view: R.View, box: pygame.Rect) -> None:
        R.panel(surface, box, R.PANEL, R.ACCENT if self.editing else R.PANEL_EDGE, 2)
        size = view.font_size(24)
        lines = [
            "Paste a fumen code (Ctrl+V) and press Enter.",
            "A quiz comment (#Q=[H](C)NEXT) sets the queue;",
            "otherwise a 7-bag queue follows the board.",
            "",
        ]
        if self.editing:
            lines += R.wrap((self.code or "") + "_", size, box.w - view.s(30))[-4:]
        y = box.y + view.s(14)
        for line in lines:
            R.blit_text(surface, line, (box.x + view.s(15), y), size, R.TEXT if self.editing else R.DIM)
            y += int(size * 1.05)
