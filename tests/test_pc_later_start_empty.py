"""The later-start tables with hold empty (ai.pc.later_start's hold-empty kinds): the live chance at a later PC's
first position of a player who keeps no piece in hold, looked up. Checked as the held kinds are
(tests/test_pc_later_start.py): whole and made under today's rules, entries against the search, an answer's count
against the single-queue solver future by future, and through the panel by a player who follows it one key at a
time, with a mistake taken back and hold pressed on its own."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from ai.pc import later_start, opening
from ai.pc.api import solve
from ai.pc.chance import pc_chance
from ai.protocol import percent_text
from game.pieces import Piece
from tests.later_start_tables import (
    NO_TABLES,
    RULES,
    SEVEN_BAG,
    Practice,
    assert_whole,
    doubled,
    fewest_kept,
    load_shipped,
    no_2_line_pc_shown,
    played_params,
    position_of,
    searched_chance,
    shipped_params,
)

# The kinds with hold empty: a bag's last six shown (2,520 futures), or its last five and the next bag's first (720),
# or its last two or one and the next bag's first four or five (252, 420).
EMPTY_KINDS = (
    later_start.LATER_START_EMPTY,
    later_start.TWO_DEALT_EMPTY,
    later_start.FIVE_DEALT_EMPTY,
    later_start.SIX_DEALT_EMPTY,
    later_start.THREE_DEALT_EMPTY,
    later_start.FOUR_DEALT_EMPTY,
)


def _hardest_with_a_pc(table: dict, acceptable: Callable[[later_start.Key], bool] = lambda _: True) -> later_start.Key:
    """The position whose best placement keeps the fewest futures, but some (the first `acceptable` one, if told)."""
    return fewest_kept(table, (key for key, (first, _) in table.items() if first.count), acceptable)


@pytest.mark.parametrize(("name", "kind"), shipped_params(EMPTY_KINDS))
def test_each_hold_empty_table_holds_every_position_and_no_pressed_answer(name, kind):
    """Made under today's rules, whole, and each line as described: the best placement is the piece in play's
    or, hold pressed, the next one's; pressing hold with hold empty shows a new piece, another position, so there is
    no pressed answer."""
    table = load_shipped(name, kind)
    assert_whole(name, kind, table)
    assert kind.size == {1: 5_040, 2: 17_640, 3: 35_280, 4: 44_100, 5: 35_280, 6: 17_640}[kind.dealt]
    assert kind.futures == {1: 2_520, 2: 720, 3: 120, 4: 168, 5: 252, 6: 420}[kind.dealt]
    for (held, shown), (first, pressed) in table.items():
        assert held is None and pressed is None and first.futures == kind.futures
        assert 0 <= first.count <= kind.futures and first.piece in shown[:2]


@pytest.mark.parametrize(("name", "kind"), shipped_params(EMPTY_KINDS))
def test_hold_empty_entries_equal_the_search_and_pc_chance_answers_from_them(name, kind):
    table, rules = load_shipped(name, kind), opening.RULES[name]
    hardest = _hardest_with_a_pc(table)
    for key in random.Random(56).sample(sorted(table), 2):  # (the hardest is searched below, as the panel asks)
        stored, searched = table[key], later_start.compute(key, rules, kind)
        assert later_start.counts(stored) == later_start.counts(searched), later_start.format_line(key, stored)
    _, shown = hardest
    position = position_of(hardest, False, kind, rules)
    looked_up = pc_chance(*position)
    assert looked_up.chance == searched_chance(*position) and not looked_up.approximate
    assert looked_up.futures == kind.futures and round(looked_up.chance * kind.futures) == table[hardest][0].count
    best = looked_up.best_placement
    assert best is not None and best.hold == (best.piece != shown[0]) and best.piece == table[hardest][0].piece


def test_a_hold_empty_answer_keeps_its_count_future_by_future():
    """The two-dealt hold-empty table's hardest answer, checked with the single-queue solver over its 720 futures:
    the placement as named (the piece in play's, or the next one's with the piece in play held), then any PC."""
    kind = later_start.TWO_DEALT_EMPTY
    table = load_shipped("srs-180", kind)
    key = _hardest_with_a_pc(table)
    _, shown = key
    (first, _), state = table[key], kind.state(shown)
    assert first.count < kind.futures
    if first.piece == shown[0]:
        queue, kept = shown[1:], None
    else:
        queue, kept = shown[2:], shown[0]
    count = sum(
        solve(first.mask, (*queue, *future), hold=kept, rules=RULES, lines=4, verify=False).solvable
        for future, _ in SEVEN_BAG.sequences(5, state)
    )
    assert count == first.count


@pytest.mark.parametrize(("name", "kind"), shipped_params(EMPTY_KINDS))
def test_hold_empty_answers_are_given_only_for_their_own_positions(name, kind):
    table, rules = load_shipped(name, kind), opening.RULES[name]
    key = _hardest_with_a_pc(table)
    _, shown = key
    state = kind.state(shown)
    assert later_start.lookup(shown, None, rules, False, state) == table[key][0]
    assert later_start.lookup(shown, None, rules, True, state) is None  # hold spent with nothing held: no such
    assert later_start.lookup(shown, None, NO_TABLES, False, state) is None  # no table of its own
    assert later_start.lookup(doubled(kind, shown), None, rules, False, state) is None
    if kind is later_start.LATER_START_EMPTY:
        missing = next(p for p in Piece if p not in shown)
        assert later_start.lookup(shown, None, rules, False, (missing,)) is None  # a game's first: the opening's


@pytest.mark.parametrize(("name", "kind"), played_params(EMPTY_KINDS))
def test_a_player_at_a_later_start_with_hold_empty_sees_the_tables_chance_and_can_follow_it(app, name, kind):
    """A PC-practice game started as a later PC's first position with hold empty, of a player who does not keep a
    piece (ten pieces a PC): a bag's last six dealt (the 6th PC), its last five and the next bag's first (the 4th),
    or its last two or one and the next bag's first four or five (the 5th and 3rd). The player reads the panel,
    makes a mistake and takes it back, presses hold on its own (a new piece is shown: after the bag's last six, that
    is the two-dealt table's position with hold spent) and plays the advice one key at a time. Every chance shown is
    the search's, the first the table's."""
    from game.handling import Button

    table = load_shipped(name, kind)
    key = _hardest_with_a_pc(table, no_2_line_pc_shown(opening.RULES[name]))
    _, shown = key
    first, _ = table[key]
    player = Practice(app, name, None, shown, kind.state(shown))
    game = player.game
    try:
        panel = player.panel()
        assert game.board.bits == 0 and game.hold is None
        assert round(panel.chance * kind.futures) == first.count and panel.chance == player.searched()
        assert panel.chance_text == f"PC chance {percent_text(first.count / kind.futures)}"
        move = panel.first_move
        assert move.hold == (first.piece != shown[0])
        assert (move.placement.piece, move.placement.mask) == (first.piece, first.mask)
        player.make_a_mistake_and_take_it_back(panel)
        player.press(Button.HOLD, lambda: player.keys.idle and game.hold_used)  # on its own
        assert game.hold == shown[0]
        after = player.panel()
        assert after.chance == player.searched()
        move = after.first_move
        assert not move.hold
        player.play(move)
        assert player.coach.pc_panel().chance == player.searched()
    finally:
        app.scenes.pop()
