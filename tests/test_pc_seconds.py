"""The second-position table (ai.pc.seconds): the live chance after a first placement of the player's own, looked up.

The table is only as right as the search that made it, so entries are checked as the opening tables' are: against
the search (pc_chance without the tables), against a count by the single-queue solver future by future for the
placement an entry names, and through the panel by a player who opens their own way."""

from __future__ import annotations

import itertools
import random
from collections import defaultdict

import pytest

from ai import pc_service
from ai.pc import opening, seconds
from ai.pc.api import solve
from ai.pc.chance import pc_chance
from ai.pc.search import searcher_for, step_of
from game.pieces import ALL_PIECES, Piece
from game.randomizer import make_randomizer
from game.rules import Rules
from settings import change

SEVEN_BAG = make_randomizer("7bag", 0)
RULES = opening.RULES["srs-180"]  # the game's default rules: the table shipped


@pytest.fixture(scope="module")
def table() -> dict:
    return seconds.load_table(seconds.table_path("srs-180"), RULES)


def _by_first(table: dict) -> dict:
    out: dict = defaultdict(dict)
    for (piece, mask, order), answer in table.items():
        out[piece, mask][order] = answer
    return out


SHIPPED = [name for name in sorted(opening.RULES) if seconds.table_path(name).exists()]


@pytest.mark.parametrize("name", SHIPPED)
def test_each_shipped_table_is_made_under_todays_rules_and_whole_for_each_first_placement_it_holds(name):
    """A change to SRS or to the rules' cache key makes load_table refuse the file: this fails then, and
    scripts/make_seconds_table.py must be run again. Each first placement held has all 720 orders of the rest of
    the bag, and each answer names a placement of the piece in play or, hold pressed, of the next piece."""
    rules = opening.RULES[name]
    table = seconds.load_table(seconds.table_path(name), rules)
    assert table, "the table was made under other rules"
    gen = searcher_for(rules, True).gen
    firsts = set(seconds.first_placements(rules))
    children: dict = {}
    for (piece, mask), orders in _by_first(table).items():
        assert (piece, mask) in firsts
        assert set(orders) == set(itertools.permutations(p for p in ALL_PIECES if p != piece))
        for order, answer in orders.items():
            assert 0 <= answer.count <= opening.FUTURES
            if answer.count == 0:
                assert answer == opening.Answer(0, order[0], 0)
                continue
            assert answer.piece in order[:2]
            if (mask, answer.piece) not in children:
                children[mask, answer.piece] = {c.mask for c in gen.children(mask, 4, answer.piece)}
            assert answer.mask in children[mask, answer.piece]
            assert seconds.parse_line(seconds.format_line(piece, mask, order, answer)) == ((piece, mask, order), answer)


def test_the_default_rules_table_holds_every_first_placement(table):
    assert set(_by_first(table)) == set(seconds.first_placements(RULES))


def test_a_table_made_under_other_rules_or_damaged_is_not_used(tmp_path, table):
    path = tmp_path / "table.txt.gz"
    lines = [seconds.format_line(*key, answer) for key, answer in list(table.items())[:3]]
    seconds.write_table(path, RULES, lines)
    assert len(seconds.load_table(path, RULES)) == 3
    assert seconds.load_table(path, opening.RULES["srs"]) == {}
    seconds.write_table(path, RULES, [*lines, "I 0xf IJLOSZ 840 Q 0xf"])
    assert seconds.load_table(path, RULES) == {}
    path.write_bytes(b"not gzip")
    assert seconds.load_table(path, RULES) == {}
    assert seconds.load_table(tmp_path / "missing.txt.gz", RULES) == {}


def _args(mask: int, order: tuple[Piece, ...], rules: Rules = RULES) -> tuple:
    """pc_chance's arguments at the second position after a first piece on `mask`, the bag's rest in `order`."""
    return (mask, order[0], list(order[1:]), None, (), SEVEN_BAG, rules, 4)


def _sample(table: dict, count: int, seed: int, below: int = opening.FUTURES + 1) -> list:
    keys = sorted(key for key, answer in table.items() if answer.count < below)
    assert keys, "no entry of that kind in the table"
    return random.Random(seed).sample(keys, min(count, len(keys)))


@pytest.mark.parametrize("name", SHIPPED)
def test_sampled_entries_equal_the_search(name):
    """The chance the table gives is the search's, for entries winning every future and for entries that do not."""
    rules = opening.RULES[name]
    table = seconds.load_table(seconds.table_path(name), rules)
    for piece, mask, order in _sample(table, 2, 2026) + _sample(table, 3, 2027, below=opening.FUTURES):
        searched = pc_chance(*_args(mask, order, rules), table=False)
        assert not searched.approximate
        assert round(searched.chance * opening.FUTURES) == table[piece, mask, order].count, (piece, mask, order)


def _count_by_single_searches(mask: int, order: tuple[Piece, ...], answer: opening.Answer) -> int:
    """Futures (the four pieces after the bag) from which the single-queue solver finds a PC after the named
    placement: no trie, no arrangements, no table."""
    gen = searcher_for(RULES, True).gen
    (child,) = [c for c in gen.children(mask, 4, answer.piece) if c.mask == answer.mask]
    held = order[0] if answer.piece != order[0] else None
    rest = order[1 + (held is not None) :]
    won = 0
    for future, _ in SEVEN_BAG.sequences(4, ()):
        won += solve(child.field, (*rest, *future), hold=held, rules=RULES, lines=child.h, verify=False).solvable
    return won


def test_the_named_placement_keeps_the_count_future_by_future(table):
    for piece, mask, order in _sample(table, 2, 7, below=opening.FUTURES):
        answer = table[piece, mask, order]
        assert _count_by_single_searches(mask, order, answer) == answer.count, (piece, mask, order)


def test_pc_chance_answers_a_second_position_from_the_table(table, monkeypatch):
    """The answer comes from the table (a marked entry comes back as it is) and, unmarked, equals the search's,
    with the named placement as the best one; a question the table does not hold is searched."""
    piece, mask, order = _sample(table, 1, 11, below=opening.FUTURES)[0]
    entry = table[piece, mask, order]
    looked_up = pc_chance(*_args(mask, order))
    searched = pc_chance(*_args(mask, order), table=False)
    assert looked_up.chance == searched.chance and not looked_up.approximate
    best = looked_up.best_placement
    assert best is not None and (best.piece, best.mask) == (entry.piece, entry.mask)
    assert best.hold == (entry.piece != order[0])
    marked = dict(table)
    marked[piece, mask, order] = opening.Answer(entry.count - 1, entry.piece, entry.mask)
    monkeypatch.setattr(seconds, "_tables", lambda: {opening.rules_key(RULES): marked})
    assert round(pc_chance(*_args(mask, order)).chance * opening.FUTURES) == entry.count - 1
    # not the table's question: other rules, hold in the hold slot, the field moved up a row
    assert pc_chance(mask, order[0], list(order[1:]), None, (), SEVEN_BAG, Rules.named("srs"), 4).chance == (
        pc_chance(mask, order[0], list(order[1:]), None, (), SEVEN_BAG, Rules.named("srs"), 4, table=False).chance
    )
    assert seconds.lookup(mask << 10, piece, order, RULES) is None
    assert seconds.lookup(mask, piece, order, opening.RULES["srsplus-180"]) is None


@pytest.fixture
def app(app):
    """conftest's app, with the AI worker in a thread."""
    from tests.players import use_thread_worker

    return use_thread_worker(app)


def _open_own_way(app, seed: int, table: dict, searched: list) -> bool:
    """Start a PC-practice game; when its first piece has a spot in the table other than the advice, play it one
    key per tick, hard drop at once, and check the panel at the next position. Whether the game had such a spot."""
    from game.executor import KeyExecutor
    from tests.players import pc_answered, pc_practice, run_until
    from ui.coach import snapshot_of

    keys, scene = pc_practice(app, seed)
    coach, game = scene.coach, scene.game
    try:
        assert game.rules.cache_key() == RULES.cache_key()
        assert run_until(app, lambda: pc_answered(coach))
        advised = coach.pc_panel().first_move
        piece = game.active.piece
        firsts = _by_first(table)
        advice = None if advised is None or advised.hold else advised.placement.mask
        own = [
            child
            for child in searcher_for(game.rules, True).gen.children(0, 4, piece)
            if (piece, child.mask) in firsts and child.mask != advice
        ]
        if not own:
            return False
        move = pc_service.step_move(game.board, step_of(piece, own[-1], hold=False), game.rules, True)
        searched.clear()
        keys.executor = KeyExecutor(move.keys)
        assert run_until(app, lambda: game.stats.pieces == 1 and keys.idle)
        assert game.board.bits == own[-1].mask
        assert run_until(app, lambda: pc_answered(coach))
        assert searched == [], "the worker searched a position the table holds"
        shown = coach.pc_panel().chance
        now = snapshot_of(game)
        order = (now.current, *now.queue)
        assert shown is not None
        assert round(shown * opening.FUTURES) == table[piece, own[-1].mask, order].count
        assert shown == pc_chance(*_args(game.board.bits, order), table=False).chance
        return True
    finally:
        app.scenes.pop()


def test_a_player_opening_their_own_way_sees_the_tables_chance_at_the_lock(app, table, monkeypatch):
    """PC practice from an empty field, thinking ahead off (nothing is worked out before the lock). The player
    moves the first piece to a spot of their own that the table holds (not the advice), one key per tick, and
    hard drops at once. The panel's chance is the search's, and it came from the table: the worker did not search."""
    import ai.pc.chance

    assert app.update_settings(change(app.settings, "ai", pc_think_ahead=False)) is None
    searched: list = []
    real = ai.pc.chance.futures_trie
    monkeypatch.setattr(ai.pc.chance, "futures_trie", lambda *a: searched.append(a) or real(*a))
    assert any(_open_own_way(app, seed, table, searched) for seed in range(1, 40))
