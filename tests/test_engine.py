"""The timed engine: handling to the tick, gravity, lock delay, hold, clears, top-outs, undo/redo and replays."""

from __future__ import annotations

import pytest

from game.board import Board
from game.config import GameConfig, GravityMode, LockMode, guideline_gravity
from game.engine import Game
from game.events import Held, Locked, Moved, Rotated, Spawned, ToppedOut
from game.executor import play_keys
from game.finesse import Key
from game.handling import Button, Handling
from game.movement import Spin
from game.pieces import Piece, Rotation
from game.replay import Replay, ReplayError
from game.rules import Rules

L, R, SD, HD = Button.LEFT, Button.RIGHT, Button.SOFT_DROP, Button.HARD_DROP
CW, CCW, FLIP, HOLD = Button.ROTATE_CW, Button.ROTATE_CCW, Button.ROTATE_180, Button.HOLD


def still_config(**kwargs) -> GameConfig:
    """No gravity and a long lock delay, so a test controls every move."""
    base = {"gravity_mode": GravityMode.FIXED, "gravity": 0.0, "lock_delay": 600, "track_finesse": False}
    base.update(kwargs)
    return GameConfig(**base)


def run(game: Game, buttons: list[Button]) -> list:
    events = []
    for b in buttons:
        events.extend(game.tick(b))
    return events


class TestHandling:
    def xs_while_holding(self, handling: Handling, ticks: int, button: Button = R) -> list[int]:
        game = Game(still_config(handling=handling), seed=1, queue=[Piece.T])
        xs = []
        for _ in range(ticks):
            game.tick(button)
            xs.append(game.active.x)
        return xs

    def test_tap_moves_one_cell(self) -> None:
        game = Game(still_config(), seed=1, queue=[Piece.T])
        run(game, [R, Button.NONE, R, Button.NONE])
        assert game.active.x == 6

    def test_das_then_arr_to_the_tick(self) -> None:
        # DAS 10, ARR 2: one cell on press (tick 1), then at tick 11, 13, 15... (held for 10 ticks after the press)
        xs = self.xs_while_holding(Handling(das=10, arr=2, sdf=20), 16)
        assert xs == [5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 6, 6, 7, 7, 8, 8]

    def test_arr_zero_is_instant_after_das(self) -> None:
        xs = self.xs_while_holding(Handling(das=5, arr=0, sdf=20), 7)
        assert xs == [5, 5, 5, 5, 5, 8, 8]  # T spans x-1..x+1, so x = 8 touches the right wall

    def test_fractional_arr_moves_two_cells_a_tick(self) -> None:
        xs = self.xs_while_holding(Handling(das=2, arr=0.5, sdf=20), 5, R)
        assert xs == [5, 5, 6, 8, 8]  # press: 5; DAS ends: one cell; then two a tick, up to the wall

    def test_dcd_pauses_auto_repeat_after_a_rotation(self) -> None:
        game = Game(still_config(handling=Handling(das=3, arr=1, dcd=2)), seed=1, queue=[Piece.T])
        run(game, [R, R, R, R])  # press -> 5, auto at tick 4 -> 6
        assert game.active.x == 6
        run(game, [R | CW])  # the rotation cuts auto-repeat for 2 ticks: this one and the next
        assert game.active.x == 6
        run(game, [R])
        assert game.active.x == 6
        run(game, [R])
        assert game.active.x == 7

    def test_last_pressed_direction_wins(self) -> None:
        game = Game(still_config(handling=Handling(das=10, arr=2)), seed=1, queue=[Piece.T])
        run(game, [L, L | R])
        assert game.active.x == 4  # left to 3, then right pressed while left held: back to 4

    def test_soft_drop_speed_and_instant(self) -> None:
        slow = Game(still_config(gravity=0.0, handling=Handling(sdf=20)), seed=1, queue=[Piece.O])
        run(slow, [SD] * 3)
        # gravity 0 -> soft drop uses 1/60 G x 20 = 1/3 cell per tick: 1 cell after 3 ticks
        assert slow.active.y == 19
        instant = Game(still_config(handling=Handling(sdf=None)), seed=1, queue=[Piece.O])
        run(instant, [SD])
        assert instant.active.y == 0

    def test_das_charges_during_a_countdown(self) -> None:
        game = Game(still_config(handling=Handling(das=10, arr=0)), seed=1, queue=[Piece.T])
        for _ in range(12):
            game.precharge(R)
        assert game.active.x == 4  # nothing moves before the start
        game.tick(R)
        assert game.active.x == 8  # charged: the first tick slides to the wall
        replayed = Replay.from_json(Replay.from_game(game).to_json()).play()
        assert replayed.active == game.active
        with pytest.raises(RuntimeError):
            game.precharge(R)

    def test_key_repeat_does_not_matter_only_held_state(self) -> None:
        a = Game(still_config(), seed=3, queue=[Piece.T])
        b = Game(still_config(), seed=3, queue=[Piece.T])
        run(a, [R] * 12)
        run(b, [R] * 12)
        assert a.active == b.active


class TestGravityAndLocking:
    def test_guideline_curve(self) -> None:
        assert guideline_gravity(1) == pytest.approx(1 / 60 / 0.8**0, rel=0.3)
        assert guideline_gravity(1) < guideline_gravity(5) < guideline_gravity(10) < guideline_gravity(15)
        assert guideline_gravity(20) <= 20

    def test_20g_spawns_on_the_stack(self) -> None:
        game = Game(still_config(gravity=20.0), seed=1, queue=[Piece.O])
        assert game.active.y == 0

    def test_lock_delay_counts_grounded_ticks(self) -> None:
        game = Game(still_config(lock_delay=30, handling=Handling(sdf=None)), seed=1, queue=[Piece.O, Piece.I])
        run(game, [SD])
        events = run(game, [Button.NONE] * 28)
        assert not any(isinstance(e, Locked) for e in events)
        events = run(game, [Button.NONE] * 2)
        assert any(isinstance(e, Locked) for e in events)

    def test_move_reset_has_a_limit(self) -> None:
        game = Game(
            still_config(lock_delay=10, move_reset_limit=3, handling=Handling(sdf=None)),
            seed=1,
            queue=[Piece.O, Piece.I],
        )
        run(game, [SD, Button.NONE])
        locked_at = None
        for tick in range(40):
            events = game.tick(L if tick % 2 == 0 else R)
            if any(isinstance(e, Locked) for e in events):
                locked_at = tick
                break
        # resets 1..3 restart the timer; the 4th move past the limit locks at once.
        assert locked_at is not None and locked_at <= 8

    def test_infinite_lock_never_locks_while_moving(self) -> None:
        game = Game(
            still_config(lock_delay=5, lock_mode=LockMode.INFINITE, handling=Handling(sdf=None)),
            seed=1,
            queue=[Piece.O, Piece.I],
        )
        run(game, [SD, Button.NONE])
        events = run(game, [L, Button.NONE, R, Button.NONE] * 20)
        assert not any(isinstance(e, Locked) for e in events)

    def test_step_reset_ignores_moves(self) -> None:
        game = Game(
            still_config(lock_delay=6, lock_mode=LockMode.STEP_RESET, handling=Handling(sdf=None)),
            seed=1,
            queue=[Piece.O, Piece.I],
        )
        run(game, [SD, Button.NONE])
        events = run(game, [L, Button.NONE, R, Button.NONE, L, Button.NONE])
        assert any(isinstance(e, Locked) for e in events)

    def test_are_and_line_clear_delay(self) -> None:
        board = Board.from_rows(["XXXXX_XXXX"] * 1)
        game = Game(still_config(are=3, line_clear_delay=5), seed=1, board=board, queue=[Piece.I, Piece.O])
        run(game, [CW])
        events = run(game, [HD])
        assert any(isinstance(e, Locked) and e.result.lines == 1 for e in events)
        assert game.active is None
        events = run(game, [Button.NONE] * 7)
        assert not any(isinstance(e, Spawned) for e in events)
        events = run(game, [Button.NONE])
        assert any(isinstance(e, Spawned) for e in events)


class TestClearsAndScoring:
    def test_quad_and_b2b_and_perfect_clear(self) -> None:
        board = Board.from_rows(["XXXXXXXXX_"] * 8)
        game = Game(still_config(), seed=1, board=board, queue=[Piece.I, Piece.I])
        first = play_keys(game, [Key.CW, Key.DAS_RIGHT, Key.HARD_DROP])
        lock = next(e for e in first if isinstance(e, Locked))
        assert lock.result.lines == 4 and not lock.result.b2b_bonus and not lock.result.perfect_clear
        second = play_keys(game, [Key.CW, Key.DAS_RIGHT, Key.HARD_DROP])
        lock = next(e for e in second if isinstance(e, Locked))
        assert lock.result.lines == 4 and lock.result.b2b_bonus and lock.result.perfect_clear
        assert lock.result.label() == "B2B QUAD"
        assert game.board.is_empty() and game.stats.perfect_clears == 1 and game.stats.quads == 2
        assert lock.result.attack == 4 + 1 + 1 + 10  # quad + B2B, x1.25 for combo 1 (floored), + PC

    def test_combo_counts_consecutive_clears(self) -> None:
        board = Board.from_rows(["XXXXXXXX__"] * 4)
        game = Game(still_config(), seed=1, board=board, queue=[Piece.O, Piece.O, Piece.T])
        results = []
        for _ in range(2):  # each O fills columns 8-9 of the two lowest rows: a double, twice
            events = play_keys(game, [Key.DAS_RIGHT, Key.HARD_DROP])
            results.append(next(e for e in events if isinstance(e, Locked)).result)
        assert [(r.lines, r.combo) for r in results] == [(2, 0), (2, 1)]
        assert results[1].perfect_clear and not results[0].perfect_clear
        assert results[1].attack == 1 + 10  # double: 1, x1.25 floored, + PC
        play_keys(game, [Key.HARD_DROP])
        assert game.combo == -1

    def test_tsd_through_the_engine(self) -> None:
        tsd = Board.from_rows(["XX________", "X___XXXXXX", "XX_XXXXXXX"])
        game = Game(still_config(handling=Handling(sdf=None)), seed=1, board=tsd, queue=[Piece.T])
        from game.movegen import find_moves

        moves = find_moves(tsd, Piece.T, game.rules)
        move = next(m for m in moves if m.placement.spin is Spin.FULL and m.placement.y == 1)
        events = play_keys(game, move.keys)
        lock = next(e for e in events if isinstance(e, Locked))
        assert lock.result.spin is Spin.FULL and lock.result.lines == 2
        assert game.stats.tspins == 1
        assert any(isinstance(e, Rotated) for e in events)


class TestHoldAndTopOut:
    def test_hold_once_per_piece(self) -> None:
        game = Game(still_config(), seed=1, queue=[Piece.T, Piece.I, Piece.O])
        events = run(game, [HOLD])
        assert any(isinstance(e, Held) for e in events)
        assert game.hold is Piece.T and game.active.piece is Piece.I
        run(game, [Button.NONE, HOLD])
        assert game.hold is Piece.T and game.active.piece is Piece.I  # second hold refused
        run(game, [HD, Button.NONE, HOLD])
        assert game.hold is Piece.O and game.active.piece is Piece.T

    def test_hold_disabled_by_rules(self) -> None:
        game = Game(still_config(rules=Rules(hold=False)), seed=1, queue=[Piece.T, Piece.I])
        run(game, [HOLD])
        assert game.hold is None and game.active.piece is Piece.T

    def test_block_out(self) -> None:
        full = Board.from_rows(["XXXX_XXXXX"] * 21)
        game = Game(still_config(), seed=1, board=full, queue=[Piece.O])
        assert game.over and game.top_out_reason == "block out"
        assert any(isinstance(e, ToppedOut) for e in game.tick())

    def test_lock_out(self) -> None:
        # A stack up to row 19 except a gap; an O locking at row 20-21 is entirely above the visible field.
        rows = ["X_XXXXXXXX"] * 20
        game = Game(still_config(), seed=1, board=Board.from_rows(rows), queue=[Piece.O, Piece.O])
        events = run(game, [HD])
        assert any(isinstance(e, ToppedOut) and e.reason == "lock out" for e in events)


class TestUndoRedo:
    def test_undo_and_redo_placements(self) -> None:
        game = Game(still_config(), seed=7)
        first_piece = game.active.piece
        run(game, [HD, Button.NONE, L, HD, Button.NONE])
        board_after_two = game.board
        assert game.stats.pieces == 2
        assert game.undo()
        assert game.stats.pieces == 1
        assert game.undo()
        assert game.board.is_empty() and game.active.piece is first_piece and game.stats.pieces == 0
        assert not game.undo()
        assert game.redo() and game.redo()
        assert game.board == board_after_two and game.stats.pieces == 2
        assert not game.redo()

    def test_undo_buttons_and_redo_cleared_by_a_new_lock(self) -> None:
        game = Game(still_config(), seed=7)
        run(game, [HD, Button.NONE, Button.UNDO, Button.NONE])
        assert game.stats.pieces == 0
        run(game, [L, HD, Button.NONE])
        assert not game.redo()

    def test_undo_restores_hold(self) -> None:
        game = Game(still_config(), seed=2, queue=[Piece.T, Piece.I, Piece.O])
        run(game, [HOLD, Button.NONE, HD])
        assert game.hold is Piece.T
        game.undo()
        assert game.hold is None and game.active.piece is Piece.T


class TestReplays:
    def test_replay_round_trip_is_identical(self, tmp_path) -> None:
        config = GameConfig(rules=Rules.named("srs+", allow_180=True), handling=Handling(das=7, arr=0, sdf=None))
        game = Game(config, seed=99)
        pattern = [L, L, Button.NONE, CW, HD, Button.NONE, R, R, R, FLIP, SD, HD, Button.NONE, HOLD, CCW, HD]
        for i in range(600):
            game.tick(pattern[i % len(pattern)])
        path = tmp_path / "game.json"
        Replay.from_game(game).save(path)
        again = Replay.load(path).play()
        assert again.board == game.board and again.stats == game.stats and again.hold == game.hold
        assert again.active == game.active and again.stream_pos == game.stream_pos

    def test_replay_of_a_custom_start_and_user_kicks(self, tmp_path) -> None:
        kick_file = tmp_path / "k.toml"
        kick_file.write_text('name = "Mine"\n[kicks.JLSTZ]\n0R = [[0, 0], [0, 1]]\n', encoding="utf-8")
        config = GameConfig(rules=Rules.named(str(kick_file)))
        game = Game(
            config,
            seed=5,
            board=Board.from_rows(["XXXXX_XXXX"]),
            queue=[Piece.T, Piece.S],
            hold=Piece.I,
            randomizer_state=(Piece.J, Piece.L),
        )
        for i in range(300):
            game.tick([R, Button.NONE, CW, HD, Button.NONE][i % 5])
        text = Replay.from_game(game).to_json()
        kick_file.unlink()  # the replay carries the table itself
        again = Replay.from_json(text).play()
        assert again.board == game.board and again.stats == game.stats
        assert game._stream[2:4] in ([Piece.J, Piece.L], [Piece.L, Piece.J])

    @pytest.mark.parametrize("text", ["{", '{"format": 9}', '{"format": 1, "config": {}}', "[]"])
    def test_bad_replays(self, text: str) -> None:
        with pytest.raises(ReplayError):
            Replay.from_json(text)


def test_events_describe_a_move() -> None:
    game = Game(still_config(), seed=1, queue=[Piece.T, Piece.I])
    events = game.tick(R)
    assert isinstance(events[0], Spawned) and events[0].piece is Piece.T
    assert isinstance(events[1], Moved) and events[1].dx == 1
    events = game.tick(CW)
    assert isinstance(events[0], Rotated) and events[0].end is Rotation.EAST and events[0].kick_index == 0
