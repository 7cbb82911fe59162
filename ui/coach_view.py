"""Drawing the coach: the advice ghost, the PC solution overlay and the Coach panel. Reads only.

One source of advice at a time: when the PC coach leads (it has a move, or in PC practice is still working one
out) its overlay is the advice and the engine's hint ghost is not drawn. The advice ghost must not rely on hue
alone (colour-blind players): it is the piece's colour under a white diagonal hatch with a thick outline,
which reads differently from the normal (solid) ghost; a placement that needs a hold carries a HOLD tag.
Texts come from `Coach.pc_panel()` (see `ai.protocol.pc_panel`), the same values the tests play from.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Protocol

import pygame

from ai.protocol import Move
from game.board import WIDTH, Board
from game.pieces import COLOURS, Piece
from ui import render as R
from ui.coach import LOST_FLASH_TICKS, BuildTarget, key_labels, move_cells
from ui.input import KeyMap, pretty_key

if TYPE_CHECKING:
    from ui.play import PlayScene
    from ui.playfield import PlayLayout  # both import this module at run time to draw the coach

SHOWN_ROWS = 22
HINT_WHITE = (255, 255, 255)
Cells = Sequence[tuple[int, int]]
Overlay = Sequence[tuple[Piece, Cells]]  # numbered pieces of a solution or build, in the order to place them


class CellLayout(Protocol):
    """Where board cells are drawn: the play field (ui.playfield.PlayLayout) or a small copy of it."""

    @property
    def c(self) -> int: ...

    def cell_rect(self, x: int, y: int) -> pygame.Rect: ...


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


def _outline(surface: pygame.Surface, lay: CellLayout, cells: Cells, colour: R.Colour, width: int) -> None:
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


def _advice_ghost(surface: pygame.Surface, lay: CellLayout, move: Move) -> None:
    """A placement to make: its colour under a white hatch, a thick outline, and a HOLD tag if it needs one."""
    cells = [(x, y) for x, y in move_cells(move) if 0 <= x < WIDTH and y < SHOWN_ROWS]
    if not cells:
        return
    c = lay.c
    piece = move.placement.piece
    tint, hatch = _tint(Piece(piece), c, 110), _hatch(c)
    for x, y in cells:
        surface.blit(tint, lay.cell_rect(x, y))
        surface.blit(hatch, lay.cell_rect(x, y))
    _outline(surface, lay, cells, (0, 0, 0), max(3, c // 5))  # dark halo keeps the edge visible on light blocks
    _outline(surface, lay, cells, _light(piece), max(2, c // 9))
    if move.hold:
        _hold_tag(surface, lay, cells, piece)


def _hold_tag(surface: pygame.Surface, lay: CellLayout, cells: Cells, piece: Piece | int) -> None:
    """A small HOLD label above a placement that is made after pressing hold."""
    top = max(cells, key=lambda p: (p[1], -p[0]))
    r = lay.cell_rect(*top)
    tag = R.font(max(9, int(lay.c * 0.5))).render("HOLD", True, (10, 10, 14))
    box = tag.get_rect(midbottom=(r.centerx, r.top - 2)).inflate(8, 2)
    pygame.draw.rect(surface, _light(piece), box, border_radius=4)
    pygame.draw.rect(surface, (0, 0, 0), box, 1, border_radius=4)
    surface.blit(tag, tag.get_rect(center=box.center))


def _light(piece: Piece | int) -> R.Colour:
    r, g, b = COLOURS[Piece(piece)]
    return (r + 255) // 2, (g + 255) // 2, (b + 255) // 2


def draw_hint(surface: pygame.Surface, scene: PlayScene, lay: PlayLayout) -> None:
    """The engine's suggested placement for the piece in play (when the PC coach is not leading)."""
    coach = scene.coach
    if not coach.show_hint or coach.hint is None:
        return
    _advice_ghost(surface, lay, coach.hint)


def _label_cell(cells: Cells) -> tuple[int, int]:
    cx = sum(x for x, _ in cells) / len(cells)
    cy = sum(y for _, y in cells) / len(cells)
    return min(cells, key=lambda p: (p[0] - cx) ** 2 + (p[1] - cy) ** 2)


def _visible(cells: Cells) -> list[tuple[int, int]]:
    return [(x, y) for x, y in cells if 0 <= x < WIDTH and 0 <= y < SHOWN_ROWS]


def draw_overlay_pieces(
    surface: pygame.Surface, lay: CellLayout, overlay: Overlay, *, emphasise_first: bool = True
) -> None:
    """A PC solution's pieces: each translucent in its colour inside a dark edge (so two pieces of one colour
    never run together) and a light edge of its own; the next one stronger and outlined in white."""
    c = lay.c
    for index, (piece, cells) in enumerate(overlay):
        cells = _visible(cells)
        if not cells:
            continue
        first = emphasise_first and index == 0
        tint = _tint(Piece(piece), c, 200 if first else 120)
        for x, y in cells:
            surface.blit(tint, lay.cell_rect(x, y))
        _outline(surface, lay, cells, (12, 12, 18), max(3, c // 7))
        _outline(surface, lay, cells, HINT_WHITE if first else _light(piece), max(1, c // (10 if first else 16)))


def draw_overlay_numbers(
    surface: pygame.Surface, lay: CellLayout, overlay: Overlay, *, emphasise_first: bool = True
) -> None:
    """The placement order, on top of everything else on the field (ghost and falling piece included)."""
    c = lay.c
    for index, (_, cells) in enumerate(overlay):
        cells = _visible(cells)
        if not cells:
            continue
        first = emphasise_first and index == 0
        x, y = _label_cell(cells)
        centre = lay.cell_rect(x, y).center
        size = max(10, int(c * (0.8 if first else 0.65)))
        R.blit_text(surface, str(index + 1), (centre[0] + 1, centre[1] + 1), size, (0, 0, 0), "center")
        R.blit_text(surface, str(index + 1), centre, size, HINT_WHITE, "center")


def draw_overlay(surface: pygame.Surface, lay: CellLayout, overlay: Overlay, *, emphasise_first: bool = True) -> None:
    draw_overlay_pieces(surface, lay, overlay, emphasise_first=emphasise_first)
    draw_overlay_numbers(surface, lay, overlay, emphasise_first=emphasise_first)


def draw_pc(surface: pygame.Surface, scene: PlayScene, lay: PlayLayout) -> None:
    """The PC advice under the falling piece: the solution's pieces, or the best next placement."""
    coach = scene.coach
    if not (coach.pc_on or coach.building):
        return
    panel = coach.advice_panel()
    if panel.overlay:
        draw_overlay_pieces(surface, lay, panel.overlay)
    elif panel.first_move is not None:
        _advice_ghost(surface, lay, panel.first_move)
    if coach.lost_clock is not None:
        age = scene.clock - coach.lost_clock
        if age < LOST_FLASH_TICKS and (age // 5) % 2 == 0:
            pygame.draw.rect(surface, R.BAD, lay.field.inflate(10, 10), max(3, lay.c // 5))


def draw_pc_numbers(surface: pygame.Surface, scene: PlayScene, lay: PlayLayout) -> None:
    coach = scene.coach
    if coach.pc_on or coach.building:
        panel = coach.advice_panel()
        if panel.overlay:
            draw_overlay_numbers(surface, lay, panel.overlay)
            first = panel.first_move
            cells = _visible(panel.overlay[0][1])
            if first is not None and first.hold and cells:
                _hold_tag(surface, lay, cells, first.placement.piece)


class _MiniLayout:
    """cell_rect for a small copy of the bottom rows of the field (the before-the-mistake view)."""

    def __init__(self, left: int, bottom: int, c: int) -> None:
        self.left, self.bottom, self.c = left, bottom, c

    def cell_rect(self, x: int, y: int) -> pygame.Rect:
        return pygame.Rect(self.left + x * self.c, self.bottom - (y + 1) * self.c, self.c, self.c)


def _draw_mini(surface: pygame.Surface, board: Board, overlay: Overlay, left: int, top: int, c: int, rows: int) -> int:
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


ELLIPSIS = "…"


def _elide(line: str, size: int, width: int) -> str:
    """`line` cut to fit `width` pixels at font `size`, ending in an ellipsis when it was cut."""
    font = R.font(size)
    if font.size(line)[0] <= width:
        return line
    while line and font.size(line.rstrip() + ELLIPSIS)[0] > width:
        line = line[:-1]
    return line.rstrip() + ELLIPSIS


def fit_lines(text: str, size: int, width: int, max_lines: int | None = None) -> list[str]:
    """`text` as lines no wider than `width` pixels at font `size`: wrapped at spaces; a line that still does not
    fit (one long word), or the last one kept when `max_lines` cuts the rest, is elided with an ellipsis. Every
    text of the Coach panel (and the set-up choice box) goes through here, so none runs past the panel's edge."""
    lines = R.wrap(text, size, width)
    if max_lines is not None and len(lines) > max_lines:
        lines = lines[: max_lines - 1] + [_elide(lines[max_lines - 1] + ELLIPSIS, size, width)]
    return [_elide(line, size, width) for line in lines]


def draw_lines(
    surface: pygame.Surface,
    text: str,
    pos: tuple[int, int],
    size: int,
    colour: R.Colour,
    width: int,
    *,
    step: int,
    after: int | None = None,
    max_lines: int | None = None,
) -> int:
    """`text` fitted to `width` (fit_lines) from `pos` down, `step` pixels apart; returns the y below: `after`
    pixels below the last line's top (default `step`)."""
    x, y = pos
    lines = fit_lines(text, size, width, max_lines)
    for index, line in enumerate(lines):
        R.blit_text(surface, line, (x, y), size, colour)
        y += step if index < len(lines) - 1 else (step if after is None else after)
    return y


def _draw_setting_row(
    surface: pygame.Surface, label: str, value: str, pos: tuple[int, int], right: int, fs: int, colour: R.Colour
) -> None:
    """A setting's label at the left and its value at the right edge; the label gives way to the value."""
    x, y = pos
    value_rect = R.blit_text(surface, value, (right, y), fs, colour, "topright")
    room = value_rect.left - x - fs // 2
    R.blit_text(surface, fit_lines(label, fs, room, max_lines=1)[0], (x, y), fs, R.DIM)


def _key(keymap: KeyMap, button: str) -> str:
    keys = keymap.keys_for(button)
    return pretty_key(keys[0]) if keys else "(unbound)"


def draw_panel(surface: pygame.Surface, scene: PlayScene, lay: PlayLayout, fs: int) -> int:
    """The Coach panel's live part; returns the y below it."""
    coach = scene.coach
    app = scene.app
    c = lay.c
    x = lay.coach.x + c // 2
    y = lay.coach.y + int(c * 1.7)
    small = max(10, int(fs * 0.85))
    line = int(fs * 1.15)
    right = lay.coach.right - c // 2
    text, tone = coach.status_text()
    colour = {"good": R.GOOD, "bad": R.BAD}.get(tone, R.DIM)
    y = draw_lines(surface, text, (x, y), small, colour, right - x, step=int(small * 0.95), max_lines=3)
    y += c // 3
    keys = app.keymap
    ai = app.settings.ai
    hint_colour = R.TEXT if ai.hint_enabled else R.DIM
    hint_state = "on" if ai.hint_enabled else "off"
    _draw_setting_row(surface, f"Hint ({_key(keys, 'toggle_hint')})", hint_state, (x, y), right, fs, hint_colour)
    y += line
    pace = "max" if not ai.autoplay_pps else f"{ai.autoplay_pps:g} pps"
    playing = "the PC" if coach.pc_leads else pace
    autoplay_state = f"on · {playing}" if coach.autoplay else "off"
    autoplay_colour = R.ACCENT if coach.autoplay else R.DIM
    autoplay_label = f"Autoplay ({_key(keys, 'toggle_autoplay')})"
    _draw_setting_row(surface, autoplay_label, autoplay_state, (x, y), right, fs, autoplay_colour)
    y += line
    if coach.show_hint and coach.hint is not None and ai.show_key_sequence:
        y = _draw_keys(surface, coach.hint, x, y + c // 4, right, fs)
    target = coach.target
    if coach.building and target is not None:  # building implies a target; the check tells the type checker
        y = _draw_build_panel(surface, scene, target, x, y + c // 2, lay, fs)
    elif coach.pc_on:
        y = _draw_pc_panel(surface, scene, x, y + c // 2, lay, fs)
    elif target is not None:  # a set-up built for a T-spin finish: the engine's hint shows the way
        finish = target.finishes[0] if target.finishes else "T-spin"
        built = f"Set-up built: finish with a {finish}"
        y = draw_lines(surface, built, (x, y + c // 2), fs, R.GOOD, right - x, step=int(fs * 1.2), after=int(fs * 1.3))
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


def _draw_keys(surface: pygame.Surface, move: Move, x: int, y: int, right: int, fs: int) -> int:
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


def _draw_build_panel(
    surface: pygame.Surface, scene: PlayScene, target: BuildTarget, x: int, y: int, lay: PlayLayout, fs: int
) -> int:
    """The set-up being built: its name, the advice for the next piece, its keys and the build chance."""
    coach = scene.coach
    c = lay.c
    right = lay.coach.right - c // 2
    width = right - x
    title = int(fs * 1.1)
    y = draw_lines(
        surface, f"Set-up: {target.name}", (x, y), title, R.TEXT, width, step=int(fs * 1.2), after=int(fs * 1.4)
    )
    panel = coach.build_panel()
    tone = R.BAD if panel.status in ("impossible", "lost") else R.DIM
    y = draw_lines(surface, panel.headline, (x, y), fs, tone, width, step=int(fs * 1.2))
    if panel.advice:
        y = draw_lines(surface, panel.advice, (x, y), fs, R.TEXT, width, step=int(fs * 1.2))
    if panel.first_move is not None and scene.app.settings.ai.show_key_sequence:
        y = _draw_keys(surface, panel.first_move, x, y + c // 8, right, fs)
    if panel.chance_text:
        y = draw_lines(
            surface, panel.chance_text, (x, y), int(fs * 1.05), _chance_colour(panel.chance), width, step=int(fs * 1.3)
        )
    if coach.pc_lost and scene.mode.allow_undo:
        y = _draw_rewind(surface, scene, (x, y), width, fs)
    return y


def _chance_colour(chance: float | None) -> R.Colour:
    return R.DIM if chance is None else R.GOOD if chance >= 0.5 else R.ACCENT if chance > 0 else R.BAD


def _draw_rewind(surface: pygame.Surface, scene: PlayScene, pos: tuple[int, int], width: int, fs: int) -> int:
    """How to go back to before the mistake; returns the y below."""
    text = f"Backspace/{_key(scene.app.keymap, 'undo')}: rewind to before the mistake"
    return draw_lines(surface, text, pos, max(10, int(fs * 0.8)), R.ACCENT, width, step=int(fs * 0.9))


def _draw_pc_panel(surface: pygame.Surface, scene: PlayScene, x: int, y: int, lay: PlayLayout, fs: int) -> int:
    coach = scene.coach
    c = lay.c
    right = lay.coach.right - c // 2
    width = right - x
    y = draw_lines(
        surface, "Perfect clear", (x, y), int(fs * 1.1), R.TEXT, width, step=int(fs * 1.2), after=int(fs * 1.4)
    )
    panel = coach.pc_panel()
    if scene.game.board.height() > 6 and panel.status != "lost":
        y = draw_lines(
            surface, "stack is above 6 rows", (x, y), fs, R.DIM, width, step=int(fs * 1.2), after=int(fs * 1.3)
        )
    elif panel.status == "lost":
        y = draw_lines(
            surface, panel.headline, (x, y), int(fs * 1.05), R.BAD, width, step=int(fs * 1.2), after=int(fs * 1.3)
        )
    elif panel.status == "solving":
        y = draw_lines(surface, panel.headline, (x, y), fs, R.DIM, width, step=int(fs * 1.2), after=int(fs * 1.3))
    else:
        y = _draw_pc_advice(surface, scene, (x, y), right, lay, fs)
    good = coach.good
    if coach.pc_lost and good is not None and good.answer.overlay:
        small = max(10, int(fs * 0.8))
        y = draw_lines(surface, "The solution before the mistake:", (x, y), small, R.DIM, width, step=int(fs * 0.95))
        y = _draw_mini(surface, good.board, good.answer.overlay, x, y, max(4, int(c * 0.75)), 4) + c // 4
        if scene.mode.allow_undo:
            y = _draw_rewind(surface, scene, (x, y), width, fs)
    return y


def _draw_pc_advice(
    surface: pygame.Surface, scene: PlayScene, pos: tuple[int, int], right: int, lay: PlayLayout, fs: int
) -> int:
    """A PC answer: the PC badge and its length (or why there is none), the advice, its keys and the chance."""
    panel = scene.coach.pc_panel()
    c = lay.c
    x, y = pos
    width = right - x
    if panel.overlay:
        badge = pygame.Rect(x, y, int(c * 1.6), int(fs * 1.2))
        pygame.draw.rect(surface, R.GOOD, badge, border_radius=5)
        R.blit_text(surface, "PC", badge.center, fs, (10, 30, 14), "center")
        left = badge.right + c // 3
        length = fit_lines(panel.headline.removeprefix("PC "), fs, right - left, max_lines=1)[0]
        R.blit_text(surface, length, (left, badge.centery), fs, R.GOOD, "midleft")
        y = badge.bottom + c // 3
    else:
        tone = R.BAD if panel.status == "impossible" else R.DIM
        y = draw_lines(surface, panel.headline, (x, y), fs, tone, width, step=int(fs * 1.2), after=int(fs * 1.3))
    if panel.advice:
        y = draw_lines(surface, panel.advice, (x, y), fs, R.TEXT, width, step=int(fs * 1.2))
    if panel.first_move is not None and scene.app.settings.ai.show_key_sequence:
        y = _draw_keys(surface, panel.first_move, x, y + c // 8, right, fs)
    return draw_lines(
        surface, panel.chance_text, (x, y), int(fs * 1.05), _chance_colour(panel.chance), width, step=int(fs * 1.3)
    )
