"""Stopping a table generator cleanly: Ctrl+C (SIGINT to its process group) and SIGTERM to the main process (`kill
PID`) both raise KeyboardInterrupt there, so it writes what it finished and stops its pool; the pool's workers leave
stopping to it."""

from __future__ import annotations

import signal


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def stop_cleanly_on_signals() -> None:
    """In the main process, before its pool starts. SIGINT is set too: a shell that starts a job in the background
    without job control leaves SIGINT ignored, and Python then keeps it ignored."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _interrupt)


def leave_stopping_to_the_main_process() -> None:
    """A pool worker's initializer: Ctrl+C to the group is ignored, and SIGTERM (the pool stopping it) ends it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
