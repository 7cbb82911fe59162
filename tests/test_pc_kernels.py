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
