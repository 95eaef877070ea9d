"""The wire's primitives: weights, lenient scalar types, and the base of every read-side model.

Numbers may come as strings and booleans as 0/1 (WIRE.md "Be lenient"); `WireModel.to_wire()` gives back
exactly the documented keys by their wire names, booleans as 0/1, as the public service sends them.
"""

from __future__ import annotations

import math
import re
from enum import StrEnum
from typing import Annotated, Any, Self

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, PlainSerializer, ValidationInfo
from pydantic.alias_generators import to_camel

# The wire's dates (naive UTC "YYYY-MM-DD HH:MM:SS") are defined and read in `localtime` (no pydantic: the
# config reads them before the first screen).
from rankterm.wire.localtime import DATE_FORMAT as DATE_FORMAT
from rankterm.wire.localtime import parse_wire_date as parse_wire_date
from rankterm.wire.localtime import wire_date as wire_date
from rankterm.wire.localtime import wire_seconds as wire_seconds
from rankterm.wire.text import display_safe, display_safe_lines


class Weight(StrEnum):
    """How much a match moves the ratings (SERVICE.md), lightest first."""

    ULTRALIGHT = "ultralight"
    LIGHT = "light"
    MIDLIGHT = "midlight"
    NORMAL = "normal"
    HEAVY = "heavy"
    MASSIVE = "massive"

    @property
    def label(self) -> str:
        return self.value.capitalize()


WEIGHTS: tuple[str, ...] = tuple(w.value for w in Weight)

# Special values of a new match's `name` (SERVICE.md).
NAME_GAME = "default_1"
NAME_VERSUS = "default_2"


def _to_flag(value: Any) -> Any:
    if isinstance(value, str) and value.strip().lower() in {"", "null", "none"}:
        return False
    return False if value is None else value


def _to_str(value: Any) -> Any:
    if type(value) is str:  # nearly always: the fast way out (run for every id and text of every row)
        return value
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, int | float):
        return str(value)
    return value


def _to_number(value: Any) -> Any:
    """'12', '12.5', 12 -> a number; '' or None -> None; anything else -> left for pydantic to refuse."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, str):
        text = value.strip().replace(",", ".")
        try:
            number = float(text)
        except ValueError:
            return value
        return int(number) if number.is_integer() and "." not in text and "e" not in text.lower() else number
    return value


def finite_number(value: float | int | None) -> float | int | None:
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("number is not finite")
    return value


Flag = Annotated[bool, BeforeValidator(_to_flag), PlainSerializer(int, return_type=int)]
"""A boolean that the wire spells 0/1."""


LINES_FIELDS = frozenset({"summary"})
"""Text fields whose newlines are the wire's own (a match's summary: its sides joined by newlines)."""


def _maybe_display_safe(value: Any, info: ValidationInfo) -> Any:
    if isinstance(value, str) and info.context and info.context.get("display_safe"):
        return display_safe_lines(value) if info.field_name in LINES_FIELDS else display_safe(value)
    return value


DISPLAY_SAFE = {"display_safe": True}
"""Validation context under which every text field of a read model is made `display_safe` (one line), but
the newlines of `LINES_FIELDS`."""

Text = Annotated[str, BeforeValidator(_to_str), AfterValidator(_maybe_display_safe)]
"""A string that may arrive as a number or null."""
Number = Annotated[float | int | None, BeforeValidator(_to_number), AfterValidator(finite_number)]
"""A number that may arrive as a string, or be absent."""
Id = Annotated[str, BeforeValidator(_to_str)]
"""An identifier: kept exactly as sent, since it goes back to the service in requests."""


class WireModel(BaseModel):
    """Base of every read-side model: camelCase on the wire, lenient, extra keys kept."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="allow",
        frozen=False,
        defer_build=True,  # validators built at first use: half the import time of the client
    )

    @classmethod
    def trusted(cls, **values: Any) -> Self:
        """`model_construct` for values that name every field, by field name, in field order, each of its
        type (a service's own columns): nothing is looked up or validated, ~1 us instead of ~5-10 us."""
        model = cls.__new__(cls)
        _set(model, "__dict__", values)
        _set(model, "__pydantic_fields_set__", set(values))
        _set(model, "__pydantic_extra__", {})  # model_construct's leftovers: none (extra keys are kept)
        _set(model, "__pydantic_private__", None)
        return model

    def to_wire(self) -> dict[str, Any]:
        """Exactly the documented keys, by their wire names, booleans as 0/1 (extras left out)."""
        fields = _WIRE_KEYS.get(type(self))
        if fields is None:
            fields = _wire_keys(type(self))
        values = self.__dict__
        out: dict[str, Any] = {}
        for name, key in fields:
            value = values[name]
            out[key] = value if type(value) in _AS_IS else _wire_value(value)
        return out


_set = object.__setattr__

_AS_IS = frozenset({str, int, float, type(None)})
"""Types whose values go on the wire as they are (exactly these: bool, enums and str subclasses do not)."""

_WIRE_KEYS: dict[type, tuple[tuple[str, str], ...]] = {}
"""(field name, wire key) of each model class, in field order, worked out once per class."""


def _wire_keys(cls: type[WireModel]) -> tuple[tuple[str, str], ...]:
    fields = tuple((name, info.alias or name) for name, info in cls.model_fields.items())
    _WIRE_KEYS[cls] = fields
    return fields


def _wire_value(value: Any, info: Any = None) -> Any:
    if type(value) in _AS_IS:
        return value
    if isinstance(value, WireModel):
        return value.to_wire()
    if isinstance(value, list):
        return [_wire_value(v) for v in value]
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, StrEnum):
        return value.value
    return value


_PERCENT = re.compile(r"^\s*(-?\d+(?:[.,]\d+)?)\s*%?\s*$")


def parse_percent(value: Any) -> float | None:
    """'12%' -> 12.0, 7 -> 7.0, anything else -> None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, str) and (m := _PERCENT.match(value)):
        return float(m.group(1).replace(",", "."))
    return None
