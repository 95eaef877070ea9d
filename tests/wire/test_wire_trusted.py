"""`WireModel.trusted` builds the very model `model_construct` builds, from every field given in order."""

from __future__ import annotations

import copy

from rankterm.wire.models import Player, RankingRow


def _fields() -> dict:
    player = {"id": "p1", "ghost": True, "username": "", "display_name": "*Ann [b]", "icon": ""}
    row = {
        "ree": 1520.25,
        "delta_ree": -3.5,
        "position": 2,
        "delta_position": 1,
        "belt": "white",
        "belt_label": "White",
        "title": "shogun",
        "title_label": "Shogun",
        "status": "active",
        "status_label": "Active",
    }
    return {"player": player, "row": row}


def test_trusted_models_equal_constructed_ones_in_every_view():
    f = _fields()
    made = RankingRow.trusted(player=Player.trusted(**f["player"]), **f["row"])
    built = RankingRow.model_construct(player=Player.model_construct(**f["player"]), **f["row"])
    validated = RankingRow(player=Player(**f["player"]), **f["row"])
    for other in (built, validated):
        assert made == other
        assert made.to_wire() == other.to_wire()
        assert made.model_dump() == other.model_dump()
        assert made.model_dump_json(by_alias=True) == other.model_dump_json(by_alias=True)
        assert made.model_fields_set == other.model_fields_set
        assert made.model_extra == other.model_extra == {}
    assert list(made.__dict__) == list(RankingRow.model_fields)
    assert copy.deepcopy(made) == made and made.model_copy(update={"position": 3}).position == 3
    made.position = 4  # still an ordinary model: assignment works and is seen
    assert made.position == 4 and made != built
