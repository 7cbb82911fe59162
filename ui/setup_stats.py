"""Per-entry statistics of set-up practice: attempts, builds completed and PCs made, per library entry (and per
mirror), kept as JSON beside the game history (`setup_stats.json` in the data folder that ui.store uses,
`STACKCOACH_DATA_DIR` moves it). No pygame here.

An attempt is one build of one entry that got at least one piece placed; `built` counts the attempts whose shape
stood, `pcs` the attempts that went on to a perfect clear. Set-up practice (ui.setup_practice) counts a run's
attempts when the run ends (a new bag, the same bag again, quit, end run; a pause ends nothing), so what undo took
back never counts: an attempt whose pieces were all undone, a shape no longer standing, a PC undone. A file that
cannot be read counts as empty (and is left alone until the next save replaces it); a save that fails is reported,
never raised.
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass
from pathlib import Path

FILE_NAME = "setup_stats.json"
_log = logging.getLogger(__name__)


@dataclass
class EntryStats:
    attempts: int = 0
    built: int = 0
    pcs: int = 0

    def text(self) -> str:
        """As the set-up list shows it."""
        if not self.attempts:
            return "Your practice: not tried yet"
        return f"Your practice: {self.attempts} attempts, {self.built} built, {self.pcs} PCs"


def stats_key(entry_key: str, mirrored: bool) -> str:
    return entry_key + ("/mirror" if mirrored else "")


def default_path() -> Path:
    from ui.store import data_dir

    return data_dir() / FILE_NAME


def load(path: Path | None = None) -> dict[str, EntryStats]:
    path = path or default_path()
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    out = {}
    if isinstance(raw, dict):
        for key, value in raw.items():
            if isinstance(value, dict):
                try:
                    out[str(key)] = EntryStats(*(max(0, int(value.get(f, 0))) for f in ("attempts", "built", "pcs")))
                except (TypeError, ValueError):
                    continue
    return out


def for_entry(entry_key: str, mirrored: bool = False, path: Path | None = None) -> EntryStats:
    return load(path).get(stats_key(entry_key, mirrored), EntryStats())


def record(key: str, *, built: bool, pc: bool, path: Path | None = None) -> str | None:
    """Add one attempt of `key` (stats_key). Returns the problem if it could not be saved, else None."""
    path = path or default_path()
    stats = load(path)
    entry = stats.setdefault(key, EntryStats())
    entry.attempts += 1
    entry.built += int(built)
    entry.pcs += int(pc)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".part")
        partial.write_text(json.dumps({k: asdict(v) for k, v in sorted(stats.items())}, indent=1), encoding="utf-8")
        partial.replace(path)
    except OSError as error:
        _log.warning("set-up statistics not saved: %s", error)
        return f"set-up statistics not saved in {path.parent} ({error.strerror or error})"
    return None
