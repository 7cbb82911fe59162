"""The window and the AI worker together: frame times, hint and PC-overlay latency, and recovery from worker
crashes. Dummy video driver, a 1280x720 window, the real worker process (spawn). Prints numbers only.

    python bench/worker.py            # all nine parts
    python bench/worker.py --quick    # shorter runs, same measurements
    python bench/worker.py --parts 24 # only parts 2 and 4

1. frame time (update + draw + flip) over 7200 ticks of autoplay at max pace, as fast as the loop goes
   (the worker computes on the other core): median / p95 / p99 — target p99 <= 16.7 ms
2. hint latency at real 60 Hz pacing: wall time from the tick a piece spawns to the end of the first frame that
   draws its ghost hint — target p95 <= 50 ms
3. PC overlay latency on 4-line PC practice (setups from the library, the player follows the solver): wall time
   from the tick a piece locks to the end of the first frame that shows the new position's PC answer —
   target p95 <= 200 ms
4. worker crashes: kill the worker 50 times during play; time until hints come back (target <= 2 s each), and
   the game must keep ticking meanwhile
5. the live PC chance in PC practice from an empty field, following the panel with a think time per piece
   (--think-ms, 500): lock -> final answer with the chance on screen, with the worker thinking ahead and
   without (the issue's target: within 200 ms)
6. the same at the first PC's second position when the player plays a first piece of their own (a spot a hard
   drop reaches, not the advice): --think-ms after the answer, the keys one per tick, then the piece rests
   --rest-ms on its spot before the hard drop; lock -> final chance on screen, with thinking ahead (the worker
   hears where the ghost rests, ai.protocol.PcAim) for each rest, and without it
7. the same when the player first holds the first piece (hold pressed on its own, then --think-ms after the new
   answer) and plays the second piece to a spot of their own: the next bag's first piece is shown by then
8. the player plays the first piece to a spot of their own (dropped at once) and presses hold on its own at the
   second piece, --rest-ms after the lock: hold press -> final chance on screen (hold spent, the next bag's first
   piece shown), with thinking ahead and without
9. later PCs too: games through their PCs, the player following the panel half the time and otherwise playing a
   spot of their own (as bench/pc.py's wander group), resting --rest-ms on each spot: lock -> final chance on
   screen, with thinking ahead and without; --wander-games and --wander-pieces play more and longer games (60
   pieces make at most 6 PCs, 180 up to 18; a game ends sooner when its PC is lost)

--rules plays every part under other rules: srs-180 (the game's default), srs (without 180), srsplus-180 (SRS+),
srsplus (SRS+ without 180), none-180 (no kicks) or nrs-180 (NRS), the rule sets that have PC tables, some only a few
(ai.pc.opening.RULES).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

# The repository first, and not bench/ itself (bench/ai.py would shadow the ai package, here and in the worker).
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

# The worker process (spawn) re-imports this file as __mp_main__: the heavy imports happen only in the bench
# process, or every worker restart would pay for pygame and the UI too.
if __name__ == "__main__":
    import pygame

    from ai.pc.opening import RULES
    from ai.protocol import Suggestion
    from game.events import Locked, Spawned
    from game.executor import KeyExecutor
    from game.finesse import Key
    from game.handling import Button
    from ui import testing
    from ui.coach import position_key
    from ui.modes import PC_PRACTICE, ZEN, rules_of
    from ui.pc_setups import load_setups, setup_start
    from ui.play import PlayScene

FRAME_S = 1 / 60


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


def summary(name: str, values_ms: list[float], target: str = "") -> None:
    if not values_ms:
        print(f"{name}: no samples")
        return
    print(
        f"{name}: n={len(values_ms)} median={statistics.median(values_ms):.2f} ms "
        f"p95={pct(values_ms, 95):.2f} ms p99={pct(values_ms, 99):.2f} ms max={max(values_ms):.2f} ms {target}"
    )


def _update_settings(app, group: str, options: dict) -> None:
    s = app.settings
    app.settings = s.model_copy(update={group: getattr(s, group).model_copy(update=options)})


def set_ai(app, **options) -> None:
    _update_settings(app, "ai", options)


def set_rules(app, name: str) -> None:
    """The game's rules set to `name`, one of the rule sets with PC tables (ai.pc.opening.RULES): their rotation
    system and 180 switch, checked by reading the settings back as the game does."""
    wanted = RULES[name]
    for rotation in ("srs", "srs+", "none", "nrs"):  # the settings' rotation systems (settings.model.RulesSettings)
        _update_settings(app, "rules", {"rotation": rotation, "allow_180": wanted.allow_180})
        if rules_of(app.settings)[0].cache_key() == wanted.cache_key():
            return
    raise SystemExit(f"--rules {name}: the game's settings do not make these rules")


class Watcher:
    """Wraps the scene's game.tick to time-stamp the events of each tick (wall clock)."""

    def __init__(self, scene) -> None:
        self.scene = scene
        self.spawned: list[tuple[tuple | None, float]] = []
        self.locked: list[float] = []
        self._hook(scene.game)

    def _hook(self, game) -> None:
        tick = game.tick

        def timed(buttons=Button.NONE):
            events = tick(buttons)
            now = time.perf_counter()
            for event in events:
                if isinstance(event, Spawned):
                    self.spawned.append((position_key(game), now))
                elif isinstance(event, Locked):
                    self.locked.append(now)
            return events

        game.tick = timed


def frame(app, screen) -> float:
    """One frame: tick, draw, flip. Returns the time it ended."""
    app.tick()
    app.draw(screen)
    pygame.display.flip()
    return time.perf_counter()


def live_frames(app, screen, count: int):
    """Up to `count` frames at real 60 Hz: yields the time each frame ended; the rest of the frame is slept when
    the caller asks for the next one."""
    for _ in range(count):
        frame_start = time.perf_counter()
        yield frame(app, screen)
        delay = FRAME_S - (time.perf_counter() - frame_start)
        if delay > 0:
            time.sleep(delay)


def final_chance_shown(coach) -> bool:
    """The panel shows the final answer for the position, with its chance."""
    shown = coach.pc_shown
    return shown is not None and shown.final and shown.chance is not None


class Player:
    """Presses a placement's keys one per tick in place of the keyboard (`with Player(app) as player:`)."""

    def __init__(self, app) -> None:
        self.app = app
        self.executor: KeyExecutor | None = None
        self._keyboard = app.input.tick_buttons

    def __enter__(self) -> Player:
        self.app.input.tick_buttons = self._buttons
        return self

    def __exit__(self, *exc) -> None:
        self.app.input.tick_buttons = self._keyboard

    def play(self, move) -> None:
        self.executor = KeyExecutor(move.keys, hold_first=move.hold)

    def _buttons(self) -> Button:
        self._keyboard()  # read (and ignored), as the window reads it
        executor = self.executor
        if executor is None:
            return Button.NONE
        out = executor.buttons(self.app.scenes.top.game)
        if executor.done:
            self.executor = None
        return out


def paced(app, screen, frames: int, on_frame) -> None:
    """Run `frames` frames at real 60 Hz: tick, draw, flip, then `on_frame(end_of_frame_time)`."""
    next_at = time.perf_counter()
    for _ in range(frames):
        on_frame(frame(app, screen))
        next_at += FRAME_S
        delay = next_at - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        else:
            next_at = time.perf_counter()


def wait_for_worker(app, screen, scene, limit_s: float = 30.0) -> None:
    """Let the worker process start (imports) before measuring."""
    deadline = time.perf_counter() + limit_s
    while time.perf_counter() < deadline and not scene.coach.show_hint:
        app.tick()
        app.draw(screen)
        time.sleep(0.005)


def part_frames(app, screen, ticks: int) -> None:
    set_ai(app, hint_enabled=True, autoplay_pps=0, show_key_sequence=True)
    scene = PlayScene(app, ZEN, seed=1)
    app.scenes.reset(scene)
    scene.coach.set_autoplay(True)
    wait_for_worker(app, screen, scene)
    times: list[float] = []
    start_pieces = scene.game.stats.pieces
    restarts = 0
    for _ in range(ticks):
        t0 = time.perf_counter()
        app.tick()
        app.draw(screen)
        pygame.display.flip()
        times.append((time.perf_counter() - t0) * 1000)
        if scene.game.over:
            restarts += 1
            scene.restart()
    pieces = scene.game.stats.pieces - start_pieces
    print(f"[1] {ticks} ticks of autoplay at max pace: {pieces} pieces in the last game, {restarts} top-outs")
    summary("[1] frame time (update+draw+flip)", times, "(target p99 <= 16.7 ms)")


def part_hint_latency(app, screen, seconds: float) -> None:
    set_ai(app, hint_enabled=True, autoplay_pps=3, show_key_sequence=False)
    scene = PlayScene(app, ZEN, seed=2)
    app.scenes.reset(scene)
    scene.coach.set_autoplay(True)
    wait_for_worker(app, screen, scene)
    watch = Watcher(scene)
    latencies: list[float] = []
    pending: dict[tuple, float] = {}

    def on_frame(now: float) -> None:
        while watch.spawned:
            key, at = watch.spawned.pop(0)
            if key is not None:
                pending[key] = at
        key = position_key(scene.game)
        if key in pending and scene.coach.show_hint:
            latencies.append((now - pending.pop(key)) * 1000)

    client = app.worker()
    worker_ms: list[float] = []  # the worker's own time for the first (streamed) answer, to split the latency
    poll = client.poll

    def timed_poll():
        answers = poll()
        worker_ms.extend(a.elapsed_ms for a in answers if isinstance(a, Suggestion) and not a.final)
        return answers

    client.poll = timed_poll
    try:
        paced(app, screen, int(seconds * 60), on_frame)
    finally:
        del client.poll
    summary("[2] hint latency, spawn -> ghost hint drawn (60 Hz)", latencies, "(target p95 <= 50 ms)")
    summary("[2] ... of which the worker's own time for the streamed answer", worker_ms)


def part_pc_latency(app, screen, samples: int) -> None:
    set_ai(app, hint_enabled=False, pc_hints_enabled=True)
    setups = load_setups()
    rng = random.Random(5)
    latencies: list[float] = []
    finals: list[float] = []
    runs = pcs = 0
    with Player(app) as player:
        while len(latencies) < samples:
            setup = rng.choice(setups)
            seed = rng.randrange(1 << 30)
            scene = PlayScene(app, PC_PRACTICE, setup_start(setup, seed, rng.random() < 0.5), seed)
            app.scenes.reset(scene)
            runs += 1
            watch = Watcher(scene)
            coach = scene.coach
            locked_at: float | None = None  # waiting for the first answer about the new position
            final_from: float | None = None  # waiting for the final one (with the chance)
            for _ in range(60 * 6):  # one setup: at most 6 s
                frame_start = time.perf_counter()
                now = frame(app, screen)
                if watch.locked:
                    locked_at = final_from = watch.locked.pop()
                    watch.locked.clear()
                shown = coach.pc_shown
                if locked_at is not None and shown is not None:
                    latencies.append((now - locked_at) * 1000)
                    locked_at = None
                if final_from is not None and shown is not None and shown.final:
                    finals.append((now - final_from) * 1000)
                    final_from = None
                if scene.game.stats.perfect_clears:
                    pcs += 1
                    break
                if player.executor is None and shown is not None and shown.solvable and shown.solution:
                    player.play(shown.solution[0])
                elif shown is not None and shown.final and not shown.solvable:
                    break  # no PC with these pieces: next setup
                delay = FRAME_S - (time.perf_counter() - frame_start)
                if delay > 0:
                    time.sleep(delay)
            player.executor = None
    print(f"[3] {runs} PC practice runs from library setups, {pcs} perfect clears by following the overlay")
    summary("[3] PC overlay latency, lock -> PC answer shown (60 Hz)", latencies, "(target p95 <= 200 ms)")
    summary("[3] ... until the final answer with the chance", finals)


def _follow_loop(app, screen, seed: int, think_s: float, pieces: int) -> tuple[list[float], int, int]:
    """One PC-practice game from an empty field, played as a player following the panel: after each piece spawns
    the player thinks `think_s`, then presses the keys of the panel's move (one per tick; when the panel has no
    move yet, they wait for it). Latency: wall time from a lock to the first frame that shows the new
    position's final answer (with the chance). Returns (latencies, pieces placed, PCs)."""
    scene = PlayScene(app, PC_PRACTICE, None, seed)
    app.scenes.reset(scene)
    watch = Watcher(scene)
    coach, game = scene.coach, scene.game
    latencies: list[float] = []
    locked_at: float | None = None
    spawned_at = time.perf_counter()
    started_pieces = None
    with Player(app) as player:
        for now in live_frames(app, screen, 60 * 120):  # two minutes at most
            if watch.locked:
                locked_at = spawned_at = watch.locked.pop()
                watch.locked.clear()
            final = final_chance_shown(coach)
            if started_pieces is None:
                if not final:
                    continue  # the worker process is starting: not counted
                started_pieces, spawned_at = game.stats.pieces, now
            if locked_at is not None and final:
                latencies.append((now - locked_at) * 1000)
                locked_at = None
            if game.stats.pieces - started_pieces >= pieces or coach.pc_lost or game.over:
                break
            move = coach.pc_panel().first_move
            if player.executor is None and locked_at is None and move is not None and now - spawned_at >= think_s:
                player.play(move)
    return latencies, game.stats.pieces - (started_pieces or 0), game.stats.perfect_clears


def part_live_chance(app, screen, games: int, think_ms: float, pieces: int) -> None:
    """5. PC practice from an empty field (the 7-bag loop), following the panel with `think_ms` per piece: lock
    -> final answer with the chance on screen, the worker thinking ahead or not (a fresh worker each)."""
    for ahead in (False, True):
        set_ai(app, hint_enabled=False, pc_hints_enabled=True, pc_think_ahead=ahead)
        latencies: list[float] = []
        placed = pcs = 0
        for seed in range(1, games + 1):
            app.close_worker()  # a fresh worker per game: nothing kept from the other setting or game
            got, n, clears = _follow_loop(app, screen, seed, think_ms / 1000, pieces)
            latencies += got
            placed, pcs = placed + n, pcs + clears
        label = "thinking ahead" if ahead else "not thinking ahead"
        print(f"[5] {games} games from an empty field, {placed} pieces, {pcs} PCs, {think_ms:.0f} ms a piece, {label}")
        over = sum(t > 200 for t in latencies)
        summary(f"[5] lock -> final PC chance shown, {label}", latencies, f"over 200 ms: {over}")


def _own_first_piece(
    app,
    screen,
    seed: int,
    think_s: float,
    rest_s: float,
    hold_first: bool = False,
    settle_s: float = 0.0,
    hold_second_s: float | None = None,
) -> float | None:
    """One PC-practice game: the first piece played to a spot of the player's own (chosen by the seed among those a
    hard drop reaches, the advice left out), resting `rest_s` there before the drop. The wall ms from the lock to
    the first frame showing the next position's final chance (None if the game did not get there). `hold_first`:
    the player first presses hold on its own, waits for the panel's answer and thinks again, then plays the second
    piece so. `settle_s`: the player first looks at the game's first position that long more (the worker, fresh
    each game, has finished its warm-up by then). `hold_second_s`: then, that long after the lock, the player
    presses hold on its own, and the time is from the end of the frame whose tick took the press (the piece goes to
    hold) to the final chance of the position after it."""
    from ai.pc.search import searcher_for, step_of
    from ai.pc_service import step_move

    scene = PlayScene(app, PC_PRACTICE, None, seed)
    app.scenes.reset(scene)
    watch = Watcher(scene)
    coach, game = scene.coach, scene.game
    phase, since = "start", time.perf_counter()  # start -> think -> move -> rest -> dropped
    locked_at = 0.0
    with Player(app) as player:
        for now in live_frames(app, screen, 60 * 60):
            final = final_chance_shown(coach)
            if phase == "start" and final:
                phase, since = "think", now + (settle_s if game.stats.pieces == 0 and game.hold is None else 0.0)
            elif phase == "think" and now - since >= think_s and hold_first and game.hold is None:
                player.executor = KeyExecutor([], hold_first=True)
                phase = "start"  # the position with the first piece held: its answer, then think again
            elif phase == "think" and now - since >= think_s:
                advised = coach.pc_panel().first_move
                if game.active is None:  # no piece in play: the game is over
                    break
                piece = game.active.piece
                moves = [
                    step_move(game.board, step_of(piece, child, hold=False), game.rules, True)
                    for child in searcher_for(game.rules, True).gen.children(game.board.bits, 4, piece)
                    if child.hard and (advised is None or advised.hold or child.mask != advised.placement.mask)
                ]
                player.executor = KeyExecutor(moves[seed % len(moves)].keys[:-1])  # all but the hard drop
                phase = "move"
            elif phase == "move" and player.executor is None:
                phase, since = "rest", now  # on its spot: the ghost rests
            elif phase == "rest" and now - since >= rest_s:
                player.executor = KeyExecutor([Key.HARD_DROP])
                phase = "drop"
            elif phase == "drop" and watch.locked:
                phase, locked_at = "dropped", watch.locked[-1]
            elif phase == "dropped" and hold_second_s is not None and now - locked_at >= hold_second_s:
                player.executor = KeyExecutor([], hold_first=True)
                phase = "hold"
            elif phase == "hold" and game.hold is not None:  # timed from the frame whose tick took the press
                phase, locked_at, hold_second_s = "dropped", now, None
            if phase == "dropped" and final and hold_second_s is None:
                return (now - locked_at) * 1000
    return None


def part_own_first_piece(app, screen, games: int, think_ms: float, rests_ms: tuple[float, ...]) -> None:
    """6. The first PC's second position after a first piece of the player's own: lock -> final chance on screen,
    thinking ahead (aims) for each rest on the spot, and without thinking ahead (a fresh worker each game)."""
    for ahead, rest_ms in [(True, rest) for rest in rests_ms] + [(False, max(rests_ms))]:
        set_ai(app, hint_enabled=False, pc_hints_enabled=True, pc_think_ahead=ahead)
        latencies = []
        for seed in range(1, games + 1):
            app.close_worker()
            got = _own_first_piece(app, screen, seed, think_ms / 1000, rest_ms / 1000)
            if got is not None:
                latencies.append(got)
        label = f"rest {rest_ms:.0f} ms, " + ("thinking ahead" if ahead else "not thinking ahead")
        over = sum(t > 200 for t in latencies)
        summary(f"[6] own first piece, lock -> final PC chance shown, {label}", latencies, f"over 200 ms: {over}")


def part_held_first_piece(
    app, screen, games: int, think_ms: float, rests_ms: tuple[float, ...], settle_ms: float = 0.0
) -> None:
    """7. As 6, with the first piece held (hold pressed on its own) and the second played to a spot of the
    player's own: the position after it has the next bag's first piece shown (120 futures). `settle_ms`: a longer
    look at the first position, so that the fresh worker has finished its warm-up as a worker in use has."""
    for ahead, rest_ms in [(True, rest) for rest in rests_ms] + [(False, max(rests_ms))]:
        set_ai(app, hint_enabled=False, pc_hints_enabled=True, pc_think_ahead=ahead)
        latencies = []
        for seed in range(1, games + 1):
            app.close_worker()
            got = _own_first_piece(
                app, screen, seed, think_ms / 1000, rest_ms / 1000, hold_first=True, settle_s=settle_ms / 1000
            )
            if got is not None:
                latencies.append(got)
        label = f"rest {rest_ms:.0f} ms, " + ("thinking ahead" if ahead else "not thinking ahead")
        label += f", settle {settle_ms:.0f} ms" if settle_ms else ""
        over = sum(t > 200 for t in latencies)
        summary(
            f"[7] first piece held, own second, lock -> final PC chance shown, {label}",
            latencies,
            f"over 200 ms: {over}",
        )


def part_own_first_then_hold(app, screen, games: int, think_ms: float, rests_ms: tuple[float, ...]) -> None:
    """8. The first piece played to a spot of the player's own and dropped at once, then hold pressed on its own
    at the second piece each --rest-ms after the lock: the press -> final chance on screen (hold spent), thinking
    ahead and not (a fresh worker each game, its warm-up done in the first position's think time)."""
    for ahead in (True, False):
        set_ai(app, hint_enabled=False, pc_hints_enabled=True, pc_think_ahead=ahead)
        for rest_ms in rests_ms:
            latencies = []
            for seed in range(1, games + 1):
                app.close_worker()
                got = _own_first_piece(app, screen, seed, think_ms / 1000, 0.0, hold_second_s=rest_ms / 1000)
                if got is not None:
                    latencies.append(got)
            label = f"hold {rest_ms:.0f} ms after the lock, " + ("thinking ahead" if ahead else "not thinking ahead")
            over = sum(t > 200 for t in latencies)
            summary(
                f"[8] own first piece, hold at the second, press -> final PC chance shown, {label}",
                latencies,
                f"over 200 ms: {over}",
            )


def _next_move(game, coach, h: int, rng: random.Random):
    """Half the time the panel's move, otherwise a spot of the player's own (bench.pc.own_spot; the panel's move when
    there is none): (which, keys, hold pressed first, the field expected after an own spot or None), or None when
    the panel has no move."""
    from ai.pc_service import step_move
    from bench.pc import own_spot
    from game.board import Board

    stream = [game.active.piece, *game.preview(40)]  # the game's stream read ahead (the player cannot)
    own = rng.random() < 0.5
    step = own_spot(stream, 0, game.hold, game.board.bits, h, game.rules, rng, game.hold_used) if own else None
    if step is None:
        move = coach.pc_panel().first_move
        return None if move is None else ("advice", move.keys, move.hold, None)
    keys = step_move(game.board, step, game.rules, True).keys
    return "own spot", keys, step.hold, Board.from_bits(game.board.bits | step.mask).clear_lines()[0].bits


def _wander_game(app, screen, seed: int, think_s: float, rest_s: float, pieces: int) -> tuple[list[float], int]:
    """One PC-practice game through its PCs, played as bench/pc.py's wander group plays: after each final answer
    the player thinks `think_s`, then half the time plays the panel's move, otherwise a spot of their own
    (bench.pc.own_spot), the keys one per tick, resting `rest_s` on the spot before the hard drop (the ghost rests, so
    a worker thinking ahead hears of it). Lock -> the first frame showing the new position's final chance, wall
    ms. Returns (latencies, PCs made); the game ends after `pieces` pieces or when the chance is 0."""
    scene = PlayScene(app, PC_PRACTICE, None, seed)
    app.scenes.reset(scene)
    watch = Watcher(scene)
    coach, game = scene.coach, scene.game
    rng = random.Random(seed)
    latencies: list[float] = []
    phase, since, locked_at, how, expected, misplaced = "start", time.perf_counter(), None, "", None, 0
    placed_this_pc, pcs_before, placed = 0, 0, 0
    with Player(app) as player:
        for now in live_frames(app, screen, 60 * 3 * max(60, pieces)):  # 3 s a piece at most (180 s for 60 pieces)
            shown = coach.pc_shown
            if phase == "start" and final_chance_shown(coach):
                if locked_at is not None:
                    latencies.append((now - locked_at) * 1000)
                    if latencies[-1] > 200:  # which position: PC number, its piece, the player's own spot or not
                        print(f"[9]   seed {seed} pc {pcs_before + 1} k{placed_this_pc} {how}: {latencies[-1]:.0f} ms")
                if (shown is not None and shown.chance == 0) or placed >= pieces or coach.pc_lost or game.over:
                    break
                phase, since = "think", now
            elif phase == "think" and now - since >= think_s:
                # the PC's rows left: 4 less those its pieces cleared
                h = 4 - (4 * placed_this_pc - game.board.cell_count()) // 10
                choice = _next_move(game, coach, h, rng)
                if choice is None:
                    break
                how, keys, hold, expected = choice
                player.executor = KeyExecutor(keys[:-1], hold_first=hold)  # all but the hard drop
                phase = "move"
            elif phase == "move" and player.executor is None:
                phase, since = "rest", now
            elif phase == "rest" and now - since >= rest_s:
                player.executor = KeyExecutor([Key.HARD_DROP])
                phase = "drop"
            elif phase == "drop" and watch.locked:
                phase, locked_at = "start", watch.locked.pop()
                watch.locked.clear()
                placed, placed_this_pc = placed + 1, placed_this_pc + 1
                if expected is not None and game.board.bits != expected:
                    misplaced += 1  # the keys did not put the piece on the spot chosen: a fault of this bench
                expected = None
                if game.stats.perfect_clears != pcs_before:  # a PC: the next starts on an empty field
                    pcs_before, placed_this_pc = game.stats.perfect_clears, 0
    if misplaced:
        print(f"[9]   seed {seed}: {misplaced} own spots not where the bench meant them")
    return latencies, game.stats.perfect_clears


def part_wander(app, screen, games: int, think_ms: float, rests_ms: tuple[float, ...], pieces: int) -> None:
    """9. Later PCs too: PC practice from an empty field through its PCs, the player following the panel half the
    time and otherwise playing spots of their own (bench/pc.py's wander group, in the window): lock -> final chance
    on screen, thinking ahead for each rest on the spot, and without thinking ahead (a fresh worker each game)."""
    for ahead, rest_ms in [(True, rest) for rest in rests_ms] + [(False, max(rests_ms))]:
        set_ai(app, hint_enabled=False, pc_hints_enabled=True, pc_think_ahead=ahead)
        latencies: list[float] = []
        pcs = 0
        for seed in range(1, games + 1):
            app.close_worker()
            got, made = _wander_game(app, screen, seed, think_ms / 1000, rest_ms / 1000, pieces)
            latencies += got
            pcs += made
        label = f"rest {rest_ms:.0f} ms, " + ("thinking ahead" if ahead else "not thinking ahead")
        over = sum(t > 200 for t in latencies)
        print(f"[9] {games} games, {len(latencies)} positions, {pcs} PCs, {label}")
        summary(
            f"[9] own spots half the time, lock -> final PC chance shown, {label}", latencies, f"over 200 ms: {over}"
        )


def part_faults(app, screen, kills: int) -> None:
    set_ai(app, hint_enabled=True, autoplay_pps=0, pc_hints_enabled=False)
    scene = PlayScene(app, ZEN, seed=3)
    app.scenes.reset(scene)
    scene.coach.set_autoplay(True)
    wait_for_worker(app, screen, scene)
    client = app.worker()
    recoveries: list[float] = []
    failures = 0
    ticks_ok = True
    slow: list[str] = []  # what the client went through when a recovery took over 2 s
    for _ in range(kills):
        paced(app, screen, 6, lambda now: None)  # play a little between crashes
        restarts_before = client.status.restarts
        problems: list[str] = []
        client.kill_worker_for_test()
        killed_at = time.perf_counter()
        clock_at_kill = scene.clock
        game_ticks = scene.game.ticks
        frames = 0
        back = None
        while time.perf_counter() - killed_at < 6.0:
            frame_start = time.perf_counter()
            app.tick()
            app.draw(screen)
            pygame.display.flip()
            frames += 1
            if scene.game.over:
                scene.restart()
                game_ticks = scene.game.ticks - frames
            if client.status.last_problem and (not problems or problems[-1] != client.status.last_problem):
                problems.append(client.status.last_problem)
            coach = scene.coach
            if coach.show_hint and coach.hint_ready_clock is not None and coach.hint_ready_clock > clock_at_kill:
                back = time.perf_counter() - killed_at
                break
            delay = FRAME_S - (time.perf_counter() - frame_start)
            if delay > 0:
                time.sleep(delay)
        if scene.game.ticks - game_ticks < frames:
            ticks_ok = False
        if back is None:
            failures += 1
        else:
            recoveries.append(back * 1000)
        if back is None or back > 2.0:
            slow.append(
                f"{'>6 s' if back is None else f'{back:.2f} s'}: "
                f"{client.status.restarts - restarts_before} restarts; {' / '.join(problems)}"
            )
    summary(f"[4] {kills} worker kills: time until a new hint is shown", recoveries, "(target <= 2000 ms each)")
    print(
        f"[4] hints did not come back within 6 s: {failures}; over 2 s: {sum(r > 2000 for r in recoveries)}; "
        f"worker restarts counted by the client: {client.status.restarts}"
    )
    for line in slow:
        print(f"[4]   slow recovery {line}")
    print(f"[4] the game kept ticking every frame: {ticks_ok}")
    assert ticks_ok, "the game stopped ticking while the worker was down"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="shorter runs")
    parser.add_argument("--parts", default="123456789", help="which parts to run, e.g. 24 (default 123456789)")
    parser.add_argument("--think-ms", type=float, default=500.0, help="parts 5-9: the player's time per piece")
    parser.add_argument(
        "--rest-ms",
        default="0,300,600",
        help="parts 6, 7, 9: how long the piece rests on its spot before the drop; 8: the lock to the hold press",
    )
    parser.add_argument(
        "--settle-ms", type=float, default=0.0, help="part 7: a longer look at the first position (worker warmed up)"
    )
    parser.add_argument("--wander-games", type=int, help="part 9: games (default 8, --quick 3)")
    parser.add_argument("--wander-pieces", type=int, help="part 9: pieces per game at most (default 60, --quick 30)")
    parser.add_argument("--rules", choices=sorted(RULES), default="srs-180", help="the game's rules")
    args = parser.parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="stackcoach-bench-"))
    os.environ["STACKCOACH_CONFIG_DIR"] = str(folder)
    os.environ["STACKCOACH_DATA_DIR"] = str(folder)
    app, screen = testing.make_app(folder, (1280, 720))
    set_rules(app, args.rules)
    print(
        f"window {screen.get_size()}, video driver {pygame.display.get_driver()}, cpus {os.cpu_count()}, "
        f"rules {args.rules}"
    )
    try:
        if "1" in args.parts:
            part_frames(app, screen, 1800 if args.quick else 7200)
        if "2" in args.parts:
            part_hint_latency(app, screen, 8 if args.quick else 30)
        if "3" in args.parts:
            part_pc_latency(app, screen, 20 if args.quick else 60)
        if "4" in args.parts:
            part_faults(app, screen, 10 if args.quick else 50)
        if "5" in args.parts:
            part_live_chance(app, screen, 3 if args.quick else 8, args.think_ms, 30 if args.quick else 40)
        rests = tuple(float(r) for r in args.rest_ms.split(","))
        if "6" in args.parts:
            part_own_first_piece(app, screen, 4 if args.quick else 10, args.think_ms, rests)
        if "7" in args.parts:
            part_held_first_piece(app, screen, 4 if args.quick else 10, args.think_ms, rests, args.settle_ms)
        if "8" in args.parts:
            part_own_first_then_hold(app, screen, 4 if args.quick else 10, args.think_ms, rests)
        if "9" in args.parts:
            games = args.wander_games or (3 if args.quick else 8)
            pieces = args.wander_pieces or (30 if args.quick else 60)
            part_wander(app, screen, games, args.think_ms, rests, pieces)
    finally:
        app.close_worker()
        pygame.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
