"""Log files a player can send: each process (the window, the AI worker) logs to its own size-limited, rotating
file in the user's log folder, so a failure leaves its traceback behind.

The folder is ``$STACKCOACH_LOG_DIR`` if set, else ``platformdirs.user_log_dir("stackcoach")`` (like
``STACKCOACH_CONFIG_DIR`` and ``STACKCOACH_DATA_DIR``). The window writes ``app.log``, the worker
``worker.log``; each rolls over at ``MAX_BYTES`` and keeps ``BACKUP_COUNT`` older files (``worker.log.1``...).
The UI reaches these through ``ai.worker`` (its one entry into ``ai`` besides the messages).
"""

from __future__ import annotations

import faulthandler
import logging
import os
import threading
from logging.handlers import RotatingFileHandler
from pathlib import Path

import platformdirs

LOG_DIR_ENV = "STACKCOACH_LOG_DIR"
APP_NAME = "stackcoach"
MAX_BYTES = 1 << 20  # per file; with the backups at most (1 + BACKUP_COUNT) MiB per process kind
BACKUP_COUNT = 3
_FORMAT = "%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"


def log_dir() -> Path:
    """The log folder: $STACKCOACH_LOG_DIR if set, else the platform's per-user log folder."""
    override = os.environ.get(LOG_DIR_ENV, "").strip()
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_log_dir(APP_NAME))


def log_path(process: str = "worker") -> Path:
    """The log file of one kind of process: ``log_path()`` is the AI worker's, where the traceback of a worker
    failure (a WorkerFailure or a worker that died) is written; ``log_path("app")`` is the window's."""
    return log_dir() / f"{process}.log"


class _RotatingLog(RotatingFileHandler):
    """A rotating file handler that keeps faulthandler (hard crashes) writing into the current file."""

    crashes = False

    def doRollover(self) -> None:
        super().doRollover()
        if self.crashes and self.stream is not None:
            faulthandler.enable(self.stream)


_handler: _RotatingLog | None = None


def setup_logging(process: str, *, crashes: bool = False, level: int = logging.INFO) -> Path | None:
    """Send this process's log records (``level`` and up) to ``log_path(process)``, rotating by size. Calling it
    again with the same file changes nothing; with another file (the folder moved) the old handler is replaced.

    With ``crashes`` (for a process of its own, such as the worker) a hard crash's Python traceback
    (faulthandler) and uncaught exceptions in threads go to the same file. Returns the file, or None if it
    cannot be opened (the program then runs without a log file)."""
    global _handler
    path = log_path(process)
    root = logging.getLogger()
    if _handler is not None and _handler.baseFilename == os.path.abspath(path):
        return path
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handler = _RotatingLog(path, maxBytes=MAX_BYTES, backupCount=BACKUP_COUNT, encoding="utf-8")
    except OSError:
        return None
    handler.setFormatter(logging.Formatter(_FORMAT))
    stop_logging()
    root.addHandler(handler)
    if root.level == logging.NOTSET or root.level > level:
        root.setLevel(level)
    _handler = handler
    if crashes:
        handler.crashes = True
        if handler.stream is not None:
            faulthandler.enable(handler.stream)
        threading.excepthook = _log_thread_exception
    return path


def stop_logging() -> None:
    """Detach and close the file handler set up by :func:`setup_logging` (if any)."""
    global _handler
    if _handler is not None:
        logging.getLogger().removeHandler(_handler)
        if _handler.crashes:
            faulthandler.disable()
        _handler.close()
        _handler = None


def _log_thread_exception(args: threading.ExceptHookArgs) -> None:
    name = args.thread.name if args.thread is not None else "?"
    exc_info = (args.exc_type, args.exc_value, args.exc_traceback)
    logging.getLogger("ai.worker").error("uncaught exception in thread %s", name, exc_info=exc_info)  # type: ignore[arg-type]
