"""The part every page of one standings reading repeats, validated once for the whole reading.

Each page of a subset's standings carries the subset (with its first and last match, whole) and the match
the standings are after: the same ~4 KB on all 80 pages of 2,000 players, and about 70% of the time
pydantic spends on a page. `FrameMemo` keeps the models it made of the last few such parts with the JSON
values they came from; a page whose parts are equal to kept ones is validated around the kept models
(pydantic takes a model instance of the field's class as it is), any other page as before, whole.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)

FRAME_FIELDS = ("subset", "match")
"""The wire keys of a standings page that repeat from page to page (they are also the fields' names)."""

KEPT = 4
"""Parts kept per field and validation context: a few subsets read in turn stay kept."""


class FrameMemo:
    """The models made of the last `KEPT` values of each frame field, by validation context."""

    def __init__(self) -> None:
        self._kept: dict[tuple[str, bool], list[tuple[dict[str, Any], BaseModel]]] = {}
        self.hits = 0
        """Pages validated around kept parts (for tests and the benchmark)."""

    def validate(self, model: type[M], payload: dict[str, Any], context: dict[str, Any] | None) -> M:
        """`model.model_validate(payload, context=context)`, with the frame fields kept from an earlier
        page when their values are equal to what they were made of."""
        safe = bool(context)
        shared: dict[str, BaseModel] = {}
        for name in FRAME_FIELDS:
            value = payload.get(name)
            if not isinstance(value, dict):
                continue
            made = self._find(name, safe, value)
            if made is None:
                break
            shared[name] = made
        else:
            if shared:
                self.hits += 1
                return model.model_validate({**payload, **shared}, context=context)
        page = model.model_validate(payload, context=context)
        for name in FRAME_FIELDS:
            value, made = payload.get(name), getattr(page, name, None)
            if isinstance(value, dict) and isinstance(made, BaseModel):
                self._keep(name, safe, value, made)
        return page

    def _find(self, name: str, safe: bool, value: dict[str, Any]) -> BaseModel | None:
        for i, (raw, made) in enumerate(kept := self._kept.get((name, safe), [])):
            if raw == value:
                kept.append(kept.pop(i))  # the most recent last
                return made
        return None

    def _keep(self, name: str, safe: bool, value: dict[str, Any], made: BaseModel) -> None:
        kept = self._kept.setdefault((name, safe), [])
        kept.append((value, made))
        del kept[:-KEPT]
