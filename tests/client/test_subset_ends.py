"""A Subset's `firstMatch` and `lastMatch` as rankterm's client reads them: whole Matches (WIRE.md), and still
read when a service sends the brief ``{id, number, date}`` an older embedded service sent, null, or junk.

The embedded service now sends whole Matches (tests/server/test_wire_keys.py holds it to that), so the older
forms come from the scriptable fake service (httpx.MockTransport).
"""

from __future__ import annotations

from typing import Any

from rankterm.mirror import Group
from rankterm.wire.models import Match
from tests.fake_service import ok, player
from tests.wire_contract import MATCH_KEYS

WHOLE = {
    "id": "77",
    "externalId": "night-1",
    "date": "2026-05-01 20:00:00",
    "registrationDate": "2026-05-01 22:00:01",
    "number": 12,
    "summary": "Player 1\nPlayer 2",
    "type": "player_vs_player",
    "draw": 0,
    "weight": "normal",
    "weightLabel": "Normal",
    "game": {"id": 1, "name": "Catan", "weight": "normal", "weightLabel": "Normal", "bggIdGame": 13},
    "notes": "",
    "factions": [
        {
            "rank": 1,
            "name": "",
            "points": 10,
            "players": [player(1)],
            "countPlayers": 1,
            "winner": 1,
            "bot": 0,
        },
        {
            "rank": 2,
            "name": "",
            "points": 4,
            "players": [player(2)],
            "countPlayers": 1,
            "winner": 0,
            "bot": 0,
        },
    ],
}


def subset(key: str, first: Any, last: Any, count: int = 12) -> dict[str, Any]:
    return {
        "id": key,
        "name": "Main" if key == "main" else "Catan",
        "type": "main" if key == "main" else "game",
        "creationDate": "2026-01-01 10:00:00",
        "isMain": int(key == "main"),
        "isCustom": 0,
        "icon": "",
        "game": None,
        "countMatches": count,
        "firstMatch": first,
        "lastMatch": last,
    }


async def test_whole_ends_read_as_matches_with_their_game_factions_and_players(group, fake):
    group = Group.of(group)  # a client: read through its group
    fake.routes["GET subset"] = lambda r: ok([subset("main", WHOLE, WHOLE)])
    [main] = await group.subsets()
    assert isinstance(main.last_match, Match) and main.first_match == main.last_match
    last = main.last_match
    assert (last.id, last.number, last.external_id, last.game.name) == ("77", 12, "night-1", "Catan")
    assert [[p.display_name for p in f.players] for f in last.winners] == [["Player 1"]]
    assert main.to_wire()["lastMatch"] == Match.model_validate(WHOLE).to_wire()
    assert set(main.to_wire()["lastMatch"]) == MATCH_KEYS


async def test_an_older_services_brief_ends_null_and_junk_still_read(group, fake):
    group = Group.of(group)  # a client: read through its group
    brief_first = {"id": "3", "number": "1", "date": "2026-04-01 19:00:00"}
    brief_last = {"id": 41, "number": 12, "date": "2026-05-01 20:00:00"}
    fake.routes["GET subset"] = lambda r: ok(
        [
            subset("main", brief_first, brief_last),
            subset("g1", None, None, count=0),
            subset("g2", "junk", 12, count=3),
            subset("g3", {"number": "twelve"}, [brief_last], count=3),
        ]
    )
    main, empty, junk, odd = await group.subsets()
    assert (main.first_match.id, main.first_match.number, main.first_match.date) == (
        "3",
        1,
        brief_first["date"],
    )
    assert (main.last_match.id, main.last_match.number) == ("41", 12)
    assert main.last_match.game is None and main.last_match.factions == []  # what the brief form leaves out
    assert (empty.first_match, empty.last_match) == (None, None)
    # an end that is no Match at all is None; the rest of the subset stays
    for held in (junk, odd):
        assert (held.first_match, held.last_match) == (None, None)
        assert held.count_matches == 3 and held.name == "Catan"


async def test_a_rankings_page_with_a_brief_subset_still_reads(group, fake):
    group = Group.of(group)  # a client: read through its group
    brief = {"id": "41", "number": "30", "date": "2026-05-01 20:00:00"}
    fake.routes["GET rankings/7/1"] = lambda r: ok(
        {
            "page": 1,
            "totalPages": 1,
            "rowsForPage": 25,
            "subset": subset(
                "main", {"id": "3", "number": 1, "date": "2026-04-01 19:00:00"}, brief, count=30
            ),
            "match": {**WHOLE, "number": 7},
            "data": [{"player": player(1), "ree": "2001.5", "position": 1}],
        }
    )
    page = await group.rankings_page(match=7)
    assert page.match.number == 7 and page.subset.last_match.number == 30 and page.data[0].ree == 2001.5
