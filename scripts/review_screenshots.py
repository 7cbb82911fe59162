"""Screenshots of the Stats screen (progress plots) and the review screen, from the real window under Xvfb.

    .venv/bin/python scripts/demo_history.py /tmp/demo && .venv/bin/python scripts/review_screenshots.py /tmp/demo

Runs `python -m ui.app --script ...` under xvfb-run with STACKCOACH_DATA_DIR=DATA_DIR (the worker is a real
process), takes the window's own captures ("shot" steps) into assets/screenshots/, and captures of the whole X
screen with ImageMagick's `import -window root`, one a second (into the temp folder; pick one showing the review
being computed for assets/screenshots/review_xscreen.png).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "assets" / "screenshots"
ROOT_SHOTS = Path(tempfile.gettempdir()) / "stackcoach-root-shots"  # X screen captures, one a second from 3 s


def main() -> int:
    data = Path(sys.argv[1]).resolve()
    config = Path(tempfile.mkdtemp(prefix="stackcoach-shots-"))
    sys.path.insert(0, str(ROOT))
    from ui.modes import MODES  # the title menu lists the modes, then Stats

    steps = [
        "wait 30",
        *["tap down"] * len(MODES),
        "tap return",
        "wait 30",
        f"shot {OUT / 'stats_progress.png'}",
        "tap return",
        "wait 20",
        "wait 1500",
        "tap down",
        "wait 5",
        f"shot {OUT / 'review.png'}",
        "tap down",
        "tap down",
        "wait 5",
        f"shot {OUT / 'review_mistake.png'}",
        "quit",
    ]
    ROOT_SHOTS.mkdir(exist_ok=True)
    env = dict(os.environ, STACKCOACH_DATA_DIR=str(data), STACKCOACH_CONFIG_DIR=str(config), SDL_AUDIODRIVER="dummy")
    env.pop("SDL_VIDEODRIVER", None)
    command = [
        "xvfb-run",
        "-a",
        "-s",
        "-screen 0 1280x720x24",
        "sh",
        "-c",
        f"{sys.executable} -m ui.app --script '{';'.join(steps)}' & app=$!; "
        + "".join(f"sleep 1; import -window root {ROOT_SHOTS}/root-{second}.png; " for second in range(3, 13))
        + "wait $app",
    ]
    started = time.monotonic()
    result = subprocess.run(command, cwd=ROOT, env=env, timeout=600)
    print(f"done in {time.monotonic() - started:.1f} s, status {result.returncode}")
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
