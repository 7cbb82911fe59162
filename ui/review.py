"""The review screen: a replay viewer with the coach's review of every placement.

Left: the board at the current tick, with your placement (solid, outlined in white) and the engine's best
(hatched, outlined in cyan) for the placement in play, hold and previews. Right: the placement's class and what
was played against what the engine preferred, its keys and the finesse-optimal keys, the evaluation graph with
markers on inaccuracies, mistakes and blunders, and the summary card (accuracy, counts per class, missed
T-spins and PCs, finesse, per phase). Bottom: the scrub bar (a tick per placement in its class colour, a red dot
over a finesse fault).

Keys: Space play/pause, ←/→ previous/next placement, ↑/↓ previous/next marked placement, -/+ speed (0.25×–4×),
Home/End first/last placement, Esc back. Mouse: click the graph or the scrub bar to jump.

The review comes from the worker (`ReviewRequest`), placement by placement with a progress bar, and is kept in
the history (ui.store, reviews table) with the key of the engine that made it; a cached review is sent along and
the worker answers with it unless its engine changed. Drawing never changes state.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal

import pygame

from ai.protocol import MARKED_CLASSES, REVIEW_CLASS_COLOURS, ReviewAnswer, WorkerFailure, accuracy_text
from game.board import WIDTH
from game.pieces import COLOURS, SHAPES, Piece, Rotation
from game.replay import Replay, ReplayError
from ui import render as R
from ui.replay_view import SPEEDS, ReplayCursor
from ui.scene import Scene

if TYPE_CHECKING:
    from ui.services import Services

CLASS_COLOURS = REVIEW_CLASS_COLOURS
CLASSES = tuple(CLASS_COLOURS)
MARKED = MARKED_CLASSES
PLAYED_EDGE = (255, 255, 255)
BEST_EDGE = (80, 220, 255)
TSPIN_EDGE = (255, 120, 220)
SHOWN_ROWS = 22  # the 20 visible rows and the two spawn rows
_ROTATIONS = {"0": Rotation.NORTH, "R": Rotation.EAST, "2": Rotation.SOUTH, "L": Rotation.WEST}

# design-space rectangles (1280 x 720)
CELL = 24
FIELD = (150, 96)  # top-left of the 10 x SHOWN_ROWS field
GRAPH = (520, 300, 720, 150)
SCRUB = (150, 664, 1090, 14)
CARD = (520, 470, 720, 180)


def cells_of(move: dict[str, Any]) -> list[tuple[int, int]]:
    piece = Piece[move["piece"]]
    rotation = _ROTATIONS[move["orientation"]]
    return [(move["x"] + dx, move["y"] + dy) for dx, dy in SHAPES[piece, rotation]]


_TURNS = {"0": "flat", "R": "turned clockwise", "2": "flipped", "L": "turned counter-clockwise"}


def _columns(cells: list[tuple[int, int]]) -> str:
    left, right = min(x for x, _ in cells) + 1, max(x for x, _ in cells) + 1
    return str(left) if left == right else f"{left}-{right}"


def _piece_turned(move: dict[str, Any]) -> str:
    """ "J flat", "I turned clockwise", "O" (an O looks the same every way)."""
    return move["piece"] if move["piece"] == "O" else f"{move['piece']} {_TURNS[move['orientation']]}"


def describe(move: dict[str, Any] | None) -> str:
    """A placement in a player's words, by the cells it covers: "J flat in columns 4-6, bottom row 1" (columns
    from the left and rows from the floor, counted from 1)."""
    if not move:
        return "—"
    cells = cells_of(move)
    columns = _columns(cells)
    where = f"column {columns}" if "-" not in columns else f"columns {columns}"
    hold = "hold, then " if move.get("hold") else ""
    return f"{hold}{_piece_turned(move)} in {where}, bottom row {min(y for _, y in cells) + 1}"


def describe_short(move: dict[str, Any]) -> str:
    """A step of a line of placements: "J flat 4-6" (its columns)."""
    return f"{'hold, ' if move.get('hold') else ''}{_piece_turned(move)} {_columns(cells_of(move))}"


@lru_cache(maxsize=8)
def _hatch(c: int) -> pygame.Surface:
    surf = pygame.Surface((c, c), pygame.SRCALPHA)
    step = max(4, c // 4)
    for k in range(-c, c, step):
        pygame.draw.line(surf, (*BEST_EDGE, 200), (k, c), (k + c, 0), max(1, c // 12))
    return surf


@lru_cache(maxsize=64)
def _tint(colour: tuple[int, int, int], c: int, alpha: int) -> pygame.Surface:
    surf = pygame.Surface((c, c), pygame.SRCALPHA)
    surf.fill((*colour, alpha))
    return surf


@lru_cache(maxsize=1)
def _glyph_font_path() -> str | None:
    """A system font with the arrow glyphs of the key labels (DejaVu Sans), or None (pygame's default)."""
    try:
        return pygame.font.match_font("dejavusans")
    except Exception:  # noqa: BLE001 - no font config: the default font (arrows may show as boxes)
        return None


@lru_cache(maxsize=16)
def _glyph_font(size: int) -> pygame.font.Font:
    return pygame.font.Font(_glyph_font_path(), size)


def glyph_text(
    surface: pygame.Surface, s: str, pos: tuple[int, int], size: int, colour: R.Colour, anchor: str = "topleft"
) -> pygame.Rect:
    """Text that may hold arrows and other key glyphs (drawn with a font that has them)."""
    surf = _glyph_font(max(8, int(size * 0.8))).render(s, True, colour)
    rect = surf.get_rect(**{anchor: pos})
    surface.blit(surf, rect)
    return rect


R.CACHE_HOOKS += [_hatch.cache_clear, _tint.cache_clear, _glyph_font.cache_clear]


class ReviewScene(Scene):
    name = "review"

    def __init__(self, app: Services, replay_text: str, *, game_id: int | None = None, title: str = "") -> None:
        super().__init__(app)
        self.game_id = game_id
        self.title = title or "Review"
        self.replay_text = replay_text
        self.problem: str | None = None
        self.cursor: ReplayCursor | None = None
        try:
            self.cursor = ReplayCursor(Replay.from_json(replay_text))
        except ReplayError as error:
            self.problem = f"this replay cannot be read: {error}"
        self.placements: dict[int, dict[str, Any]] = {}  # index -> the review of that placement
        self.review: dict[str, Any] | None = None  # the whole review once final
        self.engine = ""
        self.done = 0
        self.total = self.cursor.count if self.cursor else 0
        self.generation: int | None = None
        self.playing = False
        self.speed_index = SPEEDS.index(1.0)
        self._carry = 0.0
        self.from_cache = False
        if self.cursor is not None and self.cursor.count:
            self.cursor.seek_placement(0)

    # --- the worker ---------------------------------------------------------------------------------------
    def on_enter(self) -> None:
        if self.cursor is None or self.generation is not None or self.review is not None:
            return
        cached = ""
        store = self.app.store
        if store is not None and self.game_id is not None:
            try:
                found = store.cached_review(self.game_id)
            except Exception as error:  # noqa: BLE001 - StoreUnavailable: review without the cache
                self.app.store_failed(str(error))
                found = None
            cached = found[1] if found else ""
        self.generation = self.app.worker().review(self.replay_text, cached=cached)
        self._cached_text = cached

    def on_exit(self) -> None:
        worker = self.app.worker_if_started()
        if worker is not None and self.review is None:
            worker.forget("review")
            self.generation = None

    def poll(self) -> None:
        worker = self.app.worker_if_started()
        if worker is None or self.generation is None:
            return
        for answer in worker.poll():
            if isinstance(answer, WorkerFailure) and answer.generation == self.generation:
                self.problem = answer.message
                self.generation = None
            elif isinstance(answer, ReviewAnswer) and answer.generation == self.generation:
                self._take(answer)

    def _take(self, answer: ReviewAnswer) -> None:
        for placement in answer.placements:
            self.placements[placement["index"]] = placement
        self.done, self.total = answer.done, answer.total
        if answer.final:
            self.review = json.loads(answer.review)
            self.engine = answer.engine
            for placement in self.review["placements"]:
                self.placements[placement["index"]] = placement
            self.done = len(self.placements)
            self.generation = None
            self.from_cache = answer.review == getattr(self, "_cached_text", None)
            store = self.app.store
            if store is not None and self.game_id is not None and not self.from_cache:
                try:
                    store.save_review(self.game_id, answer.engine, answer.accuracy, answer.review)
                except Exception as error:  # noqa: BLE001 - StoreUnavailable: the review is still shown
                    self.app.store_failed(str(error))

    # --- what the screen shows (tests read these) ---------------------------------------------------------
    @property
    def speed(self) -> float:
        return SPEEDS[self.speed_index]

    @property
    def index(self) -> int:
        return self.cursor.placement_at() if self.cursor else -1

    @property
    def current(self) -> dict[str, Any] | None:
        return self.placements.get(self.index)

    @property
    def computing(self) -> bool:
        return self.review is None and self.problem is None

    def progress_text(self) -> str:
        if self.review is not None:
            return "review from the history" if self.from_cache else "review complete"
        worker = self.app.worker_if_started()
        status = getattr(worker, "status", None)
        if status is not None and status.state == "restarting" and not self.done:
            return f"Analysing… the AI worker is restarting ({status.last_problem or 'it stopped'})"
        return f"Analysing… {self.done}/{self.total} placements"

    def marked(self) -> list[int]:
        return sorted(i for i, p in self.placements.items() if p.get("class") in MARKED)

    def placement_lines(self) -> list[tuple[str, tuple[int, int, int]]]:
        """The card of the placement in play: class and loss, played vs best, keys, finesse, misses."""
        cursor = self.cursor
        if cursor is None or self.index < 0:
            return [("Before the first piece", R.DIM)]
        span = cursor.spans[self.index]
        p = self.current
        lines: list[tuple[str, tuple[int, int, int]]] = []
        head = f"Placement {self.index + 1} of {cursor.count}"
        if p is None:
            lines.append((f"{head} — being analysed…", R.DIM))
        else:
            cls = p["class"] or "not rated"
            loss = f"  (loss {p['loss']:.1f})" if p.get("loss") else ""
            lines.append((f"{head}: {p['piece']} — {cls.upper()}{loss}", CLASS_COLOURS.get(p["class"], R.TEXT)))
            lines.append((f"You: {describe(p['played'])}", PLAYED_EDGE))
            same = p["best"] == p["played"]
            lines.append((f"Engine: {describe(p['best'])}" + ("  (the same)" if same else ""), BEST_EDGE))
            if "tspin" in p["missed"]:
                t = p["tspin"]
                lines.append((f"Missed T-spin: {describe(t)}, clears {t['lines']} (pink outline)", TSPIN_EDGE))
            if "pc" in p["missed"]:
                steps = ", ".join(describe_short(step) for step in p["pc"])
                lines.append((f"Missed perfect clear: {steps}", TSPIN_EDGE))
        keys = " ".join(span.presses) or "—"
        lines.append((f"Keys: {keys}  ({len(span.presses)})", R.TEXT))
        if span.finesse:
            optimal = " ".join(p["optimal_keys"]).replace("⤓", "drop") if p else "…"
            lines.append((f"Finesse fault +{span.finesse} — optimal: {optimal}", R.BAD))
        return lines

    def summary(self) -> dict[str, Any] | None:
        return self.review

    def phase_lines(self) -> list[str]:
        """Per phase of the game that has placements, as the card draws it: "opener (first 14): 7 placements,
        accuracy 28.6%, 6 mistakes or blunders"."""
        if self.review is None:
            return []
        names = {"opener": "opener (first 14)", "midgame": "mid-game", "pressure": "under pressure (10+ rows)"}
        lines = []
        for phase, data in self.review["phases"].items():
            placed = data["placements"]
            if placed:
                bad = sum(data["counts"][c] for c in MARKED[1:])
                marked = "mistake or blunder" if bad == 1 else "mistakes or blunders"
                lines.append(
                    f"{names[phase]}: {placed} placement{'' if placed == 1 else 's'}, accuracy "
                    f"{accuracy_text(data['accuracy'])}, {bad} {marked}"
                )
        return lines

    def accuracy_shown(self) -> str:
        """The game's accuracy as the card draws it (the list of runs says the same)."""
        return accuracy_text(self.review["accuracy"] if self.review is not None else None)

    # --- input --------------------------------------------------------------------------------------------
    def handle(self, event: pygame.event.Event) -> None:  # noqa: C901 - one branch per key of the review screen
        if event.type == pygame.KEYDOWN:
            key = event.key
            if key in (pygame.K_ESCAPE, pygame.K_BACKSPACE):
                self.app.scenes.pop()
            elif self.cursor is None or not self.cursor.count:
                return
            elif key == pygame.K_SPACE:
                if self.cursor.at_end:
                    self.cursor.seek_placement(0)
                self.playing = not self.playing
            elif key == pygame.K_RIGHT:
                self.jump(self.index + 1)
            elif key == pygame.K_LEFT:
                self.jump(
                    self.index - 1
                    if self.cursor.tick == self.cursor.spans[max(0, self.index)].spawn_tick
                    else self.index
                )
            elif key == pygame.K_DOWN:
                later = [i for i in self.marked() if i > self.index]
                if later:
                    self.jump(later[0])
            elif key == pygame.K_UP:
                earlier = [i for i in self.marked() if i < self.index]
                if earlier:
                    self.jump(earlier[-1])
            elif key in (pygame.K_MINUS, pygame.K_KP_MINUS):
                self.speed_index = max(0, self.speed_index - 1)
            elif key in (pygame.K_EQUALS, pygame.K_PLUS, pygame.K_KP_PLUS):
                self.speed_index = min(len(SPEEDS) - 1, self.speed_index + 1)
            elif key == pygame.K_HOME:
                self.jump(0)
            elif key == pygame.K_END:
                self.jump(self.cursor.count - 1)
        elif event.type == pygame.MOUSEBUTTONDOWN and event.button == 1 and self.cursor and self.cursor.count:
            self.click(event.pos)

    def jump(self, index: int) -> None:
        self.playing = False
        self.cursor.seek_placement(index)  # type: ignore[union-attr]

    def click(self, pos: tuple[int, int]) -> None:
        screen = pygame.display.get_surface()
        view = R.View(screen.get_size() if screen is not None else self.app.size)
        graph = view.rect(*GRAPH)
        scrub = view.rect(SCRUB[0], SCRUB[1] - 8, SCRUB[2], SCRUB[3] + 16)
        for rect in (graph, scrub):
            if rect.collidepoint(pos):
                share = (pos[0] - rect.x) / max(1, rect.w)
                self.jump(round(share * max(0, self.cursor.count - 1)))  # type: ignore[union-attr]
                return

    def update(self) -> None:
        self.poll()
        if self.playing and self.cursor is not None:
            self._carry += self.speed
            whole = int(self._carry)
            self._carry -= whole
            if whole:
                self.cursor.advance(whole)
            if self.cursor.at_end:
                self.playing = False

    # --- drawing ------------------------------------------------------------------------------------------
    def draw(self, surface: pygame.Surface) -> None:
        view = R.View(surface.get_size())
        surface.fill(R.BG)
        R.blit_text(surface, self.title, view.pt(40, 22), view.font_size(40), R.ACCENT)
        if self.problem:
            R.blit_text(surface, self.problem, view.pt(40, 80), view.font_size(24), R.BAD)
        if self.cursor is None:
            R.blit_text(surface, "Esc back", view.pt(1240, 700), view.font_size(20), R.DIM, "bottomright")
            return
        self._draw_field(surface, view)
        self._draw_card(surface, view)
        self._draw_graph(surface, view)
        self._draw_summary(surface, view)
        self._draw_scrub(surface, view)
        state = "▶ playing" if self.playing else "❚❚ paused"
        glyph_text(surface, f"{state}  {self.speed:g}×", view.pt(40, 712), view.font_size(20), R.TEXT, "bottomleft")
        glyph_text(
            surface,
            "Space play/pause   ←/→ placement   ↑/↓ mistakes   −/+ speed   click the graph or the "
            "bar to jump   Esc back",
            view.pt(1240, 712),
            view.font_size(18),
            R.DIM,
            "bottomright",
        )

    def _cell(self, view: R.View, x: int, y: int) -> pygame.Rect:
        c = view.s(CELL)
        left, top = view.pt(*FIELD)
        return pygame.Rect(left + x * c, top + (SHOWN_ROWS - 1 - y) * c, c, c)

    def _draw_field(self, surface: pygame.Surface, view: R.View) -> None:
        c = view.s(CELL)
        game = self.cursor.game  # type: ignore[union-attr]
        frame = pygame.Rect(*view.pt(*FIELD), WIDTH * c, SHOWN_ROWS * c)
        pygame.draw.rect(surface, R.FIELD_BG, frame)
        for x in range(WIDTH + 1):
            pygame.draw.line(surface, R.GRID, (frame.x + x * c, frame.y), (frame.x + x * c, frame.bottom))
        for y in range(SHOWN_ROWS + 1):
            pygame.draw.line(surface, R.GRID, (frame.x, frame.y + y * c), (frame.right, frame.y + y * c))
        board = game.board
        for y in range(SHOWN_ROWS):
            for x in range(WIDTH):
                if board.is_filled(x, y):
                    surface.blit(R.block(R.CODE_COLOURS[board.colour_at(x, y)], c), self._cell(view, x, y))
        p = self.current
        if p is not None and game.active is not None and not game.over:
            if "tspin" in p["missed"]:
                self._outline(surface, view, cells_of(p["tspin"]), TSPIN_EDGE, None)
            if p["best"] and p["best"] != p["played"]:
                self._outline(surface, view, cells_of(p["best"]), BEST_EDGE, "hatch")
            self._outline(surface, view, cells_of(p["played"]), PLAYED_EDGE, Piece[p["played"]["piece"]])
        if game.active is not None:
            a = game.active
            for dx, dy in SHAPES[a.piece, a.rotation]:
                if a.y + dy < SHOWN_ROWS:
                    surface.blit(R.block(COLOURS[a.piece], c), self._cell(view, a.x + dx, a.y + dy))
        pygame.draw.rect(surface, R.PANEL_EDGE, frame, 2)
        # hold and previews
        size = view.font_size(20)
        R.blit_text(surface, "HOLD", view.pt(40, 100), size, R.DIM)
        if game.hold is not None:
            self._mini(surface, view, game.hold, (40, 125), R.HOLD_USED if game.hold_used else COLOURS[game.hold])
        R.blit_text(surface, "NEXT", view.pt(420, 100), size, R.DIM)
        for i, piece in enumerate(game.preview()[:5]):
            self._mini(surface, view, piece, (420, 125 + 56 * i), COLOURS[piece])
        # legend
        y = FIELD[1] + SHOWN_ROWS * CELL + 8
        legend = view.rect(FIELD[0], y, 12, 12)
        pygame.draw.rect(surface, PLAYED_EDGE, legend, 2)
        R.blit_text(surface, "your placement", view.pt(FIELD[0] + 18, y - 2), view.font_size(18), R.TEXT)
        legend = view.rect(FIELD[0] + 140, y, 12, 12)
        surface.blit(_hatch(legend.w), legend)
        pygame.draw.rect(surface, BEST_EDGE, legend, 2)
        R.blit_text(surface, "engine's best", view.pt(FIELD[0] + 158, y - 2), view.font_size(18), BEST_EDGE)

    def _mini(self, surface: pygame.Surface, view: R.View, piece: Piece, at: tuple[int, int], colour: R.Colour) -> None:
        size = view.s(12)
        for dx, dy in SHAPES[piece, Rotation.NORTH]:
            surface.blit(R.block(colour, size), (view.x(at[0]) + (dx + 1) * size, view.y(at[1]) + (1 - dy) * size))

    def _outline(
        self,
        surface: pygame.Surface,
        view: R.View,
        cells: list[tuple[int, int]],
        edge: R.Colour,
        fill: Piece | Literal["hatch"] | None,  # the played piece's colour, the engine's hatch, or edges only
    ) -> None:
        c = view.s(CELL)
        inside = set(cells)
        for x, y in cells:
            if not (0 <= x < WIDTH and 0 <= y < SHOWN_ROWS):
                continue
            rect = self._cell(view, x, y)
            if fill == "hatch":
                surface.blit(_tint(BEST_EDGE, c, 40), rect)
                surface.blit(_hatch(c), rect)
            elif isinstance(fill, Piece):
                surface.blit(_tint(COLOURS[fill], c, 120), rect)
            width = max(2, c // 9)
            for (nx, ny), a, b in (
                ((x, y + 1), rect.topleft, rect.topright),
                ((x, y - 1), rect.bottomleft, rect.bottomright),
                ((x - 1, y), rect.topleft, rect.bottomleft),
                ((x + 1, y), rect.topright, rect.bottomright),
            ):
                if (nx, ny) not in inside:
                    pygame.draw.line(surface, edge, a, b, width)

    def _draw_card(self, surface: pygame.Surface, view: R.View) -> None:
        rect = view.rect(520, 80, 720, 205)
        R.panel(surface, rect)
        y = 92
        for text, colour in self.placement_lines()[:7]:
            glyph_text(surface, text, view.pt(536, y), view.font_size(24 if y == 92 else 21), colour)
            y += 27

    def graph_points(self) -> list[tuple[int, float | None, float | None, str | None]]:
        """(index, best value, played value, class) per placement reviewed so far (the graph's data)."""
        return [
            (i, p.get("value_best"), p.get("value_played"), p.get("class")) for i, p in sorted(self.placements.items())
        ]

    def _draw_graph(self, surface: pygame.Surface, view: R.View) -> None:
        rect = view.rect(*GRAPH)
        R.panel(surface, rect, R.FIELD_BG)
        R.blit_text(
            surface,
            "evaluation (blue: engine's best line, white: after your placement)",
            (rect.x + 6, rect.y - view.s(20)),
            view.font_size(17),
            R.DIM,
        )
        count = max(1, self.total)
        points = [pt for pt in self.graph_points() if pt[1] is not None and pt[1] > -1e8]
        values = sorted(v for _, b, p, _ in points for v in (b, p) if v is not None and v > -1e8)
        if values:
            low, high = values[int(0.02 * (len(values) - 1))], values[-1]
            if high - low < 1e-9:
                low, high = low - 1, high + 1

            def at(i: int, v: float | None) -> tuple[int, int]:
                share = 0.0 if v is None or v < low else (v - low) / (high - low)
                return (
                    rect.x + 4 + int(i / max(1, count - 1) * (rect.w - 8)),
                    rect.bottom - 4 - int(share * (rect.h - 8)),
                )

            best = [at(i, b) for i, b, _, _ in points]
            played = [at(i, p) for i, _, p, _ in points]
            if len(best) > 1:
                pygame.draw.lines(surface, (120, 170, 255), False, best, 2)
                pygame.draw.lines(surface, (235, 235, 245), False, played, 1)
            for i, _, p, cls in points:
                if cls in MARKED:
                    pygame.draw.circle(surface, CLASS_COLOURS[cls], at(i, p), view.s(5 if cls == "blunder" else 4))
        if self.index >= 0:
            x = rect.x + 4 + int(self.index / max(1, count - 1) * (rect.w - 8))
            pygame.draw.line(surface, R.ACCENT, (x, rect.y), (x, rect.bottom), 1)

    def _draw_summary(self, surface: pygame.Surface, view: R.View) -> None:
        rect = view.rect(*CARD)
        R.panel(surface, rect)
        x0, y0 = CARD[0] + 16, CARD[1] + 12
        if self.review is None:
            share = self.done / max(1, self.total)
            R.blit_text(surface, self.progress_text(), view.pt(x0, y0), view.font_size(24), R.TEXT)
            bar = view.rect(x0, y0 + 34, CARD[2] - 32, 14)
            pygame.draw.rect(surface, R.FIELD_BG, bar)
            pygame.draw.rect(surface, R.ACCENT, (bar.x, bar.y, int(bar.w * share), bar.h))
            partial = [p for p in self.placements.values() if p.get("accuracy") is not None]
            if partial:
                running = sum(p["accuracy"] for p in partial) / len(partial)
                R.blit_text(
                    surface,
                    f"accuracy so far {accuracy_text(running)}",
                    view.pt(x0, y0 + 60),
                    view.font_size(20),
                    R.DIM,
                )
            return
        review = self.review
        R.blit_text(surface, self.accuracy_shown(), view.pt(x0, y0), view.font_size(52), R.ACCENT)
        R.blit_text(surface, "accuracy", view.pt(x0, y0 + 44), view.font_size(18), R.DIM)
        # the counts per class side by side, each after its colour; laid out by their widths (a long game's
        # "123 inaccuracy" is wider), smaller where they would not fit the card
        labels = [f"{review['counts'][name]} {name}" for name in CLASSES]
        gap, room = 18 + 16, CARD[0] + CARD[2] - 16 - (x0 + 170)
        size = R.fit_size(view.font_size(20), view.s(room - gap * len(labels)), *labels)
        x = float(x0 + 170)
        for name, label in zip(CLASSES, labels, strict=True):
            pygame.draw.rect(surface, CLASS_COLOURS[name], view.rect(x, y0 + 4, 12, 12))
            drawn = R.blit_text(surface, label, view.pt(x + 18, y0 + 1), size, R.TEXT)
            x += 18 + drawn.w / view.k + 16
        missed = review["missed"]
        R.blit_text(
            surface,
            f"missed T-spins {missed['tspin']}    missed PCs {missed['pc']}    finesse faults {review['finesse']}",
            view.pt(x0 + 170, y0 + 32),
            view.font_size(20),
            R.TEXT,
        )
        y = y0 + 70
        for line in self.phase_lines():
            R.blit_text(surface, line, view.pt(x0, y), view.font_size(20), R.DIM)
            y += 24
        R.blit_text(
            surface,
            self.progress_text(),
            view.pt(CARD[0] + CARD[2] - 12, CARD[1] + CARD[3] - 8),
            view.font_size(16),
            R.DIM,
            "bottomright",
        )

    def _draw_scrub(self, surface: pygame.Surface, view: R.View) -> None:
        rect = view.rect(*SCRUB)
        pygame.draw.rect(surface, R.PANEL, rect)
        count = max(1, self.cursor.count)  # type: ignore[union-attr]
        for i, p in self.placements.items():
            x = rect.x + int((i + 0.5) / count * rect.w)
            colour = CLASS_COLOURS.get(p.get("class") or "", R.DIM)
            height = rect.h if p.get("class") in MARKED else rect.h // 3
            pygame.draw.line(surface, colour, (x, rect.bottom - height), (x, rect.bottom), max(1, rect.w // count))
        for span in self.cursor.spans:  # type: ignore[union-attr]
            if span.finesse:  # finesse faults: a red dot above the bar
                x = rect.x + int((span.index + 0.5) / count * rect.w)
                pygame.draw.circle(surface, R.BAD, (x, rect.y - view.s(5)), view.s(3))
        if self.index >= 0:
            x = rect.x + int((self.index + 0.5) / count * rect.w)
            pygame.draw.rect(surface, R.ACCENT, (x - 3, rect.y - 4, 6, rect.h + 8))
        pygame.draw.rect(surface, R.PANEL_EDGE, rect, 1)
