"""Pixels of the play screen: ghost where the engine says, hold box colours, line-clear flash, banners."""

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pytest

from game.pieces import COLOURS, SHAPES
from ui import render as R
from ui.playfield import play_layout
from ui.testing import make_app, tap


def _zen(app, seed=4):
    from ui.modes import ZEN
    from ui.play import PlayScene

    scene = PlayScene(app, ZEN, seed=seed)
    app.scenes.push(scene)
    return scene


def _pixel(screen, rect):
    return tuple(screen.get_at(rect.center))[:3]


@pytest.mark.parametrize("size", [(1280, 720), (1000, 800)])
def test_ghost_and_active_piece_are_drawn_where_the_engine_says(app, size):
    import pygame

    screen = pygame.display.set_mode(size)
    scene = _zen(app)
    tap(app, "left")
    app.tick()
    game = scene.game
    active, ghost_y = game.active, game.ghost_y()
    assert ghost_y is not None and ghost_y < active.y
    scene.draw(screen)
    lay = play_layout(screen.get_size(), app.settings.display.scale)
    cells = SHAPES[active.piece, active.rotation]
    for dx, dy in cells:
        assert _pixel(screen, lay.cell_rect(active.x + dx, ghost_y + dy)) == R.ghost_colour(active.piece)
        assert _pixel(screen, lay.cell_rect(active.x + dx, active.y + dy)) == COLOURS[active.piece]
    # One row above the ghost is empty field (no ghost drawn there unless the shape covers it).
    covered = {(active.x + dx, ghost_y + dy) for dx, dy in cells}
    probe = next((x, ghost_y + 2) for x in range(10) if (x, ghost_y + 2) not in covered)
    assert _pixel(screen, lay.cell_rect(*probe)) != R.ghost_colour(active.piece)


def test_ghost_can_be_turned_off(app):
    scene = _zen(app)
    app.update_settings(
        app.settings.model_copy(update={"display": app.settings.display.model_copy(update={"ghost": False})})
    )
    game = scene.game
    scene.draw(app.screen)
    lay = play_layout(app.screen.get_size(), app.settings.display.scale)
    dx, dy = SHAPES[game.active.piece, game.active.rotation][0]
    assert _pixel(app.screen, lay.cell_rect(game.active.x + dx, game.ghost_y() + dy)) != R.ghost_colour(
        game.active.piece
    )


def _colours_in(screen, rect):
    return {
        tuple(screen.get_at((x, y)))[:3] for x in range(rect.x, rect.right, 2) for y in range(rect.y, rect.bottom, 2)
    }


def test_hold_box_shows_the_held_piece_greyed_while_hold_is_used(app):
    scene = _zen(app)
    game = scene.game
    piece = game.active.piece
    tap(app, "c")
    app.tick()
    assert game.hold == piece and game.hold_used
    scene.draw(app.screen)
    lay = play_layout(app.screen.get_size(), app.settings.display.scale)
    seen = _colours_in(app.screen, lay.hold)
    assert R.HOLD_USED in seen and COLOURS[piece] not in seen
    app.tick()
    tap(app, "space")  # locking frees the hold again
    app.tick()
    assert not game.hold_used
    scene.draw(app.screen)
    seen = _colours_in(app.screen, lay.hold)
    assert COLOURS[piece] in seen and R.HOLD_USED not in seen


def test_line_clear_flashes_the_cleared_row(tmp_path, app):
    from game.board import Board
    from game.pieces import Piece
    from ui.modes import PC_PRACTICE
    from ui.play import PlayScene, StartPosition

    board = Board.from_rows(["XXXX__XXXX"])
    scene = PlayScene(app, PC_PRACTICE, StartPosition(board=board, queue=[Piece.O, Piece.T]), seed=1)
    app.scenes.push(scene)
    tap(app, "space")  # O at columns 4-5 fills the row
    app.tick()
    assert scene.flash is not None and scene.flash[0] == (0,)
    scene.draw(app.screen)
    lay = play_layout(app.screen.get_size(), app.settings.display.scale)
    flashed = _pixel(app.screen, lay.cell_rect(0, 0))
    assert min(flashed) > 150  # white-ish over the cleared row
    assert any(text.startswith("SINGLE") for text in (p.text for p in scene.popups))


def test_title_banner_shows_settings_problems(tmp_path, monkeypatch):
    from ui.menus import TitleScene

    monkeypatch.setenv("STACKCOACH_CONFIG_DIR", str(tmp_path))
    monkeypatch.setenv("STACKCOACH_DATA_DIR", str(tmp_path))
    (tmp_path / "settings.toml").write_text("[rules]\npreviews = 99\n", "utf-8")
    app, screen = make_app(tmp_path)
    texts = " ".join(text for text, _ in app.messages())
    assert "previews" in texts and ".bak" in texts
    title = TitleScene(app)
    app.scenes.push(title)
    title.draw(screen)
    assert tuple(screen.get_at((565, 475)))[:3] == (40, 22, 26)  # the red-tinted problem box


def test_bag_divider_marks_where_a_new_bag_starts(app):
    app.update_settings(
        app.settings.model_copy(update={"display": app.settings.display.model_copy(update={"bag_divider": True})})
    )
    scene = _zen(app)
    game = scene.game
    for _ in range(2):
        tap(app, "space")
        app.tick()
        app.tick()
    assert game.stream_pos == 3  # pieces 0..2 dealt: preview 4 is the first of the second bag
    scene.draw(app.screen)
    lay = play_layout(app.screen.get_size(), app.settings.display.scale)
    c = lay.c
    line_y = lay.queue.y + c + 4 * int(2.6 * c)
    assert tuple(app.screen.get_at((lay.queue.centerx, line_y)))[:3] == R.ACCENT
    other_y = lay.queue.y + c + 3 * int(2.6 * c)
    assert tuple(app.screen.get_at((lay.queue.centerx, other_y)))[:3] != R.ACCENT


def test_drawing_changes_no_state(app):
    from ui.menus import PauseScene

    scene = _zen(app)
    game = scene.game
    tap(app, "space")
    app.tick()
    app.tick()

    def state():
        return (
            game.randomizer.state,
            game.board,
            game.active,
            game.hold,
            game.ticks,
            repr(game.stats),
            scene.clock,
            list(scene.popups),
            scene.flash,
            list(scene.previews),
        )

    before = state()
    app.scenes.push(PauseScene(app, scene))
    for _ in range(3):
        app.draw(app.screen)
    assert state() == before


def test_finesse_fault_is_counted_and_shown(app):
    scene = _zen(app)
    game = scene.game
    for name in ("left", "right", "left", "right"):  # four wasted presses before the drop
        tap(app, name)
        app.tick()
        app.tick()
    tap(app, "space")
    app.tick()
    assert game.stats.pieces == 1
    assert scene.finesse_total >= 4 and scene.summary()["finesse"] == scene.finesse_total
    assert any(p.text.startswith("FINESSE +") for p in scene.popups)
    tap(app, "ctrl+z")  # undo takes the fault back with the placement
    app.tick()
    assert scene.finesse_total == 0


def test_text_cache_keeps_what_is_used_and_stays_bounded(app) -> None:
    """Rendered text is an LRU: a label drawn every frame survives hundreds of one-off texts (it used to be
    dropped with everything else whenever the cache filled)."""
    label = R.text("Score", 20)
    for i in range(1500):
        R.text(f"one-off {i}", 20)
        assert R.text("Score", 20) is label
    assert R._rendered_text.cache_info().currsize <= R._rendered_text.cache_info().maxsize == 600


def _blits_recorded(monkeypatch) -> list[tuple[str, object]]:
    """Every text drawn through ui.render.blit_text from now on, with the rect it was drawn in."""
    drawn: list[tuple[str, object]] = []
    original = R.blit_text

    def recording(surface, s, pos, size, colour=R.TEXT, anchor="topleft"):
        rect = original(surface, s, pos, size, colour, anchor)
        drawn.append((s, rect))
        return rect

    monkeypatch.setattr(R, "blit_text", recording)
    return drawn


LONG_WORD = "Horizontalboxwithoutanyspaceinitsnamewhatsoever"


@pytest.mark.parametrize("name", [None, f"2nd PC: {LONG_WORD} (save I)"])
@pytest.mark.parametrize("size", [(1280, 720), (1000, 800)])
def test_coach_panel_and_choice_box_keep_long_set_up_names_inside(app, monkeypatch, size, name):
    """A long set-up name (Horizontal box (save I), or one word wider than the panel) is wrapped or elided: no
    text of the Coach panel passes its inner right edge, none of the choice box its box."""
    from dataclasses import replace

    import pygame

    from ai.protocol import BuildAnswer
    from game.setups import read_library
    from ui.coach import position_key
    from ui.coach_view import ELLIPSIS
    from ui.setup_practice import SetupPracticeScene

    screen = pygame.display.set_mode(size)
    entries = read_library()
    entry = next(e for e in entries if e.name == "2nd PC: Horizontal box (save I)")
    scene = SetupPracticeScene(app, entry, entries, seed=5)
    if name is not None:
        scene.start = replace(scene.start, build=replace(scene.target, name=name))
    app.scenes.push(scene)
    target = scene.target
    # The worker's answer for this bag: the shape cannot be built, and every set-up of the group is offered.
    answer = BuildAnswer(generation=0, buildable=False, choices=tuple((key, 0.5) for key, _, _ in target.choices))
    scene.coach.builds.keep(answer, position_key(scene.game), scene.clock)
    assert len(scene.choice_lines()) > 3  # the choice box lists the set-ups
    drawn = _blits_recorded(monkeypatch)
    scene.draw(screen)
    lay = play_layout(screen.get_size(), app.settings.display.scale)
    inner_right = lay.coach.right - lay.c // 2
    in_panel = [(text, rect) for text, rect in drawn if lay.coach.collidepoint(rect.topleft)]
    view = R.View(screen.get_size())
    box = view.rect(185, 468, 175, 204)  # ui.setup_practice's choice box
    in_box = [(text, rect) for text, rect in drawn if box.collidepoint(rect.topleft)]
    shown = " ".join(text for text, _ in in_panel)
    assert "Set-up:" in shown and "this bag cannot build it" in shown
    assert len(in_box) > 3
    # the keys line always shows at the bottom; a list longer than the box stops with an ellipsis, else every
    # set-up is there (numbered)
    assert any("Tab best" in text for text, _ in in_box)
    numbers = {text.split()[0] for text, _ in in_box if text.split()[0].isdigit()}
    assert any(text == ELLIPSIS for text, _ in in_box) or numbers == {
        str(n) for n in range(1, len(scene.choices()) + 1)
    }
    assert [text for text, rect in in_panel if rect.right > inner_right] == []
    assert [text for text, rect in in_box if rect.right > box.right] == []
    if name is None:  # spaces to wrap at: the whole name is there, over two lines
        assert "Horizontal box" in shown and "(save I)" in shown and ELLIPSIS not in shown
    else:  # one word wider than the panel: cut with an ellipsis
        assert any(text.endswith(ELLIPSIS) and text.startswith("Horizontalbox") for text, _ in in_panel)


def test_fit_lines_wraps_at_spaces_and_elides_what_still_does_not_fit(app):
    from ui.coach_view import ELLIPSIS, fit_lines

    size, width = 20, 120
    font = R.font(size)
    lines = fit_lines("Set-up: 2nd PC: Horizontal box (save I)", size, width)
    assert len(lines) > 1 and " ".join(lines) == "Set-up: 2nd PC: Horizontal box (save I)"
    assert fit_lines(LONG_WORD, size, width)[0].endswith(ELLIPSIS)
    two = fit_lines("one two three four five six seven eight nine ten", size, width, max_lines=2)
    assert len(two) == 2 and two[-1].endswith(ELLIPSIS)
    assert all(font.size(line)[0] <= width for line in [*lines, *two, *fit_lines(LONG_WORD, size, width)])
    assert fit_lines("short", size, width) == ["short"]
