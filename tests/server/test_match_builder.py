"""The one Match builder (`reads.load_matches`, which pages of matches, a subset's first and last match and a
rankings page's match all come from) builds, from the store's own columns, the very models validation builds
from their wire form: equal in every view, points read as numbers, on both engines."""

from __future__ import annotations

from rankterm.server import reads
from rankterm.server.store import Store
from rankterm.wire.models import Match

from .conftest import Api


async def test_built_matches_are_the_models_validation_builds(api: Api, store: Store, players3) -> None:
    ann, bob, cy = players3
    [game] = api.payload(await api.post("games/game", params={"name": "Catan"}))
    answer = await api.add(
        {
            "game": game["id"],
            "weight": "heavy",
            "notes": "close one",
            "factions": [
                {"players": [ann, bob], "rank": 1, "points": "7.5", "name": "Team A"},
                {"players": [cy], "rank": 2, "points": ""},
                {"bot": True, "rank": 3, "points": "-2", "name": "Automa"},
            ],
        },
        {
            "game": game["id"],
            "weight": "light",
            "factions": [{"players": [ann], "rank": 1, "points": "3"}, {"players": [bob], "rank": 1}],
        },
    )
    assert answer["acceptedCount"] == 2

    wire = (await api.ok("matches"))["data"]
    assert [[f["points"] for f in m["factions"]] for m in wire] == [[3, None], [7.5, None, -2]]
    subset = (await api.ok("subsets"))[0]
    assert (subset["firstMatch"], subset["lastMatch"]) == (wire[1], wire[0])

    with store._read() as conn:
        ids = [r[0] for r in conn.execute("SELECT id FROM matches ORDER BY id")]
        built = reads.load_matches(conn, ids)
    assert [m.to_wire() for m in reversed(built)] == wire
    for made in built:
        validated = Match.model_validate(made.to_wire())
        assert made == validated
        assert made.model_dump() == validated.model_dump()
        assert made.model_dump_json(by_alias=True) == validated.model_dump_json(by_alias=True)
        assert made.model_fields_set == validated.model_fields_set
        for mine, theirs in zip(made.factions, validated.factions, strict=True):
            assert mine.model_fields_set == theirs.model_fields_set and mine.model_extra == {}
