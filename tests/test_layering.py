"""The import graph, checked for every package: dependencies point one way.

`game` and `settings` import nothing of ours (settings is plain data); `ai` imports `game` (and itself) only;
`ui` reaches `ai` only through `ai.protocol` (the messages) and `ai.worker` (starting the worker process);
pygame is imported only in `ui` and `bench`. Imports inside functions count as much as the ones at the top.
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


def imports_of(path: Path) -> list[tuple[int, str]]:
    """(line, module) for every import in the file, absolute names (relative imports are resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    found = []
    for node in ast.walk(tree):
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
