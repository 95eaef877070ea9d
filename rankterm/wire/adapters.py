"""One pydantic `TypeAdapter` per parsed type that is not a model (``list[Match]``, ``list[Game]``) for the
process: building one compiles the type's whole validator (about 12 ms for ``list[Match]``), far more than a
page's validation, and the client and the stats parse the same few types again and again."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from pydantic import TypeAdapter

__all__ = ["type_adapter"]


@lru_cache(maxsize=64)
def type_adapter(model: Any) -> TypeAdapter[Any]:
    """The one `TypeAdapter` of `model` (hashable: a type, or a generic alias such as ``list[Game]``).

    The validation context (the display rule) is given at each call, so one adapter serves every client."""
    return TypeAdapter(model)
