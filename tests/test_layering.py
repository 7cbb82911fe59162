"""The import graph, checked for every package: dependencies point one way.

`game` and `settings` import nothing of ours (settings is plain data); `ai` imports `game` (and itself) only;
`ui` reaches `ai` only through `ai.protocol` (the messages) and `ai.worker` (starting the worker process);
pygame is imported only in `ui` and `bench`. Imports inside functions count as much as the ones at the top.
The `ui` modules import one another without cycles (a scene opens another through `app.screens`, see
ui/services.py); there only imports under `if TYPE_CHECKING:` are left out, as they never run.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OURS = {"game", "ai", "ui", "settings", "main", "bench", "tests"}

ALLOWED: dict[str, set[str]] = {
    "game": {"game"},
    "settings": {"settings"},
    "ai": {"ai", "game"},
    "ui": {"ui", "game", "settings", "ai.protocol", "ai.worker"},
}
PYGAME_ALLOWED = {"ui", "bench"}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _type_checking_nodes(tree: ast.Module) -> set[int]:
    """ids of the nodes inside `if TYPE_CHECKING:` blocks (imports for the type checker only)."""
    return {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and _is_type_checking(node.test)
        for statement in node.body
        for inner in ast.walk(statement)
    }


def imports_of(path: Path, *, run_time_only: bool = False) -> list[tuple[int, str]]:
    """(line, module) for every import in the file, absolute names (relative imports are resolved).
    `run_time_only`: leave out the imports under `if TYPE_CHECKING:`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    skipped = _type_checking_nodes(tree) if run_time_only else set()
    found = []
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module in ("ai", "game", "ui", "settings"):  # `from ai import protocol` names a submodule
                found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]
            else:
                found.append((node.lineno, module))
    return found


def allowed(package: str, module: str) -> bool:
    top = module.split(".")[0]
    if top == "pygame":
        return package in PYGAME_ALLOWED
    if top not in OURS:
        return True
    rules = ALLOWED[package]
    return any(module == rule or module.startswith(rule + ".") for rule in rules)


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_package_imports_point_one_way(package: str) -> None:
    problems = [
        f"{path.relative_to(ROOT)}:{line}: imports {module}"
        for path in sorted((ROOT / package).rglob("*.py"))
        for line, module in imports_of(path)
        if not allowed(package, module)
    ]
    assert problems == []


def test_pygame_only_in_ui_and_bench() -> None:
    problems = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in [ROOT / "main.py", *sorted(ROOT.glob("*/**/*.py"))]
        if path.relative_to(ROOT).parts[0] not in PYGAME_ALLOWED | {"tests", ".venv"}
        for line, module in imports_of(path)
        if module.split(".")[0] == "pygame"
    ]
    assert problems == []


def test_the_checker_sees_a_break() -> None:
    """The rules above catch the kind of edge this project once had (ui importing ai.movegen)."""
    assert not allowed("ui", "ai.movegen") and not allowed("ui", "ai")
    assert not allowed("ai", "ui.coach") and not allowed("game", "ai.protocol")
    assert not allowed("ai", "pygame") and not allowed("settings", "game.rules")
    assert allowed("ui", "ai.protocol") and allowed("ui", "ai.worker") and allowed("ai", "game.board")


def ui_import_graph() -> dict[str, set[str]]:
    """ui module -> the ui modules it imports at run time (at the top or inside functions)."""
    graph: dict[str, set[str]] = {}
    for path in sorted((ROOT / "ui").rglob("*.py")):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        name = name.removesuffix(".__init__")
        graph[name] = {
            module for _, module in imports_of(path, run_time_only=True) if module.startswith("ui.") and module != name
        }
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted; sorted by first name."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in sorted(graph.get(module, ())):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(cycles)


def test_ui_modules_import_one_another_without_cycles() -> None:
    graph = ui_import_graph()
    problems = [
        " <-> ".join(cycle) + ": " + "; ".join(f"{m} imports {sorted(graph[m] & set(cycle))}" for m in cycle)
        for cycle in import_cycles(graph)
    ]
    assert problems == []


def test_the_cycle_finder_sees_a_cycle() -> None:
    """Direct and longer cycles are found (and only those): the kind scene modules once had (menus <-> play,
    menus -> pc_menu -> play -> menus)."""
    graph = {
        "ui.menus": {"ui.play", "ui.pc_menu", "ui.render"},
        "ui.play": {"ui.menus", "ui.render"},
        "ui.pc_menu": {"ui.play"},
        "ui.render": set(),
        "ui.app": {"ui.screens"},
        "ui.screens": {"ui.menus"},
    }
    assert import_cycles(graph) == [["ui.menus", "ui.pc_menu", "ui.play"]]
    assert import_cycles({"ui.a": {"ui.b"}, "ui.b": set()}) == []


def test_type_only_imports_are_told_apart() -> None:
    """An import under `if TYPE_CHECKING:` is a run-time edge for nobody, yet still an import for the layering."""
    probe = ROOT / "ui" / "scene.py"  # imports ui.services for the type checker only
    assert "ui.services" in {module for _, module in imports_of(probe)}
    assert "ui.services" not in {module for _, module in imports_of(probe, run_time_only=True)}
