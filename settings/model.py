"""The settings data model: one frozen pydantic model per group, and the top-level :class:`Settings`.

Plain data only: no pygame, game, ai or ui imports. Ranges are declared with ``Field(ge=, le=)`` so the loader
can quote them back to the player; ``json_schema_extra={"unit": ...}`` names the unit in those messages.

Time-based values the engine needs are in 60 Hz ticks ("frames"): 1 tick = 1/60 s.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic.json_schema import JsonDict
from pydantic_core import PydanticCustomError
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from settings.errors import SettingsError
from settings.keys import KeySettings
from settings.messages import describe

CURRENT_SCHEMA = 1
TICKS_PER_SECOND = 60
ENV_PREFIX = "STACKCOACH_"
ENV_NESTED_DELIMITER = "__"
# Skin and weights names are looked up as files by other packages: no "/", "\\" or "..".
NAME_PATTERN = r"^\w[\w -]*$"


def _unit(unit: str) -> JsonDict:
    return {"unit": unit}


class _Group(BaseModel):
    # Frozen so a Settings object can be shared freely; change settings with model_copy / rebind.
    model_config = ConfigDict(frozen=True, extra="forbid")


class RulesSettings(_Group):
    """Game rules. ``kick_file``, when set, names a custom kick table that replaces ``rotation``'s kicks."""

    randomizer: Literal["7bag", "14bag", "random", "nes", "tgm"] = "7bag"
    rotation: Literal["srs", "srs+", "none", "nrs"] = "srs"
    kick_file: str | None = Field(None, min_length=1, max_length=4096)
    allow_180: bool = True
    spin_rule: Literal["tspin", "allspin", "none"] = "tspin"
    hold: bool = True
    previews: int = Field(5, ge=0, le=6)
    lock_delay_mode: Literal["move_reset", "step_reset", "infinite"] = "move_reset"
    lock_delay: int = Field(30, ge=1, le=600, json_schema_extra=_unit("ticks"))
    move_reset_limit: int = Field(15, ge=0, le=100)
    gravity_mode: Literal["level", "fixed", "20g"] = "level"
    # Cells per tick, used when gravity_mode == "fixed"; 0 means pieces only fall when dropped.
    fixed_gravity: float = Field(0.0, ge=0, le=20, allow_inf_nan=False, json_schema_extra=_unit("cells/tick"))
    start_level: int = Field(1, ge=1, le=30)
    are: int = Field(0, ge=0, le=120, json_schema_extra=_unit("ticks"))
    line_clear_delay: int = Field(0, ge=0, le=120, json_schema_extra=_unit("ticks"))


@dataclass(frozen=True, slots=True)
class HandlingTicks:
    """Handling in 60 Hz ticks for the engine. ``arr_ticks == 0`` means instant auto-repeat;
    ``sdf is None`` means instant soft drop, otherwise soft drop falls ``sdf`` times faster than gravity."""

    das_ticks: float
    arr_ticks: float
    dcd_ticks: float
    sdf: float | None


SDF_MAX = 40
SDF_INSTANT_ALIAS = 41  # Jstris shows "41" for instant soft drop; accepted on input, stored as "instant"

# Upper limits for timing fields per unit (the ms and frame limits describe the same durations).
_TIMING_LIMITS: dict[str, dict[str, float]] = {
    "das": {"ms": 1000, "frames": 60},
    "arr": {"ms": 500, "frames": 30},
    "dcd": {"ms": 1000, "frames": 60},
}
_TIMING_DEFAULTS: dict[str, dict[str, float]] = {
    "das": {"ms": 133, "frames": 8},
    "arr": {"ms": 0, "frames": 0},
    "dcd": {"ms": 0, "frames": 0},
}


def _check_sdf(value: Any) -> Any:
    """SDF is a whole factor 1..40 or the text "instant" (41 is read as "instant")."""
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        value = int(value)  # environment variables arrive as text
    if isinstance(value, str) and value.strip().lower() == "instant":
        return "instant"
    if isinstance(value, int) and not isinstance(value, bool):
        if value == SDF_INSTANT_ALIAS:
            return "instant"
        if 1 <= value <= SDF_MAX:
            return value
        raise PydanticCustomError(
            "out_of_range",
            '{value} is out of range (allowed 1..{hi}, or "instant")',
            {"value": value, "hi": SDF_MAX},
        )
    raise PydanticCustomError("sdf_type", 'expected a whole number 1..{hi} or "instant"', {"hi": SDF_MAX})


def _whole_if_integral(value: float) -> float:
    # So the file says "das = 133", not "das = 133.0"; an int is a valid float for every reader.
    return int(value) if value.is_integer() else value


Duration = Annotated[float, Field(allow_inf_nan=False), AfterValidator(_whole_if_integral)]


class HandlingSettings(_Group):
    """DAS, ARR and DCD in ``unit`` ("ms" or 60 Hz "frames"); ``sdf`` is a factor 1..40 or "instant".

    Timing fields left out of the input default to values suited to the unit (133 ms or 8 frames of DAS).
    """

    unit: Literal["ms", "frames"] = "ms"  # declared first: the timing validators read it
    das: Duration = 133
    arr: Duration = 0
    sdf: Annotated[int | Literal["instant"], BeforeValidator(_check_sdf)] = "instant"
    dcd: Duration = 0

    @model_validator(mode="before")
    @classmethod
    def _unit_defaults(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("unit") == "frames":
            data = {**{name: d["frames"] for name, d in _TIMING_DEFAULTS.items()}, **data}
        return data

    @field_validator("das", "arr", "dcd")
    @classmethod
    def _in_range(cls, value: float, info: ValidationInfo) -> float:
        unit = info.data.get("unit", "ms")
        hi = _TIMING_LIMITS[info.field_name or ""][unit]
        if not 0 <= value <= hi:
            raise PydanticCustomError(
                "out_of_range",
                "{value} is out of range (allowed 0..{hi} {unit})",
                {"value": value, "hi": int(hi), "unit": unit},
            )
        return value

    def to_ticks(self) -> HandlingTicks:
        """These settings in 60 Hz ticks (1 frame = 1/60 s)."""

        def ticks(value: float) -> float:
            # Multiply before dividing: 133 ms -> 7.98 exactly as written, not 7.9799999...
            return float(value) if self.unit == "frames" else value * TICKS_PER_SECOND / 1000

        return HandlingTicks(
            das_ticks=ticks(self.das),
            arr_ticks=ticks(self.arr),
            dcd_ticks=ticks(self.dcd),
            sdf=None if self.sdf == "instant" else float(self.sdf),
        )


def _list_to_tuple(value: Any) -> Any:
    # TOML has arrays, not tuples; strict validation would refuse a list for a tuple field.
    return tuple(value) if isinstance(value, list) else value


class DisplaySettings(_Group):
    """What is drawn and how big. ``window_size`` is (width, height) in pixels."""

    ghost: bool = True
    grid: bool = True
    bag_divider: bool = False
    scale: float = Field(1.0, ge=0.5, le=3.0, allow_inf_nan=False)
    skin: str = Field("default", min_length=1, max_length=64, pattern=NAME_PATTERN)
    show_finesse: bool = True
    window_size: Annotated[tuple[int, int], BeforeValidator(_list_to_tuple)] = (1280, 720)
    fullscreen: bool = False

    @field_validator("window_size")
    @classmethod
    def _window_in_range(cls, value: tuple[int, int]) -> tuple[int, int]:
        (w, h) = value
        if not (320 <= w <= 16384 and 240 <= h <= 16384):
            raise PydanticCustomError(
                "out_of_range",
                "{value} is out of range (allowed 320..16384 by 240..16384 pixels)",
                {"value": list(value)},
            )
        return value


class AudioSettings(_Group):
    """Volumes are percentages; ``mute`` silences everything without forgetting the volumes."""

    master_volume: int = Field(80, ge=0, le=100, json_schema_extra=_unit("%"))
    sfx_volume: int = Field(100, ge=0, le=100, json_schema_extra=_unit("%"))
    mute: bool = False


class AISettings(_Group):
    """Hint / autoplay engine. ``autoplay_pps`` is pieces per second, 1..60, or 0 for as fast as possible."""

    hint_enabled: bool = False
    engine: Literal["beam", "mcts"] = "beam"
    weights: str = Field("modern", min_length=1, max_length=64, pattern=NAME_PATTERN)
    think_budget_ms: int = Field(15, ge=1, le=5000, json_schema_extra=_unit("ms"))
    beam_width: int = Field(8, ge=1, le=256)
    beam_depth: int = Field(3, ge=1, le=8)
    pc_hints_enabled: bool = False
    # the worker answers the positions the PC panel leads to, and the one after where the piece rests, while the
    # player decides
    pc_think_ahead: bool = True
    autoplay_pps: float = Field(2.0, ge=0, le=60, allow_inf_nan=False)
    show_key_sequence: bool = False

    @field_validator("autoplay_pps")
    @classmethod
    def _pps_zero_or_at_least_one(cls, value: float) -> float:
        if 0 < value < 1:
            raise PydanticCustomError(
                "out_of_range",
                "{value} is out of range (allowed 1..60, or 0 for as fast as possible)",
                {"value": value},
            )
        return value


class PracticeSettings(_Group):
    """The PC-practice menu's last choice, so it opens where the player left it: the empty-board loop
    (``pc_number``) or a setup of the library (its ``setup`` key, ``mirrored``)."""

    start: Literal["loop", "setup"] = "loop"
    pc_number: int = Field(1, ge=1, le=7)
    setup: str = Field("", max_length=64)
    mirrored: bool = False


# Group name -> model, in file order. The loader validates each group (and each field) separately.
GROUPS: dict[str, type[BaseModel]] = {
    "rules": RulesSettings,
    "handling": HandlingSettings,
    "keys": KeySettings,
    "display": DisplaySettings,
    "audio": AudioSettings,
    "ai": AISettings,
    "practice": PracticeSettings,
}


class Settings(BaseSettings):
    """All of the player's settings.

    Constructing ``Settings(...)`` (or ``Settings.model_validate``) also reads ``STACKCOACH_*`` environment
    variables, e.g. ``STACKCOACH_HANDLING__DAS=100``, and they win over the values passed in: that is how the
    environment overrides the file. No .env or secrets files are read. Use :func:`settings.load_settings` to
    read the player's file forgivingly; use ``model_copy(update=...)`` to derive a changed copy.
    """

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX, env_nested_delimiter=ENV_NESTED_DELIMITER, frozen=True, extra="forbid"
    )

    schema_version: int = CURRENT_SCHEMA
    rules: RulesSettings = RulesSettings()
    handling: HandlingSettings = HandlingSettings()
    keys: KeySettings = KeySettings()
    display: DisplaySettings = DisplaySettings()
    audio: AudioSettings = AudioSettings()
    ai: AISettings = AISettings()
    practice: PracticeSettings = PracticeSettings()

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # Environment first so it overrides file data passed as init kwargs; no .env / secrets files.
        return (env_settings, init_settings)


assert list(GROUPS) == [name for name in Settings.model_fields if name != "schema_version"]


def change(settings: Settings, group: str, **values: Any) -> Settings:
    """Return a copy of ``settings`` with ``values`` set in ``group`` (e.g. ``change(s, "audio", mute=True)``),
    validated exactly as the settings file is. Raises SettingsError naming the first bad field and why.
    Prefer this to ``model_copy(update=...)``, which does not validate. Use :func:`rebind` for keys."""
    model = GROUPS.get(group)
    if model is None:
        raise SettingsError(f"unknown settings group {group!r}; groups are: {', '.join(GROUPS)}")
    try:
        updated = model.model_validate({**getattr(settings, group).model_dump(), **values}, strict=True)
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        where = f"{group}.{first['loc'][0]}" if first["loc"] else group
        raise SettingsError(f"{where}: {describe(first, model)}") from None
    return settings.model_copy(update={group: updated})
