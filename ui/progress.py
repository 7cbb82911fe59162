"""The Stats screen's progress plots: series over a player's last runs of one mode, and their drawing.

`progress_series(runs, accuracies)` takes runs newest first (as the store lists them) and returns, oldest first,
the values each plot shows: PPS, accuracy (reviewed runs only), finesse faults per piece, APP (attack per
piece = APM x minutes / pieces) and the personal best over time (the best so far after each unassisted run that
reached the goal; modes without a goal have none). Drawing reads these values only.
"""

from __future__ import annotations

from dataclasses import dataclass

import pygame

from ui import render as R
from ui.store import GameRecord, counts_for_best, has_best

PLOT_RUNS = 30


@dataclass(frozen=True)
class Series:
    title: str
    points: tuple[tuple[int, float], ...]  # (run number from the oldest shown, value)
    fmt: str = "{:.2f}"
    lower_is_better: bool = False
    empty_text: str = "no runs yet"


def app_of(run: GameRecord) -> float:
    attack = run.apm * run.seconds / 60
    return attack / run.pieces if run.pieces else 0.0


def progress_series(runs: list[GameRecord], accuracies: dict[int, float], mode: str) -> list[Series]:
    shown = [r for r in runs if r.mode == mode and r.pieces > 0][:PLOT_RUNS][::-1]  # oldest first
    pps = tuple((i, r.pps) for i, r in enumerate(shown))
    accuracy = tuple((i, accuracies[r.id]) for i, r in enumerate(shown) if r.id in accuracies)
    finesse = tuple((i, r.finesse / r.pieces) for i, r in enumerate(shown))
    attack = tuple((i, app_of(r)) for i, r in enumerate(shown))
    series = [
        Series("PPS (pieces per second)", pps),
        Series("accuracy % (reviewed runs)", accuracy, "{:.1f}", empty_text="open a run to review it"),
        Series("finesse faults per piece", finesse, lower_is_better=True),
        Series("APP (attack per piece)", attack),
    ]
    if has_best(mode):
        sprint = mode == "sprint"
        best: float | None = None
        points = []
        for i, r in enumerate(shown):
            if counts_for_best(r):
                value = r.seconds if sprint else float(r.score)
                if best is None or (value < best if sprint else value > best):
                    best = value
            if best is not None:
                points.append((i, best))
        series.append(
            Series(
                "personal best (s, unassisted)" if sprint else "personal best (score, unassisted)",
                tuple(points),
                "{:.2f}" if sprint else "{:.0f}",
                lower_is_better=sprint,
                empty_text="no unassisted finished run yet",
            )
        )
    else:
        series.append(Series("personal best", (), empty_text="this mode keeps no personal best"))
    return series


def draw_series(
    surface: pygame.Surface, view: R.View, series: Series, x: float, y: float, w: float, h: float, runs: int
) -> None:
    rect = view.rect(x, y + 20, w, h - 20)
    R.blit_text(surface, series.title, view.pt(x, y), view.font_size(18), R.DIM)
    R.panel(surface, rect, R.FIELD_BG)
    if not series.points:
        R.blit_text(surface, series.empty_text, rect.center, view.font_size(17), R.DIM, "center")
        return
    pad = view.s(6)
    top, bottom = view.s(22), view.s(20)  # room for the labels at the top and the bottom, so no point hides one
    inner = pygame.Rect(rect.x + pad, rect.y + top, rect.w - 2 * pad, rect.h - top - bottom)
    points = plot_positions(series.points, runs, inner)
    if len(points) > 1:
        pygame.draw.lines(surface, (120, 170, 255), False, points, 2)
    for point in points:
        pygame.draw.circle(surface, R.ACCENT, point, view.s(3))
    last = series.points[-1][1]
    R.blit_text(
        surface, series.fmt.format(last), (rect.right - pad, rect.y + pad), view.font_size(18), R.TEXT, "topright"
    )
    low, high, flat = _value_range(series.points)
    if not flat:  # a flat line's one value is the label at the top right already
        R.blit_text(surface, series.fmt.format(high), (rect.x + pad, rect.y + pad), view.font_size(14), R.DIM)
        R.blit_text(
            surface, series.fmt.format(low), (rect.x + pad, rect.bottom - pad), view.font_size(14), R.DIM, "bottomleft"
        )


def plot_positions(points: tuple[tuple[int, float], ...], runs: int, inner: pygame.Rect) -> list[tuple[int, int]]:
    """Where each (run, value) point goes in `inner`: runs spread left to right, values low to high from the bottom.
    A single run sits in the middle and a flat line at mid height, not in a corner under the range's labels."""
    low, high, flat = _value_range(points)

    def x(i: int) -> int:
        return inner.centerx if runs <= 1 else inner.x + int(i / (runs - 1) * inner.w)

    def y(v: float) -> int:
        return inner.centery if flat else inner.bottom - int((v - low) / (high - low) * inner.h)

    return [(x(i), y(v)) for i, v in points]


def _value_range(points: tuple[tuple[int, float], ...]) -> tuple[float, float, bool]:
    """The lowest and highest value, and whether the line is flat (drawn at mid height, with one label)."""
    values = [v for _, v in points]
    low, high = min(values), max(values)
    return low, high, high - low < 1e-9
