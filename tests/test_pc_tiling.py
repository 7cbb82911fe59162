"""The compiled tiling test (ai.pc.jit_tiling) answers exactly as the Python one (ai.pc.tiling)."""

from __future__ import annotations

import random

import pytest

from ai.pc import tiling
from ai.pc.field import clear_full_rows
from ai.pc.movegen import for_rules
from game.pieces import Piece
from game.rules import Rules

pytest.importorskip("numba")


def _fields(seed: int, count: int, top: int = 4) -> list[tuple[int, int, tuple[int, ...]]]:
    """Fields met by a PC search: random placements from the move generator on 2- to `top`-line fields, with
    random piece counts (some too few, some plenty). Up to 4 lines no search comes near the budget used below,
    so the answers are exact and comparable whatever each memo holds."""
    rng = random.Random(seed)
    gen = for_rules(Rules.named("srs"))
    out = []
    while len(out) < count:
        h = rng.randint(2, top)
        bits = 0
        for _ in range(rng.randint(0, 2 * h)):
            children = gen.children(bits, h, rng.choice(list(Piece)))
            if not children:
                break
            child = rng.choice(children)
            if child.lines:
                break
            bits = child.field
        bits, _ = clear_full_rows(bits, h)
        counts = tuple(rng.randint(0, 3) for _ in Piece)
        out.append((bits, h, counts))
    return out


def test_compiled_tiling_answers_as_the_python_one(monkeypatch) -> None:
    fields = _fields(7, 1500)
    monkeypatch.setattr(tiling, "USE_KERNEL", False)
    tiling.clear_memo()
    python = [tiling.tileable(b, h, c, budget=1_000_000) for b, h, c in fields]
    monkeypatch.setattr(tiling, "USE_KERNEL", True)
    tiling.clear_memo()
    compiled = [tiling.tileable(b, h, c, budget=1_000_000) for b, h, c in fields]
    assert compiled == python
    assert 100 < sum(python) < len(fields) - 100  # both answers are well represented


def test_reflecting_the_question_changes_no_answer(monkeypatch) -> None:
    """The test starts on the more crowded side by reflecting the field (J and L, S and Z swapped): as decided,
    never or always reflected, it answers the same."""
    fields = _fields(9, 1000)
    monkeypatch.setattr(tiling, "USE_KERNEL", False)
    answers = []
    for reflect in (None, False, True):
        if reflect is not None:
            monkeypatch.setattr(tiling, "_fewer_empty_on_the_right", lambda bits, h, reflect=reflect: reflect)
        tiling.clear_memo()
        answers.append([tiling.tileable(b, h, c, budget=1_000_000) for b, h, c in fields])
    assert answers[0] == answers[1] == answers[2]
    assert 100 < sum(answers[0]) < len(fields) - 100
    tiling.clear_memo()


def test_compiled_tiling_gives_up_as_the_python_one(monkeypatch) -> None:
    """With a small budget both say True (unknown) on the same fields."""
    fields = _fields(8, 400, top=6)
    answers = []
    for use in (False, True):
        monkeypatch.setattr(tiling, "USE_KERNEL", use)
        tiling.clear_memo()
        answers.append([tiling.tileable(b, h, c, budget=5) for b, h, c in fields])
    assert answers[0] == answers[1]
    tiling.clear_memo()


_ONE_OF_EACH = [tuple(int(other == piece) for other in Piece) for piece in Piece]


def test_one_piece_fields_answer_in_both_searches(monkeypatch) -> None:
    """Four empty cells: a placement of a piece in hand or not (the Python search once ran past the last column
    looking for a next cell to cover)."""
    full = (1 << 40) - 1
    fields = [full & ~0b1111, full & ~(0b11 | 0b11 << 10), full & ~(0b111 | 0b10 << 10), full & ~(0b1 | 0b111 << 10)]
    answers = []
    for use in (False, True):
        monkeypatch.setattr(tiling, "USE_KERNEL", use)
        tiling.clear_memo()
        answers.append([tiling.tileable(bits, 4, counts) for bits in fields for counts in _ONE_OF_EACH])
    assert answers[0] == answers[1]
    assert answers[0][:7] == [piece == Piece.I for piece in Piece]
    tiling.clear_memo()


def test_window_search_takes_the_scanning_search_s_steps() -> None:
    """On fields of up to WINDOW_LINES rows the compiled search reads each cell's fitting placements from the window
    tables; the scanning search tries them one by one. From the same (empty) memo they give the same answer after
    the same steps: so the same "unknown" at every budget, on 1- to 5-row fields."""
    from ai.pc import jit_tiling
    from ai.pc.jit_table import reset

    kernel = tiling._kernel()
    rng = random.Random(11)
    fields = _fields(12, 300, top=jit_tiling.WINDOW_LINES)
    seen = {0: 0, 1: 0, 2: 0}
    for bits, h, counts in fields:
        empty = 10 * h - bits.bit_count()
        if empty % 4:
            continue
        need = empty // 4
        packed = sum(min(count, need, 15) << (4 * piece) for piece, count in enumerate(counts))
        starts, pieces, masks, columns, region = kernel.tables(h)
        window = kernel.in_one()
        for budget in (1, 2, 5, rng.randint(6, 60), 1_000_000):
            reset(kernel.memo, kernel.fill)
            scanned = jit_tiling._scan_search(
                bits,
                h,
                packed,
                need,
                budget,
                starts,
                pieces,
                masks,
                columns,
                region,
                kernel.memo,
                kernel.fill,
                kernel.stack,
            )
            reset(kernel.memo, kernel.fill)
            windowed = jit_tiling._window_search(
                bits, h, packed, need, budget, columns, region, window, kernel.memo, kernel.fill, kernel.stack
            )
            assert windowed == scanned, (bits, h, counts, budget)
            seen[scanned] += 1
    reset(kernel.memo, kernel.fill)
    assert min(seen.values()) > 20  # yes, no and unknown all met
