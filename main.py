"""Stack Coach command line: with no subcommand it starts the desktop app.

Each subcommand lives in the module named in COMMANDS, which provides ``add_arguments(parser)`` and
``run(args) -> int``. Those modules keep heavy imports inside run(), so building the parser stays fast.

Exit status: 0 done, 2 bad input (one line ``error: ...`` on stderr, also for bad arguments), 1 when the output
cannot be written (a full disk: one ``error:`` line; a closed pipe, as in ``... | head``: silently).
"""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import sys
from typing import NoReturn

# name -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "fumen": ("game.fumen_cli", "decode, encode and show fumen codes"),
    "pc": ("ai.pc.cli", "perfect-clear solutions and odds for a field and a queue or pattern"),
    "moves": ("ai.cli", "list every reachable placement of a piece on a fumen field"),
    "bench": ("ai.bench", "play seeded games with the AI and report lines, attack, speed"),
    "train": ("ai.train", "tune evaluation weights with the noisy cross-entropy method"),
    "tbp": ("ai.tbp", "run the engine as a Tetris Bot Protocol bot on stdin/stdout"),
    "coach": ("ai.coach_cli", "what the coach panel shows for a position (PC advice and chance, or the hint)"),
    "review": ("ai.review_cli", "the coach's review of a game: each placement classed against the engine, accuracy"),
    "setup": ("ai.setup_cli", "ways to build a set-up shape from a pattern's queues, its build chance, and --cover"),
}


class OneLineErrorParser(argparse.ArgumentParser):
    """argparse with the README's error shape: one line ``error: ...`` on stderr and status 2 (no usage block)."""

    def error(self, message: str) -> NoReturn:
        first = message.splitlines()[0] if message else "bad arguments"
        self.exit(2, f"error: {self.prog}: {first} (see --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineErrorParser(prog="stackcoach", description="Stack Coach: a trainer for modern Tetris.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    play = sub.add_parser("play", help="start the desktop app (the default)")
    play.set_defaults(module=None)
    for name, (module, help_text) in COMMANDS.items():
        command = sub.add_parser(name, help=help_text)
        command.set_defaults(module=module)
        importlib.import_module(module).add_arguments(command)
    return parser


def start_app() -> int:
    try:
        app = importlib.import_module("ui.app")
    except ModuleNotFoundError as error:
        if error.name and error.name.startswith("ui"):
            print("The Stack Coach window is not built yet; see the README for the available commands.")
            return 0
        raise
    return app.run()


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command is None or getattr(args, "module", None) is None:
        return start_app()
    try:
        status = importlib.import_module(args.module).run(args)
        sys.stdout.flush()  # a full disk shows up here when the output fitted in the buffer
        return status
    except BrokenPipeError:
        _silence_stdout()  # the reader went away (`| head`): nothing more to say, and no traceback at exit
        return 1
    except OSError as error:
        if not _is_output_error(error):
            raise
        _silence_stdout()
        print(f"error: cannot write the output: {error.strerror or error}", file=sys.stderr)
        return 1


def _is_output_error(error: OSError) -> bool:
    """Whether `error` came from writing stdout (subcommands report their own input errors)."""
    return error.filename is None and error.errno in (errno.ENOSPC, errno.EPIPE, errno.EIO, errno.EFBIG, errno.EBADF)


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush does not fail a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no real file descriptor (e.g. captured in tests)
        pass


if __name__ == "__main__":
    sys.exit(main())
