"""Perfect-clear solver: solutions, percent odds and live chance for a field, a queue and the rules.

Public API (see ai.pc.api and ai.pc.chance):
    solve(board, queue, *, hold=None, use_hold=True, rules=None, soft_drop=True, lines=4, find_all=False,
          limit=10_000, budget_ms=None, verify=True) -> SolveResult(solutions, elapsed_ms, nodes, truncated)
    percent(board, pattern, *, hold=None, use_hold=True, rules=None, soft_drop=True, lines=4, budget_ms=None)
          -> PercentResult(success, total, rate, failed, elapsed_ms, truncated)
    pc_chance(board, current, queue, hold, randomizer_state, randomizer, rules, lines=4, budget_ms=None,
          *, soft_drop=True, use_hold=True) -> ChanceResult(chance, best_placement, placements, futures, approximate)
    pc_number(bag_position) -> 1..7
    parse_pattern(text) -> Pattern

Placement coordinates follow the TBP / solution-finder convention: (x, y) is the rotation cell, in the field as
it is when the piece is placed (y = 0 the bottom row; rows cleared by earlier pieces are gone).
"""

from ai.pc.api import PercentResult, SolveResult, percent, solve
from ai.pc.chance import ChanceResult, bag_position_of_current, pc_chance, pc_number
from ai.pc.pattern import Pattern, PatternError, parse_pattern
from ai.pc.search import PCInputError, Problem, Solution, Step

__all__ = [
    "ChanceResult",
    "PCInputError",
    "Pattern",
    "PatternError",
    "PercentResult",
    "Problem",
    "Solution",
    "SolveResult",
    "Step",
    "bag_position_of_current",
    "parse_pattern",
    "pc_chance",
    "pc_number",
    "percent",
    "solve",
]
