"""The opening table (ai.pc.opening): the live chance at a 7-bag game's first two positions, looked up.

The table is only as right as the search that made it, so entries are checked three ways: against the search
(pc_chance without the table), against a count by the single-queue solver future by future for the placement
the table names, and, through the panel, by a player who starts a PC practice game and follows the advice."""

from __future__ import annotations

import itertools
import random
from dataclasses import replace

import pytest

from ai.pc import later_start, opening, seconds
from ai.pc.api import solve
from ai.pc.chance import pc_chance
from ai.pc.field import clear_full_rows
from ai.pc.search import searcher_for
from ai.protocol import percent_text
from game.pieces import ALL_PIECES, Piece
from game.randomizer import make_randomizer
from game.rules import Rules, SpinRule

SEVEN_BAG = make_randomizer("7bag", 0)
ORDERS = list(itertools.permutations(ALL_PIECES))


def _order(text: str) -> tuple[Piece, ...]:
    return tuple(Piece[c] for c in text)


SRS = opening.RULES["srs"]


@pytest.fixture(scope="module")
def table():
    return opening.load_table(opening.table_path("srs"), SRS)


# tables made first-only (scripts/make_opening_table.py --first-only) where the other answers cost seconds each to
# search: every order has its first answer, some have the others too (an entry is whole or first-only), and the
# answer with hold pressed was added later without the second position's (--no-second: the table after a first
# placement, ai.pc.seconds.SECONDS, answers that one under these rules)
FIRST_ONLY = {"none-180", "nrs-180"}


@pytest.mark.parametrize("name", sorted(opening.RULES))
def test_the_shipped_tables_are_whole_and_made_under_todays_rules(name):
    """A change to SRS or to what the rules' cache key holds makes load_table refuse the file: this fails then,
    and scripts/make_opening_table.py must be run again."""
    table = opening.load_table(opening.table_path(name), opening.RULES[name])
    assert len(table) == len(ORDERS) == 5040
    assert set(table) == set(ORDERS)
    for entry in table.values():
        assert 0 <= entry.first.count <= opening.FUTURES
        if name in FIRST_ONLY and entry.held is None:  # first-only: the other positions are searched
            assert entry.second is None
            assert opening.parse_entry(opening.format_entry(entry)) == entry
            continue
        # the second position is there exactly when the first advice plays the piece in play without hold
        no_hold = entry.first.piece == entry.order[0] and clear_full_rows(entry.first.mask, 4)[1] == 0
        if name in FIRST_ONLY and entry.second is None:  # made without the second answer (--no-second)
            assert seconds.SECONDS.path(name).exists()  # (whole: tests/test_pc_seconds.py)
        else:
            assert (entry.second is not None) == (no_hold and entry.first.count > 0)
        assert entry.held is not None and entry.held.piece == entry.order[1]
        assert entry.held.count <= entry.first.count
        if entry.first.piece == entry.order[1]:  # advice to hold: pressing it keeps the advice
            assert entry.held == entry.first
        assert opening.parse_entry(opening.format_entry(entry)) == entry


def test_a_table_made_under_other_rules_is_not_used(tmp_path, table):
    path = tmp_path / "table.txt"
    opening.write_table(path, SRS, [opening.format_entry(e) for e in list(table.values())[:3]])
    assert len(opening.load_table(path, SRS)) == 3
    assert opening.load_table(path, opening.RULES["srs-180"]) == {}
    path.write_text(path.read_text().replace(f"# rules {opening.rules_key(SRS)}", "# rules 0123"))
    assert opening.load_table(path, SRS) == {}
    keys = {opening.rules_key(rules) for rules in (SRS, opening.RULES["srs-180"], Rules.named("srs+"))}
    assert len(keys) == 3


def test_a_damaged_table_is_not_used_and_nothing_breaks(tmp_path, table):
    """A table file cut short or edited by hand: its rules line is fine, a line is not. The tables are then not
    used (the openings are searched) instead of every chance failing."""
    path = tmp_path / "table.txt"
    opening.write_table(path, SRS, [opening.format_entry(e) for e in list(table.values())[:3]])
    path.write_text(path.read_text() + "IJLOSTZ 840 Q 0xf\n")
    assert opening.load_table(path, SRS) == {}
    assert opening.load_table(tmp_path / "missing.txt", SRS) == {}


def _count_by_single_searches(
    bits: int,
    order: tuple[Piece, ...],
    start: int,
    answer: opening.Answer,
    held: Piece | None = None,
    rules: Rules = SRS,
) -> int:
    """Futures (the four pieces after the bag) from which the single-queue solver finds a PC after the named
    placement, the pieces in play being order[start:] (`held`: in the hold slot, hold pressed already); no trie,
    no arrangements, no table."""
    gen = searcher_for(rules, True).gen
    (child,) = [c for c in gen.children(bits, 4, answer.piece) if c.mask == answer.mask]
    if held is None:
        held = order[start] if answer.piece != order[start] else None
        rest = order[start + 1 + (held is not None) :]
    else:
        assert answer.piece == order[start]
        rest = order[start + 1 :]
    won = 0
    for future, _ in SEVEN_BAG.sequences(4, ()):
        queue = (*rest, *future)
        won += solve(child.field, queue, hold=held, rules=rules, lines=child.h, verify=False).solvable
    return won


@pytest.mark.parametrize("text", ["TIJLOSZ", "ZSLJTOI", "LSIJOTZ"])
def test_the_named_placements_keep_the_count_future_by_future(table, text):
    entry = table[_order(text)]
    assert _count_by_single_searches(0, entry.order, 0, entry.first) == entry.first.count
    if entry.second is not None:
        assert _count_by_single_searches(entry.first.mask, entry.order, 1, entry.second) == entry.second.count
    assert _count_by_single_searches(0, entry.order, 1, entry.held, held=entry.order[0]) == entry.held.count


def test_sampled_entries_equal_the_search(table):
    for order in random.Random(2026).sample(ORDERS, 3):
        searched = opening.compute_entry(order, SRS)
        stored = table[order]
        assert searched.first.count == stored.first.count, opening.order_text(order)
        # several placements may tie for the best; the second position is the one after the table's
        if searched.first == stored.first:
            assert searched.second == stored.second or (
                searched.second is not None
                and stored.second is not None
                and searched.second.count == stored.second.count
            ), opening.order_text(order)


# the rule sets whose opening tables the three above check only under plain SRS: here, one entry each
OTHER_TABLES = ("srs-180", "srsplus-180", "srsplus", "none-180", "nrs-180")


@pytest.mark.parametrize("name", OTHER_TABLES)
def test_an_entry_of_each_other_table_equals_the_search_and_the_count_future_by_future(name):
    """One random entry of each other table (seeded by its name): its first-position count is the search's, and the
    single-queue solver, future by future, wins as many with the placement it names; the same for the answer with
    hold pressed of a random entry that has one."""
    rules = opening.RULES[name]
    table = opening.load_table(opening.table_path(name), rules)
    order = random.Random(name).choice(ORDERS)
    stored = table[order]
    computed = opening.compute_entry(order, rules, first_only=True)
    assert computed.first.count == stored.first.count, opening.order_text(order)
    assert _count_by_single_searches(0, order, 0, stored.first, rules=rules) == stored.first.count
    # one with an answer for hold pressed there (a table made first-only may lack it; no kicks' and NRS's have it for
    # every order since --update --no-second), searched alone
    order = random.Random(name).choice([order for order in ORDERS if table[order].held is not None])
    stored = table[order]
    assert stored.held is not None
    held = opening.compute_entry(order, rules, keep=replace(stored, held=None), second=False).held
    assert held is not None and held.count == stored.held.count, opening.order_text(order)
    assert _count_by_single_searches(0, order, 1, stored.held, held=order[0], rules=rules) == stored.held.count


def test_a_first_only_entry_is_the_whole_entrys_first_answer_and_update_completes_it(table):
    """scripts/make_opening_table.py --first-only searches an order's first answer alone (for rules where the
    others cost seconds each); --update then searches the others of such an entry (with --no-second, the one with
    hold pressed alone). Counts are compared with the shipped entry: where placements tie, the search (its caches
    warm from the call before) may name another."""
    order = _order("IJLOSTZ")
    shipped = table[order]
    first = opening.compute_entry(order, SRS, first_only=True)
    assert first.second is None and first.held is None and first.first.count == shipped.first.count
    assert opening.parse_entry(opening.format_entry(first)) == first
    assert opening.compute_entry(order, SRS, keep=first, first_only=True) is first
    without_second = opening.compute_entry(order, SRS, keep=first, second=False)  # --update --no-second
    assert without_second.first == first.first and without_second.second is None
    assert without_second.held is not None and without_second.held.count == shipped.held.count
    whole = opening.compute_entry(order, SRS, keep=first)
    assert whole.first == first.first
    assert whole.held is not None and whole.held.count == shipped.held.count
    no_hold = whole.first.piece == order[0] and clear_full_rows(whole.first.mask, 4)[1] == 0
    assert (whole.second is not None) == no_hold
    if whole.first == shipped.first:
        assert whole == shipped


def test_a_narrower_rule_sets_table_never_counts_more_than_a_wider_ones():
    """Where every placement under one rule set is one under another (ai.pc.opening.placements_within: SRS within
    SRS with 180, SRS+ within SRS+ with 180, no kicks with 180 turns within both of those), a PC under the first is
    one under the second, so at each of the 5,040 first positions, and at each first position with hold pressed, the
    narrower table's count is at most the wider's: two tables made apart, by searches over different placements,
    checked against each other."""
    pairs = [
        (narrow, wide)
        for narrow, wide in itertools.permutations(opening.RULES, 2)
        if opening.placements_within(opening.RULES[narrow], opening.RULES[wide])
    ]
    assert pairs == [
        ("srs", "srs-180"),
        ("srsplus", "srsplus-180"),
        ("none-180", "srs-180"),
        ("none-180", "srsplus-180"),
    ]
    tables = {name: opening.load_table(opening.table_path(name), rules) for name, rules in opening.RULES.items()}
    lower = 0
    for narrow, wide in pairs:
        for order, entry in tables[narrow].items():
            above = tables[wide][order]
            assert entry.first.count <= above.first.count, (narrow, wide, opening.order_text(order))
            assert above.held is not None
            if entry.held is None:  # (a first-only entry, FIRST_ONLY)
                assert narrow in FIRST_ONLY
                continue
            assert entry.held.count <= above.held.count, (narrow, wide, opening.order_text(order))
            lower += entry.held.count < above.held.count
    assert lower > 0  # the rule sets do differ (hold pressed at the first piece, 180 turns make PCs the others cannot)


def _question(order: tuple[Piece, ...], second: bool = False, **changes):
    entry = opening.load_table(opening.table_path("srs"), SRS)[order]
    base = {
        "bits": entry.first.mask if second else 0,
        "lines": 4,
        "current": order[1] if second else order[0],
        "queue": order[2:7] if second else order[1:6],
        "hold": None,
        "randomizer_state": () if second else (order[6],),
        "randomizer": SEVEN_BAG,
        "rules": SRS,
        "soft_drop": True,
        "use_hold": True,
        "hold_spent": False,
    }
    base.update(changes)
    return base


def _first_order_with_a_second_position() -> tuple[Piece, ...]:
    table = opening.load_table(opening.table_path("srs"), SRS)
    return next(order for order in sorted(table) if table[order].second is not None)


def test_lookup_answers_its_two_questions_and_no_other(own_kick_file):
    order = _first_order_with_a_second_position()
    entry = opening.load_table(opening.table_path("srs"), SRS)[order]
    assert opening.lookup(**_question(order)) == entry.first
    assert opening.lookup(**_question(order, second=True)) == entry.second
    # the spin rule only scores: the same placements, the same table
    for spin_rule in (SpinRule.ALL_SPIN, SpinRule.NONE):
        same = Rules.named("srs", spin_rule=spin_rule)
        assert opening.lookup(**_question(order, rules=same)) == entry.first
        assert opening.lookup(**_question(order, second=True, rules=same)) == entry.second
    others = [
        {
            "rules": Rules.named(str(own_kick_file))
        },  # (its placements are within SRS's: bounded by a table, not answered)
        {"rules": Rules.named("srs", hold=False)},
        {"soft_drop": False},
        {"use_hold": False},
        {"hold_spent": True},
        {"hold": Piece.I},
        {"lines": 2},
        {"randomizer": make_randomizer("14bag", 0)},
        {"queue": order[1:5]},
    ]
    for change in others:
        assert opening.lookup(**_question(order, **change)) is None, change
        if "hold" in change:
            continue  # the second position with a piece held is a later PC's (below)
        assert opening.lookup(**_question(order, second=True, **change)) is None, change
    # a piece held at the second position, the bag shown whole: a later PC's second position, whose answer (if any)
    # is the boundary table's, not this table's
    boundary = seconds.load_table(seconds.BOUNDARY.path("srs"), SRS, seconds.BOUNDARY)
    for held in ALL_PIECES:
        key = (held, entry.first.piece, entry.first.mask, order[1:7])
        assert opening.lookup(**_question(order, second=True, hold=held)) == boundary.get(key), held
    # the second position only after the placement the table advised
    assert opening.lookup(**_question(order, second=True, bits=entry.first.mask << 10)) is None


def test_pc_chance_gives_the_tables_answer_as_the_search_gives_it():
    order = _order("TIJLOSZ")
    q = _question(order)
    args = (q["bits"], q["current"], list(q["queue"]), None, q["randomizer_state"], SEVEN_BAG, SRS, 4)
    looked_up = pc_chance(*args)
    searched = pc_chance(*args, table=False)
    assert looked_up.chance == searched.chance  # the same float: the same probabilities summed
    assert looked_up.futures == searched.futures == opening.FUTURES
    assert looked_up.best_placement is not None and not looked_up.approximate
    best = looked_up.best_placement
    entry = opening.load_table(opening.table_path("srs"), SRS)[order]
    assert (best.piece, best.mask, best.lines) == (entry.first.piece, entry.first.mask, 0)
    assert best.hold == (best.piece != order[0])
    assert looked_up.placements == [(best, looked_up.chance)]


@pytest.fixture
def app(app):
    """conftest's app, with the AI worker in a thread."""
    from tests.players import use_thread_worker

    return use_thread_worker(app)


def _searched_chance(game, lines: int) -> float:
    from ui.coach import snapshot_of

    s = snapshot_of(game)
    args = (s.board, s.current, list(s.queue), s.hold, s.randomizer_state, SEVEN_BAG, s.rules, lines)
    return pc_chance(*args, hold_spent=s.hold_used, table=False).chance


def _play_the_first_two_positions(
    app, seed: int, own: tuple[dict, list] | None = None, against: bool = False
) -> bool | None:
    """Start a PC-practice game, follow the panel for one piece, compare each chance shown with the search.
    Whether the first advice was to hold; None when the first position shows a 2-line PC from the pieces shown
    (not the table's question). With `own` (an opening table of the settings' rules, and the `searched` fixture's
    list): the first chance is that table's count, looked up (the worker searched nothing), and so are the one after
    hold is pressed and the next position's where the table holds them (a first-only entry holds neither; the next
    position may be in the table after a first placement, ai.pc.seconds, instead). `against`: hold is pressed on
    its own even where the advice was to place the piece in play (the table's answer with hold pressed)."""
    from game.executor import KeyExecutor
    from game.handling import Button
    from tests.players import pc_answered, pc_practice, run_until
    from ui.coach import snapshot_of

    def looked_up(expected: bool) -> None:
        """With `own`: whether the worker searched nothing since the list was last cleared."""
        if own is not None:
            assert (own[1] == []) == expected, "the worker searched a position the table holds, or looked one up not"

    def forget_searches() -> None:
        """The searches so far (the test's own among them) are not the worker's next ones."""
        if own is not None:
            own[1].clear()

    forget_searches()
    keys, scene = pc_practice(app, seed)
    coach, game = scene.coach, scene.game

    def final() -> bool:
        return pc_answered(coach)

    try:
        assert run_until(app, final)
        if coach.pc_shown.lines != 4 or coach.pc_panel().first_move is None:
            return None
        assert game.board.bits == 0 and game.hold is None
        panel = coach.pc_panel()
        entry = None
        if own is not None:
            looked_up(True)
            now = snapshot_of(game)
            shown = (now.current, *now.queue[:5])
            entry = own[0][(*shown, *(piece for piece in ALL_PIECES if piece not in shown))]
            assert round(panel.chance * opening.FUTURES) == entry.first.count
        assert panel.chance == _searched_chance(game, 4), seed
        assert panel.chance_text == f"PC chance {percent_text(panel.chance)}"
        move = panel.first_move
        held = move.hold
        forget_searches()
        if held or against:  # hold pressed on its own, then the panel is read again
            keys.pending = [Button.HOLD]
            assert run_until(app, lambda: keys.idle and game.hold_used)
            assert run_until(app, lambda: final() and coach.pc_panel().first_move is not None)
            looked_up(entry is not None and entry.held is not None)
            pressed = coach.pc_panel()
            assert pressed.chance == _searched_chance(game, 4), seed
            assert pressed.chance_text == f"PC chance {percent_text(pressed.chance)}"
            if entry is not None and entry.held is not None:
                assert round(pressed.chance * opening.FUTURES) == entry.held.count
            if held:  # pressing it was the advice: the advice stands
                assert pressed.chance == panel.chance
            else:  # pressing it takes choices away (the position before offered this one's placements too)
                assert pressed.chance <= panel.chance
            forget_searches()
            move = pressed.first_move
            assert not move.hold
        keys.executor = KeyExecutor(move.keys)  # one key per tick
        assert run_until(app, lambda: game.stats.pieces == 1)
        assert run_until(app, final)
        # the next position: the entry's second answer, else the table after a first placement's
        if not held and not against:
            now = snapshot_of(game)
            after = seconds.lookup(game.board.bits, move.placement.piece, (now.current, *now.queue[:5]), game.rules)
            table_holds = entry is not None and (entry.second is not None or after is not None)
            looked_up(table_holds and coach.pc_shown.lines == 4)
        assert coach.pc_panel().chance == _searched_chance(game, coach.pc_shown.lines), seed
        return held
    finally:
        app.scenes.pop()


def test_a_player_starting_pc_practice_sees_the_searched_chance_and_can_follow_it(app):
    """A fresh PC-practice game: the panel's chance at the first position (from the table) is what the search
    says; the player presses the advised keys one at a time (hold on its own when advised), and the panel at the
    next position again shows what the search says. Seeds until one game advises hold first and one does not."""
    played = {True: 0, False: 0}
    for seed in range(1, 60):
        held = _play_the_first_two_positions(app, seed)
        if held is not None:
            played[held] += 1
        if all(played.values()):
            break
    assert all(played.values()), played


@pytest.mark.parametrize(("rotation", "name"), [("none", "none-180"), ("nrs", "nrs-180")], ids=["no-kicks", "nrs"])
def test_a_player_under_no_kicks_or_nrs_starting_pc_practice_sees_its_own_tables_chance(app, searched, rotation, name):
    """No kicks or NRS in the settings, 180 turns on (their default): a game's first chance comes from that rule
    set's own opening table (searched, such a position took up to 1.5 s without kicks and 6.3 s under NRS), and a
    player following the panel key by key sees the search's chance at the first two positions, looked up where the
    table holds it (_play_the_first_two_positions)."""
    from settings import change

    rules = opening.RULES[name]
    assert app.update_settings(change(app.settings, "ai", pc_think_ahead=False)) is None
    assert app.update_settings(change(app.settings, "rules", rotation=rotation, allow_180=True)) is None
    assert app.settings.rules.rotation == rotation
    table = opening.load_table(opening.table_path(name), rules)
    assert any(_play_the_first_two_positions(app, seed, (table, searched)) is not None for seed in range(1, 20))
    # and a player who presses hold there on their own, against the advice: the table's answer with hold pressed
    assert any(_play_the_first_two_positions(app, seed, (table, searched), True) is False for seed in range(1, 20))


def test_hold_pressed_at_the_first_position_is_answered_as_the_search_answers_it(table):
    """Hold pressed at the first position: the advice when it was to hold and place the piece now in play (the
    best of its placements was the best of all), else the best of that piece's placements, searched when the
    table was made. Both equal what the search says now."""
    holding = next(order for order in sorted(table) if table[order].first.piece == order[1])
    placing = _first_order_with_a_second_position()
    for order in (holding, placing):
        entry = table[order]
        question = _question(order, hold=order[0], current=order[1], queue=order[2:7], randomizer_state=())
        question["hold_spent"] = True
        assert opening.lookup(**question) == entry.held
        args = (0, order[1], list(order[2:7]), order[0], (), SEVEN_BAG, SRS, 4)
        looked_up = pc_chance(*args, hold_spent=True)
        searched = pc_chance(*args, hold_spent=True, table=False)
        assert looked_up.chance == searched.chance, opening.order_text(order)
        assert looked_up.best_placement is not None and not looked_up.best_placement.hold
        assert looked_up.best_placement.piece == order[1]
    assert table[holding].held == table[holding].first


# A later PC's first position with the bag's last six pieces shown and its missing piece in hold, hold free to press
# (the 8th, 15th and 22nd PCs of a 7-bag game whose player keeps a piece in hold): the same as the first position of
# that bag order, so the table answers it.
def _held_back(order: tuple[Piece, ...]) -> dict:
    return _question(order, hold=order[0], current=order[1], queue=order[2:7], randomizer_state=())


def _orders_held_back(table) -> list[tuple[Piece, ...]]:
    """One order whose advice places the piece in play, one whose advice places the held piece (hold pressed)."""
    keep = next(order for order in sorted(table) if table[order].first.piece == order[1])
    swap = next(order for order in sorted(table) if table[order].first.piece == order[0])
    return [keep, swap]


def _count_with_the_held_piece(order: tuple[Piece, ...], answer: opening.Answer) -> int:
    """Futures from which the single-queue solver finds a PC after the named placement, order[0] in the hold slot
    and order[1] in play: placing the one in play keeps order[0] held, placing the held one holds order[1]."""
    gen = searcher_for(SRS, True).gen
    (child,) = [c for c in gen.children(0, 4, answer.piece) if c.mask == answer.mask]
    held = {order[1]: order[0], order[0]: order[1]}[answer.piece]
    return sum(
        solve(child.field, (*order[2:], *future), hold=held, rules=SRS, lines=child.h, verify=False).solvable
        for future, _ in SEVEN_BAG.sequences(4, ())
    )


def test_the_missing_piece_held_at_a_later_pc_is_answered_as_the_search_answers_it(table):
    for order in _orders_held_back(table):
        entry = table[order]
        question = _held_back(order)
        assert opening.lookup(**question) == entry.first
        assert opening.lookup(**{**question, "hold_spent": True}) == entry.held
        again = {**question, "hold": order[2]}  # a held piece the bag deals again: the later-start table's question
        assert opening.lookup(**again) == later_start.lookup(order[1:7], order[2], SRS, False) is not None
        args = (0, order[1], list(order[2:7]), order[0], (), SEVEN_BAG, SRS, 4)
        looked_up = pc_chance(*args)
        searched = pc_chance(*args, table=False)
        assert looked_up.chance == searched.chance == 1.0, opening.order_text(order)
        assert looked_up.futures == searched.futures == opening.FUTURES
        best = looked_up.best_placement
        assert best is not None and best.hold == (best.piece == order[0])
        assert _count_with_the_held_piece(order, entry.first) == opening.FUTURES


@pytest.mark.parametrize("advice", ["keep", "swap"])
def test_a_player_holding_the_missing_piece_sees_the_searched_chance_and_can_follow_it(app, table, advice):
    """A PC-practice game started as a later PC is: empty field, the bag's last six pieces dealt, its missing one
    in hold. The player reads the panel, makes a mistake and takes it back (the same panel again), presses hold on
    its own when advised (the panel is read again), then the advised keys one at a time. Every chance shown is what
    the search says. `advice`: the order's advice places the piece in play, or the held one."""
    from game.board import Board
    from game.executor import KeyExecutor
    from game.handling import Button
    from tests.players import pc_answered, pc_practice, run_until
    from ui.play_state import StartPosition

    order = dict(zip(["keep", "swap"], _orders_held_back(table), strict=True))[advice]
    start = StartPosition(board=Board.empty(), queue=list(order[1:]), hold=order[0], randomizer_state=())
    keys, scene = pc_practice(app, 1, start)
    coach, game = scene.coach, scene.game

    def advised() -> bool:
        return pc_answered(coach) and coach.pc_panel().first_move is not None

    try:
        assert run_until(app, advised)
        assert game.board.bits == 0 and game.hold == order[0] and not game.hold_used
        panel = coach.pc_panel()
        assert panel.chance == _searched_chance(game, 4) == 1.0
        assert panel.chance_text == "PC chance 100%"
        move = panel.first_move
        assert move.hold == (move.placement.piece == order[0]) == (advice == "swap")
        # a mistake first: the piece in play dropped where it is, then taken back
        keys.pending = [Button.HARD_DROP]
        assert run_until(app, lambda: game.stats.pieces == 1)
        keys.pending = [Button.UNDO]
        assert run_until(app, lambda: keys.idle and game.stats.pieces == 0 and game.board.bits == 0)
        assert run_until(app, advised)
        assert coach.pc_panel().chance == panel.chance and coach.pc_panel().advice == panel.advice
        if move.hold:  # hold pressed on its own, then the panel is read again
            keys.pending = [Button.HOLD]
            assert run_until(app, lambda: keys.idle and game.hold_used)
            assert run_until(app, advised)
            assert coach.pc_panel().chance == _searched_chance(game, 4) == 1.0
            move = coach.pc_panel().first_move
            assert not move.hold and move.placement.piece == order[0]
        keys.executor = KeyExecutor(move.keys)  # one key per tick
        assert run_until(app, lambda: game.stats.pieces == 1)
        assert run_until(app, lambda: pc_answered(coach))
        assert coach.pc_panel().chance == _searched_chance(game, coach.pc_shown.lines) == 1.0
    finally:
        app.scenes.pop()
