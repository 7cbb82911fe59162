"""`game/` is the pure model: it never imports pygame, ai, ui, a clock or the global random generator."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

GAME = Path(__file__).resolve().parents[1] / "game"
FORBIDDEN_MODULES = {"pygame", "ai", "ui", "settings", "time", "datetime", "threading", "asyncio"}


# At run time only whole packages are checked: the standard library's tomllib itself imports datetime.
RUNTIME_FORBIDDEN = ["ai", "pygame", "settings", "ui"]


def game_sources() -> list[Path]:
    return sorted(GAME.rglob("*.py"))


def test_no_forbidden_imports() -> None:
    problems = []
    for path in game_sources():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
                if node.module == "random":
                    bad = [a.name for a in node.names if a.name != "Random"]
                    if bad:
                        problems.append(f"{path.name}: from random import {', '.join(bad)}")
            else:
                continue
            for name in names:
                if name.split(".")[0] in FORBIDDEN_MODULES:
                    problems.append(f"{path.name}: imports {name}")
    assert problems == []


def test_only_seeded_generators_are_used() -> None:
    """`random` may only be used to build a `random.Random(seed)`; module-level functions share global state."""
    problems = []
    for path in game_sources():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "random"
                and node.attr != "Random"
            ):
                problems.append(f"{path.name}:{node.lineno}: random.{node.attr}")
    assert problems == []


def test_importing_every_game_module_loads_no_forbidden_package() -> None:
    modules = [f"game.{p.relative_to(GAME).with_suffix('').as_posix().replace('/', '.')}" for p in game_sources()]
    modules = [m.removesuffix(".__init__") for m in modules]
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}: importlib.import_module(m)\n"
        f"print(sorted(n for n in sys.modules if n.split('.')[0] in {RUNTIME_FORBIDDEN!r}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=GAME.parent, check=True)
    assert out.stdout.strip() == "[]"
