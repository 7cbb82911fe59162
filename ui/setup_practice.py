"""The set-up practice scene: a play scene that guides the build of a library entry, lists the other entries of
the same PC of the loop (or the openers over the same stack) that the bag in play can build with their chances,
lets the player pick one (1-9) or the coach pick the best (Tab) before the first piece, keeps per-entry
statistics (ui.setup_stats), and in loop mode goes on after a PC into the next PC of the loop with its set-ups.

The chances come from the worker (BuildRequest.choices, answered by ai.setup_service): no search here.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import pygame

from ai.protocol import percent_text
from game.board import Board
from game.events import Locked
from game.pieces import Piece
from game.setups import SetupEntry, next_pc, start_bag
from ui import render as R
from ui import setup_stats
from ui.coach import BuildTarget, Coach, PcProgress, position_key, snapshot_of
from ui.coach_view import ELLIPSIS, fit_lines
from ui.modes import SETUP_PRACTICE
from ui.pc_setups import bag_state, ordinal
from ui.play import PlayScene, Popup, StartPosition

MAX_CHOICES = 9
_PICK_KEYS = {getattr(pygame, f"K_{n}"): n for n in range(1, MAX_CHOICES + 1)}


@dataclass(frozen=True)
class PracticeTarget(BuildTarget):
    """A BuildTarget with what set-up practice adds: the statistics key, the other set-ups the bag may build
    instead (name = statistics key, must, may), the piece this set-up saves and those the choices save (name,
    piece), and the line and piece counts when this build began (in loop mode a build starts after a PC)."""

    key: str = ""
    choices: tuple[tuple[str, int, int], ...] = ()
    save: Piece | None = None
    saves: tuple[tuple[str, Piece], ...] = ()
    lines_at_start: int = 0
    pieces_at_start: int = 0


def group_of(entry: SetupEntry, entries: list[SetupEntry]) -> list[SetupEntry]:
    """The entries the player may switch to for the same bag: the set-ups of the same PC of the loop, or the
    openers that start from the same stack."""
    if entry.family == "pc":
        return [e for e in entries if e.family == "pc" and e.pc == entry.pc]
    base = entry.cells().base
    return [e for e in entries if e.family == entry.family and e.cells().base == base]


def practice_target(
    entry: SetupEntry, mirrored: bool, group: list[SetupEntry], lines: int = 0, pieces: int = 0
) -> PracticeTarget:
    cells = entry.cells(mirror=mirrored)
    choices, saves = [], []
    for other in group:
        for mirror in (False, True) if other.mirror else (False,):
            shape = other.cells(mirror=mirror)
            name = setup_stats.stats_key(other.key, mirror)
            choices.append((name, shape.must | shape.base, shape.may))
            saved = other.saved(mirror=mirror)
            if saved is not None:
                saves.append((name, saved))
    # The grey cells count as part of the shape (they stand from the start): a set-up over an earlier bag's
    # stack (DT Cannon's 2nd bag) has no 'block outside the shape'.
    return PracticeTarget(
        entry.name + (" (mirror)" if mirrored else ""),
        cells.must | cells.base,
        cells.may,
        entry.finishes,
        key=setup_stats.stats_key(entry.key, mirrored),
        choices=tuple(choices[: MAX_CHOICES * 4]),
        save=entry.saved(mirror=mirrored),
        saves=tuple(saves),
        lines_at_start=lines,
        pieces_at_start=pieces,
    )


def practice_start(entry: SetupEntry, seed: int, mirrored: bool, group: list[SetupEntry]) -> StartPosition:
    """The start of a guided build: the board before the build (its grey cells) and the bag as the entry is
    played from (a PC of the loop: that many pieces left in the bag; an opener: a fresh bag)."""
    cells = entry.cells(mirror=mirrored)
    target = practice_target(entry, mirrored, group)
    return StartPosition(
        board=Board.from_bits(cells.base) if cells.base else None,
        randomizer_state=bag_state(start_bag(entry, seed, mirrored)),
        label=target.name,
        build=target,
    )


@dataclass
class Attempt:
    """One build of one entry (its statistics key) with a piece placed: the placement count at which its shape
    first stood (None while it does not) and the one that made its PC. Undo takes back what it undid."""

    key: str
    built_at: int | None = None
    pc_at: int | None = None


@dataclass(frozen=True)
class Finished:
    """A build that led to its PC, and what was being built, to come back to if undo takes the PC back."""

    attempt: Attempt
    entry: SetupEntry
    mirrored: bool
    target: PracticeTarget


class SetupCoach(Coach):
    """The coach with set-up practice's two additions: the build request carries the choices while nothing of
    the build is placed yet, and a build may begin after lines were cleared (loop mode)."""

    @property
    def building(self) -> bool:
        target = self.target
        game = self.scene.game
        if not isinstance(target, PracticeTarget):
            return super().building
        return game.stats.lines == target.lines_at_start and not target.built(game)

    def _request(self) -> None:
        game = self.scene.game
        key = position_key(game)
        target = self.target
        if key is not None and isinstance(target, PracticeTarget) and self.building and not self.builds.settled(key):
            choosing = game.stats.pieces == target.pieces_at_start
            generation = self.scene.app.worker().build(
                snapshot_of(game),
                must=target.must,
                may=target.may,
                choices=target.choices if choosing else (),
                save=target.save,
                saves=target.saves if choosing else (),
            )
            self.builds.ask(key, generation, self.scene.clock)
        super()._request()

    def after_tick(self, events: list) -> None:
        super().after_tick(events)
        target = self.target
        game = self.scene.game
        if isinstance(target, PracticeTarget) and target.lines_at_start and target.built(game):
            if any(isinstance(e, Locked) for e in events) and game.stats.lines == target.lines_at_start:
                self.progress = PcProgress()  # the set-up is built: the finish is judged on its own


class SetupPracticeScene(PlayScene):
    def __init__(
        self,
        app,
        entry: SetupEntry,
        entries: list[SetupEntry],
        seed: int | None = None,
        mirrored: bool = False,
        loop: bool = True,
    ) -> None:
        self.entry, self.mirrored, self.entries, self.loop = entry, mirrored and entry.mirror, entries, loop
        self._attempt: Attempt | None = None
        self._finished: list[Finished] = []  # PCs made this run, counted when the run ends (undo may take them back)
        self._auto_pick = False
        self.stats_problem: str | None = None
        seed = seed if seed is not None else app.new_seed()
        super().__init__(app, SETUP_PRACTICE, self._fresh_start(seed), seed)
        self.coach = SetupCoach(self)

    # --- starts and picks ---------------------------------------------------------------------------------
    def _fresh_start(self, seed: int) -> StartPosition:
        start = practice_start(self.entry, seed, self.mirrored, group_of(self.entry, self.entries))
        return replace(start, reseed=self._fresh_start)

    @property
    def target(self) -> PracticeTarget:
        assert self.start is not None and isinstance(self.start.build, PracticeTarget)
        return self.start.build

    def _entry_of(self, key: str) -> tuple[SetupEntry, bool] | None:
        name, _, mirror = key.partition("/")
        entry = next((e for e in self.entries if e.key == name), None)
        return None if entry is None else (entry, bool(mirror))

    def choosing(self) -> bool:
        """Nothing of this build is placed yet: another set-up may still be picked."""
        return self.game.stats.pieces == self.target.pieces_at_start and self.coach.building

    def choices(self) -> list[tuple[str, float]] | None:
        """The set-ups this bag can build, best first, with their chances (None while the worker works)."""
        answer = self.coach.builds.for_position(position_key(self.game))
        if answer is None or not answer.choices:
            return None
        order = {choice[0]: n for n, choice in enumerate(self.target.choices)}
        ranked = sorted(answer.choices, key=lambda c: (-c[1], -self._pc_rate(c[0]), order.get(c[0], 0)))
        return [c for c in ranked if c[1] > 0][:MAX_CHOICES]

    def _pc_rate(self, key: str) -> float:
        found = self._entry_of(key)
        return float(found[0].figures.get("pc_rate", 0.0)) if found else 0.0

    def pick(self, key: str) -> bool:
        """Build `key` (statistics key of an entry of the group) instead, from this same bag."""
        found = self._entry_of(key)
        if found is None or not self.choosing():
            return False
        self.entry, self.mirrored = found
        self._set_target(self.game.stats.lines, self.game.stats.pieces)
        return True

    def pick_best(self) -> bool:
        ranked = self.choices()
        return self.pick(ranked[0][0]) if ranked else False

    def _set_target(self, lines: int, pieces: int) -> None:
        target = practice_target(self.entry, self.mirrored, group_of(self.entry, self.entries), lines, pieces)
        self.start = replace(self.start or StartPosition(), build=target, label=target.name)
        self.coach.new_build()  # a new question for the same position
        self._attempt = None

    # --- the game ---------------------------------------------------------------------------------------
    def _save_attempts(self) -> None:
        """The run ends (a new bag, the same bag again, quit to the title, end run): its builds are counted.
        Pausing is no end (the pause screen also takes the scene off the top)."""
        self._close_attempt()
        super()._save_attempts()

    def handle(self, event) -> None:
        if event.type == pygame.KEYDOWN and self.choosing():
            if event.key == pygame.K_TAB:
                self.pick_best()
                return
            number = _PICK_KEYS.get(event.key)
            ranked = self.choices() or []
            if number is not None and number <= len(ranked):
                self.pick(ranked[number - 1][0])
                return
        super().handle(event)

    def update(self) -> None:
        pcs = self.game.stats.perfect_clears
        super().update()
        game = self.game
        if self._auto_pick and self.choices():
            self._auto_pick = False
            self.pick_best()
        self._follow_undo()
        target = self.target
        pieces, building = game.stats.pieces, game.stats.lines == target.lines_at_start
        if self._attempt is None and pieces > target.pieces_at_start and building:
            self._attempt = Attempt(target.key)
        attempt = self._attempt
        if attempt is None:
            return
        if attempt.built_at is None and building and target.built(game):
            attempt.built_at = pieces
        if game.stats.perfect_clears > pcs and attempt.built_at is not None:
            attempt.pc_at = pieces
            self._finished.append(Finished(attempt, self.entry, self.mirrored, target))
            self._attempt = None
            if self.loop and self.entry.family == "pc" and self.entry.pc:
                self._next_pc(next_pc(self.entry.pc))

    def _follow_undo(self) -> None:
        """Undo takes back what it undid: a PC (the build it finished is open again, and in loop mode its set-up
        is the target again), a shape that stood, an attempt whose every piece was taken back (it never was)."""
        pieces = self.game.stats.pieces
        while self._finished and pieces < (self._finished[-1].attempt.pc_at or 0):
            done = self._finished.pop()
            self.entry, self.mirrored, self._auto_pick = done.entry, done.mirrored, False
            self.start = replace(self.start or StartPosition(), build=done.target, label=done.target.name)
            self.coach.new_build()
            self._attempt = replace(done.attempt, pc_at=None)
        attempt = self._attempt
        if attempt is not None and pieces <= self.target.pieces_at_start:
            self._attempt = None
        elif attempt is not None and attempt.built_at is not None and pieces < attempt.built_at:
            attempt.built_at = None

    def _next_pc(self, n: int) -> None:
        """Loop mode: the PC is made; the next PC of the loop starts here, from this bag, with its set-ups (the
        coach picks the best as soon as the worker has the chances; the player may pick another)."""
        group = [e for e in self.entries if e.family == "pc" and e.pc == n]
        if not group:
            return
        self.entry, self.mirrored = group[0], False
        self._set_target(self.game.stats.lines, self.game.stats.pieces)
        self._auto_pick = True
        self.popups.append(Popup(f"ON TO THE {ordinal(n).upper()} PC", R.ACCENT, self.clock))

    def _close_attempt(self) -> None:
        """Count this run's builds: each that led to a PC, and the one in progress (built if its shape stands)."""
        finished, attempt = getattr(self, "_finished", []), getattr(self, "_attempt", None)
        self._finished, self._attempt = [], None
        for done in finished:
            self.stats_problem = setup_stats.record(done.attempt.key, built=True, pc=True) or self.stats_problem
        if attempt is not None:
            built = attempt.built_at is not None
            self.stats_problem = setup_stats.record(attempt.key, built=built, pc=False) or self.stats_problem

    # --- drawing ------------------------------------------------------------------------------------------
    def choice_lines(self) -> list[str]:
        """The choice box as drawn (empty once the build has begun)."""
        if not self.choosing():
            return []
        ranked = self.choices()
        if ranked is None:
            return ["This bag: checking the set-ups…"]
        if not ranked:
            return ["This bag builds none of them", "R deals a new bag"]
        lines = ["This bag can build:"]
        for number, (key, chance) in enumerate(ranked, 1):
            found = self._entry_of(key)
            name = found[0].name.split(": ", 1)[-1] + (" (mirror)" if found[1] else "") if found else key
            mark = "> " if key == self.target.key else ""
            lines.append(f"{number} {percent_text(chance)} {mark}{name}")  # the chance first: a wrapped name keeps it
        lines.append("1-9 pick · Tab best")
        return lines

    def draw(self, surface: pygame.Surface) -> None:
        super().draw(surface)
        lines = self.choice_lines()
        if not lines:
            return
        view = R.View(surface.get_size())
        box = view.rect(185, 468, 175, 204)
        R.panel(surface, box, R.PANEL, R.PANEL_EDGE, 1)
        size = view.font_size(15)
        step, width, x = int(size * 1.25), box.w - view.s(16), box.x + view.s(8)
        *body, last = lines
        if not body:
            body, last = [last], ""
        # the last line (the keys, or what R does) always shows, at the bottom; the rows above it hold the list,
        # ending with "…" when it is longer
        bottom = box.bottom - view.s(4) - (step if last else 0)
        top = box.y + view.s(8)
        room = max(1, (bottom - top - size) // step + 1)
        rows = [
            (part, R.TEXT if number == 0 else (R.ACCENT if "> " in text else R.DIM))
            for number, text in enumerate(body)
            for part in fit_lines(text, size, width)
        ]
        if len(rows) > room:
            rows = [*rows[: room - 1], (ELLIPSIS, R.DIM)]
        for row, (text, colour) in enumerate(rows):
            R.blit_text(surface, text, (x, top + row * step), size, colour)
        if last:
            for part in fit_lines(last, size, width, max_lines=1):
                R.blit_text(surface, part, (x, bottom), size, R.DIM)
