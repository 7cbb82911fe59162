"""The review's evaluation graph as data (what the review screen draws) and as a PNG (numpy + zlib, no pygame).

`graph_model` turns a review (the dict of GameReview.to_dict) into points in a unit box: x in 0..1 over the
placements, y in 0..1 from the lowest to the highest evaluation shown (game-ending values are clipped to the
bottom). The screen and `review --png` both draw this model, so they show the same graph.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np

from ai.protocol import MARKED_CLASSES, REVIEW_CLASS_COLOURS

CLASS_COLOURS = REVIEW_CLASS_COLOURS
MARKED = MARKED_CLASSES
_DEAD_BELOW = -1e8


@dataclass(frozen=True)
class GraphModel:
    best: tuple[tuple[float, float], ...]  # (x, y) of the position's value (the engine's best line) per placement
    played: tuple[tuple[float, float], ...]  # (x, y) of the value of the placement played
    markers: tuple[tuple[int, float, float, str], ...]  # (placement index, x, y, class) of marked placements
    low: float
    high: float
    count: int

    def x_of(self, index: int) -> float:
        return index / max(1, self.count - 1)

    def index_at(self, x: float) -> int:
        """The placement nearest to x in 0..1 (clicks on the graph)."""
        return max(0, min(self.count - 1, round(x * max(1, self.count - 1))))


def graph_model(review: dict[str, Any]) -> GraphModel:
    placements = review.get("placements", [])
    values = [
        v for p in placements for v in (p.get("value_best"), p.get("value_played")) if v is not None and v > _DEAD_BELOW
    ]
    if values:
        ordered = sorted(values)
        low = ordered[int(0.02 * (len(ordered) - 1))]
        high = ordered[-1]
    else:
        low, high = -1.0, 1.0
    if high - low < 1e-9:
        low, high = low - 1.0, high + 1.0
    count = len(placements)

    def y(value: float | None) -> float:
        if value is None or value < low:
            return 0.0
        return (value - low) / (high - low)

    best, played, markers = [], [], []
    for i, p in enumerate(placements):
        x = i / max(1, count - 1)
        best.append((x, y(p.get("value_best"))))
        played.append((x, y(p.get("value_played"))))
        if p.get("class") in MARKED:
            markers.append((i, x, y(p.get("value_played")), p["class"]))
    return GraphModel(tuple(best), tuple(played), tuple(markers), low, high, count)


# --- PNG -------------------------------------------------------------------------------------------------------
BACKGROUND = (22, 24, 32)
GRID = (52, 56, 70)
BEST_LINE = (120, 170, 255)
PLAYED_LINE = (235, 235, 245)


def _line(img: np.ndarray, x0: float, y0: float, x1: float, y1: float, colour, width: int = 1) -> None:
    steps = int(max(abs(x1 - x0), abs(y1 - y0))) + 1
    xs = np.linspace(x0, x1, steps).round().astype(int)
    ys = np.linspace(y0, y1, steps).round().astype(int)
    h, w = img.shape[:2]
    for dx in range(-(width // 2), width - width // 2):
        for dy in range(-(width // 2), width - width // 2):
            xx, yy = xs + dx, ys + dy
            ok = (xx >= 0) & (xx < w) & (yy >= 0) & (yy < h)
            img[yy[ok], xx[ok]] = colour


def _disc(img: np.ndarray, cx: float, cy: float, r: int, colour) -> None:
    h, w = img.shape[:2]
    yy, xx = np.ogrid[:h, :w]
    img[(xx - cx) ** 2 + (yy - cy) ** 2 <= r * r] = colour


def render(model: GraphModel, width: int = 900, height: int = 300) -> np.ndarray:
    """The graph as an RGB image: the best value (blue), the played value (white), markers by class."""
    img = np.zeros((height, width, 3), dtype=np.uint8)
    img[:] = BACKGROUND
    pad = 16
    left, right, top, bottom = pad, width - pad, pad, height - pad

    def px(x: float, y: float) -> tuple[float, float]:
        return left + x * (right - left), bottom - y * (bottom - top)

    for k in range(5):
        gy = top + k * (bottom - top) / 4
        _line(img, left, gy, right, gy, GRID)
    for series, colour, w in ((model.best, BEST_LINE, 2), (model.played, PLAYED_LINE, 1)):
        for (x0, y0), (x1, y1) in pairwise(series):
            _line(img, *px(x0, y0), *px(x1, y1), colour, w)
    for _, x, y, cls in model.markers:
        cx, cy = px(x, y)
        _disc(img, cx, cy, 6 if cls == "blunder" else 5, CLASS_COLOURS[cls])
    return img


def write_png(image: np.ndarray, path: str | Path) -> None:
    """A minimal PNG writer (8-bit RGB, one IDAT chunk)."""
    h, w = image.shape[:2]
    raw = b"".join(b"\x00" + image[row].tobytes() for row in range(h))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    png = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(raw, 6))
        + chunk(b"IEND", b"")
    )
    Path(path).write_bytes(png)
