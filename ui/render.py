"""Drawing helpers shared by the scenes: theme colours, cached fonts and text, block sprites, layout scale.

Everything here is a pure function of its inputs plus caches; nothing reads or changes game state.
Scenes lay out in a 1280x720 design space; `View` maps it to the real window with one uniform scale `k`
and a centring offset, so sizes stay in proportion and blocks are whole pixels (crisp at any window size).
"""

from __future__ import annotations

from functools import lru_cache

import pygame

from game.pieces import COLOURS, GARBAGE_COLOUR, Piece

DESIGN_W, DESIGN_H = 1280, 720

Colour = tuple[int, int, int]

BG = (16, 18, 26)
PANEL = (26, 29, 40)
PANEL_EDGE = (52, 56, 74)
FIELD_BG = (8, 9, 13)
GRID = (30, 32, 42)
TEXT = (232, 232, 238)
DIM = (140, 146, 164)
ACCENT = (255, 204, 82)
GOOD = (110, 220, 130)
BAD = (240, 96, 96)
HOLD_USED = (86, 88, 98)

# Board colour codes 0..8 (0 empty, Piece + 1, 8 garbage) -> RGB
CODE_COLOURS: tuple[tuple[int, int, int], ...] = (
    FIELD_BG,
    *(COLOURS[p] for p in Piece),
    GARBAGE_COLOUR,
)


def ghost_colour(piece: Piece) -> tuple[int, int, int]:
    """The fill of a ghost cell: the piece colour at about a third of its brightness."""
    r, g, b = COLOURS[piece]
    return (r * 3 // 10 + 6, g * 3 // 10 + 6, b * 3 // 10 + 6)


def _shade(colour: tuple[int, int, int], factor: float) -> tuple[int, int, int]:
    return tuple(max(0, min(255, int(c * factor))) for c in colour)  # type: ignore[return-value]


@lru_cache(maxsize=256)
def block(colour: tuple[int, int, int], size: int) -> pygame.Surface:
    """A size x size block with a one-step bevel; cached because every frame blits hundreds of them."""
    surf = pygame.Surface((size, size))
    surf.fill(colour)
    if size >= 6:
        edge = max(1, size // 10)
        light, dark = _shade(colour, 1.35), _shade(colour, 0.62)
        pygame.draw.rect(surf, light, (0, 0, size, edge))
        pygame.draw.rect(surf, light, (0, 0, edge, size))
        pygame.draw.rect(surf, dark, (0, size - edge, size, edge))
        pygame.draw.rect(surf, dark, (size - edge, 0, edge, size))
    return surf


@lru_cache(maxsize=64)
def ghost_block(piece: Piece, size: int) -> pygame.Surface:
    surf = pygame.Surface((size, size))
    surf.fill(ghost_colour(piece))
    if size >= 6:
        pygame.draw.rect(surf, _shade(COLOURS[piece], 0.8), (0, 0, size, size), max(1, size // 12))
    return surf


@lru_cache(maxsize=32)
def font(size: int) -> pygame.font.Font:
    return pygame.font.Font(None, max(8, size))


def text(s: str, size: int, colour: tuple[int, int, int] = TEXT) -> pygame.Surface:
    """Rendered text, cached (the 600 most recently used)."""
    return _rendered_text(s, size, colour)


@lru_cache(maxsize=600)
def _rendered_text(s: str, size: int, colour: tuple[int, int, int]) -> pygame.Surface:
    return font(size).render(s, True, colour)


def blit_text(
    surface: pygame.Surface,
    s: str,
    pos: tuple[int, int],
    size: int,
    colour: tuple[int, int, int] = TEXT,
    anchor: str = "topleft",
) -> pygame.Rect:
    surf = text(s, size, colour)
    rect = surf.get_rect(**{anchor: pos})
    surface.blit(surf, rect)
    return rect


def fit_size(size: int, width: int, *texts: str) -> int:
    """The font size, at most `size`, at which `texts` side by side fit `width` pixels (a long run's row in the
    stats list: its numbers and how it ended must not run into each other)."""
    while size > 8 and sum(font(size).size(t)[0] for t in texts) > width:
        size -= 1
    return size


def wrap(s: str, size: int, width: int) -> list[str]:
    """Split text into lines that fit `width` pixels at font `size`."""
    f = font(size)
    lines: list[str] = []
    for paragraph in s.split("\n"):
        line = ""
        for word in paragraph.split(" "):
            trial = f"{line} {word}".strip()
            if f.size(trial)[0] <= width or not line:
                line = trial
            else:
                lines.append(line)
                line = word
        lines.append(line)
    return lines


def panel(
    surface: pygame.Surface,
    rect: pygame.Rect,
    fill: tuple[int, int, int] = PANEL,
    edge: tuple[int, int, int] = PANEL_EDGE,
    width: int = 1,
) -> None:
    pygame.draw.rect(surface, fill, rect)
    pygame.draw.rect(surface, edge, rect, width)


class View:
    """Maps the 1280x720 design space onto a window of any size (uniform scale, centred)."""

    def __init__(self, size: tuple[int, int]) -> None:
        self.w, self.h = size
        self.k = min(self.w / DESIGN_W, self.h / DESIGN_H)
        self.ox = (self.w - DESIGN_W * self.k) / 2
        self.oy = (self.h - DESIGN_H * self.k) / 2

    def x(self, v: float) -> int:
        return int(self.ox + v * self.k)

    def y(self, v: float) -> int:
        return int(self.oy + v * self.k)

    def s(self, v: float) -> int:
        return max(1, int(v * self.k))

    def pt(self, x: float, y: float) -> tuple[int, int]:
        return self.x(x), self.y(y)

    def rect(self, x: float, y: float, w: float, h: float) -> pygame.Rect:
        return pygame.Rect(self.x(x), self.y(y), self.s(w), self.s(h))

    def font_size(self, v: float) -> int:
        return max(10, int(v * self.k))


def clear_caches() -> None:
    """Forget cached fonts and surfaces: they die with pygame.quit() and must be rebuilt after a re-init."""
    for cached in (block, ghost_block, font, _overlay, _rendered_text):
        cached.cache_clear()
    for hook in CACHE_HOOKS:
        hook()


CACHE_HOOKS: list = []  # other modules' cache_clear functions (playfield's cached surfaces)


def dim_overlay(surface: pygame.Surface, alpha: int = 170) -> None:
    """Darken what is already drawn (used by transparent overlays such as pause)."""
    shade = _overlay(surface.get_size())
    shade.set_alpha(alpha)
    surface.blit(shade, (0, 0))


@lru_cache(maxsize=4)
def _overlay(size: tuple[int, int]) -> pygame.Surface:
    surf = pygame.Surface(size)
    surf.fill((0, 0, 0))
    return surf
