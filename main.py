"""Stack Coach command line: with no subcommand it starts the desktop app.

Each subcommand lives in the module named in COMMANDS, which provides ``add_arguments(parser)`` and
``run(args) -> int``. Those modules keep heavy imports inside run(), so building the parser stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys

# name -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "fumen": ("game.fumen_cli", "decode, encode and show fumen codes"),
    "pc": ("ai.pc.cli", "perfect-clear solutions and odds for a field and a queue or pattern"),
    "moves": ("ai.cli", "list every reachable placement of a piece on a fumen field"),
    "bench": ("ai.bench", "play seeded games with the AI and report lines, attack, speed"),
    "train": ("ai.train", "tune evaluation weights with the noisy cross-entropy method"),
    "tbp": ("ai.tbp", "run the engine as a Tetris Bot Protocol bot on stdin/stdout"),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="stackcoach", description="Stack Coach: a trainer for modern Tetris.")
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
    return importlib.import_module(args.module).run(args)


if __name__ == "__main__":
    sys.exit(main())
