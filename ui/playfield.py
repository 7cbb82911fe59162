"""Drawing the play screen. Reads a PlayScene and the settings; never changes either.

The layout is measured in cells: one cell size `c` (whole pixels) is chosen to fit the window, and every
panel is placed in multiples of it, so the board is pixel-crisp at any window size.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import pygame

from game.board import VISIBLE_HEIGHT, WIDTH
from game.pieces import SHAPES, Piece, Rotation
from ui import coach_view
from ui import render as R
from ui.input import KeyMap, pretty_key
from ui.play_state import COUNTDOWN_TICKS, FLASH_TICKS, POPUP_TICKS

if TYPE_CHECKING:
    from ui.play import PlayScene  # for the checker only: the scene imports this module to draw itself

_ROW_BITS = [tuple(x for x in range(WIDTH) if row >> x & 1) for row in range(1 << WIDTH)]
SHOWN_ROWS = 22  # the 20 visible rows plus the two spawn rows above them
LAYOUT_W, LAYOUT_H = 33.4, 24.6  # cells


@dataclass(frozen=True)
class PlayLayout:
    c: int  # cell size in pixels
    field: pygame.Rect  # the 10x20 visible field
    hold: pygame.Rect
    stats: pygame.Rect
    queue: pygame.Rect
    coach: pygame.Rect
    title_pos: tuple[int, int]
    footer_pos: tuple[int, int]

    def cell_rect(self, x: int, y: int) -> pygame.Rect:
        """Screen rectangle of board cell (x, y) (y up, 0 = bottom row)."""
        return pygame.Rect(self.field.x + x * self.c, self.field.bottom - (y + 1) * self.c, self.c, self.c)


@lru_cache(maxsize=8)
def play_layout(size: tuple[int, int], scale: float = 1.0) -> PlayLayout:
    """The play screen's rectangles for a window size; `scale` (0.5..1) shrinks the whole layout."""
    w, h = size
    c = max(4, int(min(w / LAYOUT_W, h / LAYOUT_H) * max(0.3, min(1.0, scale))))
    x0 = (w - int(31.4 * c)) // 2
    y0 = (h - int(23.6 * c)) // 2
    field_top = y0 + int(2.6 * c)
    left = pygame.Rect(x0, field_top, 6 * c, 0)
    field_rect = pygame.Rect(x0 + int(6.6 * c), field_top, WIDTH * c, VISIBLE_HEIGHT * c)
    hold = pygame.Rect(left.x, field_top, 6 * c, int(3.6 * c))
    stats = pygame.Rect(left.x, hold.bottom + int(0.6 * c), 6 * c, field_rect.bottom - hold.bottom - int(0.6 * c))
    queue = pygame.Rect(field_rect.right + int(0.6 * c), field_top, int(4.4 * c), int(16.4 * c))
    coach = pygame.Rect(queue.right + int(0.8 * c), field_top, 9 * c, VISIBLE_HEIGHT * c)
    return PlayLayout(
        c, field_rect, hold, stats, queue, coach, (x0, y0), (field_rect.centerx, field_rect.bottom + c // 2)
    )


@lru_cache(maxsize=8)
def _field_background(c: int, grid: bool) -> pygame.Surface:
    surf = pygame.Surface((WIDTH * c, VISIBLE_HEIGHT * c))
    surf.fill(R.FIELD_BG)
    if grid:
        for x in range(1, WIDTH):
            pygame.draw.line(surf, R.GRID, (x * c, 0), (x * c, VISIBLE_HEIGHT * c - 1))
        for y in range(1, VISIBLE_HEIGHT):
            pygame.draw.line(surf, R.GRID, (0, y * c), (WIDTH * c - 1, y * c))
    return surf


@lru_cache(maxsize=4)
def _static_background(size: tuple[int, int], scale: float, grid: bool) -> pygame.Surface:
    """Window background, panels, their titles and the empty field with its grid and frame."""
    lay = play_layout(size, scale)
    c = lay.c
    fs = max(10, int(c * 0.75))
    surf = pygame.Surface(size)
    surf.fill(R.BG)
    surf.blit(_field_background(c, grid), lay.field.topleft)
    pygame.draw.rect(surf, R.PANEL_EDGE, lay.field.inflate(4, 4), 2)
    R.panel(surf, lay.hold)
    R.blit_text(surf, "HOLD", (lay.hold.x + c // 3, lay.hold.y + c // 4), fs, R.DIM)
    R.panel(surf, lay.queue)
    R.blit_text(surf, "NEXT", (lay.queue.x + c // 3, lay.queue.y + c // 4), fs, R.DIM)
    # The Coach panel's frame and title; its live content is drawn by ui.coach_view each frame.
    R.panel(surf, lay.coach)
    R.blit_text(surf, "Coach", (lay.coach.x + c // 2, lay.coach.y + c // 3), int(fs * 1.3), R.ACCENT)
    return surf


@lru_cache(maxsize=16)
def _flash_surface(width: int, height: int) -> pygame.Surface:
    surf = pygame.Surface((width, height))
    surf.fill((255, 255, 255))
    return surf


R.CACHE_HOOKS += [_field_background.cache_clear, _static_background.cache_clear, _flash_surface.cache_clear]


def _mini_piece(
    surface: pygame.Surface, piece: Piece, box: pygame.Rect, size: int, colour: tuple[int, int, int]
) -> None:
    """A piece in spawn orientation centred in `box`."""
    cells = SHAPES[piece, Rotation.NORTH]
    xs = [dx for dx, _ in cells]
    ys = [dy for _, dy in cells]
    width = (max(xs) - min(xs) + 1) * size
    height = (max(ys) - min(ys) + 1) * size
    left = box.centerx - width // 2
    top = box.centery - height // 2
    sprite = R.block(colour, size)
    for dx, dy in cells:
        surface.blit(sprite, (left + (dx - min(xs)) * size, top + (max(ys) - dy) * size))


def _fmt_time(seconds: float) -> str:
    minutes, rest = divmod(seconds, 60)
    return f"{int(minutes)}:{rest:05.2f}"


def draw_play(surface: pygame.Surface, scene: PlayScene) -> None:  # noqa: C901 - the play screen drawn in layout order; each branch is one optional panel
    settings = scene.app.settings
    display = settings.display
    game = scene.game
    lay = play_layout(surface.get_size(), display.scale)
    c = lay.c
    fs = max(10, int(c * 0.75))  # body font size
    # Everything that does not change during a game is one cached surface: a single blit per frame.
    surface.blit(_static_background(surface.get_size(), display.scale, display.grid), (0, 0))
    board = game.board
    bits, colours = board.bits, board.colours
    for y in range(SHOWN_ROWS):
        row = (bits >> (y * WIDTH)) & 1023
        if not row:
            continue
        for x in _ROW_BITS[row]:
            code = colours[y * WIDTH + x] if colours is not None else 8
            surface.blit(R.block(R.CODE_COLOURS[code], c), lay.cell_rect(x, y))
    if scene.flash is not None:
        rows, born = scene.flash
        age = scene.clock - born
        if age < FLASH_TICKS:
            strip = _flash_surface(WIDTH * c, c)
            strip.set_alpha(max(0, 220 - age * 220 // FLASH_TICKS))
            for y in rows:
                if y < SHOWN_ROWS:
                    surface.blit(strip, lay.cell_rect(0, y).topleft)
    # Layers, bottom to top: the normal ghost, the PC advice, the falling piece, the PC's numbers and the
    # engine's hint (so neither ghost hides a number and the advice shows even under the falling piece).
    active = game.active if not game.over else None  # the piece in play, drawn with its ghost
    if active is not None:
        cells = SHAPES[active.piece, active.rotation]
        ghost_y = game.ghost_y()
        if display.ghost and ghost_y is not None and ghost_y != active.y:
            sprite = R.ghost_block(active.piece, c)
            for dx, dy in cells:
                if ghost_y + dy < SHOWN_ROWS:
                    surface.blit(sprite, lay.cell_rect(active.x + dx, ghost_y + dy))
    coach_view.draw_pc(surface, scene, lay)
    if active is not None:
        sprite = R.block(R.CODE_COLOURS[int(active.piece) + 1], c)
        for dx, dy in cells:
            if active.y + dy < SHOWN_ROWS:
                surface.blit(sprite, lay.cell_rect(active.x + dx, active.y + dy))
    coach_view.draw_pc_numbers(surface, scene, lay)
    coach_view.draw_hint(surface, scene, lay)

    # Hold box: greyed while hold is used for this piece.
    if game.hold is not None:
        colour = R.HOLD_USED if game.hold_used else R.CODE_COLOURS[int(game.hold) + 1]
        box = lay.hold.inflate(-c // 2, -c)
        box.top += c // 2
        _mini_piece(surface, game.hold, box, int(c * 0.8), colour)
    elif not game.rules.hold:
        R.blit_text(surface, "off", lay.hold.center, fs, R.DIM, "center")

    # Next queue with the optional 7-bag divider.
    previews = scene.previews
    slot = int(2.6 * c)
    mini = int(c * 0.7)
    top = lay.queue.y + c
    for i, piece in enumerate(previews):
        box = pygame.Rect(lay.queue.x, top + i * slot, lay.queue.w, slot)
        _mini_piece(surface, piece, box, mini if i else int(c * 0.8), R.CODE_COLOURS[int(piece) + 1])
        if display.bag_divider and scene.bag_aligned and (game.stream_pos + i) % 7 == 0:
            pygame.draw.line(surface, R.ACCENT, (box.x + c // 3, box.y), (box.right - c // 3, box.y), max(1, c // 12))
    if not previews:
        R.blit_text(surface, "off", lay.queue.center, fs, R.DIM, "center")

    _draw_stats(surface, scene, lay, fs)
    _draw_coach(surface, scene, lay, fs)
    _draw_popups(surface, scene, lay, c)

    _draw_title(surface, scene, lay, c)
    R.blit_text(surface, scene.footer_text, lay.footer_pos, max(10, int(c * 0.6)), R.DIM, "midtop")
    _draw_banner(surface, scene, lay, c)


def _draw_title(surface: pygame.Surface, scene: PlayScene, lay: PlayLayout, c: int) -> None:
    """The mode (and the start's label), then the rules line. Nothing may run over the spawn rows above the field
    (columns 3-6): a label too long to follow the mode on its line (a set-up's name) gets a line of its own."""
    x, y = lay.title_pos
    width = lay.field.x + 3 * c - c // 3 - x
    title, label = scene.mode.title, scene.start.label if scene.start is not None else ""
    size, line = int(c * 1.1), int(c * 1.05)
    if label and R.fit_size(size, width, f"{title} — {label}") == size:
        title, label = f"{title} — {label}", ""
    R.blit_text(surface, title, (x, y), R.fit_size(size, width, title), R.TEXT)
    if label:
        small = int(c * 0.7)
        R.blit_text(surface, label, (x, y + line), R.fit_size(small, width, label), R.TEXT)
        line += int(c * 0.75)
    R.blit_text(surface, scene.rules_text, (x, y + line), max(10, int(c * 0.55)), R.DIM)


def _key(keymap: KeyMap, button: str) -> str:
    keys = keymap.keys_for(button)
    return pretty_key(keys[0]) if keys else "(unbound)"


def _draw_stats(surface: pygame.Surface, scene: PlayScene, lay: PlayLayout, fs: int) -> None:
    s = scene.summary()
    mode = scene.mode
    rows: list[tuple[str, str]] = [("Time", _fmt_time(s["seconds"]))]
    if mode.goal_lines:
        rows.append(("Lines", f"{int(s['lines'])}/{mode.goal_lines}"))
    else:
        rows.append(("Lines", f"{int(s['lines'])}"))
    rows += [
        ("Pieces", f"{int(s['pieces'])}"),
        ("PPS", f"{s['pps']:.2f}"),
        ("APM", f"{s['apm']:.1f}"),
        ("KPP", f"{s['kpp']:.2f}"),
    ]
    if scene.app.settings.display.show_finesse:
        rows.append(("Finesse", f"{int(s['finesse'])}"))
    if mode.shows_level:
        rows += [("Level", f"{int(s['level'])}"), ("Score", f"{int(s['score'])}")]
    if mode.key in ("pc", "setup"):
        rows.append(("PCs", f"{int(s['pcs'])}"))
    game = scene.game
    if game.b2b > 0:
        rows.append(("B2B", f"x{game.b2b}"))
    x, y = lay.stats.x + lay.c // 3, lay.stats.y
    step = int(fs * 1.55)
    for label, value in rows:
        R.blit_text(surface, label, (x, y), fs, R.DIM)
        R.blit_text(surface, value, (lay.stats.right - lay.c // 3, y), int(fs * 1.15), R.TEXT, "topright")
        y += step


def _draw_coach(surface: pygame.Surface, scene: PlayScene, lay: PlayLayout, fs: int) -> None:
    y = coach_view.draw_panel(surface, scene, lay, fs) + lay.c // 2
    for line in scene.problems:
        at = (lay.coach.x + lay.c // 2, y)
        y = coach_view.draw_lines(surface, line, at, int(fs * 0.85), R.BAD, lay.coach.w - lay.c, step=int(fs * 0.9))


def _fade(colour: tuple[int, int, int], age: int) -> tuple[int, int, int]:
    """Full colour, then blend into the background over the last 30 ticks of a pop-up."""
    left = POPUP_TICKS - age
    if left >= 30:
        return colour
    t = max(0, left) / 30
    return tuple(int(b + (c - b) * t) for c, b in zip(colour, R.BG))  # type: ignore[return-value]


def _draw_popups(surface: pygame.Surface, scene: PlayScene, lay: PlayLayout, c: int) -> None:
    y = lay.stats.bottom - int(c * 3.5)
    for popup in scene.popups:
        age = scene.clock - popup.born
        if age >= POPUP_TICKS:
            continue
        colour = _fade(popup.colour, age)
        if popup.big:
            R.blit_text(
                surface, popup.text, (lay.field.centerx, lay.field.y + lay.field.h // 3), int(c * 1.3), colour, "center"
            )
            continue
        R.blit_text(surface, popup.text, (lay.stats.right - c // 3, y), int(c * 0.95), colour, "topright")
        y += int(c * 1.1)


def _draw_banner(surface: pygame.Surface, scene: PlayScene, lay: PlayLayout, c: int) -> None:
    """Countdown and end-of-run messages over the field."""
    message, colour = None, R.TEXT
    if scene.countdown > 0:
        message = "READY" if scene.countdown > COUNTDOWN_TICKS // 2 else "GO!"
        colour = R.ACCENT
    elif scene.end_reason == "finished":
        message, colour = f"FINISHED  {_fmt_time(scene.game.seconds)}", R.GOOD
    elif scene.end_reason == "topout":
        message, colour = "TOP OUT", R.BAD
    if message is None:
        return
    band = pygame.Rect(lay.field.x, lay.field.centery - int(c * 1.2), lay.field.w, int(c * 2.4))
    pygame.draw.rect(surface, (0, 0, 0), band)
    R.blit_text(surface, message, band.center, int(c * 1.5), colour, "center")
    if scene.end_reason == "topout" and scene.mode.allow_undo:
        keys = scene.app.keymap
        R.blit_text(
            surface,
            f"{_key(keys, 'undo')} undo · Enter results",
            (band.centerx, band.bottom + c // 3),
            max(10, int(c * 0.6)),
            R.TEXT,
            "midtop",
        )
