"""Showing solutions: the placements mapped back to the starting field (text picture) and a fumen code."""

from __future__ import annotations

from ai.pc.search import Problem, Solution
from game.board import WIDTH, Bitboard


def original_layout(problem: Problem, solution: Solution) -> list[tuple[str, Bitboard]]:
    """(piece letter, cells) of each placement in the starting field's rows (cleared rows put back)."""
    rows = list(range(problem.lines))  # current row -> row of the starting field
    out = []
    for step in solution.steps:
        mask = 0
        bits = step.mask
        while bits:
            low = bits & -bits
            index = low.bit_length() - 1
            mask |= 1 << (rows[index // WIDTH] * WIDTH + index % WIDTH)
            bits ^= low
        out.append((step.piece.name, mask))
        if step.lines:
            occupied = 0
            for _, m in out:
                occupied |= m
            occupied |= problem.field
            rows = [r for r in rows if (occupied >> (r * WIDTH)) & 1023 != 1023]
    return out


def picture(problem: Problem, solution: Solution) -> list[str]:
    """The starting field ('X') with every piece drawn by its letter, top row first."""
    grid = [["X" if problem.field >> (y * WIDTH + x) & 1 else "_" for x in range(WIDTH)] for y in range(problem.lines)]
    for letter, mask in original_layout(problem, solution):
        for i in range(WIDTH * problem.lines):
            if mask >> i & 1:
                grid[i // WIDTH][i % WIDTH] = letter
    return ["".join(row) for row in reversed(grid)]


def unique_key(problem: Problem, solution: Solution) -> frozenset:
    """The final arrangement regardless of order (what solution-finder's path --unique counts)."""
    return frozenset(original_layout(problem, solution))


def fumen_code(problem: Problem, solution: Solution) -> str | None:
    """A v115 fumen, one locked piece per page; None if game.fumen is not available."""
    try:
        from game.board import Board
        from game.fumen import Field, Operation, Page, encode
    except ImportError:
        return None
    pages = []
    for index, step in enumerate(solution.steps):
        field = Field.from_board(Board(problem.field)) if index == 0 else None
        placement = step.placement
        pages.append(Page(field, Operation(placement.piece, placement.rotation, placement.x, placement.y)))
    return encode(pages)
