"""Set-up practice: browse the library of set-ups and openers (assets/setups) and start a guided build.

Each entry shows its name, what it is for, a mini board of the shape (its reference build), the notes and the
figures computed by scripts/regenerate_setups.py, and the player's own statistics for it (ui.setup_stats).
Left/Right browse, M mirrors (when allowed), Enter starts (ui.setup_practice: the coach lists the other set-ups
the bag can build, picks the best on Tab, and in loop mode goes on to the next PC after a PC).
"""

from __future__ import annotations

from dataclasses import replace

import pygame

from ai.protocol import percent_text
from game.setups import SetupEntry, read_library
from ui import render as R
from ui import setup_stats
from ui.play import StartPosition
from ui.scene import Scene
from ui.setup_practice import SetupPracticeScene, practice_start

_CODES = {"I": 1, "J": 2, "L": 3, "O": 4, "S": 5, "T": 6, "Z": 7, "X": 8}


def setup_practice_start(entry: SetupEntry, seed: int, mirrored: bool = False) -> StartPosition:
    """The start of a guided build of `entry` alone (no other set-up to pick; see ui.setup_practice)."""
    start = practice_start(entry, seed, mirrored, [entry])
    return replace(start, reseed=lambda new_seed: setup_practice_start(entry, new_seed, mirrored))


class SetupMenuScene(Scene):
    name = "setup_menu"

    def __init__(self, app) -> None:
        super().__init__(app)
        self.error = ""
        try:
            self.entries = read_library()
        except ValueError as error:
            self.entries = []
            self.error = f"the set-up library could not be read ({error})"
        self.index = 0
        self.mirrored = False

    @property
    def entry(self) -> SetupEntry | None:
        return self.entries[self.index] if self.entries else None

    def lines(self) -> list[str]:
        """The description of the chosen entry, as drawn."""
        entry = self.entry
        if entry is None:
            return [self.error or "The library is empty."]
        f = entry.figures
        saved = entry.saved(mirror=self.mirrored and entry.mirror)
        out = [
            entry.title(),
            f"Built from {entry.bags}{' with hold' if entry.hold else ''}"
            + (f", keeping the {saved.name}" if saved is not None else "")
            + f"; finishes: {', '.join(entry.finishes) or '—'}",
        ]
        if "build_rate" in f:
            out.append(
                f"Build chance {percent_text(f['build_rate'], 1)} of {f.get('build_total')} queues"
                + (f", with its mirror {percent_text(f['either_build_rate'], 1)}" if "either_build_rate" in f else "")
            )
        if "pc_rate" in f:
            out.append(f"PC chance after it {percent_text(f['pc_rate'], 1)} ({entry.pc_pattern})")
        if entry.notes:
            out.append(entry.notes)
        mirrored = self.mirrored and entry.mirror
        out.append(setup_stats.for_entry(entry.key, mirrored).text() + (" (mirror)" if mirrored else ""))
        return out

    def start(self) -> None:
        entry = self.entry
        if entry is None:
            return
        seed = self.app.new_seed()
        self.app.scenes.replace(SetupPracticeScene(self.app, entry, self.entries, seed, self.mirrored and entry.mirror))

    def handle(self, event) -> None:
        if event.type != pygame.KEYDOWN or not self.entries:
            if event.type == pygame.KEYDOWN and event.key == pygame.K_ESCAPE:
                self.app.scenes.pop()
            return
        if event.key in (pygame.K_LEFT, pygame.K_a, pygame.K_UP):
            self.index = (self.index - 1) % len(self.entries)
        elif event.key in (pygame.K_RIGHT, pygame.K_d, pygame.K_DOWN):
            self.index = (self.index + 1) % len(self.entries)
        elif event.key == pygame.K_m and self.entry is not None and self.entry.mirror:
            self.mirrored = not self.mirrored
        elif event.key in (pygame.K_RETURN, pygame.K_KP_ENTER, pygame.K_SPACE):
            self.start()
        elif event.key == pygame.K_ESCAPE:
            self.app.scenes.pop()

    def draw(self, surface: pygame.Surface) -> None:
        view = R.View(surface.get_size())
        surface.fill(R.BG)
        R.blit_text(surface, "Set-up Practice", view.pt(110, 110), view.font_size(72), R.ACCENT)
        R.blit_text(
            surface,
            "Left/Right choose · M mirror · Enter build it · Esc back",
            view.pt(112, 185),
            view.font_size(24),
            R.DIM,
        )
        entry = self.entry
        box = view.rect(110, 250, 640, 400)
        R.panel(surface, box, R.PANEL, R.PANEL_EDGE, 2)
        size = view.font_size(24)
        y = box.y + view.s(14)
        for number, text in enumerate(self.lines()):
            colour = R.TEXT if number == 0 else R.DIM
            for part in R.wrap(text, size, box.w - view.s(30)):
                R.blit_text(surface, part, (box.x + view.s(15), y), size, colour)
                y += int(size * 1.1)
        if entry is not None:
            R.blit_text(
                surface,
                f"{self.index + 1} / {len(self.entries)}" + ("  ·  mirrored" if self.mirrored and entry.mirror else ""),
                (box.x + view.s(15), box.bottom - view.s(34)),
                size,
                R.ACCENT,
            )
            self._draw_shape(surface, view, entry)

    def _draw_shape(self, surface: pygame.Surface, view: R.View, entry: SetupEntry) -> None:
        rows = entry.colours(mirror=self.mirrored and entry.mirror)
        c = view.s(30)
        left, top = view.x(800), view.y(260)
        area = pygame.Rect(left, top, 10 * c, max(4, len(rows)) * c)
        pygame.draw.rect(surface, R.FIELD_BG, area)
        pygame.draw.rect(surface, R.PANEL_EDGE, area.inflate(2, 2), 1)
        offset = max(4, len(rows)) - len(rows)
        for row_index, row in enumerate(rows):
            for x, char in enumerate(row):
                code = _CODES.get(char)
                if code is not None:
                    surface.blit(R.block(R.CODE_COLOURS[code], c), (left + x * c, top + (row_index + offset) * c))
