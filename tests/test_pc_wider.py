"""The wider rules' bound (ai.pc.opening.WIDER): under plain SRS, where a table made under SRS with 180 holds the
same question, its count bounds the live chance from above and its best placement is tried first. That may only
make the search faster: the chance shown must stay the search's, exactly."""

from __future__ import annotations

import itertools
import random

import pytest

from ai.pc import opening, seconds
from ai.pc.chance import pc_chance
from ai.pc.percent import Trie
from ai.pc.search import searcher_for
from game.pieces import ALL_PIECES, Piece
from game.randomizer import make_randomizer
from settings import change

SRS, WIDE = opening.RULES["srs"], opening.RULES["srs-180"]
SEVEN_BAG = make_randomizer("7bag", 0)


# plain SRS's own boundary table answers these positions before any bound is needed: hidden, as for a group it does
# not hold (the generator's test bounds by the 180 table alone)
pytestmark = pytest.mark.usefixtures("no_plain_srs_boundary_table")


@pytest.fixture(scope="module")
def boundary() -> seconds.Table:
    return seconds.load_table(seconds.BOUNDARY.path("srs-180"), WIDE, seconds.BOUNDARY)


def test_every_placement_under_plain_srs_is_one_under_srs_with_180():
    """The bound's premise, checked on random fields (4 lines, 0 to 24 cells) for every piece: each placement the
    move generator offers under plain SRS it offers under SRS with 180, with the same field after it."""
    narrow, wide = searcher_for(SRS, True).gen, searcher_for(WIDE, True).gen
    rng = random.Random(11)
    more = 0
    for _ in range(150):
        bits = sum(1 << cell for cell in rng.sample(range(40), rng.randrange(25)))
        for piece in ALL_PIECES:
            offered = {child.mask: (child.field, child.h) for child in wide.children(bits, 4, piece)}
            for child in narrow.children(bits, 4, piece):
                assert offered.get(child.mask) == (child.field, child.h), (bits, piece, child.mask)
            more += len(offered) - sum(1 for _ in narrow.children(bits, 4, piece))
    assert more > 0  # 180 rotations do reach more places on such fields


def _position(key: tuple) -> tuple:
    """pc_chance's arguments under plain SRS at a boundary table key's position (see tests/test_pc_seconds._args)."""
    held, _, bits, order = key
    return (bits, order[0], list(order[1:]), held, (), SEVEN_BAG, SRS, 4)


@pytest.fixture
def bounded(monkeypatch) -> list:
    """The wider table's answers the chance got, one per question it bounded."""
    got: list = []
    real = opening.lookup

    def lookup(*args, **kwargs):
        answer = real(*args, **kwargs)
        if args[7] == WIDE and answer is not None:
            got.append(answer)
        return answer

    monkeypatch.setattr(opening, "lookup", lookup)
    return got


def test_plain_srs_at_a_later_pcs_second_position_bounded_by_the_180_table_answers_as_the_search(boundary, bounded):
    """At a later PC's second position (a piece held, the bag shown whole) whose group the SRS-with-180 boundary
    table holds: the chance under plain SRS, bounded by the table's count, is the search's, exact. Checked until
    positions of both kinds were met: those where plain SRS's best is the table's placement, and those where it is
    another (the bound alone must not end the search there)."""
    keys = sorted(key for key, answer in boundary.items() if answer.count < answer.futures)
    same = other = 0
    for key in random.Random(7).sample(keys, 60):
        bounded.clear()
        answer = pc_chance(*_position(key))
        assert bounded == [boundary[key]]
        searched = pc_chance(*_position(key), table=False)
        assert answer.chance == searched.chance and not answer.approximate and not searched.approximate, key
        assert round(answer.chance * boundary[key].futures) <= boundary[key].count
        best = searched.best_placement
        assert best is not None
        if (best.piece, best.mask) == (boundary[key].piece, boundary[key].mask):
            same += 1
        else:
            other += 1
        if same >= 2 and other >= 2:
            break
    assert same >= 2 and other >= 2


def test_hold_pressed_there_under_plain_srs_is_bounded_too(boundary, bounded):
    """Hold pressed at such a position (the held piece comes out, hold spent), where the 180 table answers it
    (its best placement was the held piece's): the bounded chance under plain SRS is the search's."""
    keys = sorted(key for key, answer in boundary.items() if answer.piece == key[0] != key[-1][0])
    for key in random.Random(8).sample(keys, 3):
        held, _, bits, order = key
        pressed = (bits, held, list(order[1:]), order[0], (), SEVEN_BAG, SRS, 4)
        bounded.clear()
        answer = pc_chance(*pressed, hold_spent=True)
        assert bounded == [boundary[key]]
        assert answer.chance == pc_chance(*pressed, hold_spent=True, table=False).chance and not answer.approximate


def test_the_generator_bounded_by_the_180_table_gives_the_unbounded_counts():
    """Making plain SRS's boundary table with each order's count bounded by SRS with 180's (Family.bounds, what
    scripts/make_seconds_table.py --rules srs does): the counts are the unbounded search's, for orders where plain
    SRS reaches the bound and for orders where it stays below, with the bound's placement as its best or not."""
    group = (Piece.L, Piece.I, 137573302400)
    bounds = seconds.BOUNDARY.bounds(SRS, group)
    texts = ("IJOSTZ", "IJOTZS", "JLSOTZ", "JLTOZS", "JSOLTZ", "JZSLTO")
    chosen = [tuple(Piece[name] for name in text) for text in texts]
    futures = list(itertools.permutations(ALL_PIECES, 3))
    trie = Trie([order + future for order in chosen for future in futures])
    args = (SRS, Piece.I, group[2], trie, Piece.L, trie.root, 0, seconds.BOUNDARY.futures)
    bounded = seconds._best_per_order(*args, bounds={order: bounds[order] for order in chosen})
    plain = seconds._best_per_order(*args)
    assert {order: answer.count for order, answer in bounded.items()} == {o: a.count for o, a in plain.items()}
    assert any(bounded[order].count < bounds[order].count for order in chosen)
    assert any(bounded[order].count == bounds[order].count < seconds.BOUNDARY.futures for order in chosen)
    # and where plain SRS's best placement is not the bound's
    assert any((plain[order].piece, plain[order].mask) != (bounds[order].piece, bounds[order].mask) for order in chosen)


def test_a_player_under_plain_srs_at_a_later_pc_sees_the_searchs_chance(ai_app, boundary, bounded):
    app = ai_app
    """PC practice under plain SRS started as a later PC (T held from the bag before, IJLOSZ shown, T left in the
    bag), thinking ahead off: the player drops the I at once on a spot of their own whose group the 180 table
    holds, one key per tick. The panel's chance is the search's, and the worker's search was bounded."""
    from game.board import Board
    from tests.players import drop_on_own_spot, pc_answered, pc_practice, run_until
    from ui.coach import snapshot_of
    from ui.play_state import StartPosition

    assert app.update_settings(change(app.settings, "ai", pc_think_ahead=False)) is None
    assert app.update_settings(change(app.settings, "rules", allow_180=False)) is None
    queue = [Piece[name] for name in "IJLOSZ"]
    start = StartPosition(board=Board.empty(), queue=queue, hold=Piece.T, randomizer_state=(Piece.T,))
    keys, scene = pc_practice(app, 1, start)
    after = (*queue[1:], Piece.T)
    try:
        assert opening.rules_key(scene.game.rules) == opening.rules_key(SRS)
        mask = drop_on_own_spot(
            app, keys, scene, lambda piece, mask: boundary.get((Piece.T, piece, mask, after)) is not None
        )
        assert mask is not None, "the table holds no spot of the I"
        assert run_until(app, lambda: pc_answered(scene.coach))
        now = snapshot_of(scene.game)
        assert (now.hold, now.current, *now.queue[:5]) == (Piece.T, *after)
        shown = scene.coach.pc_panel().chance
        position = (mask, after[0], list(after[1:]), Piece.T, (), SEVEN_BAG, SRS, 4)
        assert shown is not None and shown == pc_chance(*position, table=False).chance
        assert boundary[(Piece.T, Piece.I, mask, after)] in bounded
    finally:
        app.scenes.pop()
