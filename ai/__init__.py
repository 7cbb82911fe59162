"""Stack Coach AI: move generation, evaluation and search (no pygame; depends only on game/).

Public API for the UI and the worker:
    SearchState, Budget, Suggestion, Engine, make_engine   (ai.search; "beam" or "mcts")
    find_moves, generate_raw                               (game.movegen; the move generator)
    Evaluator, LinearEvaluator, WeightSet, load_evaluator  (ai.eval)
Submodules load lazily so `import ai` stays cheap.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "SearchState": "ai.search",
    "Budget": "ai.search",
    "Suggestion": "ai.search",
    "Engine": "ai.search",
    "BeamEngine": "ai.search",
    "make_engine": "ai.search",
    "MctsEngine": "ai.mcts",
    "find_moves": "game.movegen",
    "generate_raw": "game.movegen",
    "Evaluator": "ai.eval",
    "LinearEvaluator": "ai.eval",
    "WeightSet": "ai.eval",
    "load_evaluator": "ai.eval",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'ai' has no attribute {name!r}")
    return getattr(import_module(module), name)
