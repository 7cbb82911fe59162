"""Guided set-up practice, played from what the panel says one key at a time: the coach shows how to build the
chosen library shape with the pieces seen, each piece lands where the overlay showed it, the build chance shown
is the exact share of continuations (checked by brute force with the finder), and once the shape stands the
finish coach (the PC overlay) takes over. The worker is the real service in a thread."""

from __future__ import annotations

import pytest

import ai.service
from ai.pc.setup import Shape, build_chance
from game.executor import KeyExecutor
from game.finesse import Key
from game.handling import Button
from game.pieces import Piece
from game.randomizer import make_randomizer
from game.setups import read_library
from tests.players import Keys, run_until
from ui import testing
from ui.coach import move_cells, snapshot_of
from ui.modes import SETUP_PRACTICE
from ui.play import PlayScene
from ui.setup_menu import SetupMenuScene, setup_practice_start
from ui.worker_client import WorkerClient, spawn_thread_worker


@pytest.fixture
def app(tmp_path, monkeypatch):
    monkeypatch.setenv("STACKCOACH_CONFIG_DIR", str(tmp_path))
    monkeypatch.setenv("STACKCOACH_DATA_DIR", str(tmp_path))
    app, screen = testing.make_app(tmp_path)
    app.screen = screen
    app.worker_factory = lambda: WorkerClient(lambda: spawn_thread_worker(ai.service.handle))
    yield app
    app.close_worker()


def _brute_force_share(snapshot, must: int, may: int, first) -> float:
    """Share of the continuations after which the rest of the shape can still be built, placing `first` now
    (with the finder over each continuation separately)."""
    bits = snapshot.board.bits
    mask = 0
    for x, y in move_cells(first):
        mask |= 1 << (y * 10 + x)
    left = must & ~bits & ~mask
    if not left:
        return 1.0
    rest = Shape(bits | mask, left, may & ~(bits | mask))
    queue = (snapshot.current, *snapshot.queue)
    if first.hold:
        after, hold = (queue[2:], snapshot.current) if snapshot.hold is None else (queue[1:], snapshot.current)
    else:
        after, hold = queue[1:], snapshot.hold
    known = len(queue) + (snapshot.hold is not None)
    unknown = max(0, (must | may).bit_count() // 4 + 1 - known)
    futures = [s for s, p in make_randomizer("7bag", 0).sequences(unknown, snapshot.randomizer_state) if p > 0]
    ok = sum(build_chance(rest, [after + tuple(f)], hold=hold, rules=snapshot.rules).success for f in futures)
    return ok / len(futures)


def _practice(app, key: str, seed: int):
    """Set-up practice on library entry `key` with bag seed `seed`, on top of the scene stack, and a keyboard."""
    from ui.setup_practice import SetupPracticeScene

    entries = read_library()
    entry = next(e for e in entries if e.key == key)
    keys = Keys(app)
    scene = SetupPracticeScene(app, entry, entries, seed=seed)
    keys.scene = scene
    app.scenes.push(scene)
    return keys, scene


@pytest.mark.parametrize(("key", "seed"), [("pco_with_I", 3), ("mko", 2), ("dt_cannon_1", 3)])
def test_following_the_build_panel_builds_the_set_up(app, key, seed):
    entry = next(e for e in read_library() if e.key == key)
    keys = Keys(app)
    start = setup_practice_start(entry, seed)
    scene = PlayScene(app, SETUP_PRACTICE, start, seed)
    keys.scene = scene
    app.scenes.push(scene)
    coach, game = scene.coach, scene.game
    target = start.build
    checked = 0
    for _ in range(10):
        if target.built(game):
            break
        assert run_until(app, lambda: coach.build_panel().status != "solving")
        panel = coach.build_panel()
        app.draw(app.screen)  # the panel draws without raising
        assert panel.status == "possible", panel
        move = panel.first_move
        assert panel.advice.startswith(
            ("Next: hold, then place" if move.hold else "Next: place") + f" the {move.placement.piece.name}"
        )
        assert not (move.hold and game.hold_used)
        if checked < 2:  # the chance shown is the exact share for the advised placement
            assert panel.chance == pytest.approx(_brute_force_share(snapshot_of(game), target.must, target.may, move))
            checked += 1
        if move.hold:
            keys.pending = [Button.HOLD]
            assert run_until(app, lambda: keys.idle and game.hold_used)
            assert run_until(app, lambda: coach.build_panel().status != "solving")
            move = coach.build_panel().first_move
            assert move is not None and not move.hold and move.placement.piece == game.active.piece
            panel = coach.build_panel()
        expected = game.board.bits
        for x, y in panel.overlay[0][1]:
            expected |= 1 << (y * 10 + x)
        pieces = game.stats.pieces
        keys.executor = KeyExecutor(move.keys)
        assert run_until(app, lambda pieces=pieces: game.stats.pieces > pieces)
        assert game.board.bits == expected
    assert target.built(game) and game.board.bits & ~(target.must | target.may) == 0
    # the finish takes over: for a PC finish the PC coach, for a T-spin the engine's hint
    assert not coach.building
    if "PC" in entry.finishes:
        assert coach.pc_on
        assert run_until(app, lambda: coach.pc_shown is not None)
    app.draw(app.screen)


def coach_key(scene):
    from ui.coach import position_key

    return position_key(scene.game)


def test_a_misplaced_piece_is_called_and_can_be_rewound(app):
    entry = next(e for e in read_library() if e.key == "pco_with_I")
    keys = Keys(app)
    start = setup_practice_start(entry, 3)
    scene = PlayScene(app, SETUP_PRACTICE, start, 3)
    keys.scene = scene
    app.scenes.push(scene)
    coach, game = scene.coach, scene.game
    assert run_until(app, lambda: coach.build_panel().status == "possible")
    # a piece dropped where it spawns: the middle columns, which the PCO leaves empty
    keys.executor = KeyExecutor([Key.HARD_DROP])
    assert run_until(app, lambda: game.stats.pieces == 1)
    assert game.board.bits & ~(start.build.must | start.build.may)  # the mistake this test is about
    assert run_until(app, lambda: coach.pc_lost)
    assert coach.build_panel().headline == "set-up no longer possible"
    app.draw(app.screen)
    testing.tap(app, "backspace")
    assert game.stats.pieces == 0 and not coach.pc_lost


def test_the_menu_says_which_piece_a_set_up_keeps(app):
    menu = SetupMenuScene(app)
    app.scenes.push(menu)
    menu.index = next(i for i, e in enumerate(menu.entries) if e.key == "pc2_lst_save_j")
    assert menu.lines()[1] == "Built from *p4 with hold, keeping the J; finishes: PC"
    testing.tap(app, "m")  # the mirror keeps the L
    assert menu.lines()[1] == "Built from *p4 with hold, keeping the L; finishes: PC"


def test_the_menu_never_rounds_a_chance_to_certain(app):
    """The 4th PC's No IO set-up makes a PC on 99.98% of its queues, not all: the menu must not say 100.0%."""
    menu = SetupMenuScene(app)
    app.scenes.push(menu)
    menu.index = next(i for i, e in enumerate(menu.entries) if e.key == "pc4_no_io")
    assert 0.999 < menu.entry.figures["pc_rate"] < 1
    assert [line for line in menu.lines() if line.startswith("PC chance after it")] == [
        f"PC chance after it >99.9% ({menu.entry.pc_pattern})"
    ]


def test_the_menu_lists_the_library_and_starts_a_build(app):
    from ui.menus import TitleScene

    app.scenes.push(TitleScene(app))
    menu = SetupMenuScene(app)
    app.scenes.push(menu)
    assert menu.entries and menu.lines()[0] == menu.entry.title()
    first = menu.entry.key
    testing.tap(app, "right")
    assert menu.entry.key != first
    app.draw(app.screen)
    testing.tap(app, "return")
    play = app.scenes.top
    assert play.name == "play" and play.mode is SETUP_PRACTICE and play.start.build is not None


def test_a_bag_that_cannot_build_the_set_up_says_so_and_r_deals_another(app):
    entry = next(e for e in read_library() if e.key == "mko")
    start = setup_practice_start(entry, 1)  # this seed's first bag cannot build the MKO, whatever comes
    scene = PlayScene(app, SETUP_PRACTICE, start, 1)
    app.scenes.push(scene)
    coach = scene.coach
    assert run_until(app, lambda: coach.build_panel().status != "solving")
    panel = coach.build_panel()
    assert panel.status == "impossible" and panel.chance == 0.0
    assert (panel.headline, panel.advice) == ("this bag cannot build it", "R deals a new bag")
    app.draw(app.screen)
    first = [scene.game.active.piece, *scene.game.preview()]
    testing.tap(app, "r")
    assert scene.game.stats.pieces == 0 and [scene.game.active.piece, *scene.game.preview()] != first


def _play_advice(app, keys, scene, until, limit: int = 30) -> bool:
    """Place pieces as the coach panel says (the set-up builder, then the PC coach), one key at a time, until
    `until()` holds."""
    coach, game = scene.coach, scene.game
    for _ in range(limit):
        if until():
            return True
        assert run_until(app, lambda: coach.advice_panel().first_move is not None or until(), 120)
        if until():
            return True
        move = coach.advice_panel().first_move
        if move.hold:
            keys.pending = [Button.HOLD]
            assert run_until(app, lambda: keys.idle and game.hold_used)
            assert run_until(app, lambda: coach.advice_panel().first_move is not None, 120)
            move = coach.advice_panel().first_move
        pieces = game.stats.pieces
        keys.executor = KeyExecutor(move.keys)
        assert run_until(app, lambda pieces=pieces: game.stats.pieces > pieces)
    return until()


def test_the_coach_lists_what_the_bag_builds_and_picks_the_best(app, tmp_path):
    from ui import setup_stats

    keys, scene = _practice(app, "pc2_broken_tub", seed=4)
    assert run_until(app, lambda: scene.choices() is not None)
    lines = scene.choice_lines()
    app.draw(app.screen)
    ranked = scene.choices()
    assert lines[0] == "This bag can build:" and len(lines) == len(ranked) + 2
    best_key, best_chance = ranked[0]
    assert all(best_chance >= chance > 0 for _, chance in ranked)
    testing.tap(app, "tab")  # the coach picks the best
    assert scene.target.key == best_key
    # the chance listed is the one the panel shows for the picked set-up
    assert run_until(app, lambda: scene.coach.build_panel().status != "solving")
    assert scene.coach.build_panel().chance == pytest.approx(best_chance)
    target = scene.target
    assert _play_advice(app, keys, scene, lambda: target.built(scene.game))
    scene.restart()  # ends the attempt: it counts for the set-up picked, built
    stats = setup_stats.load()
    assert stats[best_key].attempts == 1 and stats[best_key].built == 1 and stats[best_key].pcs == 0
    menu = SetupMenuScene(app)
    menu.index = next(i for i, e in enumerate(menu.entries) if e.key == best_key.split("/")[0])
    menu.mirrored = best_key.endswith("/mirror")
    assert "Your practice: 1 attempts, 1 built, 0 PCs" in menu.lines()[-1]


def test_loop_mode_goes_on_to_the_next_pc_with_its_set_ups(app):
    from ui import setup_stats

    keys, scene = _practice(app, "pco_no_I", seed=2)  # a bag that builds it and keeps the I
    # the coach builds the PCO wall without the I, which it saves (in hold or next) for the PC
    assert _play_advice(app, keys, scene, lambda: scene.target.built(scene.game), limit=8)
    game = scene.game
    placed = {game.board.colour_at(x, y) for x in range(10) for y in range(4)}
    assert Piece.I in (game.hold, game.active.piece) and int(Piece.I) + 1 not in placed  # colour code = piece + 1
    assert _play_advice(app, keys, scene, lambda: scene.game.stats.perfect_clears == 1, limit=12)
    app.draw(app.screen)
    # the 1st PC is made: the 2nd PC of the loop starts from this bag with its set-ups, the coach picking the best
    assert scene.entry.pc == 2 and scene.coach.building
    assert scene.target.pieces_at_start == scene.game.stats.pieces and scene.target.lines_at_start == 4
    assert run_until(app, lambda: scene.choices() is not None, 120)
    ranked = scene.choices()
    if ranked:
        assert run_until(app, lambda: scene.target.key == ranked[0][0])
        assert run_until(app, lambda: scene.coach.build_panel().status == "possible", 120)
    else:
        assert scene.choice_lines() == ["This bag builds none of them", "R deals a new bag"]
    assert "pco_no_I" not in setup_stats.load()  # counted when the run ends (undo could still take the PC back)
    testing.tap(app, "r")  # a new bag: the run ends
    assert setup_stats.load()["pco_no_I"].pcs == 1


def _menu_line(app, key: str) -> str:
    """What the set-up list shows under the entry `key` (statistics key): the player's practice line."""
    menu = SetupMenuScene(app)
    menu.index = next(i for i, e in enumerate(menu.entries) if e.key == key.split("/")[0])
    menu.mirrored = key.endswith("/mirror")
    return menu.lines()[-1]


def _undo(app, keys, scene) -> None:
    """The undo key (Ctrl+Z), pressed for one tick (the test player stands in for the keyboard)."""
    pieces = scene.game.stats.pieces
    keys.pending = [Button.UNDO]
    assert run_until(app, lambda: scene.game.stats.pieces == pieces - 1)


def test_an_attempt_taken_back_by_undo_does_not_count(app):
    keys, scene = _practice(app, "pco_with_I", seed=3)
    assert _play_advice(app, keys, scene, lambda: scene.game.stats.pieces == 1)
    _undo(app, keys, scene)  # back to the empty board: nothing of this build was placed
    testing.tap(app, "r")  # a new bag
    assert _menu_line(app, "pco_with_I") == "Your practice: not tried yet"


def test_a_shape_taken_apart_by_undo_is_not_built_and_a_pause_ends_nothing(app):
    keys, scene = _practice(app, "pco_with_I", seed=3)
    assert _play_advice(app, keys, scene, lambda: scene.target.built(scene.game))
    testing.tap(app, "escape")  # pause
    assert app.scenes.top is not scene
    testing.tap(app, "escape")  # and back
    assert app.scenes.top is scene
    _undo(app, keys, scene)  # the last piece of the shape comes off
    assert not scene.target.built(scene.game)
    testing.tap(app, "r")
    assert _menu_line(app, "pco_with_I") == "Your practice: 1 attempts, 0 built, 0 PCs"


def test_a_pc_taken_back_by_undo_does_not_count(app):
    keys, scene = _practice(app, "pco_no_I", seed=2)
    assert _play_advice(app, keys, scene, lambda: scene.game.stats.perfect_clears == 1, limit=12)
    assert scene.entry.pc == 2  # loop mode went on to the 2nd PC
    _undo(app, keys, scene)  # the piece that made the PC comes off: the 1st PC is being played again
    assert scene.entry.key == "pco_no_I" and scene.target.key == "pco_no_I" and scene.game.stats.perfect_clears == 0
    testing.tap(app, "r")
    assert _menu_line(app, "pco_no_I") == "Your practice: 1 attempts, 1 built, 0 PCs"
    assert all(e.pc != 2 or _menu_line(app, e.key) == "Your practice: not tried yet" for e in read_library())
