"""solution-finder pattern syntax and percent against brute force."""

from __future__ import annotations

import random

import pytest

from ai.pc.api import percent, solve
from ai.pc.field import from_rows
from ai.pc.pattern import PatternError, parse_pattern
from game.pieces import Piece, parse_queue


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("*", 7),
        ("*p7", 5040),
        ("*!", 5040),
        ("[SZO]p2", 6),
        ("[SZO]!", 6),
        ("[^TI]", 5),
        ("[^TI]p2", 20),
        ("T,I,*p4", 840),
        ("*p7,TIJL", 5040),
        ("TIJL", 1),
        ("T[OSZ]", 3),
        ("[ILJ][TL]", 6),
        ("T;T", 1),
        ("SZ;[SZ]p2", 2),
        ("[sz]p2", 2),
        ("I, *p2 ; O", 43),
    ],
)
def test_counts(text: str, count: int) -> None:
    assert len(parse_pattern(text).sequences()) == count


def test_order_and_content() -> None:
    assert parse_pattern("[SZO]p2").sequences()[:2] == [(Piece.S, Piece.Z), (Piece.S, Piece.O)]
    assert parse_pattern("*p7,TIJL").sequences()[0] == tuple(parse_queue("IJLOSTZTIJL"))
    assert all(len(set(seq)) == 7 for seq in parse_pattern("*p7").sequences())
    assert {seq[0] for seq in parse_pattern("[^TI]").sequences()} == {Piece.J, Piece.L, Piece.O, Piece.S, Piece.Z}


@pytest.mark.parametrize(
    "text", ["", " ", "Q", "[SZ", "[]", "[^IJLOSTZ]", "*p8", "*p0", "[SZ]p3", "p2", "*p", ";", "T;", "[SX]", "T#"]
)
def test_bad_patterns(text: str) -> None:
    with pytest.raises(PatternError):
        parse_pattern(text).sequences()


def test_too_many_queues_is_an_error() -> None:
    with pytest.raises(PatternError):
        parse_pattern("*p7,*p7").sequences()


def _brute_failures(field: int, sequences, **kwargs) -> list:
    return [seq for seq in sequences if not solve(field, seq, verify=False, **kwargs).solvable]


@pytest.mark.parametrize("seed", range(4))
def test_percent_equals_brute_force_on_random_setups(seed: int) -> None:
    rng = random.Random(seed)
    fields = [
        (from_rows(["XXXXXX____", "XXXXXX____", "XXXXXX____", "XXXXXX____"]), 4),
        (from_rows(["XXXX____XX", "XXXX___XXX", "XXXX__XXXX", "XXXX___XXX"]), 4),
        (from_rows(["XXX_______", "XXXX______"]), 2),
        (from_rows(["XXXXXXX___", "XXXXXX____", "XXXXXX___X"]), 3),
    ]
    field, lines = fields[seed]
    need = (10 * lines - field.bit_count()) // 4
    bag = "".join(rng.sample("IJLOSTZ", 5))
    pattern = f"[{bag}]p{min(need + 1, 5)}"
    sequences = parse_pattern(pattern).sequences()
    held = rng.choice([None, Piece.T, Piece.I])
    for use_hold in (True, False):
        hold = held if use_hold else None
        result = percent(field, pattern, lines=lines, use_hold=use_hold, hold=hold)
        brute = _brute_failures(field, sequences, lines=lines, use_hold=use_hold, hold=hold)
        assert result.total == len(sequences)
        assert result.failed == brute, (pattern, use_hold, hold)
        assert result.success == len(sequences) - len(brute)


def test_short_queues_fail() -> None:
    result = percent(0, "*p7", lines=4)  # 10 pieces needed, 7 given
    assert result.success == 0 and result.total == 5040 and len(result.failed) == 5040


def test_first_bag_orders_sample_all_solvable() -> None:
    """Sample of the published fact: with the first bag known and nothing held, a PC exists for every order
    (the whole *p7,TIJL percent runs in bench/pc.py)."""
    rng = random.Random(2026)
    for _ in range(8):
        first = rng.sample("IJLOSTZ", 7)
        second = rng.sample("IJLOSTZ", 4)
        assert solve(0, parse_queue("".join(first + second)), verify=False).solvable


# --- regressions from the fuzzing pass ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("[TTTTTTTTTTTT]p12", 1),
        ("[IIIIIIIIIIIIIIIIIIII]p10", 1),
        ("[TTI]p2", 3),
        ("[TTI]!", 3),
        ("[SSZZ]p3", 6),
        ("[IIJJLL]p4", 54),
        ("[TTIIOO]!", 90),
    ],
)
def test_bags_with_repeated_letters_are_counted_without_walking_permutations(text: str, count: int) -> None:
    import itertools
    import time

    pattern = parse_pattern(text)
    started = time.perf_counter()
    assert pattern.size() == count
    assert len(pattern.sequences()) == count
    assert time.perf_counter() - started < 1.0  # [I x20]p10 used to walk 6.7e11 permutations
    (draw,) = pattern.alternatives[0]
    if len(draw.bag) <= 8:  # the same queues, in the same order, as deduplicated permutations
        assert pattern.sequences() == list(dict.fromkeys(itertools.permutations(draw.bag, draw.count)))


def test_the_cap_is_checked_arithmetically_before_any_work() -> None:
    huge = parse_pattern("*p7,*p7,*p7")  # 1.3e11 queues: refusing must not enumerate them
    assert huge.size() == 5040**3
    with pytest.raises(PatternError, match="128,024,064,000 queues"):
        huge.check_size()
    with pytest.raises(PatternError, match="at most 2,000,000"):
        next(huge.iter_sequences())


@pytest.mark.parametrize("text", ["*p³", "*p７", "*p٣", "[SZO]p²", "*p" + "9" * 5000, "T" * 10_001])
def test_only_ascii_digits_and_sane_lengths(text: str) -> None:
    with pytest.raises(PatternError) as caught:
        parse_pattern(text)
    assert "\n" not in str(caught.value)


def test_alternatives_are_deduplicated_without_remembering_queues() -> None:
    pattern = parse_pattern("[SZ]p2;SZ;*p2")
    queues = pattern.sequences()
    assert len(queues) == len(set(queues)) == 42  # 2 + 0 + 42 - 2 already given
    assert queues[:2] == [(Piece.S, Piece.Z), (Piece.Z, Piece.S)]
    assert pattern.size() == 2 + 1 + 42  # size() counts each alternative's queues
