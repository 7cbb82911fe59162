"""Scenes and the scene stack.

A scene is one screen: `handle(event)` reacts to a pygame event, `update()` advances one 60 Hz tick,
`draw(surface)` paints it and never changes state. Only the top scene gets events and ticks; drawing starts
at the highest opaque scene so transparent overlays (pause, settings over a game) show what is below.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pygame import Surface
    from pygame.event import Event

    from ui.services import Services


class Scene:
    transparent = False  # True: the scene below is drawn first (an overlay)
    name = "scene"

    def __init__(self, app: Services) -> None:
        self.app = app  # the services a scene may use (ui.services.Services), not the whole App

    def handle(self, event: Event) -> None:
        """React to one pygame event (only called while this scene is on top)."""

    def update(self) -> None:
        """One 60 Hz tick (only called while this scene is on top)."""

    def draw(self, surface: Surface) -> None:
        """Paint the scene; must not change any state."""

    def on_enter(self) -> None:
        """Called when the scene becomes the top scene (pushed, or uncovered by a pop)."""

    def on_exit(self) -> None:
        """Called when the scene stops being on top (covered or removed)."""


class SceneManager:
    """A stack of scenes with push / pop / replace."""

    def __init__(self) -> None:
        self.stack: list[Scene] = []

    @property
    def top(self) -> Scene | None:
        return self.stack[-1] if self.stack else None

    def push(self, scene: Scene) -> None:
        if self.stack:
            self.stack[-1].on_exit()
        self.stack.append(scene)
        scene.on_enter()

    def pop(self) -> Scene | None:
        """Remove the top scene; the one below (if any) is resumed."""
        if not self.stack:
            return None
        scene = self.stack.pop()
        scene.on_exit()
        if self.stack:
            self.stack[-1].on_enter()
        return scene

    def replace(self, scene: Scene) -> None:
        """Swap the top scene for `scene`."""
        if self.stack:
            self.stack.pop().on_exit()
        self.stack.append(scene)
        scene.on_enter()

    def reset(self, scene: Scene) -> None:
        """Clear the stack and start again from `scene` (e.g. back to the title)."""
        while self.stack:
            self.stack.pop().on_exit()
        self.stack.append(scene)
        scene.on_enter()

    def find(self, kind: type[Scene]) -> Scene | None:
        return next((s for s in reversed(self.stack) if isinstance(s, kind)), None)

    def handle(self, event: Event) -> None:
        if self.stack:
            self.stack[-1].handle(event)

    def update(self) -> None:
        if self.stack:
            self.stack[-1].update()

    def visible(self) -> list[Scene]:
        """Scenes to draw, bottom first: from the highest opaque scene up to the top."""
        start = 0
        for index in range(len(self.stack) - 1, -1, -1):
            if not self.stack[index].transparent:
                start = index
                break
        return self.stack[start:]

    def draw(self, surface: Surface) -> None:
        for scene in self.visible():
            scene.draw(surface)
