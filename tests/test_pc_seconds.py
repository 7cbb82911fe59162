"""The second-position tables (ai.pc.seconds): the live chance after a first placement of the player's own, or after
the first piece held and the second placed, looked up.

The table is only as right as the search that made it, so entries are checked as the opening tables' are: against
the search (pc_chance without the tables), against a count by the single-queue solver future by future for the
placement an entry names, and through the panel by a player who opens their own way."""

from __future__ import annotations

import gzip
import queue
import random
from collections import defaultdict
from collections.abc import Iterator, Mapping
from functools import lru_cache

import pytest

from ai.pc import opening, seconds
from ai.pc.api import solve
from ai.pc.chance import pc_chance, queue_length
from ai.pc.search import searcher_for
from game.pieces import ALL_PIECES, Piece
from game.randomizer import make_randomizer
from game.rules import Rules
from settings import change
from tests.players import drop_on_own_spot

SEVEN_BAG = make_randomizer("7bag", 0)
RULES = opening.RULES["srs-180"]  # the game's default rules: the table shipped


@pytest.fixture(scope="module")
def table() -> dict:
    return seconds.load_table(seconds.SECONDS.path("srs-180"), RULES)


@pytest.fixture(scope="module")
def held_table() -> dict:
    return seconds.load_table(seconds.HELD.path("srs-180"), RULES, seconds.HELD)


def _by_group(table: Mapping) -> dict:
    if isinstance(table, seconds.Table):  # (its rows read whole: twice as fast)
        return {group: table.answers(group) for group in table.groups_held()}
    out: dict = defaultdict(dict)
    for *group, order in table:
        out[tuple(group)][order] = table[(*group, order)]
    return out


def _entries(table: Mapping) -> Iterator[tuple[tuple, opening.Answer]]:
    """(key, answer) for each of a table's entries: a Table's rows read whole (twice as fast as key by key)."""
    if isinstance(table, seconds.Table):
        return (((*group, order), answer) for group, row in _by_group(table).items() for order, answer in row.items())
    return iter(table.items())


@lru_cache(maxsize=1)  # the tests go table by table (see `shipped`): one table's bounds kept, for its two tests
def _bounds(family: seconds.Family, name: str) -> dict[tuple, dict]:
    """Family.bounds for every group of a hold-pressed family: the orders it must hold, and their bounds."""
    rules = opening.RULES[name]
    return {group: family.bounds(rules, group) for group in family.groups(rules)}


SHIPPED = [
    (family, name) for family in seconds.FAMILIES for name in sorted(opening.RULES) if family.path(name).exists()
]
SHIPPED_IDS = [f"{family.name}_{name}" for family, name in SHIPPED]


@pytest.fixture(scope="module", params=SHIPPED, ids=SHIPPED_IDS)
def shipped(request) -> tuple[seconds.Family, str, dict]:
    """(family, rules' name, the shipped table parsed whole by group), for the tests that go through every entry.
    They share one parse (a boundary table's 1.5 million entries take ~8 s) and, the fixture being module-scoped,
    pytest runs them table by table and frees each parse before the next: one table in memory at a time."""
    family, name = request.param
    return family, name, _by_group(seconds.load_table(family.path(name), opening.RULES[name], family))


def test_each_shipped_table_is_made_under_todays_rules_and_whole_for_each_group_it_holds(shipped):
    """A change to SRS or to the rules' cache key makes load_table refuse the file: this fails then, and
    scripts/make_seconds_table.py must be run again. Each group (first placement, or held piece and placement)
    held has every order of the pieces shown after it, and each answer names a placement of the piece in play or,
    hold pressed, of the piece that comes out: the next piece with hold empty, the held one."""
    family, name, by_group = shipped
    rules = opening.RULES[name]
    assert by_group, "the table was made under other rules"
    gen = searcher_for(rules, True).gen
    groups = set(family.groups(rules))
    children: dict = {}
    for group, orders in by_group.items():
        assert group in groups
        mask = group[-1]
        if family.swapped:  # the orders whose boundary answer was the piece in play's: the others are its own
            before = _bounds(family, name)[group]
            assert set(orders) == set(before)
            assert all(answer.count <= before[order].count for order, answer in orders.items())  # (a bound)
        else:
            assert set(orders) == set(family.orders(group))
        if family.whole_bag and not family.swapped:  # the bag less the piece placed, and less the one held
            assert len(orders) == (720 if group[0] == group[1] else 1440)
        elif not family.whole_bag:
            assert len(orders) == (720 if family is seconds.SECONDS else 840)
        for order, answer in orders.items():
            assert 0 <= answer.count <= family.futures == answer.futures
            if answer.count == 0:
                assert answer == opening.Answer(0, order[0], 0, family.futures)
                continue
            if family is seconds.SECONDS:
                assert answer.piece in order[:2]
            elif family.swapped:  # the held piece came into play: it is the only piece to place
                assert answer.piece == group[0]
            else:  # the piece in play, or the held one unless hold is spent
                assert answer.piece in ((order[0],) if family.hold_spent else (order[0], group[0]))
            if (mask, answer.piece) not in children:
                children[mask, answer.piece] = {c.mask for c in gen.children(mask, 4, answer.piece)}
            assert answer.mask in children[mask, answer.piece]
    # written again as the generator writes what it resumes from, the entries read back the same (40 groups)
    sample = dict(random.Random(3).sample(sorted(by_group.items()), min(40, len(by_group))))
    again = seconds.Table(family)
    again.add_lines([seconds.format_line(*g, o, a) for g, orders in sample.items() for o, a in orders.items()])
    assert _by_group(again) == sample


def test_each_shipped_table_holds_every_group(shipped):
    """Every first placement (with every held piece where the family holds one): nothing of the table's kind is
    left to search live under its rules (a regenerated table that lost a group fails here)."""
    family, name, by_group = shipped
    rules = opening.RULES[name]
    groups = set(family.groups(rules))
    if family.swapped:  # a group whose boundary answers were all the held piece's (or no PC) has no entry
        groups = {group for group in groups if _bounds(family, name)[group]}
    assert set(by_group) == groups
    _bounds.cache_clear()  # (the table's other test that reads them ran before this one)


def test_a_first_placements_worth_is_its_groups_mean_count_read_from_the_file():
    """The order an empty field's placements are tried in (seconds.first_placement_worth) is each group's mean
    count, here summed from the shipped file's lines as text; rules without a table of their own take the wider
    rules' (no kicks without 180 turns: plain SRS's)."""
    sums: dict[tuple[Piece, int], list[int]] = defaultdict(list)
    with gzip.open(seconds.SECONDS.path("srs-180"), "rt", encoding="utf-8") as lines:
        for line in lines:
            if not line.startswith("#"):
                piece, cells, _, count, _, _ = line.split()
                sums[Piece[piece], int(cells, 16)].append(int(count))
    worth = seconds.first_placement_worth(RULES)
    assert set(worth) == set(sums) == set(seconds.first_placements(RULES))
    for key, counts in sums.items():
        assert len(counts) == 720
        assert worth[key] == pytest.approx(sum(counts) / 720), key
    assert seconds.first_placement_worth(Rules.named("none")) == seconds.first_placement_worth(opening.RULES["srs"])


def test_an_empty_fields_chance_is_the_same_whichever_placement_is_tried_first(monkeypatch):
    """Later PCs' first positions (empty field, a piece in hold or none, any bag offset): the chance with the
    placements tried by their worth is the chance with them tried in the old order; only the time differs."""
    from ai.pc.loop import bag_state, bag_stream, loop_positions

    positions = [
        (p.current, list(p.queue), p.hold, p.bag_state)
        for p in loop_positions(3, pcs=4, rules=RULES)
        if p.pc > 1 and p.placed == 0
    ]
    rng = random.Random(54)
    for hold in (None, Piece.Z):  # random bag offsets, as the wander games meet them
        stream = bag_stream(rng.randrange(1 << 30), 4)
        at = rng.randrange(8, 14)
        positions.append((stream[at], stream[at + 1 : at + 6], hold, bag_state(stream, at + 6)))
    assert len(positions) == 5

    def chances() -> list[float]:
        out = []
        for current, shown, hold, state in positions:
            result = pc_chance(0, current, shown, hold, state, SEVEN_BAG, RULES, 4, table=False)  # searched
            assert not result.approximate and result.best_placement is not None
            out.append(result.chance)
        return out

    assert seconds.first_placement_worth(RULES)
    by_worth = chances()
    monkeypatch.setattr(seconds, "first_placement_worth", lambda rules: {})
    assert chances() == by_worth


def test_a_table_made_in_part_holds_every_pieces_likeliest_spots_first():
    """The generator makes groups in first_placements' order, so a table stopped early holds its first groups:
    the spots at a wall that cover no empty cell (flat, or an I, J or L on end) come first, every piece that has one
    among them (each is as likely to come first), not one piece's every spot before the next piece's."""
    placements = seconds.first_placements(RULES)
    assert len(placements) == len(set(placements)) == 162

    def wall_gap(mask: int) -> int:
        columns = [x for x in range(10) if any(mask >> (10 * y + x) & 1 for y in range(4))]
        return min(columns[0], 9 - columns[-1])

    first_away = next(i for i, (_, mask) in enumerate(placements) if wall_gap(mask) > 0)
    at_walls = {piece for piece, _ in placements[:first_away]}
    assert at_walls == {Piece.I, Piece.J, Piece.L, Piece.O, Piece.T}  # (an S or Z always covers an empty cell)
    assert all(wall_gap(mask) == 0 for _, mask in placements[:first_away])


def test_a_table_made_under_other_rules_or_damaged_is_not_used(tmp_path, table):
    path = tmp_path / "table.txt.gz"
    lines = [seconds.format_line(*key, answer) for key, answer in list(table.items())[:3]]
    seconds.write_table(path, RULES, lines)
    assert len(seconds.load_table(path, RULES)) == 3
    assert seconds.load_table(path, opening.RULES["srs"]) == {}
    assert seconds.load_table(path, RULES, seconds.HELD) == {}  # a line of the other family
    # a damaged group is not used (it is searched live); the others are
    good = dict(seconds.load_table(path, RULES))
    seconds.write_table(path, RULES, [*lines, "I 0xf IJLOSZ 840 Q 0xf", "J 0xf ILOSTZ 840 Q 0xf"])
    damaged = seconds.load_table(path, RULES)
    assert damaged.get((Piece.I, 0xF, (Piece.J, Piece.L, Piece.O, Piece.S, Piece.T, Piece.Z))) is None
    assert dict(damaged) == good and len(damaged) == 3
    path.write_bytes(b"not gzip")
    assert seconds.load_table(path, RULES) == {}
    assert seconds.load_table(tmp_path / "missing.txt.gz", RULES) == {}


def test_a_group_looked_up_before_the_table_is_parsed_answers_as_the_whole_parse(shipped):
    """A table read for lookups parses a group when first asked, finding its lines by bisection in the sorted file
    (the file must stay sorted); its answers are those of the table parsed whole, and a group not held has none."""
    family, name, whole = shipped
    rules = opening.RULES[name]
    with gzip.open(family.path(name), "rt") as text:
        lines = [line for line in text.read().splitlines() if not line.startswith("#")]
    assert lines == sorted(set(lines)), "the table's lines must be sorted and distinct"
    held = sorted(whole)
    groups = [held[0], held[-1], *random.Random(5).sample(held, min(8, len(held)))]
    groups += [group for group in family.groups(rules) if group not in whole][:2]
    lazy = seconds.load_table(family.path(name), rules, family)
    assert len(lazy) == len(lines)
    for group in groups:
        for order in family.orders(group):
            assert lazy.get((*group, order)) == whole.get(group, {}).get(order)


def _args(family: seconds.Family, key: tuple, rules: Rules = RULES) -> tuple:
    """pc_chance's arguments at the position of a table key (hold_spent apart, see _chance): the first piece on its
    cells, the rest of the bag in the key's order (no hold); or a piece held and one on its cells, the bag's other
    five then the next bag's first piece shown, that bag's other six left in it; or (the bag shown whole) a piece
    held and one on its cells, the bag's six others shown, none left in it."""
    *group, order = key
    if len(group) == seconds.SECONDS.group_size:
        return (group[-1], order[0], list(order[1:]), None, (), SEVEN_BAG, rules, 4)
    left = () if family.whole_bag else tuple(p for p in ALL_PIECES if p != order[5])
    if family.swapped:  # the key is the position before hold was pressed: the held piece and the first shown swap
        return (group[-1], group[0], list(order[1:]), order[0], left, SEVEN_BAG, rules, 4)
    return (group[-1], order[0], list(order[1:]), group[0], left, SEVEN_BAG, rules, 4)


def _chance(family: seconds.Family, args: tuple, table: bool = True):
    """pc_chance at a table key's position (see _args), hold spent or not as the family says."""
    return pc_chance(*args, hold_spent=family.hold_spent, table=table)


def _sample(table: Mapping, count: int, seed: int, below: int = opening.FUTURES + 1) -> list:
    keys = sorted(key for key, answer in _entries(table) if answer.count < below)
    assert keys, "no entry of that kind in the table"
    return random.Random(seed).sample(keys, min(count, len(keys)))


def test_sampled_entries_equal_the_search(shipped):
    """The chance the table gives is the search's, for entries winning every future and for entries that do not."""
    family, name, by_group = shipped
    rules = opening.RULES[name]
    table = {(*group, order): answer for group, orders in by_group.items() for order, answer in orders.items()}
    every = family.futures
    for key in _sample(table, 2, 2026, below=every + 1) + _sample(table, 3, 2027, below=every):
        searched = _chance(family, _args(family, key, rules), table=False)
        assert not searched.approximate and searched.futures == every
        assert round(searched.chance * every) == table[key].count, key


def _count_by_single_searches(family: seconds.Family, key: tuple, answer: opening.Answer) -> int:
    """Futures from which the single-queue solver finds a PC after the named placement: no trie, no
    arrangements, no table."""
    bits, current, queue, hold, left, *_ = _args(family, key)
    gen = searcher_for(RULES, True).gen
    (child,) = [c for c in gen.children(bits, 4, answer.piece) if c.mask == answer.mask]
    if answer.piece == current:  # (always, hold spent)
        rest = tuple(queue)
    elif hold is None:  # hold pressed with hold empty: the piece in play goes to hold, the next one is placed
        hold, rest = current, tuple(queue[1:])
    else:  # hold pressed: the held piece is placed, the piece in play is held
        hold, rest = current, tuple(queue)
    won = 0
    # the pieces a PC of the placements left can use (ai.pc.chance.queue_length), less those shown
    unknown = queue_length((10 * child.h - child.field.bit_count()) // 4, hold, True) - len(rest)
    for future, _ in SEVEN_BAG.sequences(unknown, left):
        won += solve(child.field, (*rest, *future), hold=hold, rules=RULES, lines=child.h, verify=False).solvable
    return won


DEFAULT_SHIPPED = [family for family, name in SHIPPED if name == "srs-180"]


@pytest.mark.parametrize("family", DEFAULT_SHIPPED, ids=[f.name for f in DEFAULT_SHIPPED])
def test_the_named_placement_keeps_the_count_future_by_future(family):
    table = seconds.load_table(family.path("srs-180"), RULES, family)
    for key in _sample(table, 2, 7, below=family.futures):
        assert _count_by_single_searches(family, key, table[key]) == table[key].count, key


@pytest.mark.parametrize("family", DEFAULT_SHIPPED, ids=[f.name for f in DEFAULT_SHIPPED])
def test_pc_chance_answers_a_second_position_from_the_table(family, monkeypatch):
    """The answer comes from the table (a marked entry comes back as it is) and, unmarked, equals the search's,
    with the named placement as the best one; a question the table does not hold is searched."""
    table = seconds.load_table(family.path("srs-180"), RULES, family)
    entries = dict(_entries(table))
    low = {key: answer for key, answer in entries.items() if key[-2] < 1 << 30}  # the top row empty: it can move up
    key = _sample(low, 1, 11, below=family.futures)[0]
    entry = table[key]
    looked_up = _chance(family, _args(family, key))
    searched = _chance(family, _args(family, key), table=False)
    assert looked_up.chance == searched.chance and not looked_up.approximate
    best = looked_up.best_placement
    assert best is not None and (best.piece, best.mask) == (entry.piece, entry.mask)
    assert best.hold == (entry.piece != _args(family, key)[1])
    # under other rules: their own table's answer, or (plain SRS without one) bounded by this one's, the search's
    other = _args(family, key, Rules.named("srs"))
    assert _chance(family, other).chance == _chance(family, other, table=False).chance
    marked = entries  # (this test's own dict: marked in place, not copied whole)
    marked[key] = opening.Answer(entry.count - 1, entry.piece, entry.mask, entry.futures)
    monkeypatch.setattr(seconds, "_table", lambda kind, rules: marked if kind is family and rules == RULES else None)
    assert round(_chance(family, _args(family, key)).chance * family.futures) == entry.count - 1
    # not the table's question: the field moved up a row
    raised = _args(family, key)
    raised = (raised[0] << 10, *raised[1:])
    assert _chance(family, raised).chance == _chance(family, raised, table=False).chance


def test_hold_pressed_at_a_boundary_position_is_answered_from_the_tables(searched):
    """At a later PC's second position with a piece held, hold pressed: the piece held comes out, the one in play
    goes in, hold is spent. Where the boundary table's best placement was the held piece's, the answer is that
    table's; where it was the piece in play's, the hold-pressed boundary table's where it holds the group, else
    searched; each the search's."""
    family, pressed_family = seconds.BOUNDARY, seconds.BOUNDARY_HOLDING
    table = seconds.load_table(family.path("srs-180"), RULES, family)
    pressed_table = seconds.load_table(pressed_family.path("srs-180"), RULES, pressed_family)
    made = {key[:3] for key in pressed_table}
    held_groups = sorted(table.groups_held())  # (only the groups sampled read whole: 8.8 -> 5.2 s)
    sampled = random.Random(3).sample(held_groups, 40) + random.Random(3).sample(
        [g for g in held_groups if g in made], 5
    )
    groups = [(group, table.answers(group)) for group in sampled]
    held_best = [(*g, o) for g, row in groups for o, a in row.items() if a.piece == g[0] != o[0] and 0 < a.count]
    in_play_best = [(*g, o) for g, row in groups for o, a in row.items() if a.piece == o[0] != g[0] and 0 < a.count]
    in_made = [key for key in in_play_best if key[:3] in made]
    in_others = [key for key in in_play_best if key[:3] not in made]
    keys = random.Random(4).sample(held_best, 3) + random.Random(5).sample(in_made, 3)
    keys += random.Random(6).sample(in_others, min(2, len(in_others)))  # none once the table is whole
    for key in keys:
        held, _, bits, order = key
        pressed = (bits, held, list(order[1:]), order[0], (), SEVEN_BAG, RULES, 4)
        searched.clear()
        answer = pc_chance(*pressed, hold_spent=True)
        entry = table[key] if table[key].piece == held else pressed_table.get(key)
        assert (searched == []) == (entry is not None), key
        assert answer.chance == pc_chance(*pressed, hold_spent=True, table=False).chance, key
        if entry is not None:
            assert round(answer.chance * family.futures) == entry.count
            best = answer.best_placement
            assert (best is None) == (entry.count == 0)
            assert best is None or (not best.hold and (best.piece, best.mask) == (held, entry.mask))


def test_a_worker_reads_the_tables_of_the_rules_it_plays_and_another_sets_on_its_first_question(monkeypatch):
    """A worker started for a rule set holds that set's tables only (a table is tens of MB once read), and the
    wider rules' where it has no whole table of a kind: the others are read when a question under them comes, and
    that question is answered from them."""
    import ai.service

    srs = opening.RULES["srs"]
    # where plain SRS has no whole table of a kind, SRS with 180's, which bounds the search (ai.pc.chance)
    own = {(family.name, opening.rules_key(srs)) for family in seconds.FAMILIES}
    wider = {(f.name, opening.rules_key(RULES)) for f in seconds.FAMILIES if not _whole(f, "srs")}
    read: list[tuple[str, str]] = []
    real_load = seconds.load_table

    def load(path, rules, family=seconds.SECONDS):
        read.append((family.name, opening.rules_key(rules)))
        return real_load(path, rules, family)

    monkeypatch.setattr(seconds, "load_table", load)
    seconds._read.cache_clear()  # tables read by earlier tests: read anew, through `load`
    try:
        ai.service.warm_up(rules=srs)  # the worker's warm-up: the kernels, then the tables
        assert sorted(read) == sorted(own | wider)
        read.clear()
        family, table = seconds.SECONDS, real_load(seconds.SECONDS.path("srs-180"), RULES)
        key = _sample(table, 1, 5, below=family.futures)[0]
        looked_up = _chance(family, _args(family, key))
        assert (family.name, opening.rules_key(RULES)) in read
        assert round(looked_up.chance * family.futures) == table[key].count and not looked_up.approximate
    finally:
        seconds._read.cache_clear()  # not the tables read through `load`: later tests read their own


def _whole(family: seconds.Family, name: str) -> bool:
    """The shipped table of this kind counts as whole: the warm-up does not read the wider rules' beside it."""
    rules = opening.RULES[name]
    return not seconds.wants_wider(family, rules, len(seconds.load_table(family.path(name), rules, family)))


def test_a_worker_reads_the_wider_table_of_a_kind_its_own_rules_hold_only_in_part(monkeypatch):
    """A table made in part (the generator resumes) leaves groups to search: for those the wider rules' table
    bounds the search, so the warm-up reads it too; a whole one does not need it."""
    srs = opening.RULES["srs"]
    family = seconds.BOUNDARY
    wide = seconds.load_table(family.path("srs-180"), RULES, family)
    group_keys = [key for key in wide if key[:3] == next(iter(wide))[:3]]
    lines = [seconds.format_line(*key, wide[key]) for key in group_keys]  # one group (its answers: any will do)
    read: list[str] = []
    real = seconds._read

    def tables(made: seconds.Table):
        def fake(kind: seconds.Family, name: str) -> seconds.Table:
            read.append(f"{kind.name}_{name}")
            return made if kind is family and name == "srs" else real(kind, name)

        return fake

    part = seconds.Table(family)
    part.add_lines(lines)
    assert 0 < len(part) < family.entries(srs)
    monkeypatch.setattr(seconds, "_read", tables(part))
    seconds.load_all(srs)
    assert "seconds-boundary_srs-180" in read
    read.clear()
    monkeypatch.setattr(seconds.Family, "entries", lambda kind, rules: len(part))  # the same table, now whole
    seconds.load_all(srs)
    assert "seconds-boundary_srs" in read and "seconds-boundary_srs-180" not in read


def test_the_worker_process_is_started_for_the_rules_set(app, monkeypatch):
    """The app starts its worker with the rules of its settings, and a worker restarted after a rules change
    gets the new ones; the worker's loop hands them to its warm-up (which reads those tables)."""
    import ai.service
    import ui.app
    from ai.protocol import Shutdown
    from ai.worker import serve
    from ui.worker_client import _QueueEnd, spawn_thread_worker

    started: list = []

    def spawn(rules):
        started.append(rules)
        return spawn_thread_worker(lambda request, should_stop: None)

    monkeypatch.setattr(ui.app, "spawn_process_worker", spawn)
    app._spawn().stop()
    assert app.update_settings(change(app.settings, "rules", rotation="srs+")) is None
    app._spawn().stop()
    assert started == [RULES, opening.RULES["srsplus-180"]]

    warmed: list = []
    monkeypatch.setattr(ai.service, "start_warm_up", warmed.append)
    to_worker: queue.Queue = queue.Queue()
    to_worker.put(Shutdown())
    serve(_QueueEnd(to_worker, queue.Queue()), rules=opening.RULES["srs"])
    assert warmed == [opening.RULES["srs"]]


@pytest.fixture
def app(app):
    """conftest's app, with the AI worker in a thread."""
    from tests.players import use_thread_worker

    return use_thread_worker(app)


def _check_panel(app, scene, family: seconds.Family, table: dict, group: tuple, searched: list) -> None:
    """The panel's chance at the position now, once answered: the table's (at `group` and the pieces shown) and
    the search's, and the worker did not search."""
    from tests.players import pc_answered, run_until
    from ui.coach import snapshot_of

    assert run_until(app, lambda: pc_answered(scene.coach))
    assert searched == [], "the worker searched a position the table holds"
    shown = scene.coach.pc_panel().chance
    now = snapshot_of(scene.game)
    key = (*group, (now.current, *now.queue))
    assert shown is not None
    assert round(shown * table[key].futures) == table[key].count
    assert shown == _chance(family, _args(family, key, scene.game.rules), table=False).chance
    searched.clear()  # the search just made is this check's own


def _play_own_spot(app, keys, scene, family: seconds.Family, group_of, table: dict, searched: list) -> bool:
    """Play the piece in play on a spot of the player's own that `table` holds (see tests.players.drop_on_own_spot)
    and check the panel at the next position (see _check_panel). Whether the piece had such a spot."""
    groups = _by_group(table)
    piece = scene.game.active.piece
    searched.clear()
    mask = drop_on_own_spot(app, keys, scene, lambda piece, mask: group_of(piece, mask) in groups)
    if mask is None:
        return False
    _check_panel(app, scene, family, table, group_of(piece, mask), searched)
    return True


def _open_own_way(app, seed: int, table: dict, searched: list, rules: Rules = RULES) -> bool:
    """A PC-practice game whose first piece goes on a spot of the player's own (see _play_own_spot), under `rules`
    (the settings', and those `table` was made under)."""
    from tests.players import pc_practice

    keys, scene = pc_practice(app, seed)
    try:
        assert scene.game.rules.cache_key() == rules.cache_key()
        return _play_own_spot(app, keys, scene, seconds.SECONDS, lambda piece, mask: (piece, mask), table, searched)
    finally:
        app.scenes.pop()


def _hold_then_own_way(app, seed: int, table: dict, searched: list, rules: Rules = RULES) -> bool:
    """A PC-practice game where the player presses hold on its own at the first piece, waits for the panel, then
    plays the second piece on a spot of their own (see _play_own_spot), under `rules` (the settings', and those
    `table` was made under)."""
    from game.handling import Button
    from tests.players import pc_answered, pc_practice, run_until

    keys, scene = pc_practice(app, seed)
    try:
        assert scene.game.rules.cache_key() == rules.cache_key()
        assert run_until(app, lambda: pc_answered(scene.coach))
        first = scene.game.active.piece
        keys.pending = [Button.HOLD]
        assert run_until(app, lambda: scene.game.hold == first and keys.idle)
        return _play_own_spot(app, keys, scene, seconds.HELD, lambda piece, mask: (first, piece, mask), table, searched)
    finally:
        app.scenes.pop()


def _own_way_then_hold(app, seed: int, table: dict, no_hold_table: dict, searched: list) -> bool:
    """A PC-practice game whose first piece goes on a spot of the player's own that `table` holds with the second
    piece held; at the second piece the player waits for the panel, then presses hold on its own, then makes a
    mistake, undoes it and presses hold again, checking the panel each time (see _check_panel)."""
    from game.handling import Button
    from tests.players import pc_answered, pc_practice, run_until
    from ui.coach import snapshot_of

    keys, scene = pc_practice(app, seed)
    try:
        assert scene.game.rules.cache_key() == RULES.cache_key()
        first, second = scene.game.active.piece, snapshot_of(scene.game).queue[0]
        groups = _by_group(table)
        mask = drop_on_own_spot(app, keys, scene, lambda piece, mask: (second, piece, mask) in groups)
        if mask is None:
            return False
        assert run_until(app, lambda: pc_answered(scene.coach))
        searched.clear()
        keys.pending = [Button.HOLD]
        assert run_until(app, lambda: scene.game.hold == second and keys.idle)
        _check_panel(app, scene, seconds.HOLDING, table, (second, first, mask), searched)
        # a mistake (the third piece dropped where it spawns), then undo: back to the second piece's spawn, before
        # the press (the table without hold answers), then hold pressed again
        keys.pending = [Button.HARD_DROP]
        assert run_until(app, lambda: scene.game.stats.pieces == 2 and keys.idle)
        assert run_until(app, lambda: pc_answered(scene.coach))
        searched.clear()
        keys.pending = [Button.UNDO]
        assert run_until(app, lambda: scene.game.stats.pieces == 1 and keys.idle)
        assert scene.game.hold is None and scene.game.board.bits == mask
        _check_panel(app, scene, seconds.SECONDS, no_hold_table, (first, mask), searched)
        keys.pending = [Button.HOLD]
        assert run_until(app, lambda: scene.game.hold == second and keys.idle)
        _check_panel(app, scene, seconds.HOLDING, table, (second, first, mask), searched)
        return True
    finally:
        app.scenes.pop()


def test_a_player_opening_their_own_way_sees_the_tables_chance_at_the_lock(app, table, searched):
    """PC practice from an empty field, thinking ahead off (nothing is worked out before the lock). The player
    moves the first piece to a spot of their own that the table holds (not the advice), one key per tick, and
    hard drops at once. The panel's chance is the search's, and it came from the table: the worker did not search."""
    assert app.update_settings(change(app.settings, "ai", pc_think_ahead=False)) is None
    assert any(_open_own_way(app, seed, table, searched) for seed in range(1, 40))


@pytest.mark.parametrize(
    ("name", "rotation", "allow_180"),
    [("srsplus", "srs+", False), ("none-180", "none", True), ("nrs-180", "nrs", True)],
    ids=["srsplus", "none", "nrs"],
)
def test_a_player_under_other_rules_opening_their_own_way_sees_their_own_tables_chance(
    app, searched, name, rotation, allow_180
):
    """As above, with SRS+ without 180 turns, no kicks with 180 turns or NRS with 180 turns in the settings: their
    own second-position table answers (before it was made, such a position was searched, bounded by SRS+ with 180's
    table or SRS with 180's, and under NRS unbounded)."""
    rules = opening.RULES[name]
    assert app.update_settings(change(app.settings, "ai", pc_think_ahead=False)) is None
    assert app.update_settings(change(app.settings, "rules", rotation=rotation, allow_180=allow_180)) is None
    table = seconds.load_table(seconds.SECONDS.path(name), rules)
    assert any(_open_own_way(app, seed, table, searched, rules) for seed in range(1, 40))


def test_a_player_holding_the_first_piece_then_playing_their_own_way_sees_the_tables_chance(app, held_table, searched):
    """As above, but the player first presses hold on its own: the second piece goes on a spot of their own, and
    the next bag's first piece is shown by then (120 futures). The panel's chance is the held table's and the
    search's, with no search by the worker."""
    assert app.update_settings(change(app.settings, "ai", pc_think_ahead=False)) is None
    assert any(_hold_then_own_way(app, seed, held_table, searched) for seed in range(1, 40))


def test_a_player_under_srsplus_without_180_holding_then_playing_their_own_way_sees_its_own_tables_chance(
    app, searched
):
    """As above, with SRS+ without 180 turns in the settings: its own held table answers (before it was made, such
    a position was searched, bounded by SRS+ with 180's table)."""
    rules = opening.RULES["srsplus"]
    assert app.update_settings(change(app.settings, "ai", pc_think_ahead=False)) is None
    assert app.update_settings(change(app.settings, "rules", rotation="srs+", allow_180=False)) is None
    table = seconds.load_table(seconds.HELD.path("srsplus"), rules, seconds.HELD)
    assert any(_hold_then_own_way(app, seed, table, searched, rules) for seed in range(1, 40))


def test_a_player_placing_the_first_piece_their_own_way_then_holding_sees_the_tables_chance(app, table, searched):
    """The player plays the first piece on a spot of their own, waits for the panel, then presses hold on its own
    at the second piece (hold is spent: the next placement is the third piece's); then drops the third piece where
    it spawns, undoes that (back to the second piece, hold empty) and presses hold again. Each time the panel's
    chance is the table's (hold-pressed, or without hold) and the search's, with no search by the worker."""
    holding = seconds.load_table(seconds.HOLDING.path("srs-180"), RULES, seconds.HOLDING)
    assert app.update_settings(change(app.settings, "ai", pc_think_ahead=False)) is None
    assert any(_own_way_then_hold(app, seed, holding, table, searched) for seed in range(1, 40))


def _later_pc_own_way(app, hold: Piece, shown: str, swap: bool, table: dict, searched: list) -> None:
    """PC practice started as a later PC whose first piece is a bag's first, with a piece held from the bag
    before (the 3rd PC of the loop): empty field, `hold` in hold, the bag's first six pieces `shown` (the piece in
    play first), its seventh left in it. The player waits for the panel; with `swap`, presses hold on its own
    (the held piece comes out, the bag's first goes in) and waits again; then drops the piece in play at once on a
    spot of their own that the table holds. The panel's chance is the table's and the search's, and the worker
    did not search it. With `swap`, a mistake follows (the next piece dropped where it spawns), taken back: the
    same position, the same chance, still no search."""
    from game.board import Board
    from game.handling import Button
    from tests.players import pc_answered, pc_practice, run_until
    from ui.play_state import StartPosition

    queue = [Piece[name] for name in shown]
    (seventh,) = set(ALL_PIECES) - set(queue)
    start = StartPosition(board=Board.empty(), queue=queue, hold=hold, randomizer_state=(seventh,))
    keys, scene = pc_practice(app, 1, start)
    game = scene.game
    try:
        assert scene.game.rules.cache_key() == RULES.cache_key()
        assert run_until(app, lambda: pc_answered(scene.coach))
        if swap:
            keys.pending = [Button.HOLD]
            assert run_until(app, lambda: keys.idle and game.hold_used and game.hold == queue[0])
            assert run_until(app, lambda: pc_answered(scene.coach))
        held, piece = game.hold, game.active.piece
        searched.clear()
        groups = _by_group(table)
        mask = drop_on_own_spot(app, keys, scene, lambda piece, mask: (held, piece, mask) in groups)
        assert mask is not None, "the table holds no spot of this piece"
        assert game.hold == held and (game.active.piece, *game.preview()[:5]) == (*queue[1:], seventh)
        _check_panel(app, scene, seconds.BOUNDARY, table, (held, piece, mask), searched)
        if swap:
            keys.pending = [Button.HARD_DROP]
            assert run_until(app, lambda: game.stats.pieces == 2 and keys.idle)
            assert run_until(app, lambda: pc_answered(scene.coach))
            searched.clear()
            keys.pending = [Button.UNDO]
            assert run_until(app, lambda: game.stats.pieces == 1 and keys.idle)
            assert game.board.bits == mask and game.hold == held and not game.hold_used
            _check_panel(app, scene, seconds.BOUNDARY, table, (held, piece, mask), searched)
    finally:
        app.scenes.pop()


@pytest.mark.parametrize(("best", "bag"), [("held", "JLIOST"), ("in play", "JSZOTL")], ids=["held", "in play"])
def test_a_player_pressing_hold_at_a_later_pcs_second_piece_sees_the_boundary_tables_chance(app, best, bag, searched):
    """A later PC whose first piece is a bag's first, I held from the bag before (see _later_pc_own_way): the J
    dropped at once on a spot of the player's own where the table's best next placement is the held I's (or the
    piece in play's, the S: then the hold-pressed boundary table answers), then hold pressed on its own (the I
    comes out, hold spent: the panel's advice was not to). The panel's chance is the table's and the search's,
    not searched; then a mistake (the I dropped where it spawns) is undone (back before the press) and hold is
    pressed again: the same chance, still not searched."""
    from game.board import Board
    from game.handling import Button
    from tests.players import pc_answered, pc_practice, run_until
    from ui.coach import snapshot_of
    from ui.play_state import StartPosition

    table = seconds.load_table(seconds.BOUNDARY.path("srs-180"), RULES, seconds.BOUNDARY)
    pressed_family = seconds.BOUNDARY_HOLDING
    pressed_table = seconds.load_table(pressed_family.path("srs-180"), RULES, pressed_family)
    assert app.update_settings(change(app.settings, "ai", pc_think_ahead=False)) is None
    queue = [Piece[name] for name in bag]
    (seventh,) = set(ALL_PIECES) - set(queue)
    after = (*queue[1:], seventh)  # the piece in play and previews once the J is down
    start = StartPosition(board=Board.empty(), queue=queue, hold=Piece.I, randomizer_state=(seventh,))
    keys, scene = pc_practice(app, 1, start)
    game = scene.game

    def entry_after_the_press(piece, mask) -> opening.Answer | None:
        """The answer the panel is to show once hold is pressed, where the J on `mask` is a spot of the kind."""
        answer = table.get((Piece.I, piece, mask, after))
        if answer is None or not 0 < answer.count < answer.futures:
            return None
        if best == "held":
            return answer if answer.piece == Piece.I else None
        return pressed_table.get((Piece.I, piece, mask, after)) if answer.piece == after[0] else None

    def check_pressed() -> None:
        assert run_until(app, lambda: pc_answered(scene.coach))
        assert searched == [], "the worker searched a position the table holds"
        now = snapshot_of(game)
        assert (now.current, now.hold, now.queue[:5]) == (Piece.I, after[0], after[1:])
        entry = entry_after_the_press(Piece.J, mask)
        assert entry is not None
        shown = scene.coach.pc_panel().chance
        assert shown is not None and round(shown * entry.futures) == entry.count
        pressed = (mask, Piece.I, list(after[1:]), after[0], (), SEVEN_BAG, RULES, 4)
        assert shown == pc_chance(*pressed, hold_spent=True, table=False).chance
        searched.clear()  # the search just made is this check's own

    try:
        mask = drop_on_own_spot(app, keys, scene, lambda piece, mask: entry_after_the_press(piece, mask) is not None)
        assert mask is not None, "the tables hold no such spot of the J"
        assert run_until(app, lambda: pc_answered(scene.coach))
        searched.clear()
        keys.pending = [Button.HOLD]
        assert run_until(app, lambda: keys.idle and game.hold_used and game.active.piece == Piece.I)
        check_pressed()
        keys.pending = [Button.HARD_DROP]
        assert run_until(app, lambda: game.stats.pieces == 2 and keys.idle)
        assert run_until(app, lambda: pc_answered(scene.coach))
        keys.pending = [Button.UNDO]
        assert run_until(app, lambda: game.stats.pieces == 1 and keys.idle)
        assert game.board.bits == mask and game.hold == Piece.I and not game.hold_used
        assert run_until(app, lambda: pc_answered(scene.coach))
        searched.clear()
        keys.pending = [Button.HOLD]
        assert run_until(app, lambda: keys.idle and game.hold_used and game.active.piece == Piece.I)
        check_pressed()
    finally:
        app.scenes.pop()


@pytest.mark.parametrize(
    ("hold", "shown", "swap"), [(Piece.T, "IJLOSZ", False), (Piece.I, "TJLOSZ", True)], ids=["placed", "held"]
)
def test_a_player_at_a_later_pc_playing_their_own_way_sees_the_boundary_tables_chance(app, hold, shown, swap, searched):
    """A later PC whose first piece is a bag's first, a piece held (see _later_pc_own_way): the bag's first
    piece placed on a spot of the player's own, or the held piece placed after hold was pressed for it."""
    table = seconds.load_table(seconds.BOUNDARY.path("srs-180"), RULES, seconds.BOUNDARY)
    assert app.update_settings(change(app.settings, "ai", pc_think_ahead=False)) is None
    _later_pc_own_way(app, hold, shown, swap, table, searched)
