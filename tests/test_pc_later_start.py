"""The later-start table (ai.pc.later_start): the live chance at a later PC's first position with a piece held from
the bag before, looked up. Checked as the other tables are: whole and made under today's rules, entries against
the search, the named placement's count against the single-queue solver future by future, and through the panel by
a player who follows it one key at a time, with a mistake taken back and hold pressed on its own."""

from __future__ import annotations

import itertools
import random
import subprocess
import sys
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path

import pytest

from ai.pc import later_start, opening
from ai.pc.api import solve
from ai.pc.chance import pc_chance
from ai.protocol import percent_text
from game.pieces import Piece
from game.randomizer import make_randomizer
from game.rules import Rules

SEVEN_BAG = make_randomizer("7bag", 0)
RULES = opening.RULES["srs-180"]  # the game's default rules: the table shipped
NO_TABLES = Rules.named("nrs")  # NRS without 180 turns: no table of its own (NRS with 180's bound it, not answer it)


@pytest.fixture(scope="module")
def table() -> dict:
    return _load("srs-180", later_start.LATER_START)


def _fewest_kept(
    table: dict, keys: Iterable[later_start.Key], acceptable: Callable[[later_start.Key], bool]
) -> later_start.Key:
    """Of `keys`, the first `acceptable` position whose best placement keeps the fewest futures (table order)."""
    found = next((key for key in sorted(keys, key=lambda k: (table[k][0].count, k)) if acceptable(key)), None)
    assert found is not None, "no such position is acceptable"
    return found


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
    return _fewest_kept(table, keys, acceptable)


# the rule sets with a table shipped (ai/pc/later-start_<name>.txt.gz)
SHIPPED = sorted(
    path.name.removeprefix("later-start_").removesuffix(".txt.gz")
    for path in Path(later_start.__file__).parent.glob("later-start_*.txt.gz")
)


# every table shipped, of any kind: (rule set, kind) for each ai/pc/<kind>_<rules>.txt.gz
SHIPPED_TABLES = [
    (name, kind) for kind in later_start.KINDS for name in opening.RULES if later_start.path(name, kind).exists()
]


@cache
def _load(name: str, kind: later_start.Kind) -> dict:
    return later_start.load_table(later_start.path(name, kind), opening.RULES[name], kind)


@cache
def _kind_keys(kind: later_start.Kind) -> tuple:
    """The kind's positions in its order, listed once for its tables under every rule set: listing a big kind takes
    up to ~1.2 s, which each table's bisection test paid (those tests: 132 -> 57 s on one core)."""
    return tuple(kind.keys())


def _first_keys(kind: later_start.Kind, count: int = 50) -> tuple:
    return _kind_keys(kind)[:count]


def _shipped(kinds: tuple) -> list:
    """The shipped tables of these kinds, as pytest parameters named kind-rules."""
    return [pytest.param(name, kind, id=f"{kind.name}-{name}") for name, kind in SHIPPED_TABLES if kind in kinds]


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


# tables made part way, by (rules, kind) (`make_later_start_table.py --update` goes on from the positions a table
# holds; no kicks' later-start table was made so over four sessions): their lines are checked as the others', the
# positions they lack are searched (bounded by the wider rules' table, where there is one: NRS has none). Once whole,
# a table leaves this set (the tests below fail until it does). No kicks' two-dealt table was made so over five
# sessions (18,624 positions one by one, then groups in the kind's order, with their mirror images), NRS's held
# six-dealt table over three and plain SRS's three-dealt one over two; all three are whole.
PART_MADE: set[tuple[str, str]] = set()


@cache
def _every_key(kind: later_start.Kind) -> frozenset:
    return frozenset(_kind_keys(kind))


def _assert_whole(name: str, kind: later_start.Kind, table: dict) -> None:
    """Every position of the kind, or, made part way (and known to be so), some of them and no other."""
    if (name, kind.name) in PART_MADE:
        assert table and table.keys() < _every_key(kind)
    else:
        assert table.keys() == _every_key(kind)
        assert len(table) == kind.size


@pytest.mark.parametrize("name", SHIPPED)
def test_each_table_holds_every_position_with_a_pressed_answer_only_where_pressing_changes_it(name):
    """Made under today's rules (else it reads as empty), whole (or, made part way, some of the positions, known
    to be so), and each line as the module describes it."""
    table = later_start.load_table(later_start.path(name), opening.RULES[name])
    _assert_whole(name, later_start.LATER_START, table)
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
    table = _load(name, later_start.LATER_START)
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
    table = _load(name, later_start.LATER_START)
    pairs = [(key, later_start.mirrored_key(key)) for key in table if Piece.Z in key[1] and Piece.S in key[1]]
    assert len(pairs) >= 17_000
    assert [key for key, image in pairs if later_start.counts(table[key]) != later_start.counts(table[image])] == []


def _position(
    key: later_start.Key, spent: bool, kind: later_start.Kind = later_start.LATER_START, rules=RULES
) -> tuple:
    """pc_chance's arguments at a table's position, as it is or with hold pressed there."""
    held, shown = key
    state = kind.state(shown)
    if spent:  # hold pressed: the held piece in play, the one that was in play held
        return (0, held, list(shown[1:]), shown[0], state, SEVEN_BAG, rules, 4)
    return (0, shown[0], list(shown[1:]), held, state, SEVEN_BAG, rules, 4)


_SEARCHED: dict[tuple, float] = {}


def _searched_chance(board, current, queue, hold, state, bag, rules, lines, hold_spent: bool = False) -> float:
    """pc_chance's chance searched (no table), each position once in this module: the tests comparing a table's
    entries with the search and the player tests reading the panel at those same positions ask for the same
    searches (each up to seconds; ~2 minutes of this module's CPU time were such repeats)."""
    bits = board if isinstance(board, int) else board.bits
    key = (bits, current, tuple(queue), hold, tuple(state), id(bag), rules.cache_key(), lines, hold_spent)
    if key not in _SEARCHED:
        args = (board, current, list(queue), hold, state, bag, rules, lines)
        _SEARCHED[key] = pc_chance(*args, hold_spent=hold_spent, table=False).chance
    return _SEARCHED[key]


def test_pc_chance_answers_from_the_table_as_the_search_does(table):
    for key in (_hardest(table, True), _hardest(table, False)):
        for spent in (False, True):
            looked_up = pc_chance(*_position(key, spent), hold_spent=spent)
            searched = _searched_chance(*_position(key, spent), hold_spent=spent)
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


@pytest.mark.parametrize(("name", "kind"), _shipped(DEALT))
def test_each_dealt_table_holds_every_position_with_a_pressed_answer_only_where_pressing_changes_it(name, kind):
    """Made under today's rules (else it reads as empty), whole, and each line as the module describes it."""
    table = _load(name, kind)
    _assert_whole(name, kind, table)
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


@pytest.mark.parametrize(("name", "kind"), _shipped(DEALT))
def test_dealt_entries_equal_the_search_and_pc_chance_answers_from_them(name, kind):
    """Sampled entries and the hardest ones: the table's counts are the search's; pc_chance looked up (as the worker
    asks it) gives the search's chance, with hold pressed and without."""
    table, rules = _load(name, kind), opening.RULES[name]
    hardest = [_hardest(table, True), _hardest(table, False)]
    for key in random.Random(55).sample(sorted(table), 3):  # (the hardest are searched below, as the panel asks)
        stored, searched = table[key], later_start.compute(key, rules, kind)
        assert later_start.counts(stored) == later_start.counts(searched), later_start.format_line(key, stored)
    for key in hardest:
        first, pressed = table[key]
        for spent in (False, True):
            looked_up = pc_chance(*_position(key, spent, kind, rules), hold_spent=spent)
            searched_chance = _searched_chance(*_position(key, spent, kind, rules), hold_spent=spent)
            assert looked_up.chance == searched_chance and not looked_up.approximate, (key, spent)
            assert looked_up.futures == kind.futures
            assert round(looked_up.chance * kind.futures) == (pressed or first if spent else first).count


def _doubled(kind: later_start.Kind, shown: tuple[Piece, ...]) -> tuple[Piece, ...]:
    """The pieces shown with one twice in one bag, which no position has: the first two shown the same, or with six
    dealt (the bag's last is the piece in play alone, and the next bag may begin with it) the next two."""
    at = 2 if kind.dealt == 6 else 1
    return (*shown[:at], shown[at - 1], *shown[at + 1 :])


@pytest.mark.parametrize(("name", "kind"), _shipped(DEALT))
def test_a_dealt_answer_is_given_only_for_its_own_positions(name, kind):
    table, rules = _load(name, kind), opening.RULES[name]
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
    assert later_start.lookup(_doubled(kind, shown), held, rules, False, state) is None


@pytest.mark.parametrize(
    ("name", "kind"), [param for param in _shipped(DEALT) if opening.RULES[param.values[0]].mirror_symmetric]
)
def test_a_reflecting_dealt_tables_fewest_kept_pair_each_equals_the_search(name, kind):
    """Made from nothing in one run (no kicks' bag-start, its two-dealt in groups and SRS+ without 180's three-dealt
    were; its two- and four-dealt hold the same pairing), a table has the earlier of each mirror-image pair in the
    kind's order searched and the later written reflected: of the pair that keeps the fewest futures the reflected
    line is the other's reflected, and both have the search's counts."""
    table, rules = _load(name, kind), opening.RULES[name]
    order = {key: i for i, key in enumerate(_kind_keys(kind))}
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
    table, wider = _load("none-180", kind), _load("srs-180", kind)
    reached = sorted(k for k, (first, _) in table.items() if first.count == wider[k][0].count < kind.futures)
    for key in random.Random(58).sample(reached, 2):
        bounded = later_start.compute(key, rules, kind)
        unbounded = later_start.compute(key, rules, kind, wider_bound=False)
        assert later_start.counts(bounded) == later_start.counts(unbounded) == later_start.counts(table[key])


def _group_keys(group: later_start.GroupKey, kind: later_start.Kind) -> set:
    return {key for key in _kind_keys(kind) if later_start.group_of(key, kind) == group}


def test_a_group_made_at_once_has_the_counts_of_the_table_made_one_position_at_a_time():
    """later_start.solve_group (the generator's way for the two- to four-dealt kinds) against an independent making:
    the shipped four-dealt table of the default rules, whose positions were searched one by one, for every position
    of a group, each with a pressed answer there."""
    kind = later_start.FOUR_DEALT
    table = _load("srs-180", kind)
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
    assert {later_start.group_of(key, kind) for key in _kind_keys(kind)} == set(groups)
    assert all(later_start.mirrored_group(later_start.mirrored_group(g)) == g for g in groups)
    with pytest.raises(ValueError, match="not made in groups"):
        later_start.solve_group((Piece.J, ()), rules, later_start.LATER_START)


def test_the_generator_makes_a_group_a_table_has_in_part_whole_and_keeps_the_lines_it_had(tmp_path):
    """`make_later_start_table.py --update --limit 1` on a four-dealt table holding ten positions of its first group:
    it searches that group, a group at a time, keeps the ten lines, and the counts it adds are those of the shipped
    table, made one position at a time."""
    kind = later_start.FOUR_DEALT
    shipped = _load("srs-180", kind)
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


@pytest.mark.parametrize(("name", "kind"), _shipped(later_start.KINDS))
def test_the_lookups_bisection_finds_every_entry_as_the_whole_parse(name, kind):
    """The worker keeps a table's lines as bytes and finds a key by bisection (later_start.Lines). Bisection finds
    every line of a file whose keys (the text before the answers) are distinct, of one length and sorted as bytes,
    which is checked line by line; entries spread over the file (every 97th, the first and the last) are found as
    the whole parse reads them, and a key of another kind is not found."""
    table = _load(name, kind)
    lines = later_start.Lines(later_start._body(later_start.path(name, kind), opening.RULES[name]) or b"", kind)
    assert len(lines) == len(table) > 0
    keys = [b" ".join(line.split(b" ", 2)[:2]) for line in lines.body.splitlines()]
    assert len({len(key) for key in keys}) == 1 and all(a < b for a, b in itertools.pairwise(keys))
    spread = list(table.items())
    for key, entry in [*spread[::97], spread[-1]]:
        assert lines.get(key) == entry, key
    for other in later_start.KINDS:  # a key of another kind is not found
        assert all(lines.get(key) is None for key in _first_keys(other) if key not in table)


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
    return _fewest_kept(table, (key for key, (first, _) in table.items() if first.count), acceptable)


def _no_2_line_pc_shown(rules: Rules) -> Callable[[later_start.Key], bool]:
    """Do the pieces shown make no 2-line PC? Where they make one, the panel shows that PC and its chance (the lowest
    PC the known pieces finish, ai.pc_service), not the table's 4-line chance (with five dealt, six pieces shown
    often make one)."""
    return lambda key: not solve(0, key[1], hold=key[0], rules=rules, lines=2, verify=False).solvable


@pytest.mark.parametrize(("name", "kind"), _shipped(EMPTY_KINDS))
def test_each_hold_empty_table_holds_every_position_and_no_pressed_answer(name, kind):
    """Made under today's rules, whole, and each line as described: the best placement is the piece in play's
    or, hold pressed, the next one's; pressing hold with hold empty shows a new piece, another position, so there is
    no pressed answer."""
    table = _load(name, kind)
    _assert_whole(name, kind, table)
    assert kind.size == {1: 5_040, 2: 17_640, 3: 35_280, 4: 44_100, 5: 35_280, 6: 17_640}[kind.dealt]
    assert kind.futures == {1: 2_520, 2: 720, 3: 120, 4: 168, 5: 252, 6: 420}[kind.dealt]
    for (held, shown), (first, pressed) in table.items():
        assert held is None and pressed is None and first.futures == kind.futures
        assert 0 <= first.count <= kind.futures and first.piece in shown[:2]


@pytest.mark.parametrize(("name", "kind"), _shipped(EMPTY_KINDS))
def test_hold_empty_entries_equal_the_search_and_pc_chance_answers_from_them(name, kind):
    table, rules = _load(name, kind), opening.RULES[name]
    hardest = _hardest_with_a_pc(table)
    for key in random.Random(56).sample(sorted(table), 2):  # (the hardest is searched below, as the panel asks)
        stored, searched = table[key], later_start.compute(key, rules, kind)
        assert later_start.counts(stored) == later_start.counts(searched), later_start.format_line(key, stored)
    _, shown = hardest
    position = _position(hardest, False, kind, rules)
    looked_up = pc_chance(*position)
    assert looked_up.chance == _searched_chance(*position) and not looked_up.approximate
    assert looked_up.futures == kind.futures and round(looked_up.chance * kind.futures) == table[hardest][0].count
    best = looked_up.best_placement
    assert best is not None and best.hold == (best.piece != shown[0]) and best.piece == table[hardest][0].piece


def test_a_hold_empty_answer_keeps_its_count_future_by_future():
    """The two-dealt hold-empty table's hardest answer, checked with the single-queue solver over its 720 futures:
    the placement as named (the piece in play's, or the next one's with the piece in play held), then any PC."""
    kind = later_start.TWO_DEALT_EMPTY
    table = _load("srs-180", kind)
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


@pytest.mark.parametrize(("name", "kind"), _shipped(EMPTY_KINDS))
def test_hold_empty_answers_are_given_only_for_their_own_positions(name, kind):
    table, rules = _load(name, kind), opening.RULES[name]
    key = _hardest_with_a_pc(table)
    _, shown = key
    state = kind.state(shown)
    assert later_start.lookup(shown, None, rules, False, state) == table[key][0]
    assert later_start.lookup(shown, None, rules, True, state) is None  # hold spent with nothing held: no such
    assert later_start.lookup(shown, None, NO_TABLES, False, state) is None  # no table of its own
    assert later_start.lookup(_doubled(kind, shown), None, rules, False, state) is None
    if kind is later_start.LATER_START_EMPTY:
        missing = next(p for p in Piece if p not in shown)
        assert later_start.lookup(shown, None, rules, False, (missing,)) is None  # a game's first: the opening's


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


@pytest.fixture
def app(app):
    """conftest's app, with the AI worker in a thread."""
    from tests.players import use_thread_worker

    return use_thread_worker(app)


# the rule sets a player plays the tables under here, as the settings name them (rotation, 180 turns)
PLAYED = {
    "srs-180": ("srs", True),
    "srs": ("srs", False),
    "srsplus-180": ("srs+", True),
    "srsplus": ("srs+", False),
    "none-180": ("none", True),
    "nrs-180": ("nrs", True),
}


def _played(kinds: tuple) -> list:
    return [param for param in _shipped(kinds) if param.values[0] in PLAYED]


class _Practice:
    """A PC-practice game started at a later PC's first position (empty field) under the rule set `name`, played as
    a player does: from what the panel says, one key at a time."""

    def __init__(self, app, name: str, held: Piece | None, shown: tuple[Piece, ...], state: tuple) -> None:
        from game.board import Board
        from settings.model import change
        from tests.players import pc_practice
        from ui.play_state import StartPosition

        rotation, allow_180 = PLAYED[name]
        assert app.update_settings(change(app.settings, "rules", rotation=rotation, allow_180=allow_180)) is None
        start = StartPosition(board=Board.empty(), queue=list(shown), hold=held, randomizer_state=state)
        self.app = app
        self.keys, scene = pc_practice(app, 1, start)
        self.coach, self.game = scene.coach, scene.game
        assert self.game.rules.cache_key() == opening.RULES[name].cache_key()  # the settings' rules are the game's

    def panel(self):
        """The panel once it names a move."""
        from tests.players import pc_answered, run_until

        assert run_until(self.app, lambda: pc_answered(self.coach) and self.coach.pc_panel().first_move is not None)
        return self.coach.pc_panel()

    def searched(self) -> float:
        """The chance at the game's position as it is, searched (no table)."""
        from ui.coach import snapshot_of

        s = snapshot_of(self.game)
        args = (s.board, s.current, list(s.queue), s.hold, s.randomizer_state, SEVEN_BAG, s.rules, 4)
        return _searched_chance(*args, hold_spent=s.hold_used)

    def press(self, button, done) -> None:
        from tests.players import run_until

        self.keys.pending = [button]
        assert run_until(self.app, done)

    def make_a_mistake_and_take_it_back(self, panel) -> None:
        """The piece in play dropped where it is, then undone: the same panel again."""
        from game.handling import Button

        self.press(Button.HARD_DROP, lambda: self.game.stats.pieces == 1)
        game = self.game
        self.press(Button.UNDO, lambda: self.keys.idle and game.stats.pieces == 0 and game.board.bits == 0)
        again = self.panel()
        assert again.chance == panel.chance and again.advice == panel.advice

    def play(self, move) -> None:
        """The move's keys, one per tick, until it is placed."""
        from game.executor import KeyExecutor
        from tests.players import pc_answered, run_until

        self.keys.executor = KeyExecutor(move.keys)
        assert run_until(self.app, lambda: self.game.stats.pieces == 1)
        assert self.game.board.bits == move.placement.mask
        assert run_until(self.app, lambda: pc_answered(self.coach))


@pytest.mark.parametrize(("name", "kind"), _played((later_start.LATER_START, *DEALT)))
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

    table = _load(name, kind)
    key = _hardest(table, True, _no_2_line_pc_shown(opening.RULES[name]))
    held, shown = key
    first, pressed = table[key]
    assert pressed is not None and pressed.count < first.count
    futures = kind.futures
    player = _Practice(app, name, held, shown, kind.state(shown))
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


@pytest.mark.parametrize(("name", "kind"), _played(EMPTY_KINDS))
def test_a_player_at_a_later_start_with_hold_empty_sees_the_tables_chance_and_can_follow_it(app, name, kind):
    """A PC-practice game started as a later PC's first position with hold empty, of a player who does not keep a
    piece (ten pieces a PC): a bag's last six dealt (the 6th PC), its last five and the next bag's first (the 4th),
    or its last two or one and the next bag's first four or five (the 5th and 3rd). The player reads the panel,
    makes a mistake and takes it back, presses hold on its own (a new piece is shown: after the bag's last six, that
    is the two-dealt table's position with hold spent) and plays the advice one key at a time. Every chance shown is
    the search's, the first the table's."""
    from game.handling import Button

    table = _load(name, kind)
    key = _hardest_with_a_pc(table, _no_2_line_pc_shown(opening.RULES[name]))
    _, shown = key
    first, _ = table[key]
    player = _Practice(app, name, None, shown, kind.state(shown))
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
