"""The desktop app: window, main loop (fixed 60 Hz logic from an accumulator, one draw per display frame),
settings, sound, history store, and a scripting hook for screenshots under Xvfb.

Script hook (environment variables, or keyword arguments to `run`):
  STACKCOACH_SCRIPT      steps separated by ';' or newlines, or '@file':
                         'tap KEY', 'down KEY', 'up KEY', 'wait N' (frames), 'shot PATH', 'type TEXT', 'quit'
  STACKCOACH_SCREENSHOT  save the window to this PNG after STACKCOACH_FRAMES frames (default 60), then quit
  STACKCOACH_SEED        deal the same pieces every run (games take their seeds from this one)
With a script or screenshot, every frame advances exactly one tick, so captures are repeatable.
The same as arguments: `python -m ui.app --screenshot PATH --frames N --script STEPS`.
"""

from __future__ import annotations

import logging
import os
import random
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import pygame

from ai.worker import setup_logging
from settings import Settings, SettingsError, change, load_settings, save_settings, without_overrides
from ui import render as R
from ui.input import Gamepads, InputState, KeyMap
from ui.modes import rules_of
from ui.scene import SceneManager
from ui.screens import SceneFactory
from ui.services import Screens
from ui.sound import Sounds
from ui.store import GameRecord, HistoryStore, SaveOutcome, StoreUnavailable
from ui.worker_client import WorkerClient, WorkerHandle, spawn_process_worker

TICK_S = 1 / 60
MAX_CATCH_UP = 5  # ticks per frame at most; a long stall slows the game rather than fast-forwarding it
_log = logging.getLogger(__name__)


class App:
    def __init__(
        self,
        *,
        settings_path: str | None = None,
        store: HistoryStore | None = None,
        size: tuple[int, int] | None = None,
    ) -> None:
        loaded = load_settings(settings_path)
        self.settings: Settings = loaded.settings
        self.settings_file: Path = loaded.path
        self.load_problems = list(loaded.file_problems)  # about the file
        self.env_problems = list(loaded.env_problems)  # about STACKCOACH_* variables
        self.settings_unreadable = loaded.unreadable
        if loaded.backup_path is not None and not any(loaded.backup_path.name in p for p in self.load_problems):
            self.load_problems.append(f"your original settings file was kept as {loaded.backup_path}")
        # Values set by environment variables are used but never saved: saves write the file's own values.
        self.overrides: dict[str, str] = dict(loaded.overrides)
        self.file_settings: Settings = loaded.file_settings or loaded.settings
        self.notices = list(loaded.notices)
        self.save_problem: str | None = None
        self.keymap = KeyMap.from_settings(self.settings)
        self.input = InputState(self.keymap)
        self.gamepads = Gamepads()
        self.sounds = Sounds()
        self.sounds.configure(self.settings.audio)
        self.store: HistoryStore | None = store if store is not None else HistoryStore()
        self.store_problem: str | None = None
        try:
            self.store.check()
        except StoreUnavailable as error:
            self.store_failed(str(error))
        self.scenes = SceneManager()
        self.screens: Screens = SceneFactory(self)
        self.running = True
        self.size: tuple[int, int] = size or self.settings.display.window_size
        seed = os.environ.get("STACKCOACH_SEED", "").strip()
        self._seeds = random.Random(int(seed)) if seed.lstrip("-").isdigit() else random.Random()
        # The AI worker is started on the first request (menus never pay for it) and shared by all scenes.
        self.worker_factory: Callable[[], WorkerClient] | None = None  # tests: an in-process worker
        self._worker: WorkerClient | None = None

    def worker(self) -> WorkerClient:
        """The shared `WorkerClient`, started now if it is not running yet."""
        if self._worker is None:
            self._worker = self.worker_factory() if self.worker_factory is not None else WorkerClient(self._spawn)
        return self._worker

    def _spawn(self) -> WorkerHandle:
        """A worker process that reads the PC tables of the rules set now (one restarted after a crash reads those
        set then; a rules change does not restart it: the new rules' tables are read at their first question)."""
        return spawn_process_worker(rules_of(self.settings)[0])

    def worker_if_started(self) -> WorkerClient | None:
        """The shared client if a scene has used it already, else None (never starts one)."""
        return self._worker

    def close_worker(self) -> None:
        """Stop the worker process (window closed, Ctrl+C, crash); safe to call more than once."""
        worker, self._worker = self._worker, None
        if worker is not None:
            worker.close()

    def new_seed(self) -> int:
        """A seed for a new game (repeatable when STACKCOACH_SEED is set)."""
        return self._seeds.randrange(1 << 31)

    # --- services for scenes ------------------------------------------------------------------------------
    def messages(self) -> list[tuple[str, tuple[int, int, int]]]:
        """What the title screen should tell the player: problems in red, notices in grey."""
        out: list[tuple[str, tuple[int, int, int]]] = []

        def bullets(problems: list[str], limit: int = 6) -> None:
            out.extend((f"• {p}", R.BAD) for p in problems[:limit])
            if len(problems) > limit:
                out.append((f"• … and {len(problems) - limit} more", R.BAD))

        if self.load_problems and self.settings_unreadable:
            out += [(p, R.BAD) for p in self.load_problems]  # one message: nothing was read, defaults are used
        elif self.load_problems:
            out.append((f"Problems reading {self.settings_file.name} (the rest of your settings were used):", R.BAD))
            bullets(self.load_problems)
        if self.env_problems:
            out.append(("Ignored STACKCOACH_ environment variables:", R.BAD))
            bullets(self.env_problems)
        if self.save_problem:
            out.append((self.save_problem, R.BAD))
        if self.store_problem:
            out.append((self.store_problem, R.BAD))
        if self.sounds.problem:
            out.append((self.sounds.problem, R.DIM))
        out += [(n, R.DIM) for n in self.notices[:3]]
        return out

    def store_failed(self, message: str) -> None:
        """The history database stopped working: say so and keep playing without it."""
        self.store_problem = message
        self.store = None

    def save_record(self, record: GameRecord) -> tuple[SaveOutcome | None, str | None]:
        if self.store is None:
            return None, self.store_problem or "history is unavailable"
        try:
            return self.store.save(record), None
        except StoreUnavailable as error:
            self.store_failed(str(error))
            return None, str(error)

    def save_pc_attempts(self, setup: str, rules: str, attempts: list[tuple[bool, float]]) -> None:
        """Record PC-practice attempts under their setup; a failing store is reported, never raised."""
        if self.store is None or not setup or not attempts:
            return
        try:
            self.store.save_pc_attempts(setup, rules, attempts)
        except StoreUnavailable as error:
            self.store_failed(str(error))

    def update_settings(self, settings: Settings) -> str | None:
        """Use new settings now and save them at once. Returns a problem message, or None when saved.
        Values set by STACKCOACH_* variables stay in effect but the file keeps its own values for them."""
        self.settings = settings
        self.keymap = KeyMap.from_settings(settings)
        self.input.keymap = self.keymap
        self.input.clear()
        self.sounds.configure(settings.audio)
        try:
            to_save = without_overrides(settings, self.file_settings, self.overrides)
            self.settings_file = save_settings(to_save, self.settings_file)
            self.file_settings = to_save
            self.save_problem = None
        except SettingsError as error:
            self.save_problem = f"settings not saved: {error}"
        except OSError as error:
            self.save_problem = f"settings could not be saved to {self.settings_file} ({error.strerror or error})"
        return self.save_problem

    def quit(self) -> None:
        self.running = False

    # --- frame --------------------------------------------------------------------------------------------
    def dispatch(self, event: pygame.event.Event) -> None:
        if event.type == pygame.QUIT:
            self.quit()
            return
        if event.type in (pygame.JOYDEVICEADDED, pygame.JOYDEVICEREMOVED):
            self.gamepads.handle(event)
            return
        if event.type == pygame.WINDOWFOCUSLOST:
            self.input.clear()
        if event.type == pygame.KEYDOWN and event.key == pygame.K_F11:
            try:
                pygame.display.toggle_fullscreen()
            except pygame.error:
                pass  # some video drivers cannot switch; the window simply stays as it is
            return
        self.scenes.handle(event)

    def tick(self) -> None:
        self.scenes.update()

    def draw(self, surface: pygame.Surface) -> None:
        self.scenes.draw(surface)


def _parse_script(text: str) -> list[str]:
    if text.startswith("@"):
        text = Path(text[1:]).read_text("utf-8")
    return [step.strip() for step in text.replace("\n", ";").split(";") if step.strip()]


def _key_event(kind: int, name: str) -> pygame.event.Event:
    """A synthetic key event for a script step: 'ctrl+z', 'space', 'left shift'..."""
    *mods, key_name = name.split("+")
    mod = 0
    for m in mods:
        mod |= {"ctrl": pygame.KMOD_LCTRL, "shift": pygame.KMOD_LSHIFT, "alt": pygame.KMOD_LALT}[m]
    return pygame.event.Event(kind, key=pygame.key.key_code(key_name), mod=mod, unicode="", scancode=0)


class ScriptRunner:
    """Feeds scripted key events to the app. Each frame runs steps until one ends the frame: 'tap' (its key
    is released on the next frame) or 'wait N' (this frame and N - 1 more pass before the next step)."""

    def __init__(self, steps: list[str]) -> None:
        self.steps = steps
        self.wait = 0
        self.release: list[str] = []

    def frame(self, app: App, screen: pygame.Surface) -> None:
        for name in self.release:
            app.dispatch(_key_event(pygame.KEYUP, name))
        self.release = []
        if self.wait > 0:
            self.wait -= 1
            return
        while self.steps:
            verb, _, arg = self.steps.pop(0).partition(" ")
            if verb == "tap":
                app.dispatch(_key_event(pygame.KEYDOWN, arg))
                self.release.append(arg)
                return
            if verb == "wait":
                self.wait = max(0, int(arg) - 1)
                return
            if verb == "down":
                app.dispatch(_key_event(pygame.KEYDOWN, arg))
            elif verb == "up":
                app.dispatch(_key_event(pygame.KEYUP, arg))
            elif verb == "shot":
                Path(arg).parent.mkdir(parents=True, exist_ok=True)
                pygame.image.save(screen, arg)
            elif verb == "type":
                app.dispatch(pygame.event.Event(pygame.TEXTINPUT, text=arg))
            elif verb == "quit":
                app.quit()
            else:
                raise ValueError(f"unknown script step {verb!r}")

    @property
    def done(self) -> bool:
        return not self.steps and self.wait == 0 and not self.release


def run(  # noqa: C901 - the window's life in order: open it, the fixed-step loop, shut down
    *,
    screenshot: str | None = None,
    frames: int | None = None,
    script: str | None = None,
    settings_path: str | None = None,
) -> int:
    """Open the window and play until the player quits. Returns the process exit code."""
    screenshot = screenshot or os.environ.get("STACKCOACH_SCREENSHOT") or None
    script = script or os.environ.get("STACKCOACH_SCRIPT") or None
    if frames is None and os.environ.get("STACKCOACH_FRAMES"):
        frames = int(os.environ["STACKCOACH_FRAMES"])
    scripted = bool(screenshot or script)
    log_file = setup_logging("app")
    _log.info(
        "Stack Coach window starting (pygame-ce %s, SDL %s; log %s)",
        pygame.version.ver,
        ".".join(map(str, pygame.get_sdl_version())),
        log_file,
    )
    pygame.init()
    app: App | None = None
    resized_to: tuple[int, int] | None = None  # the last size the player gave the window
    try:
        app = App(settings_path=settings_path)
        flags = pygame.RESIZABLE | (pygame.FULLSCREEN if app.settings.display.fullscreen and not scripted else 0)
        try:
            with warnings.catch_warnings():  # "no fast renderer": vsync is a wish, not a requirement
                warnings.simplefilter("ignore")
                screen = pygame.display.set_mode(app.size, flags, vsync=1)
        except pygame.error:
            try:
                screen = pygame.display.set_mode(app.size, flags)
            except pygame.error as error:
                print(f"Stack Coach could not open a window: {error}", file=sys.stderr)
                return 1
        pygame.display.set_caption("Stack Coach")
        pygame.key.stop_text_input()  # text input only while a text box is open
        app.scenes.push(app.screens.title())
        runner = ScriptRunner(_parse_script(script)) if script else None
        clock = pygame.time.Clock()
        # Draw at the display's rate (vsync is not always available); logic stays at 60 Hz regardless.
        try:
            max_fps = max(60, min(360, pygame.display.get_current_refresh_rate() or 144))
        except (pygame.error, AttributeError):
            max_fps = 144
        accumulator = 0.0
        last = time.perf_counter()
        frame = 0
        while app.running:
            for event in pygame.event.get():
                if event.type == pygame.VIDEORESIZE:
                    screen = pygame.display.get_surface() or screen  # the window's surface after the resize
                    if not scripted and not app.settings.display.fullscreen:
                        resized_to = (event.w, event.h)
                app.dispatch(event)
            if runner is not None:
                runner.frame(app, screen)
            if scripted:
                app.tick()  # deterministic captures: one tick per frame
            else:
                now = time.perf_counter()
                accumulator = min(accumulator + now - last, MAX_CATCH_UP * TICK_S)
                last = now
                while accumulator >= TICK_S and app.running:
                    app.tick()
                    accumulator -= TICK_S
            if not app.scenes.stack:
                break
            app.draw(screen)
            pygame.display.flip()
            frame += 1
            if screenshot and frame >= (frames or 60) and (runner is None or runner.done):
                Path(screenshot).parent.mkdir(parents=True, exist_ok=True)
                pygame.image.save(screen, screenshot)
                break
            if runner is not None and runner.done and not screenshot and frames and frame >= frames:
                break
            clock.tick(0 if scripted else max_fps)
        return 0
    except KeyboardInterrupt:
        return 130
    except Exception:
        _log.critical("the window stopped on an error", exc_info=True)
        raise
    finally:
        if app is not None:
            app.close_worker()  # the worker never outlives the window (quit, Ctrl+C or an exception)
            if resized_to is not None:
                remember_window_size(app, resized_to)
        R.clear_caches()
        pygame.quit()


def remember_window_size(app: App, size: tuple[int, int]) -> None:
    """Save the window size the player left, so the next start opens the same window (out of range: ignored)."""
    if tuple(app.settings.display.window_size) == size:
        return
    try:
        app.update_settings(change(app.settings, "display", window_size=size))
    except SettingsError:
        pass  # a size outside the allowed range is simply not remembered


def main(argv: list[str] | None = None) -> int:
    """`python -m ui.app [--screenshot PATH] [--frames N] [--script STEPS]`: the same hook as the variables."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m ui.app", description="Stack Coach window")
    parser.add_argument("--screenshot", help="save the window to this PNG, then quit")
    parser.add_argument("--frames", type=int, help="frames to run before the screenshot (default 60)")
    parser.add_argument("--script", help="scripted input steps (see ui/app.py), or @file")
    args = parser.parse_args(argv)
    return run(screenshot=args.screenshot, frames=args.frames, script=args.script)


if __name__ == "__main__":
    sys.exit(main())
