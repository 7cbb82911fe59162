"""The compiled trie search (ai.pc.jit_trie) wins exactly the leaves the Python trie search wins, on mid-PC fields,
set-ups and random 2- to 6-line fields, for tries of random queues (shared prefixes, repeated pieces); with hold
used or avoided, a piece held or not, only some leaves wanted; soft or hard drop; SRS, SRS+ with 180 and no kicks.
Both equal `solve` queue by queue. A run out of time says so and claims no leaf."""

from __future__ import annotations

import functools
import importlib
import random
import time

import pytest

from ai.pc.api import solve
from ai.pc.percent import Trie, TrieSearch
from ai.pc.search import searcher_for
from game.pieces import Piece
from game.rules import Rules

pytest.importorskip("numba")

from tests.test_pc_exactness import MID_PC, SETUPS, random_field  # after the numba skip

# `import ai.pc.percent` would give the function ai.pc.percent (the package exports it under the same name)
percent_module = importlib.import_module("ai.pc.percent")
RULES = [Rules.named("srs"), Rules.named("srs+", allow_180=True), Rules.named("none")]


def _case(rng: random.Random) -> tuple[int, int, Trie, Piece | None, bool]:
    """(field, lines, trie, hold, use_hold): queues of the pieces the field needs (plus one with hold), drawn
    around the pieces that fit it so that some leaves win and some lose."""
    kind = rng.randrange(3)
    if kind == 0 and SETUPS:
        bits, lines = rng.choice(SETUPS)
        pieces: tuple[Piece, ...] = ()
    elif kind == 1 and MID_PC:
        bits, lines, pieces = rng.choice(MID_PC)
    else:
        bits, lines, pieces = random_field(rng)
    need = (10 * lines - bits.bit_count()) // 4
    use_hold = rng.random() < 0.7
    hold = rng.choice(list(Piece)) if use_hold and rng.random() < 0.3 else None
    length = need + 1 - (hold is not None) if use_hold else need
    queues = set()
    for _ in range(rng.choice([3, 12, 40])):
        queue = list(pieces[:length])
        rng.shuffle(queue)
        queue += [rng.choice(list(Piece)) for _ in range(length - len(queue))]
        for i in range(length):  # a few pieces swapped for random ones
            if rng.random() < 0.25:
                queue[i] = rng.choice(list(Piece))
        queues.add(tuple(queue))
    return bits, lines, Trie(list(queues)), hold, use_hold


def _won(compiled: bool, bits: int, lines: int, trie: Trie, hold, use_hold: bool, rules: Rules, soft: bool) -> int:
    percent_module.USE_KERNEL = compiled
    try:
        search = TrieSearch(searcher_for(rules, soft).gen, use_hold)
        return search.from_start(bits, lines, hold, trie.root)
    finally:
        percent_module.USE_KERNEL = True


@pytest.mark.parametrize("rules", RULES, ids=["srs", "srs+180", "none"])
@pytest.mark.parametrize("soft", [True, False], ids=["soft", "hard"])
def test_the_compiled_trie_search_wins_the_leaves_the_python_one_wins(rules: Rules, soft: bool) -> None:
    rng = random.Random(f"{rules.cache_key()}-{soft}")
    wins = losses = 0
    for _ in range(25):
        bits, lines, trie, hold, use_hold = _case(rng)
        expected = _won(False, bits, lines, trie, hold, use_hold, rules, soft)
        assert _won(True, bits, lines, trie, hold, use_hold, rules, soft) == expected
        wins += expected.bit_count()
        losses += len(trie.sequences) - expected.bit_count()
    assert wins and losses  # the cases are a mix


def test_both_trie_searches_equal_solve_queue_by_queue() -> None:
    rules = Rules.named("srs")
    rng = random.Random(7)
    for _ in range(12):
        bits, lines, trie, hold, use_hold = _case(rng)
        by_solve = sum(
            1 << i
            for i, queue in enumerate(trie.sequences)
            if solve(bits, list(queue), hold=hold, use_hold=use_hold, rules=rules, lines=lines, verify=False).solvable
        )
        for compiled in (False, True):
            assert _won(compiled, bits, lines, trie, hold, use_hold, rules, True) == by_solve


def test_only_the_wanted_leaves_are_decided_and_a_later_call_decides_the_rest() -> None:
    """A search for some leaves answers those exactly; asking the same state for the others later (its memo entry
    then holds a partial answer) gives the whole answer."""
    rules = Rules.named("srs")
    rng = random.Random(11)
    checked = 0
    for _ in range(30):
        bits, lines, trie, hold, use_hold = _case(rng)
        if len(trie.sequences) < 4 or (use_hold and hold is None):
            continue
        everything = _won(False, bits, lines, trie, hold, use_hold, rules, True)
        wanted = sum(1 << i for i in range(len(trie.sequences)) if rng.random() < 0.5)
        for compiled in (False, True):
            percent_module.USE_KERNEL = compiled
            try:
                search = TrieSearch(searcher_for(rules, True).gen, use_hold)
                held = hold if use_hold else None
                first = search.run(bits, lines, held, trie.root, wanted)
                assert first & wanted == everything & wanted
                rest = search.run(bits, lines, held, trie.root, trie.root.leaves & ~wanted)
                assert (first | rest) & trie.root.leaves == everything
            finally:
                percent_module.USE_KERNEL = True
        checked += 1
    assert checked >= 5


@pytest.mark.parametrize("compiled", [False, True], ids=["python", "compiled"])
def test_a_search_of_the_same_trie_goes_on_from_the_kept_memo(compiled: bool) -> None:
    """A live chance may be asked again: a search given the trie keeps its memo for the next search of the
    same sequences (rules, hold), which then proves nothing twice; one out of time first changes no answer."""
    import ai.pc.jit_trie as jit_trie

    rules = Rules.named("srs")
    gen = searcher_for(rules, True).gen
    rng = random.Random(5)
    percent_module.USE_KERNEL = compiled
    try:
        for _ in range(6):
            bits, lines, trie, hold, use_hold = _case(rng)
            fresh = TrieSearch(gen, use_hold)
            expected = fresh.from_start(bits, lines, hold, trie.root)
            percent_module._MEMOS.clear()
            if jit_trie._SHARED:
                jit_trie._SHARED[0].memories.clear()
            cut = TrieSearch(gen, use_hold, trie=trie)
            cut.set_deadline(time.perf_counter() - 1)
            cut.from_start(bits, lines, hold, trie.root)
            first = TrieSearch(gen, use_hold, trie=Trie(list(trie.sequences)))  # the same sequences, a new trie
            assert first.from_start(bits, lines, hold, first.trie.root) == expected
            again = TrieSearch(gen, use_hold, trie=Trie(list(trie.sequences)))
            assert again.from_start(bits, lines, hold, again.trie.root) == expected
            assert again.nodes == 0 < first.nodes or first.nodes == 0
    finally:
        percent_module.USE_KERNEL = True


def test_a_search_out_of_time_says_so_and_claims_no_leaf(monkeypatch) -> None:
    import ai.pc.jit_trie as jit_trie

    monkeypatch.setattr(jit_trie, "SLICE_NODES", 1)  # the clock is read after every state
    rules = Rules.named("srs")
    trie = Trie([tuple(Piece(p) for p in queue) for queue in ((0, 1, 2, 3, 4, 5, 6, 0, 1, 2, 3),)])
    search = TrieSearch(searcher_for(rules, True).gen, True)
    search.set_deadline(time.perf_counter() - 1)
    assert search.from_start(0, 4, None, trie.root) == 0
    assert search.truncated


def _listen(search: TrieSearch, told: list[int]) -> bool:
    """A stop question that never stops: it notes what the search has won so far."""
    told.append(search.won_so_far())
    return False


@pytest.mark.parametrize("rules", RULES, ids=["srs", "srs+180", "none"])
def test_the_leaves_won_so_far_are_won_and_grow_to_the_answer(monkeypatch, rules: Rules) -> None:
    """At each clock check the compiled search tells the leaves it has proved won so far (what the panel's lower
    bound counts while a search runs): always some of the leaves the Python search wins, and part of the way before
    the end. Fields and tries as the other tests', and first PCs of 7-bag queues (long enough searches to be told
    something part way). (Here the memo never starts over, so what is told also grows; where it does, the walk
    finds again what its stack held, and pc_chance keeps the union: emptied first, it does not here.)"""
    import ai.pc.jit_trie as jit_trie

    monkeypatch.setattr(jit_trie, "SLICE_NODES", 64)  # the clock is read often (a call re-opens its path first)
    rng = random.Random(11)
    gen = searcher_for(rules, True).gen
    partway = 0
    for i in range(10):
        if i % 2:
            bits, lines, trie, hold, use_hold = _case(rng)
        else:  # the empty field, a piece held, 7-bag queues of a bag and four of the next
            bags = [rng.sample(list(Piece), 7) + rng.sample(list(Piece), 4) for _ in range(12)]
            bits, lines, trie, hold, use_hold = 0, 4, Trie([tuple(bag[1:]) for bag in bags]), bags[0][0], True
        held, node = (hold if use_hold else None), trie.root
        if use_hold and hold is None:  # the first piece fills the buffer: its subtrie is one search
            held, node = next(iter(trie.root.children.items()))
        percent_module.USE_KERNEL = False
        try:
            expected = TrieSearch(gen, use_hold).run(bits, lines, held, node)
        finally:
            percent_module.USE_KERNEL = True
        told: list[int] = []
        search = TrieSearch(gen, use_hold)
        search.should_stop = functools.partial(_listen, search, told)
        jit_trie.forget()  # (tests before, in this process, may have left the memo nearly full: it would start over)
        assert search.run(bits, lines, held, node) == expected
        assert search.won_so_far() == 0  # nothing is running now
        for before, after in zip([0, *told], [*told, expected], strict=True):
            assert before & ~after == 0  # won leaves only, and (no start-over here) more and more
        partway += any(0 < so_far < expected for so_far in told)
    assert partway  # some wins were told before the search ended


def test_an_arena_too_large_for_the_memos_values_is_refused(monkeypatch) -> None:
    """Arena offsets are stored in VBITS bits: a larger arena would hand back other states' leaves (wrong answers, no
    error), so it is refused at once; the shipped size fits."""
    import ai.pc.jit_trie as jit_trie

    assert jit_trie.ARENA_WORDS <= 1 << jit_trie.VBITS
    monkeypatch.setattr(jit_trie, "ARENA_WORDS", (1 << jit_trie.VBITS) + 1)
    with pytest.raises(ValueError, match="VBITS"):
        jit_trie._Shared()


def test_a_memo_sized_for_the_generators_or_a_tiny_one_wins_the_same_leaves(monkeypatch) -> None:
    """jit_trie.size_memo (the table generators' workers: GENERATOR_MEMO) before a process's first trie search: the
    searches use that memo, and one so small it starts over all the time wins the same leaves as the default one.
    After a search has made the memo, sizing it is refused."""
    import ai.pc.jit_trie as jit_trie

    rng = random.Random(11)
    cases = [_case(rng) for _ in range(6)]
    rules = Rules.named("srs")
    expected = [
        _won(True, bits, lines, trie, hold, use_hold, rules, True) for bits, lines, trie, hold, use_hold in cases
    ]
    slots, words = jit_trie.GENERATOR_MEMO
    assert slots > jit_trie.MEMO_SLOTS and jit_trie.ARENA_WORDS < words <= 1 << jit_trie.VBITS
    for sizes in ((1 << 6, 1 << 10), jit_trie.GENERATOR_MEMO):
        monkeypatch.setattr(jit_trie, "_SHARED", [])
        monkeypatch.setattr(jit_trie, "MEMO_SLOTS", jit_trie.MEMO_SLOTS)  # (restored after the test)
        monkeypatch.setattr(jit_trie, "ARENA_WORDS", jit_trie.ARENA_WORDS)
        percent_module._MEMOS.clear()
        jit_trie.size_memo(*sizes)
        won = [
            _won(True, bits, lines, trie, hold, use_hold, rules, True) for bits, lines, trie, hold, use_hold in cases
        ]
        assert won == expected
        assert len(jit_trie._SHARED[0].memo) == 2 * sizes[0] and len(jit_trie._SHARED[0].arena) == sizes[1]
        with pytest.raises(RuntimeError, match="first trie search"):
            jit_trie.size_memo(*sizes)
    percent_module._MEMOS.clear()
