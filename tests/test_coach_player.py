"""A player who follows the PC coach by hand, reading only what the panel says (`Coach.pc_panel()`, the values
the window draws), pressing one key per tick: hold on its own, the placement's keys, undo, a mistake. After every
step what is shown must still be true: the advice can be carried out (no hold when hold is spent), the piece
lands where the overlay showed it, a PC is never followed by "PC no longer possible", no number is shown while
the chance is still being worked out, and every chance shown equals the exact answer computed here by brute
force over the bag's outcomes with the single-queue solver. The worker is the real service, in a thread."""

from __future__ import annotations

import time

import pytest

import ai.service
from ai.pc.api import solve
from ai.pc.search import searcher_for
from game.board import WIDTH
from game.events import Locked
from game.executor import KeyExecutor
from game.handling import Button
from game.randomizer import make_randomizer
from tests.players import Keys, run_until, use_thread_worker
from ui import testing
from ui.coach import move_cells, snapshot_of
from ui.modes import PC_PRACTICE
from ui.pc_setups import load_setups, setup_start
from ui.play import PlayScene
from ui.worker_client import WorkerClient, spawn_thread_worker

BRUTE_FORCE_MAX_FUTURES = 7  # positions with more unknown continuations are not brute-forced (time)


@pytest.fixture
def app(app):
    """conftest's app, with the AI worker in a thread."""
    return use_thread_worker(app)


def _settled(coach) -> bool:
    """The panel has said what to do, or said for certain that nothing can be done."""
    shown = coach.pc_shown
    panel = coach.pc_panel()
    return panel.status == "lost" or (shown is not None and shown.final) or panel.first_move is not None


def _check_panel_is_honest(coach) -> None:
    panel = coach.pc_panel()
    shown = coach.pc_shown
    if panel.chance is not None:  # a number is shown only for a final answer that has it
        assert shown is not None and shown.final and shown.chance == panel.chance
        assert "computing" not in panel.chance_text
    elif shown is not None and not shown.final:
        assert panel.chance_text == "PC chance: computing…"
    first = panel.first_move
    if first is not None:
        game = coach.scene.game
        assert not (first.hold and game.hold_used), "the panel asks for a hold that cannot be done"
        expected = game.active.piece if not first.hold else (game.hold if game.hold is not None else game.preview()[0])
        assert first.placement.piece == expected
        how = "hold, then place" if first.hold else "place"
        assert panel.advice.startswith(f"Next: {how} the {first.placement.piece.name}")


def _brute_force_chance(snapshot, lines: int) -> float | None:
    """max over next placements of P(a PC exists afterwards), over every continuation the bag allows, from the
    single-queue solver; None when there are too many continuations to do it here."""
    rules = snapshot.rules
    gen = searcher_for(rules, True).gen
    board_bits = snapshot.board.bits
    empty = WIDTH * lines - snapshot.board.cell_count()
    need = empty // 4
    known = (snapshot.current, *snapshot.queue)
    length = need + 1 - (snapshot.hold is not None)
    unknown = max(0, length - len(known))
    futures = list(make_randomizer(snapshot.randomizer, 0).sequences(unknown, snapshot.randomizer_state))
    if len(futures) > BRUTE_FORCE_MAX_FUTURES:
        return None
    spent = snapshot.hold_used
    best = 0.0
    # each first action: (piece placed, pieces of the sequence used up, hold afterwards)
    actions = [(0, 1, snapshot.hold)]
    if rules.hold and not spent:
        if snapshot.hold is None:
            actions.append((1, 2, snapshot.current))
        elif snapshot.hold != snapshot.current:
            actions.append((None, 1, snapshot.current))
    for placed_index, used, hold_after in actions:
        per_child: dict[int, float] = {}
        for seq, prob in futures:
            full = known + tuple(seq)
            piece = snapshot.hold if placed_index is None else full[placed_index]
            rest = full[used:]
            for child in gen.children(board_bits, lines, piece):
                ok = (
                    child.h == 0
                    or solve(child.field, rest, hold=hold_after, rules=rules, lines=child.h, verify=False).solvable
                )
                per_child[child.mask] = per_child.get(child.mask, 0.0) + (prob if ok else 0.0)
        best = max([best, *per_child.values()])
    return min(best, 1.0)


def _expected_board_after(bits: int, cells) -> int:
    for x, y in cells:
        bits |= 1 << (y * WIDTH + x)
    y = 0
    while (bits >> (y * WIDTH)) and y < 40:
        if (bits >> (y * WIDTH)) & 1023 == 1023:
            low = bits & ((1 << (y * WIDTH)) - 1)
            bits = low | ((bits >> ((y + 1) * WIDTH)) << (y * WIDTH))
        else:
            y += 1
    return bits


def _follow_panel(app, scene, keys: Keys, *, max_pieces: int = 12) -> dict:
    """Play from the panel until a PC; return what happened (holds pressed, chances checked)."""
    coach, game = scene.coach, scene.game
    seen = {"holds": 0, "checked": 0, "placements": 0}
    while not game.stats.perfect_clears and seen["placements"] < max_pieces:
        assert run_until(app, lambda: _settled(coach)), coach.pc
        _check_panel_is_honest(coach)
        # a player may act as soon as the advice shows; this one also waits for the chance (to check it)
        assert run_until(app, lambda: coach.pc_shown is not None and coach.pc_shown.final), coach.pc
        _check_panel_is_honest(coach)
        panel = coach.pc_panel()
        assert panel.status == "possible", (panel, game.board.to_rows())
        if coach.pc_shown.final and panel.chance is not None:
            exact = _brute_force_chance(snapshot_of(game), coach.pc_shown.lines)
            if exact is not None:
                assert panel.chance == pytest.approx(exact, abs=1e-9), (panel, game.board.to_rows())
                seen["checked"] += 1
        move = panel.first_move
        if move.hold:
            # the player presses hold on its own, then reads the panel again
            keys.pending = [Button.HOLD]
            held_piece = move.placement.piece
            assert run_until(app, lambda: keys.idle and game.hold_used)
            seen["holds"] += 1
            assert run_until(app, lambda: _settled(coach))
            _check_panel_is_honest(coach)
            after = coach.pc_panel()
            assert after.first_move is not None and not after.first_move.hold
            assert after.first_move.placement.piece == held_piece == game.active.piece
            assert after.advice.startswith(f"Next: place the {held_piece.name}")
            move, panel = after.first_move, after
        cells = panel.overlay[0][1] if panel.overlay else tuple(move_cells(move))
        expected = _expected_board_after(game.board.bits, cells)
        before = game.stats.pieces
        keys.executor = KeyExecutor(move.keys)  # one key per tick, as a player taps them
        assert run_until(app, lambda before=before: game.stats.pieces > before)
        assert game.board.bits == expected, "the piece did not land where the panel showed it"
        seen["placements"] += 1
    return seen


@pytest.mark.parametrize("seed", [3, 11])
def test_following_the_pc_panel_by_hand_reaches_the_pc_and_the_panel_stays_true(app, seed):
    keys = Keys(app)
    grace = next(s for s in load_setups() if s.key == "grace")
    scene = PlayScene(app, PC_PRACTICE, setup_start(grace, seed), seed)
    keys.scene = scene
    app.scenes.push(scene)
    seen = _follow_panel(app, scene, keys)
    assert scene.game.stats.perfect_clears == 1 and scene.game.board.bits == 0
    assert seen["checked"] >= 2  # the chance was compared with brute force on several positions
    # right after the PC, and while the next PC of the loop is being worked out: never "lost", never a number
    # that is not the answer
    coach = scene.coach
    for _ in range(90):
        app.tick()
        assert coach.pc_panel().status != "lost"
        _check_panel_is_honest(coach)
        time.sleep(0.002)


def test_the_panel_asks_for_a_hold_on_some_seed_and_it_can_be_done(app):
    """The hold path above must really be walked: find a start where the advice begins with a hold."""
    keys = Keys(app)
    grace = next(s for s in load_setups() if s.key == "grace")
    holds = 0
    for seed in range(20, 32):
        scene = PlayScene(app, PC_PRACTICE, setup_start(grace, seed), seed)
        keys.scene = scene
        app.scenes.push(scene)
        assert run_until(app, lambda scene=scene: _settled(scene.coach))
        panel = scene.coach.pc_panel()
        if panel.status == "impossible":  # some deals cannot finish this setup: that verdict must be true
            assert _brute_force_chance(snapshot_of(scene.game), scene.coach.pc_shown.lines) in (None, 0.0)
        elif panel.first_move is not None and panel.first_move.hold:
            holds += _follow_panel(app, scene, keys)["holds"]
            assert scene.game.stats.perfect_clears == 1
        app.scenes.pop()
        if holds:
            break
    assert holds >= 1


def test_hold_pressed_when_not_advised_gets_advice_without_hold(app):
    keys = Keys(app)
    grace = next(s for s in load_setups() if s.key == "grace")
    scene = PlayScene(app, PC_PRACTICE, setup_start(grace, 5), 5)
    keys.scene = scene
    app.scenes.push(scene)
    coach, game = scene.coach, scene.game
    assert run_until(app, lambda: _settled(coach))
    keys.pending = [Button.HOLD]
    assert run_until(app, lambda: keys.idle and game.hold_used)
    assert run_until(app, lambda: _settled(coach) and coach.pc_shown is not None and coach.pc_shown.final)
    _check_panel_is_honest(coach)
    panel = coach.pc_panel()
    if panel.first_move is not None:
        assert not panel.first_move.hold and panel.first_move.placement.piece == game.active.piece
    exact = _brute_force_chance(snapshot_of(game), coach.pc_shown.lines)
    if exact is not None and panel.chance is not None:
        assert panel.chance == pytest.approx(exact, abs=1e-9)
    if panel.status == "impossible":
        assert exact in (None, 0.0)


def test_a_mistake_then_undo_shows_the_same_advice_again(app):
    keys = Keys(app)
    grace = next(s for s in load_setups() if s.key == "grace")
    scene = PlayScene(app, PC_PRACTICE, setup_start(grace, 11), 11)
    keys.scene = scene
    app.scenes.push(scene)
    coach, game = scene.coach, scene.game
    assert run_until(app, lambda: _settled(coach) and coach.pc_shown.final)
    before = coach.pc_panel()
    assert before.status == "possible"
    pieces = game.stats.pieces
    keys.pending = [Button.HARD_DROP]  # a mistake: straight down where it spawned
    assert run_until(app, lambda: game.stats.pieces == pieces + 1)
    assert run_until(
        app,
        lambda: (
            _settled(coach)
            and (coach.pc_shown is None or coach.pc_shown.final)
            and coach.pc_panel().status != "solving"
        ),
    )
    _check_panel_is_honest(coach)
    after_mistake = coach.pc_panel()
    if after_mistake.status in ("lost", "impossible"):
        exact = _brute_force_chance(snapshot_of(game), coach.pc_shown.lines if coach.pc_shown else 4)
        assert exact in (None, 0.0)
    keys.pending = [Button.UNDO]
    assert run_until(app, lambda: game.stats.pieces == pieces)
    assert run_until(app, lambda: _settled(coach) and coach.pc_shown is not None and coach.pc_shown.final)
    again = coach.pc_panel()
    assert again.status == "possible" and again.advice == before.advice and again.overlay == before.overlay
    assert again.chance == before.chance


def test_a_locked_event_carries_the_cells_the_overlay_showed(app):
    """The overlay's piece 1 is where the piece locks when its keys are played (checked through the event)."""
    keys = Keys(app)
    grace = next(s for s in load_setups() if s.key == "grace")
    scene = PlayScene(app, PC_PRACTICE, setup_start(grace, 3), 3)
    keys.scene = scene
    app.scenes.push(scene)
    coach = scene.coach
    assert run_until(app, lambda: _settled(coach))
    panel = coach.pc_panel()
    locked: list[Locked] = []
    original = scene._on_event

    def spy(event, board_before):
        if isinstance(event, Locked):
            locked.append(event)
        original(event, board_before)

    scene._on_event = spy
    move = panel.first_move
    if move.hold:
        keys.pending = [Button.HOLD]
        assert run_until(app, lambda: keys.idle)
        assert run_until(app, lambda: _settled(coach))
        move = coach.pc_panel().first_move
    keys.executor = KeyExecutor(move.keys)
    assert run_until(app, lambda: bool(locked))
    event = locked[0]
    assert event.placement.piece == panel.overlay[0][0] and set(event.placement.cells()) == set(panel.overlay[0][1])


def test_no_lost_signal_after_a_pc_when_the_next_chance_is_not_known(app):
    """The next PC of the loop starts on an empty board; an answer that does not know the chance (or knows no
    PC with the pieces shown) is no verdict: "PC no longer possible" must not appear after a PC."""
    from ai.protocol import PcAnswer, PcRequest

    def handler(request, should_stop, send):
        if isinstance(request, PcRequest) and request.snapshot.board.bits == 0:
            send(
                PcAnswer(
                    request.generation, solvable=False, chance=None, final=True, lines=4, note="chance not computed"
                )
            )
            return
        ai.service.handle(request, should_stop, send)

    app.worker_factory = lambda: WorkerClient(lambda: spawn_thread_worker(handler))
    keys = Keys(app)
    grace = next(s for s in load_setups() if s.key == "grace")
    scene = PlayScene(app, PC_PRACTICE, setup_start(grace, 3), 3)
    keys.scene = scene
    app.scenes.push(scene)
    _follow_panel(app, scene, keys)
    assert scene.game.stats.perfect_clears == 1
    coach = scene.coach
    assert run_until(app, lambda: coach.pc_shown is not None and coach.pc_shown.final, timeout_s=10)
    for _ in range(30):
        app.tick()
        panel = coach.pc_panel()
        assert panel.status == "unknown" and panel.chance_text == "PC chance: not computed (too long)"


def test_autoplay_in_pc_practice_plays_the_pc_shown_and_says_so(app):
    s = app.settings
    app.settings = s.model_copy(update={"ai": s.ai.model_copy(update={"autoplay_pps": 0})})
    keys = Keys(app)
    grace = next(s for s in load_setups() if s.key == "grace")
    scene = PlayScene(app, PC_PRACTICE, setup_start(grace, 11), 11)
    keys.scene = scene
    app.scenes.push(scene)
    coach, game = scene.coach, scene.game
    testing.tap(app, "f2")
    assert coach.autoplay
    assert run_until(app, lambda: coach.pc_panel().overlay)
    assert coach.pc_leads and coach.advice_move() == coach.pc_panel().first_move  # what autoplay will play
    planned = [cells for _, cells in coach.pc_panel().overlay]
    boards = []
    while not game.stats.perfect_clears:
        pieces = game.stats.pieces
        assert run_until(
            app, lambda pieces=pieces: game.stats.pieces > pieces or game.stats.perfect_clears, timeout_s=30
        )
        boards.append(game.board.bits)
    assert game.stats.perfect_clears == 1 and len(boards) == len(planned)  # the PC shown, in as many pieces
    assert coach.autoplay  # and it goes on with the next PC of the loop


def test_the_same_position_gets_the_same_hint_after_undo(app):
    from ui.modes import ZEN

    s = app.settings
    app.settings = s.model_copy(update={"ai": s.ai.model_copy(update={"hint_enabled": True})})
    keys = Keys(app)
    scene = PlayScene(app, ZEN, seed=7)
    keys.scene = scene
    app.scenes.push(scene)
    coach, game = scene.coach, scene.game
    hints = []
    for _ in range(3):
        assert run_until(app, lambda: coach.show_hint and coach.hint_final, timeout_s=30)
        hints.append(coach.hint)
        pieces = game.stats.pieces
        keys.executor = KeyExecutor(coach.hint.keys, hold_first=coach.hint.hold)
        assert run_until(app, lambda pieces=pieces: game.stats.pieces > pieces)
        keys.pending = [Button.UNDO]
        assert run_until(app, lambda pieces=pieces: game.stats.pieces == pieces)
    assert hints[0] == hints[1] == hints[2]
