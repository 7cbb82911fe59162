"""PC practice: the setup library, mirroring, loop starts, the solver-guided flow with a mistake and a rewind,
and the per-setup statistics. The worker runs in a thread with the real PC service."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from game.engine import Game
from game.executor import KeyExecutor
from game.finesse import Key
from game.handling import Button
from game.pieces import Piece
from tests.players import Keys, run_until, use_thread_worker
from ui import testing
from ui.modes import PC_PRACTICE
from ui.pc_setups import PIECES_LEFT, load_setups, loop_start, mirror_board, setup_start
from ui.play import PlayScene
from ui.store import SCHEMA_VERSION, HistoryStore

SHARED = Path(__file__).resolve().parents[2] / "shared"


def test_setup_library_matches_the_shared_fields():
    setups = {s.key: s for s in load_setups()}
    assert {"pco_with_I", "pco_no_I", "grace", "box4x4"} <= set(setups)
    table = SHARED / "pc" / "setups.tsv"
    if not table.exists():
        pytest.skip(f"shared data absent: {table}")
    for line in table.read_text().splitlines():
        name, _, rows = line.split("\t")
        if name in setups:
            board = setups[name].board()
            occupancy = ["".join("_" if c in "_." else "X" for c in r) for r in board.to_rows()]
            assert occupancy == rows.split("/"), name


def test_setups_leave_the_bag_consistent_with_the_pieces_used():
    for setup in load_setups():
        board = setup.board()
        if setup.uses.isalpha() and setup.uses.isupper():
            assert board.cell_count() == 4 * len(setup.uses)
            if setup.bag_left != "*1":
                assert set(setup.uses) | set(setup.bag_left) == set("IJLOSTZ")
                assert not set(setup.uses) & set(setup.bag_left)
        start = setup_start(setup, seed=3)
        game = Game(None, 3, board=start.board, randomizer_state=start.randomizer_state)
        dealt = [game.active.piece, *game.preview()]
        left = list(start.randomizer_state) or []
        # the first pieces dealt are exactly the ones left in the bag, then a full new bag starts
        assert sorted(dealt[: len(left)]) == sorted(left)
        assert len(set(dealt[len(left) : len(left) + 5])) == 5


def test_mirror_swaps_sides_and_pieces():
    grace = next(s for s in load_setups() if s.key == "grace")
    board, mirrored = grace.board(), grace.board(mirrored=True)
    for x in range(10):
        for y in range(4):
            assert board.is_filled(x, y) == mirrored.is_filled(9 - x, y)
    swap = {"S": "Z", "Z": "S", "J": "L", "L": "J"}
    rows, mrows = board.to_rows(), mirrored.to_rows()
    assert [("".join(swap.get(c, c) for c in reversed(r))) for r in rows] == mrows
    assert mirror_board(mirrored).to_rows() == rows
    start = setup_start(grace, 1, mirrored=True)
    assert start.randomizer_state == (Piece.T,)


@pytest.mark.parametrize("n", range(1, 8))
def test_loop_start_deals_the_bag_remainder(n):
    start = loop_start(n, seed=42)
    assert start.board.bits == 0
    k = PIECES_LEFT[n]
    assert len(start.randomizer_state) == (0 if k == 7 else k)
    assert loop_start(n, seed=42).randomizer_state == start.randomizer_state  # the seed decides


def test_store_migrates_version_1_and_keeps_per_setup_stats(tmp_path):
    path = tmp_path / "h.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute(
        "CREATE TABLE games (id INTEGER PRIMARY KEY AUTOINCREMENT, mode TEXT NOT NULL, rules TEXT NOT "
        "NULL, finished INTEGER NOT NULL, seconds REAL NOT NULL, pieces INTEGER NOT NULL, lines INTEGER "
        "NOT NULL, score INTEGER NOT NULL, pps REAL NOT NULL, apm REAL NOT NULL, kpp REAL NOT NULL, "
        "finesse INTEGER NOT NULL, played_at TEXT NOT NULL)"
    )
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()
    store = HistoryStore(path)
    store.save_pc_attempts("Grace system", "srs", [(True, 6.0), (False, 2.0), (True, 10.0)])
    stats = store.pc_stats("Grace system")
    assert (stats.attempts, stats.pcs) == (3, 2)
    assert stats.rate == pytest.approx(2 / 3)
    assert stats.seconds_per_pc == pytest.approx(8.0)
    assert store.pc_stats("PCO (with I)").attempts == 0
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


@pytest.fixture
def app(app):
    """conftest's app, with the AI worker in a thread."""
    return use_thread_worker(app)


class _Press:
    """One tick with these buttons held, in the executor's place."""

    def __init__(self, buttons: Button) -> None:
        self.pressed = buttons
        self.done = False

    def buttons(self, game) -> Button:
        self.done = True
        return self.pressed


def _run_until(app, condition) -> bool:
    return run_until(app, condition, timeout_s=10.0)


def test_pc_practice_from_a_setup_to_a_pc_with_a_rewind(app):
    player = Keys(app)
    grace = next(s for s in load_setups() if s.key == "grace")
    seed = 11
    scene = PlayScene(app, PC_PRACTICE, setup_start(grace, seed), seed)
    player.scene = scene
    app.scenes.push(scene)
    coach = scene.coach
    assert _run_until(app, lambda: coach.pc_shown is not None and coach.pc_shown.final)
    answer = coach.pc_shown
    assert answer.solvable and answer.overlay and answer.chance is not None
    # the overlay covers exactly the empty cells of the 4 rows
    covered = {cell for _, cells in answer.overlay for cell in cells}
    assert len(covered) == 40 - scene.game.board.cell_count()
    # a mistake: drop the piece straight down in the middle
    pieces = scene.game.stats.pieces
    player.executor = KeyExecutor([Key.HARD_DROP])
    assert _run_until(app, lambda: coach.pc_lost)
    assert scene.game.stats.pieces == pieces + 1
    assert coach.good is not None and coach.good.pieces == pieces and coach.good.answer.overlay
    testing.tap(app, "backspace")
    assert scene.game.stats.pieces == pieces and not coach.pc_lost
    # now follow the solver's own solution, one placement at a time, until the PC
    for _ in range(12):
        if scene.game.stats.perfect_clears:
            break
        assert _run_until(app, lambda: coach.pc_shown is not None and coach.pc_shown.solvable), (
            scene.game.stats.pieces,
            coach.pc,
            scene.game.board.to_rows(),
            scene.game.active,
        )
        move = coach.pc_shown.solution[0]
        before = scene.game.stats.pieces
        player.executor = KeyExecutor(move.keys, hold_first=move.hold)
        assert _run_until(app, lambda before=before: scene.game.stats.pieces > before)
    assert scene.game.stats.perfect_clears == 1
    assert scene.game.board.bits == 0
    # take the PC back and play it again: it is still one attempt, one PC
    pieces_at_pc = scene.game.stats.pieces
    player.executor = _Press(Button.UNDO)
    assert _run_until(app, lambda: scene.game.stats.pieces == pieces_at_pc - 1) and scene.game.board.bits
    player.executor = KeyExecutor(move.keys, hold_first=move.hold)
    assert _run_until(app, lambda: scene.game.stats.pieces == pieces_at_pc)
    assert scene.game.board.bits == 0 and scene.game.stats.perfect_clears == 1
    # the run goes on from the empty board: the next PC of the loop gets guidance too
    assert _run_until(app, lambda: coach.pc_shown is not None and coach.pc_shown.final)
    scene.finish()
    stats = app.store.pc_stats("Grace system")
    assert (stats.attempts, stats.pcs) == (1, 1)
    results = app.scenes.top
    assert results.name == "results" and results.pc_stats.pcs == 1


def test_pc_practice_menu_starts_loop_and_setup_runs(app):
    from ui.menus import TitleScene
    from ui.pc_menu import PCPracticeScene

    app.scenes.push(TitleScene(app))
    menu = PCPracticeScene(app)
    app.scenes.push(menu)
    testing.tap(app, "right")
    testing.tap(app, "right")  # the 3rd PC
    testing.tap(app, "return")
    play = app.scenes.top
    assert play.name == "play" and play.start.setup == "Empty board, 3rd PC"
    assert len(play.start.randomizer_state) == 1
    app.scenes.pop()
    menu = PCPracticeScene(app)
    app.scenes.push(menu)
    testing.tap(app, "down")  # the setup line
    testing.tap(app, "right")  # the next setup in the library
    name = menu.setup.name
    testing.tap(app, "down")
    testing.tap(app, "return")  # mirror on
    testing.tap(app, "up")
    testing.tap(app, "return")
    play = app.scenes.top
    assert play.start.setup == f"{name} (mirror)"
    assert play.game.board.bits == menu.setup.board(mirrored=True).bits


def test_quitting_practice_from_pause_keeps_the_attempt(app):
    from ui.menus import PauseScene

    player = Keys(app)
    grace = next(s for s in load_setups() if s.key == "grace")
    scene = PlayScene(app, PC_PRACTICE, setup_start(grace, 5), 5)
    player.scene = scene
    app.scenes.push(scene)
    player.executor = KeyExecutor([Key.HARD_DROP])
    assert _run_until(app, lambda: scene.game.stats.pieces == 1)
    pause = PauseScene(app, scene)
    app.scenes.push(pause)
    pause.quit_to_title()
    assert app.scenes.top.name == "title"
    stats = app.store.pc_stats("Grace system")
    assert (stats.attempts, stats.pcs) == (1, 0)
