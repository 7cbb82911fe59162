"""Key bindings: virtual buttons -> key names, with conflict checks and :func:`rebind`.

Key names are pygame key names as strings ("left", "space", "left shift", "f2"), optionally prefixed by
modifiers to form a chord ("ctrl+z"). Names are normalised (lower case, single spaces, modifiers in the
fixed order ctrl, shift, alt, meta) so that "Ctrl + Z" and "ctrl+z" count as the same key when checking
for conflicts. A key may be bound to at most one button; a button may have any number of keys (or none).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, model_validator
from pydantic_core import PydanticCustomError

from settings.errors import SettingsError

if TYPE_CHECKING:
    from settings.model import Settings

MODIFIERS: tuple[str, ...] = ("ctrl", "shift", "alt", "meta")
_MODIFIER_ALIASES = {"control": "ctrl", "cmd": "meta", "command": "meta", "super": "meta", "win": "meta"}
MAX_KEY_NAME = 40
MAX_KEYS_PER_BUTTON = 8


def normalize_key(name: str) -> str:
    """Return the canonical spelling of one key name or chord; raises ValueError with a readable reason."""
    text = " ".join(str(name).strip().lower().split())
    if not text:
        raise ValueError("a key name cannot be empty")
    if len(text) > MAX_KEY_NAME:
        raise ValueError(f"{name!r} is too long to be a key name")
    # The "+" key itself is legal ("+" alone, or "ctrl++"), so split off a trailing "+" first.
    if text.endswith("+") and len(text) > 1:
        key, head = "+", text[:-1]
        if not head.endswith("+"):
            raise ValueError(f'{name!r} is not a key name or chord like "ctrl+z"')
        modifiers = [part.strip() for part in head[:-1].split("+")]
    elif text == "+":
        key, modifiers = "+", []
    else:
        *modifiers, key = [part.strip() for part in text.split("+")]
    if not key:
        raise ValueError(f'{name!r} is not a key name or chord like "ctrl+z"')
    canonical: set[str] = set()
    for modifier in modifiers:
        modifier = _MODIFIER_ALIASES.get(modifier, modifier)
        if modifier not in MODIFIERS:
            raise ValueError(f"unknown modifier {modifier!r} in {name!r} (use ctrl, shift, alt or meta)")
        canonical.add(modifier)
    return "+".join([m for m in MODIFIERS if m in canonical] + [key])


def _key_list(value: Any) -> tuple[str, ...]:
    """Pydantic before-validator: a key name or a list of them -> tuple of distinct canonical names."""
    if isinstance(value, str):
        value = [value]  # forgiving: hold = "c" means hold = ["c"]
    if not isinstance(value, (list, tuple)):
        raise PydanticCustomError("key_list", 'expected a list of key names like ["z", "ctrl+z"]')
    keys: list[str] = []
    for item in value:
        if not isinstance(item, str):
            raise PydanticCustomError("key_list", 'expected key names in quotes like ["z", "ctrl+z"]')
        try:
            key = normalize_key(item)
        except ValueError as error:
            raise PydanticCustomError("key_name", str(error)) from None
        if key not in keys:
            keys.append(key)
    if len(keys) > MAX_KEYS_PER_BUTTON:
        raise PydanticCustomError("key_list", f"at most {MAX_KEYS_PER_BUTTON} keys per button")
    return tuple(keys)


KeyList = Annotated[tuple[str, ...], BeforeValidator(_key_list)]


def find_conflicts(bindings: Mapping[str, Sequence[str]]) -> list[tuple[str, str, str]]:
    """Every (key, first_button, other_button) where a key is bound twice, in button order."""
    owner: dict[str, str] = {}
    conflicts: list[tuple[str, str, str]] = []
    for button, keys in bindings.items():
        for key in keys:
            if key in owner and owner[key] != button:
                conflicts.append((key, owner[key], button))
            else:
                owner.setdefault(key, button)
    return conflicts


def describe_conflict(key: str, first: str, second: str) -> str:
    return f'key "{key}" is bound to both {first} and {second}'


class KeySettings(BaseModel):
    """Virtual button -> keys. Defaults follow Jstris. Buttons left out of the input get their default keys,
    minus any key the input binds elsewhere (so ``KeySettings(hold=["a"])`` un-binds "a" from rotate_180)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    move_left: KeyList = ("left",)
    move_right: KeyList = ("right",)
    soft_drop: KeyList = ("down",)
    hard_drop: KeyList = ("space",)
    rotate_cw: KeyList = ("up", "x")
    rotate_ccw: KeyList = ("z",)
    rotate_180: KeyList = ("a",)
    hold: KeyList = ("c", "left shift")
    pause: KeyList = ("escape",)
    restart: KeyList = ("r",)
    undo: KeyList = ("ctrl+z",)
    redo: KeyList = ("ctrl+y",)
    toggle_hint: KeyList = ("h",)
    toggle_autoplay: KeyList = ("f2",)

    @model_validator(mode="before")
    @classmethod
    def _defaults_yield_to_explicit_keys(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        claimed: set[str] = set()
        for keys in data.values():
            try:
                claimed.update(_key_list(keys))
            except (PydanticCustomError, ValueError):
                pass  # the field validator reports it
        filled = dict(data)
        for button, field in cls.model_fields.items():
            if button not in filled:
                filled[button] = tuple(k for k in field.default if k not in claimed)
        return filled

    @model_validator(mode="after")
    def _no_conflicts(self) -> KeySettings:
        conflicts = find_conflicts(self.bindings())
        if conflicts:
            detail = "; ".join(describe_conflict(*c) for c in conflicts)
            raise PydanticCustomError("key_conflict", "{detail}", {"detail": detail})
        return self

    def bindings(self) -> dict[str, tuple[str, ...]]:
        """Button -> keys, in declaration order."""
        return {button: getattr(self, button) for button in type(self).model_fields}

    def button_for(self, key: str) -> str | None:
        """The button a key (any spelling) is bound to, or None."""
        key = normalize_key(key)
        return next((b for b, keys in self.bindings().items() if key in keys), None)

    @classmethod
    def _salvage_repair(cls, data: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
        """Loader hook for whole-group errors: keep each conflicting key on the first button (in declaration
        order) that claims it and drop it from the others, saying so."""
        normalized = {b: _key_list(v) for b, v in data.items()}
        ordered = {b: normalized[b] for b in cls.model_fields if b in normalized}
        messages = []
        for key, first, second in find_conflicts(ordered):
            ordered[second] = tuple(k for k in ordered[second] if k != key)
            messages.append(f"keys: {describe_conflict(key, first, second)}; kept it on {first}")
        return ordered, messages


BUTTONS: tuple[str, ...] = tuple(KeySettings.model_fields)


def rebind(settings: Settings, button: str, keys: str | Iterable[str]) -> Settings:
    """Return a copy of ``settings`` with ``button`` bound to exactly ``keys`` (replacing its old keys).

    Raises SettingsError, with a message naming the key and both buttons, if a key is already bound to
    another button; or if the button or a key name is not valid. ``settings`` itself is not changed.
    """
    if button not in BUTTONS:
        raise SettingsError(f"unknown button {button!r}; buttons are: {', '.join(BUTTONS)}")
    try:
        wanted = _key_list(list(keys) if not isinstance(keys, str) else keys)
    except PydanticCustomError as error:
        raise SettingsError(f"{button}: {error.message()}") from None
    current = settings.keys.bindings()
    for key in wanted:
        owner = next((b for b, bound in current.items() if key in bound and b != button), None)
        if owner is not None:
            raise SettingsError(f'key "{key}" is already bound to {owner}; it cannot also be bound to {button}')
    new_keys = KeySettings.model_validate({**current, button: wanted})
    return settings.model_copy(update={"keys": new_keys})
