"""Fuzz harness: solution-finder pattern strings. Every string parses or raises a one-line PatternError, fast;
what parses has as many queues as it says."""

from __future__ import annotations

import itertools
import os
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from ai.pc.pattern import MAX_SEQUENCES, PatternError, parse_pattern

SCALE = int(os.environ.get("STACKCOACH_FUZZ_SCALE", "1"))  # e.g. 20 for a deeper run
FUZZ = settings(max_examples=300 * SCALE, deadline=None)
pattern_text = st.text(alphabet="IJLOSTZijlostzQ*[]^!pP0123456789,; \t³７٣", max_size=24)


def _bag(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["letter", "star", "bag", "not"]))
    if kind == "letter":
        return draw(st.sampled_from("IJLOSTZ"))
    if kind == "star":
        text, size = "*", 7
    else:
        letters = draw(st.text(alphabet="IJLOSTZ", min_size=1, max_size=9))  # repeated letters allowed
        if kind == "not":
            letters = "".join(dict.fromkeys(letters))[:6]
        text = f"[{'^' if kind == 'not' else ''}{letters}]"
        size = 7 - len(set(letters)) if kind == "not" else len(letters)
    suffix = draw(st.sampled_from(["", "!", "p"]))
    if suffix == "p":
        suffix += str(draw(st.integers(1, size)))
    return text + suffix


well_formed = st.lists(
    st.lists(st.composite(_bag)(), min_size=1, max_size=4).map(",".join), min_size=1, max_size=3
).map(";".join)


@FUZZ
@given(st.one_of(pattern_text, well_formed))
def test_any_text_parses_or_raises_one_line_fast(text: str) -> None:
    started = time.perf_counter()
    try:
        pattern = parse_pattern(text)
        size = pattern.size()
    except PatternError as error:
        assert str(error) and "\n" not in str(error)
        return
    assert time.perf_counter() - started < 0.5
    if size > 20_000:  # counted, not listed here: the cap is decided on the count alone
        try:
            pattern.check_size()
        except PatternError:
            assert size > MAX_SEQUENCES
        else:
            assert size <= MAX_SEQUENCES
        return
    queues = pattern.sequences()
    assert len(queues) == len(set(queues)) <= size
    if len(pattern.alternatives) == 1:
        assert len(queues) == size


@FUZZ
@given(well_formed)
def test_listed_queues_match_brute_force(text: str) -> None:
    pattern = parse_pattern(text)
    if pattern.size() > 5_000:
        return
    expected: dict = {}
    for alt in pattern.alternatives:
        per_draw = [list(dict.fromkeys(itertools.permutations(d.bag, d.count))) for d in alt]
        for parts in itertools.product(*per_draw):
            expected.setdefault(tuple(p for part in parts for p in part), None)
    assert pattern.sequences() == list(expected)
