"""`python main.py coach`: the coach panel without a window. It must say exactly what the window says for the
same position (both read `ai.protocol.pc_panel` of the worker's answer), deduce the bag from --bag-offset,
respect --hold-spent, and turn bad input into one `error:` line with exit status 2."""

from __future__ import annotations

import json
import time

import pytest

import ai.service
from ai.coach_cli import CoachInputError, bag_state
from game.fumen import Field, Page, encode
from game.pieces import Piece, parse_queue
from main import main
from ui import testing
from ui.coach import snapshot_of
from ui.modes import PC_PRACTICE
from ui.pc_setups import load_setups, setup_start
from ui.play import PlayScene
from ui.worker_client import WorkerClient, spawn_thread_worker


def _bag(text: str) -> tuple:
    return tuple(sorted(Piece[c] for c in text))


@pytest.mark.parametrize(
    ("queue", "offset", "left"),
    [
        ("TIJLSZ", 0, "O"),  # a whole bag but one: the 7th is deduced
        ("TIJLSZO", 0, ""),  # exactly one bag: a boundary
        ("LJSZIO", 1, "LJSZIO"),  # 6 pieces finish a bag begun earlier; nothing of the next is seen
        ("TIJLSZ", 4, ""),  # T I J finish the bag; L S Z begin the next one
    ],
)
def test_bag_state_from_the_queue_and_offset(queue, offset, left):
    pieces = parse_queue(queue)
    first = 7 - offset
    if len(pieces) > first:  # the pieces after the piece in play's bag start a new one
        expected = tuple(sorted(set(Piece) - set(pieces[first:])))
    elif len(pieces) == first:
        expected = ()
    else:
        expected = _bag(left)
    assert bag_state(pieces, offset) == expected


def test_bag_state_refuses_impossible_and_unknowable_bags():
    with pytest.raises(CoachInputError, match="one 7-bag"):
        bag_state(parse_queue("TTIJLS"), 0)
    with pytest.raises(CoachInputError, match="unknown"):
        bag_state(parse_queue("TIJ"), 2)
    with pytest.raises(CoachInputError, match=r"0\.\.6"):
        bag_state(parse_queue("TIJ"), 7)


def _run(capsys, *argv) -> tuple[int, str, str]:
    code = main(["coach", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    "argv",
    [
        ["--field", "v115@garbage", "--queue", "T"],
        ["--queue", "TX"],
        ["--queue", ""],
        ["--queue", "TIJ", "--hold-spent"],
        ["--queue", "TTIJLS"],
        ["--queue", "TIJ", "--bag-offset", "9"],
        ["--queue", "TIJ", "--lines", "0"],
        ["--queue", "TIJ", "--kicks", "/nonexistent/kicks.toml"],
    ],
)
def test_bad_input_is_one_error_line(capsys, argv):
    code, out, err = _run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1


def test_hold_spent_never_advises_a_hold(capsys):
    grace = next(s for s in load_setups() if s.key == "grace")
    field = encode([Page(Field.from_board(grace.board()))])
    # The deal of seed 26 in the practice tests: T (the last of its bag) then S I L O Z J. Hold free: the PC
    # starts by holding the T and placing the S.
    free = json.loads(_run(capsys, "--field", field, "--queue", "TSILOZ", "--bag-offset", "6", "--json")[1])
    assert free["first_move"]["hold"] is True and free["first_move"]["piece"] == "S"
    # Hold pressed: S in play, T in hold, hold spent. Told as if hold were free, the answer would be to swap
    # back; with --hold-spent the S must go first.
    spent = json.loads(_run(capsys, "--field", field, "--queue", "SILOZJ", "--hold", "T", "--hold-spent", "--json")[1])
    assert spent["first_move"]["hold"] is False and spent["first_move"]["piece"] == "S"
    assert spent["advice"].startswith("Next: place the S")
    # and a position where hold is spent with the wrong piece in play: the advice still never holds
    other = json.loads(
        _run(
            capsys, "--field", field, "--queue", "TILOZJ", "--hold", "S", "--hold-spent", "--bag-offset", "6", "--json"
        )[1]
    )
    assert other["first_move"] is None or other["first_move"]["hold"] is False


def test_the_command_says_what_the_window_says(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("STACKCOACH_CONFIG_DIR", str(tmp_path))
    monkeypatch.setenv("STACKCOACH_DATA_DIR", str(tmp_path))
    app, _ = testing.make_app(tmp_path)
    app.worker_factory = lambda: WorkerClient(lambda: spawn_thread_worker(ai.service.handle))
    try:
        grace = next(s for s in load_setups() if s.key == "grace")
        scene = PlayScene(app, PC_PRACTICE, setup_start(grace, 26), 26)
        app.scenes.push(scene)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not (scene.coach.pc_shown and scene.coach.pc_shown.final):
            app.tick()
            time.sleep(0.002)
        panel = scene.coach.pc_panel()
        snap = snapshot_of(scene.game)
    finally:
        app.close_worker()
    queue = "".join(p.name for p in (snap.current, *snap.queue))
    field = encode([Page(Field.from_board(snap.board))])
    code, out, _ = _run(capsys, "--field", field, "--queue", queue, "--bag-offset", "6", "--json")
    report = json.loads(out)
    assert code == 0
    assert report["advice"] == panel.advice and report["headline"] == panel.headline
    assert report["chance"] == panel.chance and report["chance_text"] == panel.chance_text
    assert [(o["piece"], [tuple(c) for c in o["cells"]]) for o in report["overlay"]] == [
        (p.name, list(cells)) for p, cells in panel.overlay
    ]
    first = panel.first_move
    assert (
        report["first_move"]["piece"],
        report["first_move"]["x"],
        report["first_move"]["y"],
        report["first_move"]["hold"],
    ) == (first.placement.piece.name, first.placement.x, first.placement.y, first.hold)


def test_hint_mode_names_a_placement_with_its_keys(capsys):
    code, out, _ = _run(capsys, "--queue", "TIJLSZ", "--mode", "hint", "--json")
    report = json.loads(out)
    assert code == 0 and report["mode"] == "hint"
    placement = report["placement"]
    assert placement["piece"] in ("T", "I") and placement["keys"][-1] == "hard_drop"
    assert report["hold"] == placement["hold"]
