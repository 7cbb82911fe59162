"""Sound effects synthesised at start-up with numpy (no audio files to ship).

If the mixer cannot start (no audio device, no driver) every call is a silent no-op: the game never
crashes for lack of sound. Volume = master% x sfx%; mute silences without forgetting the volumes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pygame

if TYPE_CHECKING:
    from settings import AudioSettings

RATE = 44100


def _envelope(n: int, attack: float, decay: float) -> np.ndarray:
    t = np.arange(n) / RATE
    env = np.minimum(1.0, t / max(attack, 1e-4)) * np.exp(-t / decay)
    return env


def _tone(
    freqs: list[float],
    seconds: float,
    *,
    attack: float = 0.002,
    decay: float = 0.05,
    wave: str = "sine",
    sweep: float = 0.0,
    noise: float = 0.0,
    seed: int = 1,
) -> np.ndarray:
    """A mono float wave in -1..1: a chord of `freqs` (optionally sweeping by `sweep` Hz/s) plus noise."""
    n = int(RATE * seconds)
    t = np.arange(n) / RATE
    out = np.zeros(n)
    for f in freqs:
        phase = 2 * np.pi * (f * t + 0.5 * sweep * t * t)
        if wave == "square":
            out += np.sign(np.sin(phase)) * 0.5
        elif wave == "tri":
            out += 2 / np.pi * np.arcsin(np.sin(phase))
        else:
            out += np.sin(phase)
    if noise:
        out += noise * np.random.default_rng(seed).uniform(-1, 1, n)
    out /= max(1.0, len(freqs) + noise)
    return out * _envelope(n, attack, decay)


def _arpeggio(notes: list[float], step: float, tail: float, wave: str = "tri") -> np.ndarray:
    parts = [_tone([f], step + tail, decay=tail, wave=wave) for f in notes]
    n = int(RATE * (step * len(notes) + tail))
    out = np.zeros(n)
    for i, part in enumerate(parts):
        start = int(RATE * step * i)
        end = min(n, start + len(part))
        out[start:end] += part[: end - start]
    return _normalised(out)


def _normalised(wave: np.ndarray) -> np.ndarray:
    """Scale so the loudest sample is exactly 1 (effects set their level by a factor below 1)."""
    peak = float(np.abs(wave).max()) if len(wave) else 0.0
    return wave / peak if peak > 0 else wave


def synthesize() -> dict[str, np.ndarray]:
    """Name -> mono float wave for every effect the game plays."""
    return {
        "move": _tone([880], 0.03, decay=0.008, wave="square") * 0.25,
        "rotate": _tone([1320, 990], 0.05, decay=0.015, wave="tri") * 0.35,
        "hold": _tone([660], 0.08, decay=0.03, wave="tri", sweep=2000) * 0.4,
        "lock": _tone([140], 0.09, decay=0.03, noise=0.6) * 0.6,
        "harddrop": _tone([110], 0.12, decay=0.04, noise=0.9, seed=2) * 0.7,
        "clear": _tone([523, 659, 784], 0.25, decay=0.09, wave="tri") * 0.6,
        "quad": _arpeggio([523, 659, 784, 1047], 0.05, 0.2) * 0.8,
        "spin": _arpeggio([392, 587, 880], 0.04, 0.18, wave="square") * 0.5,
        "pc": _arpeggio([523, 659, 784, 1047, 1319, 1568], 0.06, 0.35) * 0.9,
        "topout": _tone([220], 0.6, decay=0.25, wave="square", sweep=-250) * 0.5,
        "menu": _tone([1200], 0.04, decay=0.01, wave="tri") * 0.3,
        "ready": _tone([660], 0.12, decay=0.05, wave="tri") * 0.4,
    }


class Sounds:
    """Plays the synthesised effects; silent (and says why in `problem`) when the mixer is unavailable."""

    def __init__(self) -> None:
        self.sounds: dict[str, pygame.mixer.Sound] = {}
        self.problem: str | None = None
        self.volume = 1.0
        try:
            if not pygame.mixer.get_init():
                pygame.mixer.init(frequency=RATE, size=-16, channels=2, buffer=512)
            device = pygame.mixer.get_init()
            if device is None:  # init returned without a device (it raises when it knows why)
                raise pygame.error("no mixer after init")
            frequency, size, channels = device
            pygame.mixer.set_num_channels(16)
            for name, wave in synthesize().items():
                self.sounds[name] = self._make(wave, frequency, size, channels)
        except (pygame.error, ValueError, TypeError) as error:
            self.sounds = {}
            self.problem = f"sound is off: the audio device could not start ({error})"

    @staticmethod
    def _make(wave: np.ndarray, frequency: int, size: int, channels: int) -> pygame.mixer.Sound:
        if frequency != RATE:  # resample to whatever rate the device gave us
            positions = np.linspace(0, len(wave) - 1, int(len(wave) * frequency / RATE))
            wave = np.interp(positions, np.arange(len(wave)), wave)
        if abs(size) == 32:  # the device gave us float samples
            data = wave.astype(np.float32)
        else:
            data = np.clip(wave * 32767, -32768, 32767).astype(np.int16)
        if channels > 1:
            data = np.repeat(data[:, None], channels, axis=1)
        return pygame.mixer.Sound(buffer=np.ascontiguousarray(data).tobytes())

    @property
    def available(self) -> bool:
        return bool(self.sounds)

    def configure(self, audio: AudioSettings) -> None:
        """Apply `settings.audio` (master_volume, sfx_volume in %, mute)."""
        self.volume = 0.0 if audio.mute else audio.master_volume / 100 * audio.sfx_volume / 100

    def play(self, name: str) -> None:
        sound = self.sounds.get(name)
        if sound is None or self.volume <= 0:
            return
        try:
            sound.set_volume(self.volume)
            sound.play()
        except pygame.error:
            pass
