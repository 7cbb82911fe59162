"""The PC kernels run without numba's runtime (ai.pc.jit_table.kernel). A kernel built with it would release, on
return, references its kernel caller never took, and free arrays still in use; so every compiled function of
the PC kernel modules must be a `kernel`, save the one that allocates, which only Python calls."""

from __future__ import annotations

import ast
import importlib
import inspect
import textwrap

import pytest

numba = pytest.importorskip("numba")

MODULES = ("ai.pc.jit_table", "ai.pc.jit_placements", "ai.pc.jit_tiling", "ai.pc.jit_search", "ai.pc.jit_trie")
CALLED_FROM_PYTHON_ONLY = {("ai.pc.jit_placements", "scratch")}


def _compiled(module_name: str):
    from numba.core.registry import CPUDispatcher

    module = importlib.import_module(module_name)
    for name, value in vars(module).items():
        if isinstance(value, CPUDispatcher) and value.py_func.__module__ == module_name:
            yield name, value


@pytest.mark.parametrize("module_name", MODULES)
def test_every_compiled_function_runs_without_numbas_runtime(module_name):
    found = list(_compiled(module_name))
    assert found
    for name, dispatcher in found:
        expected = (module_name, name) not in CALLED_FROM_PYTHON_ONLY
        assert (dispatcher.targetoptions.get("_nrt") is False) == expected, name


def _calls(function) -> set[str]:
    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    return {node.func.id for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}


def test_the_one_allocating_function_is_not_called_by_a_kernel():
    allocating = {name for _, name in CALLED_FROM_PYTHON_ONLY}
    for module_name in MODULES:
        for name, dispatcher in _compiled(module_name):
            if (module_name, name) not in CALLED_FROM_PYTHON_ONLY:
                assert not _calls(dispatcher.py_func) & allocating, (module_name, name)


@pytest.mark.parametrize("module_name", MODULES[1:])
def test_a_changed_source_empties_the_cache_of_every_kernel_of_the_module(module_name, monkeypatch):
    """jit_table.forget_stale_cache flushes each kernel the module defines (a kernel left off would keep the
    machine code of the kernels it calls from other modules), not the ones it imports."""
    from pathlib import Path

    from ai.pc import jit_table

    kernels = dict(_compiled(module_name))
    flushed = []
    for name, dispatcher in kernels.items():
        monkeypatch.setattr(dispatcher._cache, "flush", lambda name=name: flushed.append(name))
    stamp = Path(next(iter(kernels.values()))._cache.cache_path) / f"{module_name.rpartition('.')[2]}.sources"
    kept = stamp.read_text(encoding="utf-8") if stamp.exists() else None
    try:
        stamp.write_text("a digest of other sources", encoding="utf-8")
        module = importlib.import_module(module_name)
        jit_table.forget_stale_cache(module_name, [module.__file__])
        assert sorted(flushed) == sorted(kernels)
        if module_name == "ai.pc.jit_trie":
            assert "_tileable" in flushed  # it calls jit_tiling.state_test
    finally:
        if kept is None:
            stamp.unlink(missing_ok=True)
        else:
            stamp.write_text(kept, encoding="utf-8")


def test_a_kernel_is_compiled_once_though_kernels_call_it_with_constants():
    """A kernel calling another with a constant argument (`_open(0, ...)`, `put(..., VBITS, 1)`) must not make
    numba compile the callee for that constant's literal type beside its int64 version: each such version is
    compiled again on a cold cache (the first start of the app, a fresh checkout's tests). After a live chance
    searched and a single queue solved, every kernel has one compiled version."""
    from ai.pc import opening
    from ai.pc.api import solve
    from ai.pc.chance import pc_chance
    from game.pieces import Piece
    from game.randomizer import make_randomizer

    rules = opening.RULES["srs-180"]
    queue = [Piece.J, Piece.S, Piece.Z, Piece.I, Piece.O]
    searched = pc_chance(0, Piece.L, queue, None, (Piece.T,), make_randomizer("7bag", 0), rules, 4, table=False)
    assert searched.chance == 1 and not searched.approximate
    assert solve(0, (Piece.L, *queue, Piece.T, Piece.L, Piece.O, Piece.I), rules=rules, lines=4).solvable
    twice = {
        (module_name, name): dispatcher.signatures
        for module_name in MODULES
        for name, dispatcher in _compiled(module_name)
        if len(dispatcher.signatures) > 1
    }
    assert not twice
