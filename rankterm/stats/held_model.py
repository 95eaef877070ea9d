"""The table's model of a profile's group, kept in the group's mirror so that a seat starts warm.

`held_model(group)` gives the model over every match the mirror holds: the one kept in the mirror when it was
made over exactly those matches; that one plus the matches appended since (rated, not replayed); else a replay
of the held history (a match played before others renumbered what followed it, or the rules changed). The
kept model is rewritten whenever it moved.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rankterm.stats.model import TableModel
from rankterm.stats.source import held_in_parts
from rankterm.wire.models import Match

if TYPE_CHECKING:
    from rankterm.mirror import Group

__all__ = ["NOTE", "held_model"]

NOTE = "table-model"
"""The mirror's note that keeps the model: {"key": the held matches' key, "model": `TableModel.snapshot`}."""


def held_model(group: Group) -> TableModel:
    """The table's model over every match the mirror of `group` holds (see the module docstring)."""
    mirror = group.mirror
    key = list(mirror.held.matches_key())
    kept: Any = group.mirror.notes.get_in_pieces(NOTE)  # 0.8 MB at 100,000 matches: see Notes.get_in_pieces
    model = TableModel.restored(kept.get("model")) if isinstance(kept, dict) else None
    if model is not None and kept.get("key") == key:
        return model
    if model is not None and isinstance(kept.get("key"), list) and len(kept["key"]) == 3:
        count, top, history = kept["key"]
        if history == key[2] and count <= key[0] and count == model.followed:
            rows = mirror.held.select_matches(after=int(top))
            for row in reversed(rows):  # oldest first
                model.add(Match.model_validate(row))
            if model.followed == key[0]:
                group.set_note(NOTE, {"key": key, "model": model.snapshot()})
                return model
    model = TableModel()
    for part in held_in_parts(group):  # a fresh model follows by adding, oldest first
        for match in part:
            model.add(match)
    group.set_note(NOTE, {"key": key, "model": model.snapshot()})
    return model
