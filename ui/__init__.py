"""The desktop client (the only package that imports pygame)."""

import os

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # keep stdout clean for scripts and tests
