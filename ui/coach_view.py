"""Drawing the coach: the ghost hint, the PC solution overlay and the Coach panel. Reads only.

The ghost hint must not rely on hue (colour-blind players): it is a thick white outline around the suggested
placement over a white diagonal hatch, which reads differently from the normal (solid, piece-coloured) ghost.
"""

from __future__ import annotations

from functools import lru_cache

import pygame

from game.board import WIDTH
from game.pieces import COLOURS, Piece
from ui import render as R
from ui.coach import LOST_FLASH_TICKS, key_labels, move_cells
from ui.input import pretty_key

SHOWN_ROWS = 22
HINT_WHITE = (255, 255, 255)


@lru_cache(maxsize=8)
def _hatch(c: int) -> pygame.Surface:
    """A cell-sized white diagonal hatch on a faint white wash."""
    surf = pygame.Surface((c, c), pygame.SRCALPHA)
    surf.fill((255, 255, 255, 38))
    step = max(4, c // 4)
    width = max(1, c // 14)
    for k in range(-c, c, step):
        pygame.draw.line(surf, (255, 255, 255, 150), (k, c), (k + c, 0), width)
    return surf


@lru_cache(maxsize=64)
def _tint(piece: Piece, c: int, alpha: int) -> pygame.Surface:
    surf = pygame.Surface((c, c), pygame.SRCALPHA)
    r, g, b = COLOURS[piece]
    surf.fill((r, g, b, alpha))
    return surf


@lru_cache(maxsize=4)
def _glyph_font_path() -> str | None:
    """A system font with the arrow glyphs (DejaVu Sans); None: use plain-text key labels."""
    try:
        return pygame.font.match_font("dejavusans")
    except Exception:  # noqa: BLE001 - no font config: the ASCII labels still work
        return None


@lru_cache(maxsize=8)
def _glyph_font(size: int) -> pygame.font.Font:
    return pygame.font.Font(_glyph_font_path(), size)


R.CACHE_HOOKS += [_hatch.cache_clear, _tint.cache_clear, _glyph_font.cache_clear]



def _outline(surface: pygame.Surface, lay, cells: list[tuple[int, int]], colour, width: int) -> None:
    """The outer edge of a set of cells (edges between two of them are not drawn)."""
    shown = set(cells)
    for x, y in cells:
        if y >= SHOWN_ROWS:
            continue
        r = lay.cell_rect(x, y)
        if (x, y + 1) not in shown:
            pygame.draw.line(surface, colour, r.topleft, (r.right - 1, r.top), width)
        if (x, y - 1) not in shown:
            pygame.draw.line(surface, colour, (r.left, r.bottom - 1), (r.right - 1, r.bottom - 1), width)
        if (x - 1, y) not in shown:
            pygame.draw.line(surface, colour, r.topleft, (r.left, r.bottom - 1), width)
        if (x + 1, y) not in shown:
            pygame.draw.line(surface, colour, (r.right - 1, r.top), (r.right - 1, r.bottom - 1), width)


def draw_hint(surface: pygame.Surface, scene, lay) -> None:
    """The suggested placement for the piece in play (hatch + thick white outline)."""
    coach = scene.coach
    if not coach.show_hint or coach.hint is None:
        return
    cells = [(x, y) for x, y in move_cells(coach.hint) if 0 <= x < WIDTH and y < SHOWN_ROWS]
    hatch = _hatch(lay.c)
    for x, y in cells:
        surface.blit(hatch, lay.cell_rect(x, y))
    _outline(surface, lay, cells, (0, 0, 0), max(3, lay.c // 5))  # dark halo keeps white visible on light blocks
    _outline(surface, lay, cells, HINT_WHITE, max(2, lay.c // 9))


def _label_cell(cells) -> tuple[int, int]:
    cx = sum(x for x, _ in cells) / len(cells)
    cy = sum(y for _, y in cells) / len(cells)
    return min(cells, key=lambda p: (p[0] - cx) ** 2 + (p[1] - cy) ** 2)


def draw_overlay(surface: pygame.Surface, lay, overlay, *, emphasise_first: bool = True) -> None:
    """A PC solution: each piece translucent in its colour, numbered in placement order; the next one
    stronger and outlined in white."""
    c = lay.c
    for index, (piece, cells) in enumerate(overlay):
        cells = [(x, y) for x, y in cells if 0 <= x < WIDTH and 0 <= y < SHOWN_ROWS]
        if not cells:
            continue
        first = emphasise_first and index == 0
        tint = _tint(Piece(piece), c, 200 if first else 120)
        for x, y in cells:
            surface.blit(tint, lay.cell_rect(x, y))
        if first:
            _outline(surface, lay, cells, HINT_WHITE, max(2, c // 10))
        else:  # each later piece keeps a clear edge in its own (lightened) colour
            r, g, b = COLOURS[Piece(piece)]
            _outline(surface, lay, cells, ((r + 255) // 2, (g + 255) // 2, (b + 255) // 2), max(1, c // 16))
        x, y = _label_cell(cells)
        centre = lay.cell_rect(x, y).center
        size = max(10, int(c * (0.8 if first else 0.65)))
        R.blit_text(surface, str(index + 1), (centre[0] + 1, centre[1] + 1), size, (0, 0, 0), "center")
        R.blit_text(surface, str(index + 1), centre, size, HINT_WHITE, "center")


def draw_pc(surface: pygame.Surface, scene, lay) -> None:
    coach = scene.coach
    answer = coach.pc_shown
    if answer is not None and answer.solvable and answer.overlay:
        draw_overlay(surface, lay, answer.overlay)
    if coach.lost_clock is not None:
        age = scene.clock - coach.lost_clock
        if age < LOST_FLASH_TICKS and (age // 5) % 2 == 0:
            pygame.draw.rect(surface, R.BAD, lay.field.inflate(10, 10), max(3, lay.c // 5))


class _MiniLayout:
    """cell_rect for a small copy of the bottom rows of the field (the before-the-mistake view)."""

    def __init__(self, left: int, bottom: int, c: int) -> None:
        self.left, self.bottom, self.c = left, bottom, c

    def cell_rect(self, x: int, y: int) -> pygame.Rect:
        return pygame.Rect(self.left + x * self.c, self.bottom - (y + 1) * self.c, self.c, self.c)


def _draw_mini(surface: pygame.Surface, board, overlay, left: int, top: int, c: int, rows: int) -> int:
    """Bottom `rows` rows of `board` with the overlay; returns the bottom y."""
    area = pygame.Rect(left, top, WIDTH * c, rows * c)
    pygame.draw.rect(surface, R.FIELD_BG, area)
    pygame.draw.rect(surface, R.PANEL_EDGE, area.inflate(2, 2), 1)
    mini = _MiniLayout(left, area.bottom, c)
    for y in range(rows):
        for x in range(WIDTH):
            if board.is_filled(x, y):
                surface.blit(R.block(R.CODE_COLOURS[board.colour_at(x, y)], c), mini.cell_rect(x, y))
    draw_overlay(surface, mini, [(p, [(x, y) for x, y in cells if y < rows]) for p, cells in overlay])
    return area.bottom


def _key(keymap, button: str) -> str:
    keys = keymap.keys_for(button)
    return pretty_key(keys[0]) if keys else "(unbound)"


def draw_panel(surface: pygame.Surface, scene, lay, fs: int) -> int:
    """The Coach panel's live part; returns the y below it."""
    coach = scene.coach
    app = scene.app
    c = lay.c
    x = lay.coach.x + c // 2
    y = lay.coach.y + int(c * 1.7)
    small = max(10, int(fs * 0.85))
    line = int(fs * 1.15)
    text, tone = coach.status_text()
    colour = {"good": R.GOOD, "bad": R.BAD}.get(tone, R.DIM)
    for part in R.wrap(text, small, lay.coach.w - c)[:3]:
        R.blit_text(surface, part, (x, y), small, colour)
        y += int(small * 0.95)
    y += c // 3
    keys = app.keymap
    ai = app.settings.ai
    R.blit_text(surface, f"Hint ({_key(keys, 'toggle_hint')})", (x, y), fs, R.DIM)
    R.blit_text(surface, "on" if ai.hint_enabled else "off", (lay.coach.right - c // 2, y), fs,
                R.TEXT if ai.hint_enabled else R.DIM, "topright")
    y += line
    pace = "max" if not ai.autoplay_pps else f"{ai.autoplay_pps:g} pps"
    R.blit_text(surface, f"Autoplay ({_key(keys, 'toggle_autoplay')})", (x, y), fs, R.DIM)
    R.blit_text(surface, f"on · {pace}" if coach.autoplay else "off", (lay.coach.right - c // 2, y), fs,
                R.ACCENT if coach.autoplay else R.DIM, "topright")
    y += line
    if coach.show_hint and coach.hint is not None and ai.show_key_sequence:
        y = _draw_keys(surface, coach.hint, x, y + c // 4, lay.coach.right - c // 2, fs)
    if coach.pc_on:
        y = _draw_pc_panel(surface, scene, x, y + c // 2, lay, fs)
    return y


_ALT_GLYPHS = {"⤓": "⇓"}  # fonts without U+2913 usually have the double arrow


@lru_cache(maxsize=64)
def _printable(font: pygame.font.Font, label: str) -> bool:
    """True if the font has a real glyph for every character (not its 'missing' box)."""
    missing = font.metrics("\ue000")[0]
    return all(m is not None and m != missing for m in font.metrics(label))


R.CACHE_HOOKS.append(_printable.cache_clear)


def _key_label(font: pygame.font.Font, glyph: str, plain: str) -> str:
    for label in (glyph, _ALT_GLYPHS.get(glyph, "")):
        if label and _printable(font, label):
            return label
    return plain


def _draw_keys(surface: pygame.Surface, move, x: int, y: int, right: int, fs: int) -> int:
    glyphs = _glyph_font_path() is not None
    font = _glyph_font(fs) if glyphs else R.font(fs)
    labels = [_key_label(font, g, a) for g, a in zip(key_labels(move, True), key_labels(move, False))]
    cx = x
    height = font.get_height() + 6
    for label in labels:
        img = font.render(label, True, R.TEXT)
        w = img.get_width() + 10
        if cx + w > right:
            cx = x
            y += height + 4
        box = pygame.Rect(cx, y, w, height)
        pygame.draw.rect(surface, (44, 48, 66), box, border_radius=4)
        pygame.draw.rect(surface, R.PANEL_EDGE, box, 1, border_radius=4)
        surface.blit(img, img.get_rect(center=box.center))
        cx += w + 4
    return y + height + 6


def _draw_pc_panel(surface: pygame.Surface, scene, x: int, y: int, lay, fs: int) -> int:
    coach = scene.coach
    c = lay.c
    R.blit_text(surface, "Perfect clear", (x, y), int(fs * 1.1), R.TEXT)
    y += int(fs * 1.4)
    answer = coach.pc_shown
    game = scene.game
    if coach.pc_lost:
        R.blit_text(surface, "PC no longer possible", (x, y), int(fs * 1.05), R.BAD)
        y += int(fs * 1.3)
    elif game.board.height() > 6:
        R.blit_text(surface, "stack is above 6 rows", (x, y), fs, R.DIM)
        y += int(fs * 1.3)
    elif answer is None:
        R.blit_text(surface, "solving…", (x, y), fs, R.DIM)
        y += int(fs * 1.3)
    else:
        if answer.solvable:
            badge = pygame.Rect(x, y, int(c * 1.6), int(fs * 1.2))
            pygame.draw.rect(surface, R.GOOD, badge, border_radius=5)
            R.blit_text(surface, "PC", badge.center, fs, (10, 30, 14), "center")
            R.blit_text(surface, f"in {len(answer.overlay) or len(answer.solution)} pieces",
                        (badge.right + c // 3, badge.centery), fs, R.GOOD, "midleft")
            y = badge.bottom + c // 3
            if answer.solution:
                first = answer.solution[0]
                how = "hold, then place" if first.hold else "place"
                R.blit_text(surface, f"Next: {how} the {first.piece.name} (1)", (x, y), fs, R.TEXT)
                y += int(fs * 1.3)
                if scene.app.settings.ai.show_key_sequence:
                    y = _draw_keys(surface, first, x, y, lay.coach.right - c // 2, fs)
        else:
            R.blit_text(surface, "no PC with the pieces shown", (x, y), fs, R.DIM)
            y += int(fs * 1.3)
        if answer.chance is None:
            R.blit_text(surface, "PC chance: computing…" if not answer.final else "PC chance: not computed",
                        (x, y), fs, R.DIM)
            y += int(fs * 1.3)
        elif answer.chance is not None:
            tone = R.GOOD if answer.chance >= 0.5 else R.ACCENT if answer.chance > 0 else R.BAD
            R.blit_text(surface, f"PC chance {answer.chance * 100:.0f}%", (x, y), int(fs * 1.05), tone)
            y += int(fs * 1.3)
    good = coach.good
    if coach.pc_lost and good is not None and good.answer.overlay:
        R.blit_text(surface, "The solution before the mistake:", (x, y), max(10, int(fs * 0.8)), R.DIM)
        y += int(fs * 0.95)
        y = _draw_mini(surface, good.board, good.answer.overlay, x, y, max(4, int(c * 0.75)), 4) + c // 4
        if scene.mode.allow_undo:
            keys = scene.app.keymap
            for part in R.wrap(f"Backspace/{_key(keys, 'undo')}: rewind to before the mistake",
                               max(10, int(fs * 0.8)), lay.coach.w - c):
                R.blit_text(surface, part, (x, y), max(10, int(fs * 0.8)), R.ACCENT)
                y += int(fs * 0.9)
    return y
