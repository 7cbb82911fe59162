"""The play scene: runs one `game.engine.Game` for a mode, turns its events into effects and sounds, and
hands the finished run to the results screen. Drawing lives in `ui.playfield` (it only reads this scene).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pygame

from game.board import Board
from game.engine import Game
from game.events import Event, Held, Locked, Moved, Rotated, ToppedOut, Undone
from game.handling import Button
from game.replay import Replay
from ui.coach import Coach
from ui.input import pretty_key
from ui.modes import Mode, describe_rules, game_config, rules_summary
from ui.play_state import COUNTDOWN_TICKS, END_DELAY_TICKS, POPUP_TICKS, PcAttempt, Popup, StartPosition
from ui.playfield import draw_play
from ui.scene import Scene
from ui.store import GameRecord, StoreUnavailable

if TYPE_CHECKING:
    from ui.services import Services

_EMPTY_COLOURS = (0,) * 400
# What a Zen restart keeps, so Ctrl+Z can bring the cleared board back.
_RUN_STATE = ("game", "seed", "config", "problems", "rules_key", "end_reason", "end_clock", "assists", "previews")


class PlayScene(Scene):
    name = "play"

    def __init__(self, app: Services, mode: Mode, start: StartPosition | None = None, seed: int | None = None) -> None:
        super().__init__(app)
        self.mode = mode
        self.start = start
        self.fixed_seed = seed
        self.problems: list[str] = []
        self.coach = Coach(self)
        self.pc_attempts: list[PcAttempt] = []  # PC practice: this run's attempts not saved yet
        self.cleared: dict | None = None  # Zen: the run before the last restart (Ctrl+Z brings it back)
        self.new_game(seed)

    # --- game lifecycle -----------------------------------------------------------------------------------
    def new_game(self, seed: int | None = None) -> None:
        self.save_attempts()  # a restart ends the PC attempt in progress
        settings = self.app.settings
        self.config, self.problems = game_config(settings, self.mode)
        self.seed = seed if seed is not None else self.app.new_seed()
        start = self.start or StartPosition()
        # An explicit colour table so locked pieces keep their colours (Board() keeps none).
        board = start.board if start.board is not None else Board(0, _EMPTY_COLOURS)
        self.game = Game(
            self.config,
            self.seed,
            board=board,
            queue=list(start.queue),
            hold=start.hold,
            randomizer_state=start.randomizer_state,
        )
        self.rules_key = rules_summary(settings, self.mode)  # personal bests are kept per this text
        self.bag_aligned = self.config.randomizer == "7bag" and not start.queue and start.randomizer_state in (None, ())
        self.popups: list[Popup] = []
        self.flash: tuple[tuple[int, ...], int] | None = None
        self.clock = 0  # scene ticks, for effects
        self.countdown = COUNTDOWN_TICKS if self.mode.goal_lines else 0
        self.end_reason: str | None = None  # "finished" or "topout"
        self.end_clock = 0
        self.saved = False
        self.assists: set[str] = set()  # keys of ASSIST_NAMES used in this run: it can be no personal best
        self.app.input.clear()
        self.previews = self.game.preview()
        self.coach.reset()
        self.pc_window_start = 0  # game tick when the current PC attempt began

    def restart(self, *, same_queue: bool = False) -> None:
        """Again from the start. PC practice deals a new queue (`same_queue`: the same one again); Zen keeps
        the cleared run so Ctrl+Z brings it back; other modes deal a new queue (a fixed seed stays fixed). Set-up
        practice is like PC practice: a new bag, or the same one again."""
        if self.mode.key in ("pc", "setup"):
            if same_queue:
                self.new_game(self.seed)
            else:
                seed = self.app.new_seed()
                if self.start is not None:
                    self.start = self.start.with_seed(seed)
                self.fixed_seed = seed
                self.new_game(seed)
            text = "SAME QUEUE AGAIN" if same_queue else "NEW QUEUE"
            self.popups.append(Popup(text, (235, 235, 245), self.clock))
            return
        cleared = None
        if self.mode.key == "zen" and self.game.stats.pieces:
            cleared = {name: getattr(self, name) for name in _RUN_STATE}
        self.new_game(self.fixed_seed)
        if cleared is not None:
            self.cleared = cleared
            undo = self.app.keymap.keys_for("undo")
            key = pretty_key(undo[0]).upper() if undo else "UNDO"
            self.popups += [
                Popup("BOARD CLEARED", (235, 235, 245), self.clock),
                Popup(f"{key}: BRING IT BACK", (235, 235, 245), self.clock),
            ]

    def bring_back_cleared(self) -> bool:
        """Zen: undo a restart (the board and run as they were). False if there is nothing to bring back."""
        if self.cleared is None:
            return False
        for name, value in self.cleared.items():
            setattr(self, name, value)
        self.cleared = None
        self.assists.add("undo")
        self.app.input.clear()  # a Ctrl+Z still held must not go on to take back a placement of this run
        self.coach.reset()
        self.popups = [Popup("BOARD BACK", (140, 230, 160), self.clock)]
        self.flash = None
        return True

    @property
    def rules_text(self) -> str:
        """The rules line under the title, as players read it (kept short: pieces spawn above the field beside
        it; PC practice's restart keys are in the footer)."""
        return describe_rules(self.rules_key)

    @property
    def footer_text(self) -> str:
        """The keys line under the field."""

        def key(button: str) -> str:
            keys = self.app.keymap.keys_for(button)
            return pretty_key(keys[0]) if keys else "(unbound)"

        restart = key("restart")
        if self.mode.key in ("pc", "setup"):
            text = f"{key('pause')} pause   {restart} new queue   Shift+{restart} same queue"
        else:
            text = f"{key('pause')} pause   {restart} restart"
        if self.mode.allow_undo:
            text += f"   {key('undo')} undo   {key('redo')} redo"
        return text

    # --- derived numbers ----------------------------------------------------------------------------------
    @property
    def finesse_total(self) -> int:
        return self.game.stats.finesse_faults  # counted by the engine at each lock; undo restores it

    def summary(self) -> dict[str, float]:
        g = self.game
        s = g.stats
        seconds = max(g.seconds, 1e-9)
        return {
            "seconds": g.seconds,
            "pieces": s.pieces,
            "lines": s.lines,
            "score": s.score,
            "attack": s.attack,
            "pps": s.pieces / seconds if g.seconds else 0.0,
            "apm": s.attack * 60 / seconds if g.seconds else 0.0,
            "kpp": s.keys / s.pieces if s.pieces else 0.0,
            "finesse": self.finesse_total,
            "level": g.level,
            "pcs": s.perfect_clears,
        }

    # --- events -------------------------------------------------------------------------------------------
    def on_enter(self) -> None:
        self.app.input.clear()  # keys held while a menu was open must not act on the game

    def on_exit(self) -> None:
        self.coach.suspend()

    def toggle_hint(self) -> None:
        ai = self.app.settings.ai
        self.app.update_settings(
            self.app.settings.model_copy(update={"ai": ai.model_copy(update={"hint_enabled": not ai.hint_enabled})})
        )

    def rewind_to_good(self) -> bool:
        """Undo back to the last position from which a PC was possible. False if there is none."""
        good = self.coach.good
        if good is None or not self.mode.allow_undo or self.game.stats.pieces <= good.pieces:
            return False
        while self.game.stats.pieces > good.pieces and self.game.undo():
            pass
        self.assists.add("undo")
        self.end_reason = None
        self.coach.lost_clock = None
        self.coach.replan()
        self.previews = self.game.preview()
        return True

    def handle(self, event: pygame.event.Event) -> None:
        pressed = self.app.input.handle(event)
        if pressed == "toggle_hint":
            self.toggle_hint()
        elif pressed == "toggle_autoplay":
            self.coach.set_autoplay(not self.coach.autoplay)
        elif event.type == pygame.KEYDOWN and event.key == pygame.K_BACKSPACE and self.coach.pc_lost:
            self.rewind_to_good()
        elif pressed == "pause":
            self.app.scenes.push(self.app.screens.pause(self))
        elif pressed == "restart":
            self.restart(same_queue=bool(getattr(event, "mod", 0) & pygame.KMOD_SHIFT))
        elif (
            event.type == pygame.KEYDOWN
            and self.end_reason == "topout"
            and self.mode.allow_undo
            and event.key in (pygame.K_RETURN, pygame.K_KP_ENTER)
        ):
            self.finish()

    def update(self) -> None:  # noqa: C901 - one tick in the order the rules apply: countdown, end, undo, coach, game tick, its events
        self.clock += 1
        buttons = self.app.input.tick_buttons()
        if self.countdown > 0:
            self.countdown -= 1
            if self.countdown in (COUNTDOWN_TICKS - 1, COUNTDOWN_TICKS // 2):
                self.app.sounds.play("ready")
            self.game.precharge(buttons & (Button.LEFT | Button.RIGHT))  # DAS charges during READY/GO
            return
        if self.end_reason == "finished" or (self.end_reason == "topout" and not self.mode.allow_undo):
            self.end_clock += 1
            if self.end_clock >= END_DELAY_TICKS:
                self.finish()
            return
        if not self.mode.allow_undo:
            buttons &= ~(Button.UNDO | Button.REDO)
        if (
            buttons & Button.UNDO
            and self.cleared is not None
            and self.game.stats.pieces == 0
            and self.bring_back_cleared()
        ):
            return  # nothing to undo in the new run: the undo brings back the board the restart cleared
        coach = self.coach
        coach.poll()
        if coach.autoplay:
            if buttons:
                coach.set_autoplay(False)  # the player takes over; the key acts normally
            elif self.game.over:
                coach.set_autoplay(False)
            else:
                buttons = coach.autoplay_buttons()
        # Anything the AI or undo did for the player makes this an assisted run (never a personal best).
        if coach.autoplay:
            self.assists.add("autoplay")
        if self.app.settings.ai.hint_enabled:
            self.assists.add("hint")
        if coach.pc_on and self.mode.key != "pc":  # PC practice is assisted by design and keeps no best
            self.assists.add("pc")
        board_before = self.game.board
        level = self.game.level
        self._hard_drop = bool(buttons & Button.HARD_DROP)  # picks the lock sound
        events = self.game.tick(buttons)
        for event in events:
            self._on_event(event, board_before)
        coach.after_tick(events)
        coach.poll()  # ask about the new piece in this same tick
        # The queue is read here, not in draw: dealing pieces advances the randomizer (drawing changes nothing).
        self.previews = self.game.preview()
        if self.mode.shows_level and self.game.level > level:
            self.popups.append(Popup(f"LEVEL {self.game.level}", (140, 230, 160), self.clock))
        goal = self.mode.goal_lines
        if goal and self.game.stats.lines >= goal and self.end_reason is None:
            self.end_reason = "finished"
            self.app.sounds.play("pc")

    def _on_event(self, event: Event, board_before: Board) -> None:
        sounds = self.app.sounds
        if isinstance(event, Moved):
            if event.dx:
                sounds.play("move")
        elif isinstance(event, Rotated):
            sounds.play("rotate")
        elif isinstance(event, Held):
            sounds.play("hold")
        elif isinstance(event, Locked):
            self._on_lock(event, board_before)
        elif isinstance(event, ToppedOut):
            self.end_reason = "topout"
            self.end_clock = 0
            sounds.play("topout")
        elif isinstance(event, Undone):
            self.assists.add("undo")
            self.end_reason = None
            self.popups.clear()
            self.flash = None

    def _on_lock(self, event: Locked, board_before: Board) -> None:
        result = event.result
        self._forget_undone_attempts(self.game.stats.pieces)  # this lock replaces any undone from here on
        label = result.label()
        if label or result.combo >= 1 or result.perfect_clear:
            self.popups = [p for p in self.popups if p.big]  # the newest clear replaces the last one
        if label:
            self.popups.append(Popup(label, (255, 214, 110) if result.b2b_bonus else (235, 235, 245), self.clock))
        if result.combo >= 1:
            self.popups.append(Popup(f"COMBO {result.combo}", (120, 200, 255), self.clock))
        if result.perfect_clear:
            self.popups.append(Popup("PERFECT CLEAR", (255, 120, 220), self.clock, big=True))
            if self.start is not None and self.start.setup:
                self.pc_attempts.append(
                    PcAttempt(
                        True,
                        (self.game.ticks - self.pc_window_start) / 60,
                        self.game.stats.pieces,
                        self.pc_window_start,
                    )
                )
                self.pc_window_start = self.game.ticks
        faults = event.finesse_faults
        if faults and self.app.settings.display.show_finesse:
            self.popups = [p for p in self.popups if not p.text.startswith("FINESSE")]
            self.popups.append(Popup(f"FINESSE +{faults}", (240, 110, 110), self.clock))
        self.popups = [p for p in self.popups if self.clock - p.born < POPUP_TICKS][-4:]
        if result.cleared_rows:
            self.flash = (tuple(result.cleared_rows), self.clock)
        sounds = self.app.sounds
        if result.perfect_clear:
            sounds.play("pc")
        elif result.lines and result.spin:
            sounds.play("spin")
        elif result.lines == 4:
            sounds.play("quad")
        elif result.lines:
            sounds.play("clear")
        else:
            sounds.play("harddrop" if getattr(self, "_hard_drop", False) else "lock")

    # --- the end of a run ---------------------------------------------------------------------------------
    @property
    def ending(self) -> str:
        """How the run ended: "finished" (goal reached), "topout", or "ended" (by the player)."""
        return self.end_reason if self.end_reason in ("finished", "topout") else "ended"

    @property
    def assisted(self) -> bool:
        return bool(self.assists)

    def record(self) -> GameRecord:
        s = self.summary()
        return GameRecord(
            mode=self.mode.key,
            rules=self.rules_key,
            finished=self.ending == "finished",
            seconds=round(s["seconds"], 3),
            pieces=int(s["pieces"]),
            lines=int(s["lines"]),
            score=int(s["score"]),
            pps=round(s["pps"], 3),
            apm=round(s["apm"], 2),
            kpp=round(s["kpp"], 3),
            finesse=int(s["finesse"]),
            assisted=self.assisted,
            ending=self.ending,
        )

    def save_attempts(self) -> None:
        """Store this run's PC-practice attempts (the one in progress counts as failed); used on restart and on
        leaving the game without finishing it."""
        if not getattr(self, "saved", True):
            self._record_open_attempt()
        self._save_attempts()

    def _save_attempts(self) -> None:
        game = getattr(self, "game", None)
        if game is not None:
            self._forget_undone_attempts(game.stats.pieces + 1)
        if self.pc_attempts:
            self.app.save_pc_attempts(
                self.start.setup if self.start else "",
                self.rules_key,
                [(attempt.success, attempt.seconds) for attempt in self.pc_attempts],
            )
            self.pc_attempts = []

    def _forget_undone_attempts(self, piece: int) -> None:
        """Drop the attempts that ended at the piece-th placement or later: undo took them back (a PC undone and
        played again counts once). The attempt they ended is open again from where it began."""
        undone = [attempt for attempt in self.pc_attempts if attempt.piece >= piece]
        if undone:
            self.pc_attempts = [attempt for attempt in self.pc_attempts if attempt.piece < piece]
            self.pc_window_start = undone[0].began

    def _record_open_attempt(self) -> None:
        """A PC attempt that had pieces placed but no PC yet counts as a failed attempt. After a PC the game
        deals the next attempt by itself: stopping during that one counts only if it was already lost (the
        coach said the PC had become impossible, or the stack topped out)."""
        game = getattr(self, "game", None)
        if game is None or self.start is None or not self.start.setup or not hasattr(self, "pc_window_start"):
            return
        self._forget_undone_attempts(game.stats.pieces + 1)
        continuation = game.stats.perfect_clears > 0
        if continuation and not (self.coach.pc_lost or game.over):
            return
        if game.stats.pieces and game.board.bits and game.ticks > self.pc_window_start:
            self.pc_attempts.append(
                PcAttempt(False, (game.ticks - self.pc_window_start) / 60, game.stats.pieces, self.pc_window_start)
            )

    def save_replay(self, game_id: int | None) -> str | None:
        """Keep the run as a replay beside the history (replays/<id>.json); the problem if it cannot be."""
        store = self.app.store
        if store is None or game_id is None:
            return None
        try:
            store.save_replay(game_id, Replay.from_game(self.game).to_json())
        except StoreUnavailable as error:
            return str(error)
        return None

    def finish(self) -> None:
        """Save the run (once) and show the results."""
        outcome, problem = (None, None)
        if not self.saved and self.game.stats.pieces > 0:
            outcome, problem = self.app.save_record(self.record())
            if outcome is not None:
                problem = self.save_replay(outcome.record.id) or problem
            self._record_open_attempt()
            self._save_attempts()
            self.saved = True
        self.app.scenes.replace(self.app.screens.results(self, outcome, problem))

    def draw(self, surface: pygame.Surface) -> None:
        draw_play(surface, self)
