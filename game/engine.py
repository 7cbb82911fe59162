"""The timed game: `Game(config, seed)` advanced one 60 Hz tick at a time from the buttons held in that tick.

Determinism is the contract: the same config, seed, start position and per-tick buttons always give the same
game, so replays are just those inputs. The game never reads a clock or the global random generator.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from game.board import Board
from game.config import GRAVITY_UNIT, GameConfig, GravityMode, LockMode
from game.events import Event, Held, Locked, Moved, Rotated, Spawned, ToppedOut, Undone
from game.finesse import finesse_faults, minimal_keys
from game.handling import Button, HorizontalTimer
from game.movement import Spin, detect_spin, drop_y, fits, kick_offset, try_rotate
from game.pieces import Piece, Rotation
from game.placement import Placement
from game.randomizer import Randomizer, State, make_randomizer
from game.scoring import LockResult, lock_piece

_ACTION_BUTTONS = (
    Button.LEFT
    | Button.RIGHT
    | Button.SOFT_DROP
    | Button.HARD_DROP
    | Button.ROTATE_CW
    | Button.ROTATE_CCW
    | Button.ROTATE_180
)


@dataclass(frozen=True, slots=True)
class ActivePiece:
    piece: Piece
    rotation: Rotation
    x: int
    y: int

    def at_rest(self) -> Placement:
        """Where it would lie if it locked here (spin not counted)."""
        return Placement(piece=self.piece, rotation=self.rotation, x=self.x, y=self.y)


@dataclass
class Stats:
    pieces: int = 0
    lines: int = 0
    score: int = 0
    attack: int = 0
    keys: int = 0
    finesse_faults: int = 0
    tspins: int = 0
    perfect_clears: int = 0
    quads: int = 0
    b2b_clears: int = 0
    line_clears: int = 0
    max_combo: int = -1


@dataclass(frozen=True)
class Snapshot:
    """Everything a placement changes; restored by undo/redo."""

    board: Board
    active: ActivePiece | None
    hold: Piece | None
    hold_used: bool
    stream_pos: int
    b2b: int
    combo: int
    level: int
    stats: Stats
    over: bool
    top_out_reason: str | None


@dataclass
class _PieceTiming:
    """Per-piece counters: gravity, lock delay, resets, keys pressed."""

    fall: int = 0
    lock_timer: int = 0
    resets: int = 0
    lowest_y: int = 1 << 30
    keys: int = 0
    last_kick: tuple[int, int] | None = None
    history: list[int] = field(default_factory=list)


class Game:
    """One game. Read its state from attributes; change it only through `tick`, `undo` and `redo`."""

    def __init__(
        self,
        config: GameConfig | None = None,
        seed: int = 0,
        *,
        board: Board | None = None,
        queue: list[Piece] | None = None,
        hold: Piece | None = None,
        randomizer_state: State | None = None,
    ) -> None:
        """Start a game; with `board`/`queue`/`hold` it starts from that position (queue[0] is the first piece
        to play, then the randomizer continues; `randomizer_state` says where it stands, e.g. the bag left)."""
        self.config = config or GameConfig()
        self.seed = seed
        self.rules = self.config.rules
        self.randomizer: Randomizer = make_randomizer(self.config.randomizer, seed)
        if randomizer_state is not None:
            self.randomizer.state = randomizer_state
        if board is None:
            board = Board.empty()
        elif board.colours is None:
            board = Board.from_rows(board.to_rows()) if board.bits else Board.empty()  # grey cells, kept colours
        self.start_board = board
        self.start_queue: tuple[Piece, ...] = tuple(queue or ())
        self.start_hold = hold
        self.start_randomizer_state = randomizer_state
        # The piece stream grows on demand; _stream_states[i] is the randomizer state before stream[i] was drawn
        # (None for pieces that were given rather than drawn).
        self._stream: list[Piece] = list(self.start_queue)
        self._stream_states: list[State | None] = [None] * len(self._stream)
        self.board = self.start_board
        self.hold: Piece | None = hold
        self.hold_used = False
        self.active: ActivePiece | None = None
        self.stream_pos = 0
        self.b2b = -1
        self.combo = -1
        self.level = self.config.start_level
        self.stats = Stats()
        self.ticks = 0
        self.over = False
        self.top_out_reason: str | None = None
        self.inputs: list[int] = []  # buttons of every tick, for replays
        self.precharge_inputs: list[int] = []  # buttons held before the start (countdown), for replays
        self._previous_buttons = Button.NONE
        self._timer = HorizontalTimer(self.config.handling)
        self._timing = _PieceTiming()
        self._delay = 0
        self._history: list[Snapshot] = []
        self._redo: list[Snapshot] = []
        self.initial_events: list[Event] = []
        self._spawn(self._next_piece(), self.initial_events)

    @classmethod
    def from_position(
        cls,
        config: GameConfig,
        board: Board,
        queue: list[Piece],
        hold: Piece | None = None,
        *,
        seed: int = 0,
        randomizer_state: State | None = None,
    ) -> Game:
        """A game that starts from this field, with queue[0] in play, then the rest of the queue."""
        return cls(config, seed, board=board, queue=queue, hold=hold, randomizer_state=randomizer_state)

    # --- the piece stream ---------------------------------------------------------------------------------
    def _piece_at(self, index: int) -> Piece:
        while len(self._stream) <= index:
            self._stream_states.append(self.randomizer.state)
            self._stream.append(self.randomizer.draw())
        return self._stream[index]

    def _next_piece(self) -> Piece:
        piece = self._piece_at(self.stream_pos)
        self.stream_pos += 1
        return piece

    def preview(self, count: int | None = None) -> list[Piece]:
        """The next pieces, as many as the config shows (or `count`). Reading the configured number never
        changes the game (they are dealt at spawn); a longer look deals more pieces from the randomizer."""
        count = self.config.previews if count is None else count
        return [self._piece_at(self.stream_pos + i) for i in range(count)]

    def future_state(self, count: int | None = None) -> State:
        """The randomizer's state after the last shown preview: what it can still deal (bag knowledge)."""
        count = self.config.previews if count is None else count
        self._piece_at(self.stream_pos + count)
        state = self._stream_states[self.stream_pos + count]
        return self.randomizer.initial_state() if state is None else state

    # --- snapshots for undo/redo --------------------------------------------------------------------------
    def _snapshot(self) -> Snapshot:
        return Snapshot(
            self.board,
            self.active,
            self.hold,
            self.hold_used,
            self.stream_pos,
            self.b2b,
            self.combo,
            self.level,
            replace(self.stats),
            self.over,
            self.top_out_reason,
        )

    def _restore(self, snap: Snapshot) -> None:
        self.board, self.active, self.hold, self.hold_used = snap.board, snap.active, snap.hold, snap.hold_used
        self.stream_pos, self.b2b, self.combo, self.level = snap.stream_pos, snap.b2b, snap.combo, snap.level
        self.stats, self.over, self.top_out_reason = replace(snap.stats), snap.over, snap.top_out_reason
        self._timing = _PieceTiming()
        self._delay = 0
        if self.active is not None:
            self._timing.lowest_y = self.active.y

    def undo(self) -> bool:
        """Take back the last placement (back to the moment its piece spawned). False if there is none."""
        if len(self._history) < 2:
            return False
        self._redo.append(self._history.pop())
        self._restore(self._history[-1])
        return True

    def redo(self) -> bool:
        """Play again a placement taken back by undo. False if there is none."""
        if not self._redo:
            return False
        snap = self._redo.pop()
        self._history.append(snap)
        self._restore(snap)
        return True

    # --- spawning, holding --------------------------------------------------------------------------------
    def _spawn(self, piece: Piece, events: list[Event], *, record: bool = True) -> None:
        rules = self.rules
        self._piece_at(self.stream_pos + self.config.previews)  # deal the previews now, so reading them is pure
        active = ActivePiece(piece, Rotation.NORTH, rules.spawn_x, rules.spawn_y)
        self._timing = _PieceTiming(lowest_y=active.y)
        if not fits(self.board.bits, piece, active.rotation, active.x, active.y):
            self.active = None
            self._top_out("block out", events)
            return
        self.active = active
        self._timer.cut()
        events.append(Spawned(self.ticks, piece, active.rotation, active.x, active.y))
        if self.config.gravity_units(self.level) >= 20 * GRAVITY_UNIT:
            self._fall_to_floor(events)  # 20G: pieces appear on the stack
        if record:
            self._history.append(self._snapshot())

    def _hold(self, events: list[Event]) -> None:
        if not self.rules.hold or self.hold_used or self.active is None:
            return
        current = self.active.piece
        taken = self.hold
        self.hold = current
        self.hold_used = True
        piece = taken if taken is not None else self._next_piece()
        events.append(Held(self.ticks, current, taken))
        # Not recorded: undo goes back to before the hold. Keys pressed before it count for no placement.
        self._spawn(piece, events, record=False)

    def _top_out(self, reason: str, events: list[Event]) -> None:
        self.over = True
        self.top_out_reason = reason
        events.append(ToppedOut(self.ticks, reason))

    def precharge(self, buttons: Button | int) -> None:
        """A tick before the game starts (a countdown): held directions charge DAS, nothing moves or falls."""
        if self.ticks:
            raise RuntimeError("precharge is only for the time before the first tick")
        buttons = Button(buttons)
        pressed = buttons & ~self._previous_buttons
        self._previous_buttons = buttons
        self.precharge_inputs.append(int(buttons))
        self._timer.step(buttons, pressed)

    # --- one tick -----------------------------------------------------------------------------------------
    def tick(self, buttons: Button | int = Button.NONE) -> list[Event]:
        """Advance 1/60 s with `buttons` held. Returns what happened (events), in order."""
        buttons = Button(buttons)
        pressed = buttons & ~self._previous_buttons
        self._previous_buttons = buttons
        self.inputs.append(int(buttons))
        events: list[Event] = []
        if self.ticks == 0 and self.initial_events:
            events.extend(self.initial_events)
            self.initial_events = []
        self.ticks += 1
        if pressed & Button.UNDO:
            if self.undo():
                events.append(Undone(self.ticks, False))
            return events
        if pressed & Button.REDO:
            if self.redo():
                events.append(Undone(self.ticks, True))
            return events
        if self.over:
            return events
        if self._delay > 0 or self.active is None:
            self._timer.step(buttons, pressed)  # DAS keeps charging during ARE and line-clear delay
            self._delay -= 1
            if self._delay <= 0 and self.active is None:
                self._spawn(self._next_piece(), events)
            return events
        self._timing.keys += int(pressed & _ACTION_BUTTONS).bit_count()
        if pressed & Button.HOLD:
            self._hold(events)
            if self.over or self.active is None:
                return events
        for button, turns in ((Button.ROTATE_CW, 1), (Button.ROTATE_CCW, -1), (Button.ROTATE_180, 2)):
            if pressed & button:
                self._rotate(turns, events)
        steps = self._timer.step(buttons, pressed)
        if steps:
            self._shift(steps, events)
        if pressed & Button.HARD_DROP:
            self._hard_drop(events)
            return events
        self._gravity(bool(buttons & Button.SOFT_DROP), events)
        self._lock_delay(events)
        return events

    # --- movement -----------------------------------------------------------------------------------------
    def _moved(self, grounded_before: bool) -> None:
        """Lock-delay bookkeeping after a successful shift or rotation."""
        timing = self._timing
        mode = self.config.lock_mode
        if mode is LockMode.INFINITE:
            timing.lock_timer = 0
        elif mode is LockMode.MOVE_RESET and grounded_before:
            if timing.resets < self.config.move_reset_limit:
                timing.lock_timer = 0
            timing.resets += 1

    def _rotate(self, turns: int, events: list[Event]) -> None:
        active = self.active
        assert active is not None
        bits = self.board.bits
        grounded = not fits(bits, active.piece, active.rotation, active.x, active.y - 1)
        turned = try_rotate(bits, self.rules, active.piece, active.rotation, active.x, active.y, turns)
        if turned is None:
            return
        end, x, y, index = turned
        self._timing.last_kick = kick_offset(self.rules, active.piece, active.rotation, end, index)
        self.active = ActivePiece(active.piece, end, x, y)
        self._timer.cut()
        events.append(Rotated(self.ticks, active.rotation, end, index, x - active.x, y - active.y))
        self._moved(grounded)
        self._note_height()

    def _shift(self, steps: int, events: list[Event]) -> None:
        active = self.active
        assert active is not None
        bits = self.board.bits
        direction = 1 if steps > 0 else -1
        grounded = not fits(bits, active.piece, active.rotation, active.x, active.y - 1)
        x = active.x
        for _ in range(abs(steps)):
            if not fits(bits, active.piece, active.rotation, x + direction, active.y):
                break
            x += direction
        if x != active.x:
            self.active = ActivePiece(active.piece, active.rotation, x, active.y)
            self._timing.last_kick = None
            events.append(Moved(self.ticks, x - active.x, 0))
            self._moved(grounded)

    def _note_height(self) -> None:
        """A new lowest row gives the piece a fresh lock timer and reset allowance (guideline)."""
        assert self.active is not None
        if self.active.y < self._timing.lowest_y:
            self._timing.lowest_y = self.active.y
            self._timing.lock_timer = 0
            self._timing.resets = 0

    def _gravity(self, soft: bool, events: list[Event]) -> None:
        active = self.active
        assert active is not None
        units = self.config.gravity_units(self.level)
        handling = self.config.handling
        if soft:
            if handling.sdf is None:
                units = 41 * GRAVITY_UNIT
            else:
                units = max(units, round(max(units, GRAVITY_UNIT / 60) * handling.sdf))
        self._timing.fall += units
        cells = self._timing.fall // GRAVITY_UNIT
        if cells <= 0:
            return
        self._timing.fall -= cells * GRAVITY_UNIT
        landing = drop_y(self.board.bits, active.piece, active.rotation, active.x, active.y)
        new_y = max(landing, active.y - cells)
        if new_y == landing:
            self._timing.fall = 0
        if new_y != active.y:
            self.active = ActivePiece(active.piece, active.rotation, active.x, new_y)
            self._timing.last_kick = None
            if soft:
                self.stats.score += active.y - new_y
            events.append(Moved(self.ticks, 0, new_y - active.y))
            self._note_height()

    def _fall_to_floor(self, events: list[Event]) -> None:
        active = self.active
        assert active is not None
        landing = drop_y(self.board.bits, active.piece, active.rotation, active.x, active.y)
        if landing != active.y:
            self.active = ActivePiece(active.piece, active.rotation, active.x, landing)
            events.append(Moved(self.ticks, 0, landing - active.y))
            self._note_height()

    def _hard_drop(self, events: list[Event]) -> None:
        active = self.active
        assert active is not None
        landing = drop_y(self.board.bits, active.piece, active.rotation, active.x, active.y)
        if landing != active.y:
            self.stats.score += 2 * (active.y - landing)
            self._timing.last_kick = None
            self.active = ActivePiece(active.piece, active.rotation, active.x, landing)
            events.append(Moved(self.ticks, 0, landing - active.y))
        self._lock(events)

    def _lock_delay(self, events: list[Event]) -> None:
        active = self.active
        assert active is not None
        if fits(self.board.bits, active.piece, active.rotation, active.x, active.y - 1):
            return
        timing = self._timing
        timing.lock_timer += 1
        # Past the reset limit a grounded piece locks at once (guideline move reset).
        out_of_resets = self.config.lock_mode is LockMode.MOVE_RESET and timing.resets > self.config.move_reset_limit
        if timing.lock_timer >= self.config.lock_delay or out_of_resets:
            self._lock(events)

    # --- locking ------------------------------------------------------------------------------------------
    def _lock(self, events: list[Event]) -> None:
        active = self.active
        assert active is not None
        board_before = self.board
        at_rest = active.at_rest()
        spin = detect_spin(board_before, self.rules, at_rest, self._timing.last_kick)
        placement = Placement(piece=active.piece, rotation=active.rotation, x=active.x, y=active.y, spin=spin)
        self.board, result = lock_piece(board_before, placement, self.b2b, self.combo, self.level)
        faults = 0
        if self.config.track_finesse:
            minimal = minimal_keys(board_before, at_rest, self.rules)
            faults = finesse_faults(self._timing.keys, minimal)
        self._record_stats(result, faults)
        self.b2b, self.combo = result.b2b, result.combo
        self.active = None
        self.hold_used = False
        self._redo.clear()
        events.append(
            Locked(tick=self.ticks, placement=placement, result=result, keys=self._timing.keys, finesse_faults=faults)
        )
        if result.lock_out:
            self._top_out("lock out", events)
            return
        if self.config.gravity_mode is GravityMode.LEVEL:
            self.level = self.config.start_level + self.stats.lines // self.config.level_lines
        self._delay = self.config.are + (self.config.line_clear_delay if result.lines else 0)
        if self._delay <= 0:
            self._spawn(self._next_piece(), events)

    def _record_stats(self, result: LockResult, faults: int) -> None:
        stats = self.stats
        stats.pieces += 1
        stats.lines += result.lines
        stats.score += result.score
        stats.attack += result.attack
        stats.keys += self._timing.keys
        stats.finesse_faults += faults
        stats.max_combo = max(stats.max_combo, result.combo)
        if result.lines:
            stats.line_clears += 1
            stats.b2b_clears += result.b2b_bonus
        if result.piece is Piece.T and result.spin is not Spin.NONE and result.lines:
            stats.tspins += 1
        stats.perfect_clears += result.perfect_clear
        stats.quads += result.lines == 4

    # --- views for clients --------------------------------------------------------------------------------
    def ghost_y(self) -> int | None:
        """Where the active piece would land."""
        if self.active is None:
            return None
        a = self.active
        return drop_y(self.board.bits, a.piece, a.rotation, a.x, a.y)

    @property
    def held_buttons(self) -> Button:
        """The buttons held in the last tick (a new press needs them released first)."""
        return self._previous_buttons

    @property
    def seconds(self) -> float:
        return self.ticks / 60
