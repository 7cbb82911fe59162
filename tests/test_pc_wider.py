"""The wider rules' bound (ai.pc.opening.wider_rules): under rules without tables of their own (or where theirs lack
a question) whose placements are all placements under rules with tables, the wider table's count bounds the live
chance from above and its best placement is tried first: plain SRS within SRS with 180, no kicks within either, SRS+
without 180 turns within SRS+ with them, NRS without 180 turns within NRS with them. That may only make the search
faster: the chance shown must stay the search's, exactly. Rules with the same placements as a table's (another spin
rule) are answered by that table.
"""

from __future__ import annotations

import dataclasses
import itertools
import random

import pytest

from ai.pc import opening, seconds
from ai.pc.chance import pc_chance
from ai.pc.percent import Trie
from ai.pc.search import searcher_for
from game.pieces import ALL_PIECES, Piece
from game.randomizer import make_randomizer
from game.rules import Rules, SpinRule
from settings import change

SRS, WIDE = opening.RULES["srs"], opening.RULES["srs-180"]
NO_KICKS = Rules.named("none", allow_180=True)  # the settings' rotation "none", with their default 180 turns
SRSPLUS_90 = Rules.named("srs+")  # SRS+ without 180 turns
# every built-in rotation system with and without 180 turns, by the name bench/pc.py and the tables use
RULE_SETS = {
    f"{name}{'-180' if turns else ''}": Rules.named(rotation, allow_180=turns)
    for name, rotation in (("srs", "srs"), ("srsplus", "srs+"), ("none", "none"), ("nrs", "nrs"))
    for turns in (False, True)
}
SEVEN_BAG = make_randomizer("7bag", 0)


# plain SRS's own boundary table answers these positions before any bound is needed: hidden, as for a group it does
# not hold (the generator's test bounds by the 180 table alone)
pytestmark = pytest.mark.usefixtures("no_plain_srs_boundary_table")


@pytest.fixture(scope="module")
def boundary_tables() -> dict[str, seconds.Table]:
    """The wider rules' boundary tables by name, each read once for the module's tests (a table keeps the groups
    it has parsed, and parsing one whole takes ~4 s), freed when the module is done."""
    return {}


def _boundary_table(tables: dict[str, seconds.Table], name: str) -> seconds.Table:
    if name not in tables:
        tables[name] = seconds.load_table(seconds.BOUNDARY.path(name), opening.RULES[name], seconds.BOUNDARY)
    return tables[name]


@pytest.fixture(scope="module")
def boundary(boundary_tables) -> seconds.Table:
    return _boundary_table(boundary_tables, "srs-180")


def test_placements_within_holds_where_the_move_generator_shows_it():
    """`placements_within` against the move generator on random fields (4 lines, 0 to 24 cells), every piece, every
    pair of built-in rule sets: where it says a set's placements are within another's, the generator offers each of
    them under the other too, with the same field after it; where it says not, among the rotation systems that turn
    about SRS's centres, a field shows a placement missing (NRS turns about its own: its pairs are only said not to
    be, which costs the bound and nothing else)."""
    gens = {name: searcher_for(rules, True).gen for name, rules in RULE_SETS.items()}
    rng = random.Random(11)
    fields = [sum(1 << cell for cell in rng.sample(range(40), rng.randrange(25))) for _ in range(300)]
    offered = {
        name: [
            {piece: {c.mask: (c.field, c.h) for c in gen.children(bits, 4, piece)} for piece in ALL_PIECES}
            for bits in fields
        ]
        for name, gen in gens.items()
    }

    def within(narrow: str, wide: str) -> bool:
        return all(
            offered[wide][i][piece].get(mask) == after
            for i in range(len(fields))
            for piece in ALL_PIECES
            for mask, after in offered[narrow][i][piece].items()
        )

    said = {
        (narrow, wide)
        for narrow, wide in itertools.permutations(RULE_SETS, 2)
        if opening.placements_within(RULE_SETS[narrow], RULE_SETS[wide])
    }
    assert said == {
        ("srs", "srs-180"),
        ("srsplus", "srsplus-180"),
        ("none", "none-180"),
        ("nrs", "nrs-180"),
        *(("none", wide) for wide in ("srs", "srs-180", "srsplus", "srsplus-180")),
        ("none-180", "srs-180"),
        ("none-180", "srsplus-180"),
    }
    for narrow, wide in itertools.permutations(RULE_SETS, 2):
        if (narrow, wide) in said:
            assert within(narrow, wide), (narrow, wide)
        elif not narrow.startswith("nrs"):
            assert not within(narrow, wide), (narrow, wide)


def test_the_tables_of_rules_with_the_same_placements_answer_and_wider_ones_bound(own_kick_file):
    """The spin rule only scores: every spin rule gets the tables of its rotation system and turns. The first rule
    set with tables that includes another's placements bounds it, the narrowest where several do; a player's own kick
    table is bounded too where its kicks are SRS's first ones."""
    for name, rules in opening.RULES.items():
        for spin_rule in SpinRule:
            same = dataclasses.replace(rules, spin_rule=spin_rule)
            assert opening.table_name(same) == name
            assert opening.table_name(RULE_SETS[name]) == name
    assert all(opening.table_name(rules) is None for name, rules in RULE_SETS.items() if name not in opening.RULES)
    wider = {name: opening.wider_rules(rules) for name, rules in RULE_SETS.items()}
    assert wider == {
        "srs": WIDE,
        "srs-180": None,
        "srsplus": opening.RULES["srsplus-180"],
        "srsplus-180": None,
        "none": SRS,
        "none-180": WIDE,
        "nrs": opening.RULES["nrs-180"],
        "nrs-180": None,
    }
    own = Rules.named(str(own_kick_file))
    assert opening.table_name(own) is None and opening.wider_rules(own) == SRS
    assert opening.wider_rules(dataclasses.replace(own, allow_180=True)) == WIDE
    assert opening.wider_rules(Rules.named("none", hold=False)) is None  # (hold is kept apart, as the spawn is)


@pytest.mark.parametrize(
    ("rules", "read"),
    [
        (SRS, "srs"),
        (SRSPLUS_90, "srsplus"),
        (NO_KICKS, "none-180"),
        (RULE_SETS["nrs-180"], "nrs-180"),
        (RULE_SETS["nrs"], "nrs-180"),
        (Rules.named("srs", hold=False), None),
    ],
    ids=["plain-srs", "srsplus-no-180", "no-kicks", "nrs", "nrs-no-180", "no-hold"],
)
def test_a_worker_reads_the_opening_table_its_rules_ask(rules, read):
    """The warm-up's read (ai.pc.api.warm_up): the rules' own opening table, else the one that bounds them, and no
    other (each is ~0.15 s and a few MB)."""
    opening._table.cache_clear()
    try:
        opening.load_all(rules)
        info = opening._table.cache_info()
        assert info.currsize == (read is not None)
        if read is not None:
            opening._table(read)
            assert opening._table.cache_info().hits == info.hits + 1  # that one was read
    finally:
        opening._table.cache_clear()


def _position(key: tuple, rules: Rules = SRS) -> tuple:
    """pc_chance's arguments under `rules` at a boundary table key's position (see tests/test_pc_seconds._args)."""
    held, _, bits, order = key
    return (bits, order[0], list(order[1:]), held, (), SEVEN_BAG, rules, 4)


@pytest.fixture
def bounded(monkeypatch) -> list:
    """The tables' answers the chance got, one per question a table answered (under rules without a table of
    their own for it, the wider rules')."""
    got: list = []
    real = opening.lookup

    def lookup(*args, **kwargs):
        answer = real(*args, **kwargs)
        if answer is not None:
            got.append(answer)
        return answer

    monkeypatch.setattr(opening, "lookup", lookup)
    return got


@pytest.mark.parametrize(
    ("narrow", "wide_name", "others"),
    [(SRS, "srs-180", 2), (NO_KICKS, "srs-180", 1), (SRSPLUS_90, "srsplus-180", 1)],
    ids=["plain-srs", "no-kicks", "srsplus-no-180"],
)
def test_at_a_later_pcs_second_position_the_bounded_chance_is_the_searchs(
    narrow, wide_name, others, bounded, boundary_tables
):
    """At a later PC's second position (a piece held, the bag shown whole) whose group the wider rules' boundary
    table holds: the chance under the narrower rules, bounded by the table's count, is the search's, exact. Checked
    until positions of both kinds were met: those where the narrower rules' best is the table's placement, and
    those where it is another (the bound alone must not end the search there; without kicks or 180 turns that is
    rarer, so one is enough)."""
    table = _boundary_table(boundary_tables, wide_name)
    keys = sorted(key for key, answer in table.items() if answer.count < answer.futures)
    same = other = 0
    for key in random.Random(7).sample(keys, 60):
        bounded.clear()
        answer = pc_chance(*_position(key, narrow))
        assert bounded == [table[key]]
        searched = pc_chance(*_position(key, narrow), table=False)
        assert answer.chance == searched.chance and not answer.approximate and not searched.approximate, key
        assert round(answer.chance * table[key].futures) <= table[key].count
        best = searched.best_placement
        assert best is not None
        if (best.piece, best.mask) == (table[key].piece, table[key].mask):
            same += 1
        else:
            other += 1
        if same >= 2 and other >= others:
            break
    assert same >= 2 and other >= others


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
    bounded = seconds.best_per_order(*args, bounds={order: bounds[order] for order in chosen})
    plain = seconds.best_per_order(*args)
    assert {order: answer.count for order, answer in bounded.items()} == {o: a.count for o, a in plain.items()}
    assert any(bounded[order].count < bounds[order].count for order in chosen)
    assert any(bounded[order].count == bounds[order].count < seconds.BOUNDARY.futures for order in chosen)
    # and where plain SRS's best placement is not the bound's
    assert any((plain[order].piece, plain[order].mask) != (bounds[order].piece, bounds[order].mask) for order in chosen)


def test_the_second_position_generator_bounded_by_srsplus_180_gives_the_unbounded_counts():
    """Making SRS+ without 180's second-position table (after the first piece, no hold) with each order's count
    bounded by SRS+ with 180's (Family.bounds, what scripts/make_seconds_table.py --rules srsplus does): the counts
    are the unbounded search's, where SRS+ without 180 reaches the bound and where it stays below it, with the
    bound's placement as its best or not (the L flat on the right, group 40 of SRS+'s order)."""
    group = (Piece.L, 0x401C0)
    bounds = seconds.SECONDS.bounds(SRSPLUS_90, group)
    texts = ("JSIOTZ", "JSITOZ", "JOISTZ", "JOISZT", "JSIZOT")
    chosen = [tuple(Piece[name] for name in text) for text in texts]
    trie = Trie([order + future for order in chosen for future in itertools.permutations(ALL_PIECES, 4)])
    args = (SRSPLUS_90, Piece.L, group[1], trie, Piece.J, trie.root.children[Piece.J], 0, opening.FUTURES)
    bounded = seconds.best_per_order(*args, bounds={order: bounds[order] for order in chosen})
    plain = seconds.best_per_order(*args)
    assert {order: answer.count for order, answer in bounded.items()} == {o: a.count for o, a in plain.items()}
    assert any(bounded[order].count < bounds[order].count for order in chosen)
    assert any(bounded[order].count == bounds[order].count < opening.FUTURES for order in chosen)
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


@pytest.mark.parametrize(
    ("switches", "table", "own_table"),
    [
        ({"spin_rule": "allspin"}, "srs-180", True),
        ({"rotation": "srs+", "allow_180": False}, "srsplus", True),
        ({}, "srs-180", False),
    ],
    ids=["all-spins", "srsplus-no-180", "own-kick-table"],
)
def test_a_player_with_other_rules_sees_the_searchs_chance_at_the_first_piece_and_after_hold(
    ai_app, own_kick_file, switches, table, own_table, bounded, searched
):
    """PC practice from an empty field, thinking ahead off, under rules a player may choose in the settings: all
    spins (SRS with 180: the same placements, so its opening table answers), SRS+ without 180 turns (its own
    table), and a kick-table file of the player's own (SRS's with kicks left out, 180 turns on: no table, bounded by
    SRS with 180's and searched). The panel's chance at the first piece, then after hold pressed on its own, is the
    search's, exactly, and the table's answer is what the worker got (without a search where it is the rules' own)."""
    from game.handling import Button
    from tests.players import pc_answered, pc_practice, run_until
    from ui.coach import snapshot_of

    app = ai_app
    assert app.update_settings(change(app.settings, "ai", pc_think_ahead=False)) is None
    assert app.update_settings(change(app.settings, "rules", **(switches or {"kick_file": str(own_kick_file)}))) is None
    keys, scene = pc_practice(app, 3)
    rules = scene.game.rules
    assert (opening.table_name(rules) == table) is own_table
    if not own_table:
        assert opening.wider_rules(rules) == opening.RULES[table]

    def check(answer: opening.Answer) -> None:
        """The panel's chance, once answered, against the search's and the table's `answer`."""
        assert run_until(app, lambda: pc_answered(scene.coach))
        now = snapshot_of(scene.game)
        shown = scene.coach.pc_panel().chance
        assert answer in bounded
        assert (searched == []) is own_table, "the worker searched a position the table holds"
        position = (now.board.bits, now.current, list(now.queue[:5]), now.hold, now.randomizer_state)
        exact = pc_chance(*position, SEVEN_BAG, rules, 4, hold_spent=now.hold_used, table=False)
        assert shown is not None and not exact.approximate and shown == exact.chance
        if own_table:
            assert round(shown * opening.FUTURES) == answer.count
        else:
            assert round(shown * opening.FUTURES) <= answer.count

    try:
        now = snapshot_of(scene.game)
        order = (now.current, *now.queue[:5], *now.randomizer_state)
        entry = opening.load_table(opening.table_path(table), opening.RULES[table])[order]
        assert entry.held is not None
        check(entry.first)
        bounded.clear()
        searched.clear()
        keys.pending = [Button.HOLD]
        assert run_until(app, lambda: scene.game.hold == now.current and keys.idle)
        check(entry.held)
    finally:
        app.scenes.pop()
