"""The coach: AI hints, autoplay and perfect-clear guidance for one play scene (no drawing here).

All thinking happens in the worker process behind `app.worker()` (a `ui.worker_client.WorkerClient`); this
module only sends snapshots and reads answers without ever waiting. Contracts:
* A request is sent whenever the position of the piece in play changes (new piece, hold, undo, redo,
  restart); an answer is used only if it is the newest of its kind *and* was asked for the position still in
  play (`position_key`), so a late answer for an old piece is never shown or played.
* Autoplay returns the buttons for `Game.tick` (the same input path as the keyboard); without an answer it
  returns no buttons, so the game keeps ticking (gravity, lock delay) while it waits.
* Worker faults never raise here: they become `status_text()` for the Coach panel.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Generic, TypeVar

from ai.protocol import (  # noqa: F401 - key_labels/KEY_* are re-exported for the views
    KEY_ASCII,
    KEY_GLYPHS,
    Answer,
    BuildAnswer,
    Move,
    PcAnswer,
    PcPanel,
    Placement,
    Snapshot,
    Suggestion,
    WorkerFailure,
    build_panel,
    key_labels,
    pc_panel,
)
from ai.worker import log_path
from game.board import Board
from game.engine import Game
from game.events import Event, Held, Locked, Undone
from game.executor import KeyExecutor
from game.finesse import Key
from game.handling import Button
from game.pieces import SHAPES, Piece

if TYPE_CHECKING:
    from settings import AISettings
    from ui.play import PlayScene  # the scene owns its coach (and imports this module at run time)
    from ui.worker_client import WorkerClient

# Identity of the position of the piece in play (see position_key): the game, where it is in the piece stream,
# pieces placed, the piece, hold and whether it was used, the board.
PositionKey = tuple[int, int, int, Piece, Piece | None, bool, int]
AnswerT = TypeVar("AnswerT", Suggestion, PcAnswer, BuildAnswer)
PC_LINES = 4  # preferred; the worker picks another height when 4 cannot work for the stack
PC_MAX_HEIGHT = 6
PC_BUDGET_MS = 300.0
PC_AFTER_HINT_TICKS = 20  # the worker does one job at a time: the PC question waits for the final hint this long
MAX_PACE_WAIT_TICKS = 4  # at "as fast as possible" the final answer is awaited this long, then the streamed one
LOST_FLASH_TICKS = 40
# the ghost rests this long on a spot before the worker is told the piece may land there (ai.protocol.PcAim):
# sliding through columns does not make it start over at every one
AIM_REST_TICKS = 3


def snapshot_of(game: Game) -> Snapshot:
    """What the worker needs to think about the piece in play (the game must have an active piece)."""
    assert game.active is not None
    return Snapshot(
        board=game.board,
        current=game.active.piece,
        queue=tuple(game.preview()),
        hold=game.hold,
        hold_used=game.hold_used,
        b2b=game.b2b,
        combo=game.combo,
        rules=game.rules,
        randomizer=game.config.randomizer,
        randomizer_state=game.future_state(),
        pieces_placed=game.stats.pieces,
    )


def position_key(game: Game) -> PositionKey | None:
    """Identity of the position of the piece in play; None when no piece is in play."""
    a = game.active
    if a is None or game.over:
        return None
    return (id(game), game.stream_pos, game.stats.pieces, a.piece, game.hold, game.hold_used, game.board.bits)


def move_cells(move: Move) -> list[tuple[int, int]]:
    p = move.placement
    return [(p.x + dx, p.y + dy) for dx, dy in SHAPES[p.piece, p.rotation]]


def pc_lines(game: Game, practice: bool) -> int:
    """How many rows the PC to aim for has. In PC practice every PC of the loop is a 4-line one, so the rows
    still to clear are 4 minus the rows cleared since the last PC (robust under undo); elsewhere, and when that
    does not fit the stack, the lowest height that the stack's cell count allows (4 on an empty board)."""
    board = game.board
    height, cells = board.height(), board.cell_count()

    def fits(lines: int) -> bool:
        return height <= lines and (10 * lines - cells) % 4 == 0 and 10 * lines > cells

    if practice:
        target = PC_LINES - game.stats.lines % PC_LINES
        if fits(target):
            return target
    if cells == 0:
        return PC_LINES
    return next((lines for lines in range(max(height, 1), PC_MAX_HEIGHT + 1) if fits(lines)), PC_LINES)


def _expected_piece(game: Game, move: Move) -> Piece | None:
    """The piece a move must be for in this position (after a hold when the move starts with one)."""
    if game.active is None:
        return None
    if not move.hold:
        return game.active.piece
    if game.hold_used or not game.rules.hold:
        return None
    if game.hold is not None:
        return game.hold
    preview = game.preview()
    return preview[0] if preview else None


def _execution_ticks(move: Move, das: float) -> int:
    """A rough count of the ticks the executor needs (a DAS key is held for the DAS delay, plus a few ticks
    of auto-repeat; soft drop for a few ticks)."""
    shifts = sum(k in (Key.DAS_LEFT, Key.DAS_RIGHT) for k in move.keys)
    soft = sum(k is Key.SOFT_DROP for k in move.keys)
    return len(move.keys) + int(move.hold) + shifts * (int(das) + 3) + soft * 4


@dataclass(frozen=True)
class BuildTarget:
    """A set-up or opener to build in guided practice: its name, its cells (bitboards of the board), and what
    it leads to ("PC", "TSD", ...)."""

    name: str
    must: int
    may: int
    finishes: tuple[str, ...]

    def built(self, game: Game) -> bool:
        return game.board.bits & self.must == self.must


@dataclass
class GoodPc:
    """The last position from which a PC was still possible, kept to show what the mistake cost."""

    answer: PcAnswer
    board: Board
    pieces: int


@dataclass(frozen=True)
class Question:
    """A question to the worker as one value: the position it is about (None: none to wait for), its
    generation (None: nothing was sent, the position counts as asked) and the scene clock when it was sent."""

    key: PositionKey | None
    generation: int | None
    clock: int


@dataclass(frozen=True)
class Answered(Generic[AnswerT]):
    """The newest answer of one kind as one value: the answer, the position it is for, and the scene clock when
    the first answer for that position arrived (a streamed answer for the same position keeps it)."""

    answer: AnswerT
    key: PositionKey
    since: int


@dataclass
class Channel(Generic[AnswerT]):
    """One kind of question to the worker ("suggest", "pc" or "build"): the question in flight and the newest
    answer, each one frozen value replaced as a whole, so an answer never drifts from the position it is for.
    An answer counts only for the position it was asked about, so a late one for an old piece is never used."""

    kind: str
    question: Question | None = None  # the question in flight (or the last one answered)
    latest: Answered[AnswerT] | None = None

    @property
    def asked(self) -> PositionKey | None:
        return self.question.key if self.question is not None else None

    @property
    def generation(self) -> int | None:
        return self.question.generation if self.question is not None else None

    @property
    def asked_clock(self) -> int:
        return self.question.clock if self.question is not None else 0

    @property
    def answer(self) -> AnswerT | None:
        return self.latest.answer if self.latest is not None else None

    @property
    def key(self) -> PositionKey | None:
        return self.latest.key if self.latest is not None else None

    def for_position(self, key: PositionKey | None) -> AnswerT | None:
        latest = self.latest
        return latest.answer if latest is not None and key is not None and latest.key == key else None

    def settled(self, key: PositionKey) -> bool:
        """This position was asked about, or already has its final answer."""
        answer = self.for_position(key)
        return key == self.asked or (answer is not None and getattr(answer, "final", True))

    def ask(self, key: PositionKey, generation: int | None, clock: int) -> None:
        self.question = Question(key, generation, clock)

    def count_as_asked(self, key: PositionKey | None) -> None:
        """Treat `key` as the position asked about (None: ask again), keeping the generation in flight."""
        self.question = replace(self.question or Question(None, None, 0), key=key)

    def accepts(self, answer: AnswerT, key: PositionKey | None) -> bool:
        """The answer is for the question in flight and its position is the one in play."""
        if answer.generation != self.generation:
            return False
        if key is None or key != self.asked:
            if answer.final:
                self.count_as_asked(None)  # its position was left (undo): ask again if it comes back
            return False
        return True

    def keep(self, answer: AnswerT, key: PositionKey, clock: int) -> None:
        latest = self.latest
        since = latest.since if latest is not None and latest.key == key else clock
        self.latest = Answered(answer, key, since)

    def carry(self, answer: AnswerT, key: PositionKey) -> None:
        """The newest answer, changed to fit the position `key` it now stands for (after a planned hold); it
        keeps the clock of its arrival. Only called with an answer in hand."""
        assert self.latest is not None
        self.latest = Answered(answer, key, self.latest.since)

    def drop_pending(self, client: WorkerClient) -> None:
        """Stop waiting for an unanswered question (the scene is covered); it is asked again on return."""
        if self.generation is not None and self.key != self.asked:
            client.forget(self.kind)
        self.count_as_asked(self.key)


@dataclass(frozen=True)
class AutoplayPlan:
    """What autoplay does for one position: the position, the scene clock when it was first seen (the pace is
    counted from it) and the executor pressing the advised move's keys (None: not started yet)."""

    key: PositionKey
    since: int
    executor: KeyExecutor | None = None


@dataclass
class PcProgress:
    """What the PC coach judged along the game: the last possible PC (to show what a mistake cost) and when
    a placement turned a possible PC into an impossible one."""

    good: GoodPc | None = None
    lost_clock: int | None = None
    judged_possible: bool = False  # the last verdict
    judged_pieces: int | None = None  # pieces placed at that verdict

    def judge(self, answer: PcAnswer, board: Board, pieces: int, clock: int) -> None:
        if answer.possible:
            if answer.overlay or self.good is None or self.good.pieces != pieces:
                self.good = GoodPc(answer, board, pieces)
            self.lost_clock = None
            self.judged_possible, self.judged_pieces = True, pieces
        elif answer.impossible:  # only an exact "no PC whatever comes" is a verdict; "unknown" judges nothing
            if self.judged_possible and self.judged_pieces is not None and pieces > self.judged_pieces:
                self.lost_clock = clock  # this placement turned a possible PC into an impossible one
            self.judged_possible, self.judged_pieces = False, pieces


class Coach:
    """The coach of one play scene. What it knows about positions is held as frozen values, each replaced as a
    whole: per kind of question a `Question` in flight and the newest `Answered` (answer, position, arrival),
    and autoplay's `AutoplayPlan` (position, pace clock, executor). Answers of different kinds may be for
    different positions (the PC answer of the position before a hold is carried over to the held-in piece), so
    each kind keeps its own position; along the game only `PcProgress` (the PC judging) and a worker failure."""

    def __init__(self, scene: PlayScene) -> None:
        self.scene = scene
        self.autoplay = False
        self.reset()

    def reset(self) -> None:
        """Forget everything about the previous game (new game, restart)."""
        self.hints: Channel[Suggestion] = Channel("suggest")
        self.pcs: Channel[PcAnswer] = Channel("pc")
        self.builds: Channel[BuildAnswer] = Channel("build")
        self.progress = PcProgress()
        self.failure: str | None = None
        self.plan: AutoplayPlan | None = None  # autoplay's plan for the position in play
        self._held_from: PositionKey | None = None
        self._ghost: tuple = ()  # (position, rotation, x, landing y) of the piece in play, and since which tick
        self._ghost_since = 0
        self._aimed: tuple = ()  # the last spot the worker was told of
        self._spawned: tuple = ()  # the spot of the piece in play as it spawned

    # --- the answers, as the views read them ---------------------------------------------------------------
    @property
    def hint(self) -> Move | None:
        answer = self.hints.answer
        return answer.move if answer is not None else None

    @property
    def hint_final(self) -> bool:
        return self.hints.answer is not None and self.hints.answer.final

    @property
    def hint_ready_clock(self) -> int | None:
        """The scene clock when the newest hint's position got its first answer."""
        latest = self.hints.latest
        return latest.since if latest is not None else None

    @property
    def pc(self) -> PcAnswer | None:
        return self.pcs.answer

    @property
    def good(self) -> GoodPc | None:
        return self.progress.good

    @property
    def lost_clock(self) -> int | None:
        return self.progress.lost_clock

    @lost_clock.setter
    def lost_clock(self, value: int | None) -> None:
        self.progress.lost_clock = value

    # --- settings ---------------------------------------------------------------------------------------
    @property
    def ai(self) -> AISettings:
        return self.scene.app.settings.ai

    @property
    def hints_on(self) -> bool:
        return bool(self.ai.hint_enabled)

    @property
    def target(self) -> BuildTarget | None:
        """The set-up being practised (set-up practice), or None."""
        start = self.scene.start
        return start.build if start is not None else None

    @property
    def building(self) -> bool:
        """A set-up is being built: its cells are not all filled and no line was cleared yet (a clear means the
        finish, PC or T-spin, is under way)."""
        target = self.target
        game = self.scene.game
        return target is not None and game.stats.lines == 0 and not target.built(game)

    @property
    def pc_on(self) -> bool:
        if self.building:
            return False
        target = self.target
        if target is not None and "PC" in target.finishes:
            return True
        return self.scene.mode.key == "pc" or bool(self.ai.pc_hints_enabled)

    @property
    def wants_suggestions(self) -> bool:
        return (self.hints_on or self.autoplay) and not self.pc_leads and not self.building

    @property
    def show_hint(self) -> bool:
        """True when the engine's hint (not the PC's advice) is the advice for the piece in play."""
        return (
            self.wants_suggestions
            and self.hint is not None
            and self.hints.for_position(position_key(self.scene.game)) is not None
        )

    @property
    def pc_shown(self) -> PcAnswer | None:
        """The PC answer for the position in play, or None."""
        return self.pcs.for_position(position_key(self.scene.game))

    @property
    def pc_lost(self) -> bool:
        return self.progress.lost_clock is not None

    @property
    def practice(self) -> bool:
        """The PC is what this run practises (PC practice, or a set-up that finishes with a PC)."""
        target = self.target
        return self.scene.mode.key == "pc" or (target is not None and "PC" in target.finishes)

    def build_panel(self) -> PcPanel:
        """What the panel says about the set-up being built (the same values the window draws)."""
        panel = build_panel(self.builds.for_position(position_key(self.scene.game)))
        if panel.status == "impossible" and self.scene.game.stats.pieces == 0:
            panel = replace(panel, headline="this bag cannot build it", advice="R deals a new bag")
        if self.pc_lost:
            panel = replace(
                panel, status="lost", headline="set-up no longer possible", advice="", first_move=None, overlay=()
            )
        return panel

    def advice_panel(self) -> PcPanel:
        """The panel of whichever coach leads: the set-up builder while building, else the PC coach."""
        return self.build_panel() if self.building else self.pc_panel()

    def pc_panel(self) -> PcPanel:
        """What the panel says about the PC for the position in play (drawn by ui.coach_view, read by tests)."""
        panel = pc_panel(self.pc_shown)
        if self.pc_lost:
            panel = replace(
                panel, status="lost", headline="PC no longer possible", advice="", first_move=None, overlay=()
            )
        return panel

    @property
    def pc_leads(self) -> bool:
        """The PC coach gives the advice for this piece (one source of advice at a time): when it has a move,
        and in PC practice also while it is still working one out."""
        if not self.pc_on or position_key(self.scene.game) is None:
            return False
        if self.pc_panel().first_move is not None:
            return True
        shown = self.pc_shown
        return self.practice and not self.pc_lost and (shown is None or not shown.final)

    def advice_move(self) -> Move | None:
        """The placement the coach advises for the piece in play (what autoplay plays), or None."""
        if self.building:
            return self.build_panel().first_move
        if self.pc_leads:
            panel = self.pc_panel()
            if panel.provisional and not (self.pc_shown is not None and self.pc_shown.final):
                return None  # the search goes on and its best so far may change: autoplay waits for its end
            return panel.first_move
        return self.hint if self.show_hint else None

    # --- toggles ----------------------------------------------------------------------------------------
    def set_autoplay(self, on: bool) -> None:
        self.autoplay = on
        self.plan = None

    def replan(self) -> None:
        """Autoplay works the move out again for this position (undo, rewind), keeping the piece's pace."""
        if self.plan is not None:
            self.plan = replace(self.plan, executor=None)

    def new_build(self) -> None:
        """Another set-up is the target (a pick, loop mode, undo of a PC): ask about it afresh, judge it anew."""
        self.builds = Channel("build")
        self.progress = PcProgress()

    def suspend(self) -> None:
        """The scene is covered or left: drop pending questions (they are asked again on return)."""
        client = self.scene.app.worker_if_started()
        if client is None:
            return
        self.hints.drop_pending(client)
        self.pcs.drop_pending(client)
        self.builds.drop_pending(client)

    # --- per tick ---------------------------------------------------------------------------------------
    def poll(self) -> None:
        """Read answers (never waits) and send requests the position in play needs."""
        client = self.scene.app.worker_if_started()
        if client is not None:
            for answer in client.poll():
                self._take(answer)
        self._request()
        self._held_from = position_key(self.scene.game)  # the position before the next game tick

    def _request(self) -> None:
        game = self.scene.game
        key = position_key(game)
        if key is None:
            return
        clock = self.scene.clock
        target = self.target
        if target is not None and self.building and not self.builds.settled(key):
            generation = self.scene.app.worker().build(snapshot_of(game), must=target.must, may=target.may)
            self.builds.ask(key, generation, clock)
        if self.wants_suggestions and not self.hints.settled(key) and self.hints.key != key:
            ai = self.ai
            generation = self.scene.app.worker().suggest(
                snapshot_of(game), engine=ai.engine, weights=ai.weights, budget_ms=float(ai.think_budget_ms)
            )
            self.hints.ask(key, generation, clock)
        if self.pc_on and not self.pcs.settled(key):
            # A newer request cancels the worker's current job, so the PC question goes after the final hint
            # (in PC practice no hint is asked while the PC leads).
            hint_pending = (
                self.wants_suggestions
                and not (self.hints.key == key and self.hint_final)
                and self.failure is None
                and clock - self.hints.asked_clock < PC_AFTER_HINT_TICKS
            )
            if hint_pending:
                return
            pc_generation = None  # too high for a PC: nothing is asked, the position counts as asked
            if game.board.height() <= PC_MAX_HEIGHT:
                pc_generation = self.scene.app.worker().solve_pc(
                    snapshot_of(game),
                    lines=pc_lines(game, self.practice),
                    budget_ms=PC_BUDGET_MS,
                    think_ahead=self.ai.pc_think_ahead,
                )
            self.pcs.ask(key, pc_generation, clock)
        if self.pc_on and self.ai.pc_think_ahead and self.pcs.asked == key and self.pcs.generation is not None:
            self._aim(game, key)

    def _aim(self, game: Game, key: PositionKey) -> None:
        """Once the ghost has rested AIM_REST_TICKS on a new spot, tell the worker the piece may land there: in
        its idle time it works out the position after it first, so the answer can be there at the lock. Not where
        the piece spawned (that is where a player thinks, and the worker had better work out the panel's move), nor
        while a shift or soft drop is held (bench/worker.py part 5: aims on the way made a player who follows the
        panel wait)."""
        active, landing = game.active, game.ghost_y()
        if active is None or landing is None:
            return
        spot = (key, active.rotation, active.x, landing)
        if spot != self._ghost or game.held_buttons & (Button.LEFT | Button.RIGHT | Button.SOFT_DROP):
            # (a shift held is a slide on its way, waiting for auto-repeat: the ghost only pauses there; a soft
            # drop is a tuck or spin on its way as often as not)
            if not self._ghost or self._ghost[0] != key:
                self._spawned = spot
            self._ghost, self._ghost_since = spot, self.scene.clock
            return
        if spot in (self._aimed, self._spawned) or self.scene.clock - self._ghost_since < AIM_REST_TICKS:
            return
        client = self.scene.app.worker_if_started()
        if client is None:
            return
        self._aimed = spot
        client.aim_pc(
            snapshot_of(game),
            Placement(active.piece, active.rotation, active.x, landing),
            lines=pc_lines(game, self.practice),
            budget_ms=PC_BUDGET_MS,
            think_ahead=True,
        )

    def _take(self, answer: Answer) -> None:
        game = self.scene.game
        key = position_key(game)
        if isinstance(answer, WorkerFailure):
            self.failure = answer.message
            return
        if isinstance(answer, Suggestion):
            if not self.hints.accepts(answer, key) or key is None:
                return  # for another piece: ignore
            move = answer.move
            if move is not None and _expected_piece(game, move) != move.placement.piece:
                return
            self.hints.keep(answer, key, self.scene.clock)
            self.failure = None
        elif isinstance(answer, PcAnswer):
            if not self.pcs.accepts(answer, key) or key is None:
                return
            self.progress.judge(answer, game.board, game.stats.pieces, self.scene.clock)
            self.pcs.keep(answer, key, self.scene.clock)
            self.failure = None
        elif isinstance(answer, BuildAnswer):
            if not self.builds.accepts(answer, key) or key is None:
                return
            if self.building:
                self.progress.judge(answer, game.board, game.stats.pieces, self.scene.clock)  # type: ignore[arg-type]
            self.builds.keep(answer, key, self.scene.clock)
            self.failure = None

    # --- game events ------------------------------------------------------------------------------------
    def after_tick(self, events: list[Event]) -> None:
        """Follow the game: a hold that the advice planned keeps the advice; a PC starts the judging afresh."""
        for event in events:
            if isinstance(event, Held):
                self._after_hold()
            elif isinstance(event, Undone):
                self.replan()
            elif isinstance(event, Locked) and event.result.perfect_clear:
                self.progress = PcProgress()  # a new PC starts: nothing judged about the last one carries over
            elif (
                isinstance(event, Locked)
                and self.target is not None
                and self.target.built(self.scene.game)
                and self.scene.game.stats.lines == 0
            ):
                self.progress = PcProgress()  # the set-up is built: the finish is judged on its own

    def _after_hold(self) -> None:
        game = self.scene.game
        key = position_key(game)
        active = game.active
        if key is None or active is None:  # (no key means no piece in play)
            return
        planned = False
        hint = self.hints.answer
        move = hint.move if hint is not None else None
        if hint is not None and move is not None and move.hold and active.piece == move.placement.piece:
            self.hints.carry(replace(hint, move=replace(move, hold=False)), key)
            self.hints.count_as_asked(key)
            planned = True
        shown = self.pcs.for_position(self._held_from)
        first = shown.solution[0] if shown is not None and shown.solution else None
        if shown is not None and first is not None and first.hold and active.piece == first.placement.piece:
            # The hold the PC solution asked for: the same solution goes on (its first placement no longer
            # needs a hold); the chance is worked out again for the new position.
            self.pcs.carry(
                replace(
                    shown,
                    solution=(replace(first, hold=False), *shown.solution[1:]),
                    chance=None,
                    best_next=None,
                    final=False,
                ),
                key,
            )
            self.pcs.count_as_asked(None)
            planned = True
        if planned and self.plan is not None:
            self.plan = replace(self.plan, key=key)  # the autoplay plan goes on with the held-in piece

    # --- autoplay ---------------------------------------------------------------------------------------
    def autoplay_buttons(self) -> Button:
        """This tick's buttons for the game while autoplay is on (NONE while waiting for an answer)."""
        game = self.scene.game
        key = position_key(game)
        if key is None:
            self.replan()
            return Button.NONE
        if self.plan is None or self.plan.key != key:
            self.plan = AutoplayPlan(key, self.scene.clock)
        executor = self.plan.executor
        if executor is None:
            move = self.advice_move()  # the PC solution when the PC coach leads, else the engine's hint
            if move is None:
                return Button.NONE  # worker down or still thinking: wait (gravity still applies)
            final = self.pc_leads or self.hint_final
            pps = float(self.ai.autoplay_pps)
            budget = round(60 / pps) if pps > 0 else 0
            elapsed = self.scene.clock - self.plan.since
            start_at = max(0, budget - _execution_ticks(move, game.config.handling.das))
            if not final:
                start_at = max(start_at, budget if budget else MAX_PACE_WAIT_TICKS)
            if elapsed < start_at:
                return Button.NONE
            executor = KeyExecutor(move.keys, hold_first=move.hold, gap=0)
            self.plan = replace(self.plan, executor=executor)
        return executor.buttons(game)

    # --- status -----------------------------------------------------------------------------------------
    def status_text(self) -> tuple[str, str]:
        """(text, tone) for the Coach panel; tone is "good", "dim" or "bad"."""
        client = self.scene.app.worker_if_started()
        if client is None:
            return ("AI off", "dim") if not (self.wants_suggestions or self.pc_on) else ("AI starting…", "dim")
        status = client.status
        if status.state == "restarting":
            return "The AI stopped unexpectedly; restarting it…", "bad"
        if self.failure:
            return f"The AI hit a problem with this position; the game goes on (details in {log_path()})", "bad"
        if status.state == "starting":
            return "AI starting…", "dim"
        waiting = self.wants_suggestions and position_key(self.scene.game) is not None and not self.show_hint
        return ("AI thinking…", "dim") if waiting else ("AI ready", "good")
