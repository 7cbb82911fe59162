"""The style and type checks CI runs, as tests: `pytest` (the README's test command and .ci/run) runs them too.

Each runs the tool from the repository root with the settings in pyproject.toml ([tool.ruff], [tool.mypy]) and
shows the tool's own report when it fails. The layering (which package may import which) is tests/test_layering.py.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

CHECKS = {
    "ruff-check": ["ruff", "check", "."],
    "ruff-format": ["ruff", "format", "--check", "."],
    "mypy": ["mypy"],  # the files of [tool.mypy]: game/, ai/, settings/, ui/, bench/, scripts/ and main.py
}


@pytest.mark.parametrize("name", list(CHECKS))
def test_tool_passes(name: str) -> None:
    command = [sys.executable, "-m", *CHECKS[name]]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        report = (result.stdout + result.stderr).strip()
        pytest.fail(f"`{' '.join(CHECKS[name])}` failed (exit {result.returncode}):\n{report}", pytrace=False)
