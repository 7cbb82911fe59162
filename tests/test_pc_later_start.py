"""The later-start table (ai.pc.later_start): the live chance at a later PC's first position with a piece held from
the bag before, looked up. Checked as the other tables are: whole and made under today's rules, entries against
the search, the named placement's count against the single-queue solver future by future, and through the panel by
a player who follows it one key at a time, with a mistake taken back and hold pressed on its own."""

from __future__ import annotations

import itertools
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from ai.pc import later_start, opening
from ai.pc.api import solve
from ai.pc.chance import pc_chance
from ai.protocol import percent_text
from game.pieces import Piece
from game.rules import Rules
from tests.later_start_tables import (
    NO_TABLES,
    PART_MADE,
    RULES,
    SEVEN_BAG,
    SHIPPED_TABLES,
    Practice,
    assert_whole,
    doubled,
    fewest_kept,
    kind_keys,
    load_shipped,
    no_2_line_pc_shown,
    played_params,
    position_of,
    searched_chance,
    shipped_params,
)


@pytest.fixture(scope="module")
def table() -> dict:
    return load_shipped("srs-180", later_start.LATER_START)


def _hardest(
    table: dict, pressed: bool, acceptable: Callable[[later_start.Key], bool] = lambda _: True
) -> later_start.Key:
    """The position whose best placement keeps the fewest futures (the first such in the table's order): with a
    pressed answer of its own that keeps fewer, or without one (the first `acceptable` one, if told)."""
    keys = (
        key
        for key, (first, after) in table.items()
        if (after.count < first.count if after is not None else not pressed)
    )
    return fewest_kept(table, keys, acceptable)


# the rule sets with a table shipped (ai/pc/later-start_<name>.txt.gz)
SHIPPED = sorted(
    path.name.removeprefix("later-start_").removesuffix(".txt.gz")
    for path in Path(later_start.__file__).parent.glob("later-start_*.txt.gz")
)


# kinds whose positions the default rules search within ~140 ms: their tables are made only under rules slower there
# (six-dealt-empty took up to ~240 ms, so the default rules have that table; three- and four-dealt-empty, 30 random
# positions each, at most 129 and 93 ms)
SLOW_RULES_ONLY = {
    later_start.BAG_START,
    later_start.FIVE_DEALT,
    later_start.SIX_DEALT,
    later_start.FIVE_DEALT_EMPTY,
    later_start.THREE_DEALT_EMPTY,
    later_start.FOUR_DEALT_EMPTY,
}


def test_the_default_rules_tables_are_shipped():
    assert "srs-180" in SHIPPED and set(SHIPPED) <= set(opening.RULES)
    made = {kind for name, kind in SHIPPED_TABLES if name == "srs-180"}
    assert made == set(later_start.KINDS) - SLOW_RULES_ONLY


@pytest.mark.parametrize("name", SHIPPED)
def test_each_table_holds_every_position_with_a_pressed_answer_only_where_pressing_changes_it(name):
    """Made under today's rules (else it reads as empty), whole (or, made part way, some of the positions, known
    to be so), and each line as the module describes it."""
    table = later_start.load_table(later_start.path(name), opening.RULES[name])
    assert_whole(name, later_start.LATER_START, table)
    assert later_start.LATER_START.size == 30_240
    for (held, shown), (first, pressed) in table.items():
        assert 0 <= first.count <= opening.FUTURES and first.piece in (held, shown[0])
        if pressed is None:
            assert first.count == 0 or first.piece == held, (held, shown)
        else:
            assert first.piece == shown[0] != held and pressed.piece == held
            assert pressed.count <= first.count  # pressing hold only takes choices away


def test_sampled_entries_equal_the_search(table):
    keys = [*random.Random(54).sample(sorted(table), 3), _hardest(table, True), _hardest(table, False)]
    for key in keys:
        # placements tying for the best may differ (the held piece's or the other's), the counts may not
        stored, searched = table[key], later_start.compute(key, RULES)
        assert later_start.counts(stored) == later_start.counts(searched), later_start.format_line(key, stored)


@pytest.mark.parametrize("name", [name for name in SHIPPED if name != "srs-180"])
def test_an_entry_of_each_other_table_and_its_hardest_equal_the_search(name):
    rules = opening.RULES[name]
    table = later_start.load_table(later_start.path(name), rules)
    for key in (random.Random(name).choice(sorted(table)), min(table, key=lambda k: (table[k][0].count, k))):
        searched = later_start.compute(key, rules)
        assert later_start.counts(table[key]) == later_start.counts(searched), later_start.format_line(key, table[key])


def _count_by_single_searches(key: later_start.Key, answer: opening.Answer, rules: Rules = RULES) -> int:
    """The futures from which the single-queue solver finds a PC after `answer`'s placement on the empty field: the
    held piece placed (the one in play goes to hold) or the one in play placed (the held piece stays)."""
    held, shown = key
    kept = shown[0] if answer.piece == held else held
    return sum(
        solve(answer.mask, (*shown[1:], *future), hold=kept, rules=rules, lines=4, verify=False).solvable
        for future, _ in SEVEN_BAG.sequences(4, ())
    )


def test_the_named_placements_keep_their_counts_future_by_future(table):
    key = _hardest(table, True)
    first, pressed = table[key]
    assert first.count < opening.FUTURES
    assert _count_by_single_searches(key, first) == first.count
    assert _count_by_single_searches(key, pressed) == pressed.count


# tables of rules whose placements reflect (Rules.mirror_symmetric): their generator searches one position of each
# mirror-image pair and writes the other reflected
REFLECTING = [name for name in SHIPPED if opening.RULES[name].mirror_symmetric]


@pytest.mark.parametrize("name", REFLECTING)
def test_a_reflected_entry_equals_the_search_and_its_placements_keep_their_counts(name):
    """The position whose bag's missing piece is a Z that keeps the fewest futures (no kicks: 840, and 839 with
    hold pressed; SRS+ without 180 turns keeps all): no kicks' generator searched none of these, it wrote each
    reflected from the S's position (J and L, S and Z swapped). Its answers are the search's counts, and the
    placements named keep them future by future."""
    rules = opening.RULES[name]
    table = load_shipped(name, later_start.LATER_START)
    reflected = [key for key in table if Piece.Z not in key[1]]
    assert len(reflected) == 720 * 6  # every one, as every S's position is made
    key = min(reflected, key=lambda k: (sum(later_start.counts(table[k])), k))  # loses the most
    first, pressed = table[key]
    assert later_start.counts(table[key]) == later_start.counts(later_start.compute(key, rules))
    assert later_start.counts(table[later_start.mirrored_key(key)]) == later_start.counts(table[key])
    assert _count_by_single_searches(key, first, rules) == first.count
    if pressed is not None:
        assert _count_by_single_searches(key, pressed, rules) == pressed.count


@pytest.mark.parametrize("name", REFLECTING)
def test_mirror_image_positions_searched_each_have_the_same_counts(name):
    """The premise of writing one of a pair reflected, on the positions a table holds both of (SRS+ without 180
    turns: every one, each searched; no kicks: the 17,408 of the bag's missing piece an I, J, L or O, searched before
    the generator reflected): the same counts as they are and with hold pressed."""
    table = load_shipped(name, later_start.LATER_START)
    pairs = [(key, later_start.mirrored_key(key)) for key in table if Piece.Z in key[1] and Piece.S in key[1]]
    assert len(pairs) >= 17_000
    assert [key for key, image in pairs if later_start.counts(table[key]) != later_start.counts(table[image])] == []


def test_pc_chance_answers_from_the_table_as_the_search_does(table):
    for key in (_hardest(table, True), _hardest(table, False)):
        for spent in (False, True):
            looked_up = pc_chance(*position_of(key, spent), hold_spent=spent)
            searched = searched_chance(*position_of(key, spent), hold_spent=spent)
            assert looked_up.chance == searched and not looked_up.approximate, (key, spent)
            first, pressed = table[key]
            assert round(looked_up.chance * opening.FUTURES) == (pressed or first if spent else first).count
            best = looked_up.best_placement
            assert best is not None and best.hold == (not spent and best.piece != key[1][0])


def test_other_rules_and_other_positions_are_not_answered_by_it(table):
    key = _hardest(table, True)
    held, shown = key
    assert later_start.lookup(shown, held, RULES, False) == table[key][0]
    assert later_start.lookup(shown, held, NO_TABLES, False) is None  # no table of its own
    missing = next(p for p in Piece if p not in shown)
    assert later_start.lookup(shown, missing, RULES, False) is None  # the opening table's question
    assert later_start.lookup((*shown[:5], shown[0]), held, RULES, False) is None  # not a bag's last six


# The kinds with more of the bag dealt before the piece in play and any piece held: two (the next bag's first piece
# the last preview, 360 futures), three (its first two, 120 futures), four (its first three, 24 futures), five or six
# (its first four or five, 42 or 84 futures; made under no kicks) or all seven (bag-start: the piece in play a bag's
# first, its seventh left in it, 210 futures; made under NRS and no kicks).
DEALT = (
    later_start.TWO_DEALT,
    later_start.THREE_DEALT,
    later_start.FOUR_DEALT,
    later_start.BAG_START,
    later_start.FIVE_DEALT,
    later_start.SIX_DEALT,
)


@pytest.mark.parametrize(("name", "kind"), shipped_params(DEALT))
def test_each_dealt_table_holds_every_position_with_a_pressed_answer_only_where_pressing_changes_it(name, kind):
    """Made under today's rules (else it reads as empty), whole, and each line as the module describes it."""
    table = load_shipped(name, kind)
    assert_whole(name, kind, table)
    sizes = {2: 7 * 2520 * 7, 3: 840 * 42 * 7, 4: 210 * 210 * 7, 5: 42 * 840 * 7, 6: 7 * 2520 * 7, 7: 5040 * 7}
    assert kind.size == sizes[kind.dealt]
    assert kind.futures == {2: 360, 3: 120, 4: 24, 5: 42, 6: 84, 7: 210}[kind.dealt]
    for (held, shown), (first, pressed) in table.items():
        assert first.futures == kind.futures and 0 <= first.count <= kind.futures and first.piece in (held, shown[0])
        if pressed is None:
            assert first.count == 0 or first.piece == held, (held, shown)
        else:
            assert first.piece == shown[0] != held and pressed.piece == held and pressed.futures == kind.futures
            assert pressed.count <= first.count


@pytest.mark.parametrize(("name", "kind"), shipped_params(DEALT))
def test_dealt_entries_equal_the_search_and_pc_chance_answers_from_them(name, kind):
    """Sampled entries and the hardest ones: the table's counts are the search's; pc_chance looked up (as the worker
    asks it) gives the search's chance, with hold pressed and without."""
    table, rules = load_shipped(name, kind), opening.RULES[name]
    hardest = [_hardest(table, True), _hardest(table, False)]
    for key in random.Random(55).sample(sorted(table), 3):  # (the hardest are searched below, as the panel asks)
        stored, searched = table[key], later_start.compute(key, rules, kind)
        assert later_start.counts(stored) == later_start.counts(searched), later_start.format_line(key, stored)
    for key in hardest:
        first, pressed = table[key]
        for spent in (False, True):
            looked_up = pc_chance(*position_of(key, spent, kind, rules), hold_spent=spent)
            by_search = searched_chance(*position_of(key, spent, kind, rules), hold_spent=spent)
            assert looked_up.chance == by_search and not looked_up.approximate, (key, spent)
            assert looked_up.futures == kind.futures
            assert round(looked_up.chance * kind.futures) == (pressed or first if spent else first).count


@pytest.mark.parametrize(("name", "kind"), shipped_params(DEALT))
def test_a_dealt_answer_is_given_only_for_its_own_positions(name, kind):
    table, rules = load_shipped(name, kind), opening.RULES[name]
    key = _hardest(table, True)
    held, shown = key
    state = kind.state(shown)
    assert later_start.lookup(shown, held, rules, False, state) == table[key][0]
    other = later_start.lookup(shown, held, rules, False, ())  # the bag's last six: at most the later-start table's
    assert other is None or other.futures == opening.FUTURES
    # another state: one of its pieces swapped for the last shown, which that bag has dealt (with a piece fewer it
    # could be another kind's)
    other_state = (*state[1:], shown[-1])
    assert later_start.lookup(shown, held, rules, False, other_state) is None
    assert later_start.lookup(shown, held, NO_TABLES, False, state) is None  # no table of its own
    assert later_start.lookup(doubled(kind, shown), held, rules, False, state) is None


@pytest.mark.parametrize(
    ("name", "kind"), [param for param in shipped_params(DEALT) if opening.RULES[param.values[0]].mirror_symmetric]
)
def test_a_reflecting_dealt_tables_fewest_kept_pair_each_equals_the_search(name, kind):
    """Made from nothing in one run (no kicks' bag-start, its two-dealt in groups and SRS+ without 180's three-dealt
    were; its two- and four-dealt hold the same pairing), a table has the earlier of each mirror-image pair in the
    kind's order searched and the later written reflected: of the pair that keeps the fewest futures the reflected
    line is the other's reflected, and both have the search's counts."""
    table, rules = load_shipped(name, kind), opening.RULES[name]
    order = {key: i for i, key in enumerate(kind_keys(kind))}
    key = min(table, key=lambda k: (sum(later_start.counts(table[k])), k))
    searched, reflected = sorted((key, later_start.mirrored_key(key)), key=order.__getitem__)
    assert table[reflected] == later_start.mirrored_entry(table[searched])
    for position in (searched, reflected):
        assert later_start.counts(table[position]) == later_start.counts(later_start.compute(position, rules, kind))


def test_the_wider_rules_bound_on_the_tables_making_changes_no_count():
    """The tables are made bounded by the wider rules' table (later_start.compute's wider_bound): no kicks'
    placements are among SRS with 180's, so its count bounds the search from above, and a placement reaching it
    ends the search. At positions where it does (no kicks keeps as many futures as SRS with 180, not all), the counts
    are the unbounded search's and the table's."""
    kind, rules = later_start.TWO_DEALT, opening.RULES["none-180"]
    table, wider = load_shipped("none-180", kind), load_shipped("srs-180", kind)
    reached = sorted(k for k, (first, _) in table.items() if first.count == wider[k][0].count < kind.futures)
    for key in random.Random(58).sample(reached, 2):
        bounded = later_start.compute(key, rules, kind)
        unbounded = later_start.compute(key, rules, kind, wider_bound=False)
        assert later_start.counts(bounded) == later_start.counts(unbounded) == later_start.counts(table[key])


def _group_keys(group: later_start.GroupKey, kind: later_start.Kind) -> set:
    return {key for key in kind_keys(kind) if later_start.group_of(key, kind) == group}


def test_a_group_made_at_once_has_the_counts_of_the_table_made_one_position_at_a_time():
    """later_start.solve_group (the generator's way for the two- to four-dealt kinds) against an independent making:
    the shipped four-dealt table of the default rules, whose positions were searched one by one, for every position
    of a group, each with a pressed answer there."""
    kind = later_start.FOUR_DEALT
    table = load_shipped("srs-180", kind)
    group = (Piece.J, (Piece.L, Piece.O, Piece.S))
    made = later_start.solve_group(group, RULES, kind)
    assert set(made) == _group_keys(group, kind) and len(made) == 1260
    assert all(table[key][1] is not None for key in made)  # (the table's placements: the piece in play's)
    assert all(later_start.counts(made[key]) == later_start.counts(table[key]) for key in made)
    for key, (first, pressed) in made.items():  # no second answer where pressing hold changes nothing
        assert pressed is None if first.piece == key[0] or not first.count else pressed.piece == key[0]


def test_a_group_made_at_once_under_rules_bounded_by_wider_ones_has_the_searchs_counts():
    """No kicks, bounded by SRS with 180's table, as `compute` is: a group's sampled entries, a pressed answer among
    them, are the search's one by one; and the groups cover every position of the kind, once."""
    kind, rules = later_start.FOUR_DEALT, opening.RULES["none-180"]
    group = (Piece.J, (Piece.L, Piece.O, Piece.S))
    made = later_start.solve_group(group, rules, kind)
    sampled = random.Random(59).sample(sorted(made), 3)
    assert any(made[key][1] is not None for key in sampled)
    for key in sampled:
        assert later_start.counts(made[key]) == later_start.counts(later_start.compute(key, rules, kind))
    groups = later_start.groups(kind)
    assert len(set(groups)) == len(groups) == 7 * 35
    assert {later_start.group_of(key, kind) for key in kind_keys(kind)} == set(groups)
    assert all(later_start.mirrored_group(later_start.mirrored_group(g)) == g for g in groups)
    with pytest.raises(ValueError, match="not made in groups"):
        later_start.solve_group((Piece.J, ()), rules, later_start.LATER_START)


def test_the_generator_makes_a_group_a_table_has_in_part_whole_and_keeps_the_lines_it_had(tmp_path):
    """`make_later_start_table.py --update --limit 1` on a four-dealt table holding ten positions of its first group:
    it searches that group, a group at a time, keeps the ten lines, and the counts it adds are those of the shipped
    table, made one position at a time."""
    kind = later_start.FOUR_DEALT
    shipped = load_shipped("srs-180", kind)
    group = later_start.groups(kind)[0]
    keys = sorted(_group_keys(group, kind))
    kept = {key: shipped[key] for key in keys[:10]}
    out = tmp_path / "four-dealt.txt.gz"
    later_start.write_table(out, RULES, [later_start.format_line(key, entry) for key, entry in kept.items()], kind)
    argv = ["--kind", kind.name, "--update", "--limit", "1", "--out", str(out), "--jobs", "1"]
    script = Path(__file__).parents[1] / "scripts" / "make_later_start_table.py"
    done = subprocess.run([sys.executable, str(script), *argv], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"{len(later_start.groups(kind))} groups of 1260 positions to search" in done.stdout
    made = later_start.load_table(out, RULES, kind)
    assert sorted(made) == keys
    assert all(made[key] == entry for key, entry in kept.items())
    assert all(later_start.counts(made[key]) == later_start.counts(shipped[key]) for key in keys)


def _first_keys(kind: later_start.Kind, count: int = 50) -> tuple:
    return kind_keys(kind)[:count]


@pytest.mark.parametrize(("name", "kind"), shipped_params(later_start.KINDS))
def test_the_lookups_bisection_finds_every_entry_as_the_whole_parse(name, kind):
    """The worker keeps a table's lines as bytes and finds a key by bisection (later_start.Lines). Bisection finds
    every line of a file whose keys (the text before the answers) are distinct, of one length and sorted as bytes,
    which is checked line by line; entries spread over the file (every 97th, the first and the last) are found as
    the whole parse reads them, and a key of another kind is not found."""
    table = load_shipped(name, kind)
    lines = later_start.Lines(later_start._body(later_start.path(name, kind), opening.RULES[name]) or b"", kind)
    assert len(lines) == len(table) > 0
    keys = [b" ".join(line.split(b" ", 2)[:2]) for line in lines.body.splitlines()]
    assert len({len(key) for key in keys}) == 1 and all(a < b for a, b in itertools.pairwise(keys))
    spread = list(table.items())
    for key, entry in [*spread[::97], spread[-1]]:
        assert lines.get(key) == entry, key
    for other in later_start.KINDS:  # a key of another kind is not found
        assert all(lines.get(key) is None for key in _first_keys(other) if key not in table)


def test_a_missing_damaged_or_other_rules_table_is_not_used_and_only_damage_is_reported(tmp_path, caplog):
    """No table: the positions are searched, quietly (NRS has none). A damaged file or one made under
    other rules: the same, and damage says so in the log."""
    lines = [later_start.format_line(key, later_start.compute(key, RULES)) for key in later_start.keys()[:1]]
    made = tmp_path / "made.txt.gz"
    later_start.write_table(made, RULES, lines)
    assert len(later_start.load_table(made, RULES)) == 1
    assert later_start.load_table(made, opening.RULES["srs"]) == {}
    damaged = tmp_path / "damaged.txt.gz"
    damaged.write_bytes(made.read_bytes()[:-9])
    with caplog.at_level("WARNING", logger="ai.pc.later_start"):
        assert later_start.load_table(tmp_path / "missing.txt.gz", RULES) == {}
        assert not caplog.records
        assert later_start.load_table(damaged, RULES) == {}
        assert [record.message.split(":")[0] for record in caplog.records] == [
            "later-start table damaged.txt.gz not used"
        ]


@pytest.mark.parametrize(
    "rules",
    [
        pytest.param(Rules.named(rotation, allow_180=turns), id=f"{rotation}{'-180' if turns else ''}")
        for rotation in ("srs", "srs+", "none", "nrs")
        for turns in (False, True)
    ],
)
def test_a_worker_reads_its_rules_tables_and_the_wider_rules_where_its_own_are_missing(rules, monkeypatch):
    """The warm-up's read (later_start.load): each kind these rules have a table of, and where they have none or one
    made part way, the table of the rules that bound them (ai.pc.opening.wider_rules), so the first such position
    does not pay ~0.1-0.3 s to read it; nothing else."""
    read: list = []
    real = later_start._read

    def recording(name: str, kind: later_start.Kind) -> later_start.Lines:
        lines = real(name, kind)
        if len(lines):
            read.append((name, kind))
        return lines

    monkeypatch.setattr(later_start, "_read", recording)
    later_start.load(rules)
    own, wider = opening.table_name(rules), opening.wider_rules(rules)
    expected = []
    for kind in later_start.KINDS:
        made = own is not None and later_start.path(own, kind).exists()
        if made:
            expected.append((own, kind))
        whole = made and (own, kind.name) not in PART_MADE
        if not whole and wider is not None and later_start.path(opening.table_name(wider), kind).exists():
            expected.append((opening.table_name(wider), kind))  # (bounding the positions its own lacks)
    assert sorted(read, key=str) == sorted(expected, key=str)
    if rules == opening.RULES["srs"]:  # plain SRS: its own three-dealt table (whole), SRS with 180's four-dealt one
        assert ("srs", later_start.THREE_DEALT) in read and ("srs-180", later_start.FOUR_DEALT) in read
        assert ("srs-180", later_start.THREE_DEALT) not in read


@pytest.mark.parametrize(("name", "kind"), played_params((later_start.LATER_START, *DEALT)))
def test_a_player_at_a_later_start_sees_the_tables_chance_and_can_follow_it(app, name, kind):
    """A PC-practice game started as the 8th PC of a player who keeps a piece in hold: empty field, a bag's last six
    pieces dealt, one of them held from the bag before (or as the 6th, 4th, 2nd, 7th or 5th: the bag's last five,
    four, three, two or one and the next bag's first one to five dealt, any piece held; or as the 3rd: a bag's first
    six dealt). The player reads the panel, makes a mistake
    and takes it back (the same panel again), then presses hold on its own where the panel says to place the piece
    in play (the panel then shows the chance with hold spent, lower) and plays its advice one key at a time. Every
    chance shown is the table's and the search's. (The position is the hardest whose pieces shown make no 2-line
    PC: where they make one, the panel shows that PC instead of the table's 4-line chance.)"""
    from game.handling import Button

    table = load_shipped(name, kind)
    key = _hardest(table, True, no_2_line_pc_shown(opening.RULES[name]))
    held, shown = key
    first, pressed = table[key]
    assert pressed is not None and pressed.count < first.count
    futures = kind.futures
    player = Practice(app, name, held, shown, kind.state(shown))
    game = player.game
    try:
        panel = player.panel()
        assert game.board.bits == 0 and game.hold == held and not game.hold_used
        assert round(panel.chance * futures) == first.count and panel.chance == player.searched()
        assert panel.chance_text == f"PC chance {percent_text(first.count / futures)}"
        assert first.count < futures and panel.chance_text != "PC chance 100%"  # (836 of 840: ">99%")
        move = panel.first_move
        assert not move.hold and (move.placement.piece, move.placement.mask) == (first.piece, first.mask)
        player.make_a_mistake_and_take_it_back(panel)
        player.press(Button.HOLD, lambda: player.keys.idle and game.hold_used)  # on its own, against the advice
        after = player.panel()
        assert round(after.chance * futures) == pressed.count and after.chance == player.searched()
        move = after.first_move
        assert not move.hold and (move.placement.piece, move.placement.mask) == (held, pressed.mask)
        player.play(move)
        assert game.board.bits == pressed.mask and game.hold == shown[0]
        assert player.coach.pc_panel().chance == player.searched()  # the next bag's first piece is shown now
    finally:
        app.scenes.pop()
