"""Thinking ahead (ai.pc_ahead): the positions the worker answers while the player decides are the ones the game
really shows next, an answer kept is the answer a search gives, and a request never waits for the idle work.

The positions are checked against the game engine itself: a player presses the keys of a placement (or hold on
its own) one tick at a time, and the position the window would then send must be one of those planned."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from ai import pc_service
from ai.pc.search import searcher_for, step_of
from ai.pc_ahead import ThinkingAhead, after_cells, after_hold, lines_after, question
from ai.protocol import PcAnswer, PcRequest
from game.board import Board
from game.config import GameConfig, GravityMode
from game.engine import Game
from game.executor import KeyExecutor
from game.handling import Button
from game.randomizer import make_randomizer
from game.rules import Rules
from ui.coach import snapshot_of

RANDOMIZERS = ("7bag", "14bag", "random", "nes", "tgm")


def _keys(request_or_snapshots) -> set[tuple]:
    return {question(PcRequest(0, s)) for s in request_or_snapshots}


def _press_hold(game: Game) -> None:
    """Hold on its own, as a player presses it."""
    for _ in range(10):
        if game.hold_used:
            return
        game.tick(Button.HOLD)
    raise AssertionError("hold was not taken")


def _place(game: Game, keys, hold: bool) -> None:
    """A placement's keys pressed one per tick, until the next piece is in play."""
    executor = KeyExecutor(keys, hold_first=hold)
    placed = game.stats.pieces
    for _ in range(600):
        if game.stats.pieces > placed and game.active is not None:
            return
        game.tick(executor.buttons(game))
    raise AssertionError("the piece did not lock")


@pytest.mark.parametrize("randomizer", RANDOMIZERS)
def test_the_positions_planned_are_the_ones_the_game_shows_next(randomizer):
    """Random placements of a 4-line PC field (with and without hold, an empty hold included, rows cleared, a
    new PC after a PC) and hold on its own: the position after each is one of those planned, and there is one
    planned per piece the randomizer can deal."""
    rules = Rules.named("srs")
    gen = searcher_for(rules, True).gen
    rng = random.Random(randomizer)
    checked = {"placement": 0, "hold placement": 0, "hold alone": 0, "rows cleared": 0}
    for seed in range(10):
        # every other game starts with two rows to finish, so that rows clear (and the field empties) often
        gap = rng.randrange(8)
        rows = ["X" * gap + "__" + "X" * (8 - gap)] * 2 if seed % 2 else []
        config = GameConfig(rules=rules, randomizer=randomizer, gravity_mode=GravityMode.FIXED, gravity=0)
        game = Game(config, seed, board=Board.from_rows(rows) if rows else None)
        game.tick(Button.NONE)  # the first piece spawns
        lines = 4
        for _ in range(14):
            snapshot = snapshot_of(game)
            outcomes = len(make_randomizer(randomizer, 0).outcomes(snapshot.randomizer_state))
            if rules.hold and not game.hold_used and rng.random() < 0.2:
                planned = after_hold(snapshot)
                assert len(planned) == (1 if game.hold is not None else outcomes)
                _press_hold(game)
                assert question(PcRequest(0, snapshot_of(game))) in _keys(planned)
                checked["hold alone"] += 1
                continue
            options = [(snapshot.current, False)]
            if rules.hold and not game.hold_used:
                options.append((snapshot.queue[0] if snapshot.hold is None else snapshot.hold, True))
            piece, hold = rng.choice(options)
            children = list(gen.children(game.board.bits, lines, piece))
            if not children:
                break  # this field has no PC placement for the piece: next game
            clearing = [child for child in children if child.h < lines]
            step = step_of(piece, rng.choice(clearing if clearing and rng.random() < 0.8 else children), hold=hold)
            planned, cleared = after_cells(snapshot, step.mask, step.hold)
            assert len(planned) == len(_keys(planned))
            if not (hold and snapshot.hold is None):  # one piece dealt (two after an empty hold's first use)
                assert len(planned) == outcomes
            move = pc_service.step_move(game.board, step, rules, soft_drop=True)
            _place(game, move.keys, move.hold)
            assert question(PcRequest(0, snapshot_of(game))) in _keys(planned)
            assert game.board.bits == planned[0].board.bits
            checked["hold placement" if hold else "placement"] += 1
            checked["rows cleared"] += cleared > 0
            lines = lines_after(PcRequest(0, snapshot, lines=lines), cleared, not game.board.bits)
    assert all(checked.values()), checked


@pytest.mark.parametrize("randomizer", ("7bag", "random"))
def test_an_aim_plans_the_position_the_lock_on_the_ghost_gives_first(randomizer):
    """The piece in play moved about with single key presses (a new press each other tick, hold on its own now
    and then), then aimed at where its ghost is, then hard dropped: the position after the lock is among the
    aimed ones, which come before the plan; a new plan (the next answer's) drops them."""
    from game.placement import Placement

    rules = Rules.named("srs")
    rng = random.Random(randomizer)
    config = GameConfig(rules=rules, randomizer=randomizer, gravity_mode=GravityMode.FIXED, gravity=0)
    keys = (Button.LEFT, Button.RIGHT, Button.ROTATE_CW, Button.ROTATE_CCW, Button.SOFT_DROP)
    checked = 0
    for seed in range(12):
        game = Game(config, seed)
        game.tick(Button.NONE)
        lines = 4
        for _ in range(10):
            if game.over or game.board.height() > 4:
                break
            if not game.hold_used and rng.random() < 0.2:
                _press_hold(game)
            for _ in range(rng.randrange(6)):
                game.tick(rng.choice(keys))
                game.tick(Button.NONE)
            ahead = ThinkingAhead()
            request = PcRequest(0, snapshot_of(game), lines=lines)
            ahead.plan(request, ())
            plan = ahead.planned()
            active = game.active
            ahead.aim(request, Placement(active.piece, active.rotation, active.x, game.ghost_y()))
            aimed = ahead.planned()[: len(ahead.planned()) - len(plan)]
            assert aimed and ahead.planned()[len(aimed) :] == plan
            pieces, cleared = game.stats.pieces, game.stats.lines
            game.tick(Button.NONE)
            game.tick(Button.HARD_DROP)
            while game.active is None and not game.over:
                game.tick(Button.NONE)
            if game.over:
                break
            assert game.stats.pieces == pieces + 1
            lines = lines_after(request, game.stats.lines - cleared, not game.board.bits)
            assert question(PcRequest(0, snapshot_of(game), lines=lines)) in {question(r) for r in aimed}
            ahead.plan(request, ())
            assert ahead.planned() == plan  # the next answer's plan: the aim is dropped
            checked += 1
    assert checked >= 20


def test_the_rows_asked_next_are_the_windows():
    """The window asks about the rows still to clear, and about a new 4-line PC on an empty field
    (ui.coach.pc_lines, which these planned questions must equal to be of any use)."""
    from game.board import Board
    from ui.coach import pc_lines

    rules = Rules.named("srs")
    game = Game(GameConfig(rules=rules), 1, board=Board.from_rows(["XXXXXXXXX_"] * 2 + ["XXXXXX____"]))
    game.tick(Button.NONE)
    request = PcRequest(0, snapshot_of(game), lines=pc_lines(game, True))
    assert request.lines == 4
    assert lines_after(request, 0, False) == pc_lines(game, True)
    assert lines_after(request, 2, False) == 2 and lines_after(request, 3, True) == 4


def _fresh_answer(request: PcRequest) -> PcAnswer:
    """The answer a worker that kept nothing gives."""
    saved, pc_service.AHEAD = pc_service.AHEAD, ThinkingAhead()
    try:
        sent: list = []
        pc_service.solve_for_hint(request, lambda: False, sent.append)
        return sent[-1]
    finally:
        pc_service.AHEAD = saved


def _same(a: PcAnswer, b: PcAnswer) -> bool:
    # which of several equally good placements is advised depends on what the solver's caches hold
    return (a.solvable, a.chance, a.estimate, a.lines, a.note, len(a.overlay)) == (
        b.solvable,
        b.chance,
        b.estimate,
        b.lines,
        b.note,
        len(b.overlay),
    )


def test_an_answer_worked_out_ahead_is_the_searched_answer(monkeypatch):
    """A 7-bag game from an empty field, the player following the panel: after each answer the worker thinks
    ahead; the answers it kept equal the answers searched afresh, and the position the panel leads to is
    answered from what was kept."""
    from ai.pc.loop import PREVIEWS, bag_state, bag_stream, play
    from ai.protocol import Snapshot
    from game.board import Board

    monkeypatch.setattr(pc_service, "AHEAD", ThinkingAhead())
    rules = Rules.named("srs")
    stream = bag_stream(3, 4)
    snapshot = Snapshot(Board.empty(), stream[0], tuple(stream[1:6]), None, False, 0, 0, rules, "7bag", ())
    request = PcRequest(1, replace(snapshot, randomizer_state=bag_state(stream, 1 + PREVIEWS)))
    r = 0  # the piece in play's index in the stream
    compared = 0
    for generation in range(1, 9):
        sent: list = []
        hits = pc_service.AHEAD.hits
        pc_service.solve_for_hint(request, lambda: False, sent.append)
        assert sent[-1].generation == generation and sent[-1].final
        if generation > 1:
            assert pc_service.AHEAD.hits == hits + 1, "the position the panel led to was not worked out ahead"
        planned = pc_service.AHEAD.planned()
        assert planned
        while pc_service.think_ahead(lambda: False):
            pass
        for ahead in planned[:3]:
            kept = pc_service.AHEAD.kept(ahead)
            assert kept is not None and _same(kept.answer, _fresh_answer(ahead)), ahead.snapshot
            compared += 1
        step = pc_service.AHEAD.kept(request).steps[0]  # the panel's move
        _, r, _ = play(stream, r, request.snapshot.hold, step.hold)
        after, cleared = after_cells(request.snapshot, step.mask, step.hold)
        nxt = next(p for p in after if (p.current, *p.queue) == tuple(stream[r : r + 1 + PREVIEWS]))
        request = PcRequest(generation + 1, nxt, lines=lines_after(request, cleared, not nxt.board.bits))
    assert compared >= 20


def _searched(game, lines: int) -> float:
    """The chance pc_chance gives for the position in play, as a fresh search."""
    from ai.pc.chance import pc_chance

    s = snapshot_of(game)
    args = (s.board, s.current, list(s.queue), s.hold, s.randomizer_state, make_randomizer(s.randomizer, 0))
    return pc_chance(*args, s.rules, lines, hold_spent=s.hold_used and s.hold is not None).chance


def test_a_player_following_the_panel_is_answered_from_what_was_worked_out_ahead(ai_app):
    """PC practice from an empty field with the worker in a thread, thinking ahead. The player waits until the
    worker has nothing planned left (a player who thinks long enough), then presses keys one at a time: the
    panel's move (hold on its own first when it says hold), a mistake (the piece dropped where it spawns), undo.
    Every chance shown equals a fresh search; each position the panel led to, hold pressed and the position
    undone to were answered from what was kept."""
    import ai.pc_service
    from tests.players import pc_practice, run_until

    app = ai_app
    keys, scene = pc_practice(app, 5)
    coach, game = scene.coach, scene.game
    seen = {"plans": 0}

    def settled() -> bool:
        """The final answer for this position is shown and the worker has thought ahead from it."""
        shown, ahead = coach.pc_shown, ai.pc_service.AHEAD
        return (
            keys.idle
            and shown is not None
            and shown.final
            and shown.chance is not None
            and ahead.plans > seen["plans"]
            and ahead.idle()
        )

    def read_panel() -> int:
        """Wait for the panel to settle; check its chance; the worker's count of answers it had kept."""
        assert run_until(app, settled)
        seen["plans"] = ai.pc_service.AHEAD.plans
        panel = coach.pc_panel()
        assert panel.chance == _searched(game, coach.pc_shown.lines), (game.stats.pieces, game.hold_used)
        return ai.pc_service.AHEAD.hits

    def press(*buttons) -> None:
        keys.pending = list(buttons)
        assert run_until(app, lambda: keys.idle)

    def follow() -> int:
        """Play the panel's move; the worker's count of kept answers used before the piece was placed."""
        move = coach.pc_panel().first_move
        assert move is not None
        pieces = game.stats.pieces
        if move.hold:  # (the panel was read already)
            hits = ai.pc_service.AHEAD.hits
            press(Button.HOLD)  # on its own: the panel is read again before the piece is played
            assert read_panel() == hits + 1, "hold pressed was not worked out ahead"
            move = coach.pc_panel().first_move
            assert move is not None and not move.hold
        hits = ai.pc_service.AHEAD.hits
        keys.executor = KeyExecutor(move.keys)  # one key per tick
        assert run_until(app, lambda: game.stats.pieces == pieces + 1)
        return hits

    try:
        read_panel()
        for _ in range(3):
            hits = follow()
            assert read_panel() == hits + 1, "the position the panel led to was not worked out ahead"
        hits = ai.pc_service.AHEAD.hits
        assert not game.hold_used
        press(Button.HOLD)  # hold on its own, whatever the panel says
        assert game.hold_used and read_panel() == hits + 1
        pieces = game.stats.pieces
        press(Button.HARD_DROP)  # a mistake: dropped where it spawned
        assert game.stats.pieces == pieces + 1
        read_panel()
        hits = ai.pc_service.AHEAD.hits
        press(Button.UNDO)
        assert game.stats.pieces == pieces
        assert read_panel() == hits + 1, "the position undone to was not kept"
        hits = follow()
        assert read_panel() == hits + 1
    finally:
        app.scenes.pop()


def test_a_kept_answer_is_never_sent_for_the_same_pieces_with_hold_spent(monkeypatch):
    """The same field and pieces with hold pressed already is another question: an answer that advises hold,
    kept for the position before hold, must not be sent for it (its move could not be played)."""
    from ai.pc.loop import loop_positions

    monkeypatch.setattr(pc_service, "AHEAD", ThinkingAhead())
    rules = Rules.named("srs")
    for position in loop_positions(2, pcs=2, rules=rules):
        if position.hold is None:
            continue
        request = PcRequest(1, position.snapshot(rules))
        sent: list = []
        pc_service.solve_for_hint(request, lambda: False, sent.append)
        first = sent[-1].solution[0] if sent[-1].solution else sent[-1].best_next
        if first is None or not first.hold:
            continue
        spent = PcRequest(2, replace(request.snapshot, hold_used=True))
        sent = []
        pc_service.solve_for_hint(spent, lambda: False, sent.append)
        answer = sent[-1]
        assert all(not move.hold for move in answer.solution) and not (answer.best_next and answer.best_next.hold)
        assert _same(answer, _fresh_answer(spent))
        return
    pytest.fail("no position advised hold with a piece in hold")


def test_a_player_playing_their_own_first_piece_finds_its_answer_worked_out_at_the_lock(ai_app):
    """PC practice from an empty field, the worker in a thread thinking ahead. At the first piece the player does
    not follow the advice: they move the piece, one key per tick, to another spot a hard drop reaches, rest there
    until the worker has nothing left to think about, then press hard drop. That position was answered from what
    was worked out while the ghost rested there, and the chance shown equals a fresh search. At the next piece
    they rest on one spot, then move and drop at once: that position is searched, and what the panel shows is
    still the fresh search's. Resting where the piece spawned is no aim (that is where a player thinks)."""
    import ai.pc_service
    from tests.players import pc_practice, run_until

    app = ai_app
    keys, scene = pc_practice(app, 5)
    coach, game = scene.coach, scene.game
    rules = game.rules
    gen = searcher_for(rules, True).gen

    def shown() -> bool:
        answer = coach.pc_shown
        return keys.idle and answer is not None and answer.final and answer.chance is not None

    def ahead():
        return ai.pc_service.AHEAD

    def own_move(index: int):
        """A spot a plain hard drop reaches that is not the panel's move: its keys, hard drop last."""
        advised = coach.pc_panel().first_move
        spots = [
            child
            for child in gen.children(game.board.bits, 4, game.active.piece)
            if child.hard and (advised is None or advised.hold or child.mask != advised.placement.mask)
        ]
        piece = game.active.piece
        moves = [pc_service.step_move(game.board, step_of(piece, c, hold=False), rules, True) for c in spots]
        moves = [move for move in moves if len(move.keys) > 1]  # not where it spawns: the ghost moves
        return moves[index % len(moves)]

    def go_to(move) -> None:
        """Press the move's keys but the hard drop, one per tick, then let the ghost rest until the worker is idle."""
        keys.executor = KeyExecutor(move.keys[:-1])
        assert run_until(app, lambda: keys.idle)
        aims = ahead().aims
        assert run_until(app, lambda: ahead().aims > aims and ahead().idle()), "the resting ghost was not aimed at"

    def drop() -> None:
        pieces = game.stats.pieces
        keys.pending = [Button.NONE, Button.HARD_DROP]
        assert run_until(app, lambda: game.stats.pieces == pieces + 1 and keys.idle)

    def shown_chance() -> float | None:
        assert run_until(app, shown)
        return coach.pc_panel().chance

    try:
        shown_chance()
        run_until(app, lambda: False, timeout_s=0.5)  # resting where it spawned: the player thinks
        assert ahead().aims == 0  # and the worker works out the panel's move, not the spawn spot's
        move = own_move(3)
        go_to(move)
        hits = ahead().hits
        drop()
        assert shown_chance() == _searched(game, coach.pc_shown.lines)
        assert ahead().hits == hits + 1, "the position after the resting ghost was not worked out ahead"
        assert game.board.bits == move.placement.mask
        go_to(own_move(1))  # rests here...
        move = own_move(5)  # ... then plays another spot without resting
        keys.executor = KeyExecutor(move.keys)
        pieces = game.stats.pieces
        assert run_until(app, lambda: game.stats.pieces == pieces + 1 and keys.idle)
        assert shown_chance() == _searched(game, coach.pc_shown.lines)
    finally:
        app.scenes.pop()


def test_no_planned_search_runs_while_the_kernels_warm_up(monkeypatch):
    """While the worker's warm-up thread loads (or, after an install, compiles) the kernels, its idle work only
    waits: a planned search would compile them itself without a word to the window, which then takes the worker for
    a hung one. Once they are loaded, the plan is answered."""
    import threading

    import ai.service
    from ai.pc.loop import PREVIEWS, bag_state, bag_stream
    from ai.protocol import Snapshot

    monkeypatch.setattr(pc_service, "AHEAD", ThinkingAhead())
    stream = bag_stream(3, 2)
    state = bag_state(stream, 1 + PREVIEWS)
    snapshot = Snapshot(
        Board.empty(), stream[0], tuple(stream[1:6]), None, False, 0, 0, Rules.named("srs"), "7bag", state
    )
    request = PcRequest(1, snapshot)
    pc_service.solve_for_hint(request, lambda: False, [].append)
    planned = pc_service.AHEAD.planned()
    assert planned
    warming = threading.Event()  # not set: the warm-up is running
    monkeypatch.setattr(ai.service, "_not_warming_up", warming)
    assert ai.service.think_ahead(lambda: False)  # more to do: it waits
    assert pc_service.AHEAD.planned() == planned and pc_service.AHEAD.idle() is False
    warming.set()
    ai.service.think_ahead(lambda: False)
    assert pc_service.AHEAD.planned() == planned[1:]  # the first planned question answered
    assert pc_service.AHEAD.kept(planned[0]) is not None


def test_a_planned_search_is_not_cut_at_the_windows_budget(monkeypatch):
    """The window gives its question 150 ms; a planned one runs in idle time (a request interrupts it) and an
    answer cut short is not kept, so its search gets PLANNED_BUDGET_MS (a loaded machine can overrun 150 ms)."""
    from ai.pc.loop import PREVIEWS, bag_state, bag_stream
    from ai.pc_ahead import PLANNED_BUDGET_MS
    from ai.protocol import Snapshot

    monkeypatch.setattr(pc_service, "AHEAD", ThinkingAhead())
    stream = bag_stream(3, 2)
    snapshot = Snapshot(Board.empty(), stream[0], tuple(stream[1:6]), None, False, 0, 0, Rules.named("srs"), "7bag", ())
    request = PcRequest(1, replace(snapshot, randomizer_state=bag_state(stream, 1 + PREVIEWS)))
    assert request.budget_ms == 150.0
    pc_service.solve_for_hint(request, lambda: False, [].append)
    planned = pc_service.AHEAD.planned()
    budgets: list[float] = []
    real = pc_service.solve_position

    def recording(*args, budget_ms, **kwargs):
        budgets.append(budget_ms)
        return real(*args, budget_ms=budget_ms, **kwargs)

    monkeypatch.setattr(pc_service, "solve_position", recording)
    assert planned and all(ahead.budget_ms == PLANNED_BUDGET_MS for ahead in planned)
    pc_service.think_ahead(lambda: False)
    assert budgets and min(budgets) > 1_000  # (less the time spent, as the window's question)
    assert pc_service.AHEAD.kept(planned[0]) is not None
