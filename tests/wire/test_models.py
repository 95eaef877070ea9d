"""Models read the wire leniently and write it exactly."""

import pytest
from pydantic import ValidationError

from rankterm.wire import models as m
from rankterm.wire.new_match import read_match

PLAYER = {"id": "a1B2c3D4e5F", "ghost": 1, "username": "", "displayName": "*Bo", "icon": ""}
GAME = {
    "id": 13,
    "name": "Catan",
    "weight": "normal",
    "weightLabel": "Normal",
    "thumbnail": "",
    "mediumImage": "",
    "bggIdGame": 13,
}


def test_player_lenient_and_exact():
    p = m.Player.model_validate({**PLAYER, "newKey": [1, 2]})
    assert p.ghost is True and p.label == "*Bo"
    assert p.model_extra == {"newKey": [1, 2]}
    assert p.to_wire() == PLAYER


def test_game_round_trip_and_null_bgg():
    assert m.Game.model_validate(GAME).to_wire() == GAME
    g = m.Game.model_validate({**GAME, "id": "7", "bggIdGame": None})
    assert g.id == 7 and g.bgg_id_game is None


def test_page_number_as_string():
    page = m.PlayersPage.model_validate(
        {"page": "2", "totalPages": "3", "rowsForPage": 25, "totalPlayers": "60", "data": [PLAYER]}
    )
    assert (page.page, page.total_pages, page.total) == (2, 3, 60)


def test_match_with_null_game_and_flags():
    match = m.Match.model_validate(
        {
            "id": 99,
            "externalId": None,
            "date": "2026-03-06 19:30:00",
            "number": "4",
            "draw": "0",
            "game": None,
            "factions": [
                {
                    "rank": "1",
                    "points": "12.5",
                    "winner": 1,
                    "bot": 0,
                    "players": PLAYER,
                    "countPlayers": "1",
                },
                {"rank": 2, "points": "", "winner": 0, "bot": 1, "players": None},
            ],
        }
    )
    assert match.id == "99" and match.external_id == "" and match.number == 4 and match.game is None
    assert match.factions[0].points == 12.5 and match.factions[0].players[0].ghost
    assert match.factions[1].points is None and match.factions[1].bot and match.factions[1].players == []
    assert match.when is not None and match.when.hour == 19
    assert [f.rank for f in match.winners] == [1]


def test_rankings_page_carries_subset_and_match():
    page = m.RankingsPage.model_validate(
        {
            "page": 1,
            "totalPages": 1,
            "rowsForPage": 25,
            "totalMatches": 3,
            "subset": {"id": "main", "name": "Main", "isMain": 1, "game": None},
            "match": {"id": "x", "number": 3},
            "data": [
                {"player": PLAYER, "ree": "2012.5", "deltaRee": -3, "position": "1", "deltaPosition": 0}
            ],
        }
    )
    assert page.subset.is_main and page.match.number == 3
    assert page.data[0].ree == 2012.5 and page.data[0].position == 1


def test_quota_usage_percentages():
    q = m.Quota.model_validate(
        {"callsPerYear": "12%", "callsPerHour": "7", "matchesPerDay": "x", "future": "3%"}
    )
    usage = q.usage()
    assert usage["callsPerYear"] == 12.0 and usage["callsPerHour"] == 7.0
    assert usage["matchesPerDay"] is None and usage["future"] == 3.0
    assert list(usage)[:9] == list(m.QUOTA_FIELDS)


def test_status_keeps_whatever_keys():
    s = m.ServiceStatus.model_validate({"status": "ok", "version": "1", "queued": 0})
    assert dict(s.items()) == {"status": "ok", "version": "1", "queued": 0}


@pytest.mark.parametrize("payload", [{"exists": True}, True, 1, "1", {"exists": 1}])
def test_exists_shapes_true(payload):
    assert m.ExistsAnswer.model_validate(payload).exists is True


@pytest.mark.parametrize("payload", [{"exists": False}, False, 0, "0"])
def test_exists_shapes_false(payload):
    assert m.ExistsAnswer.model_validate(payload).exists is False


def test_exists_garbage_refused():
    with pytest.raises(ValidationError):
        m.ExistsAnswer.model_validate({"what": "ever"})


def test_new_match_wire_form():
    nm = m.NewMatch(
        game=13,
        weight="heavy",
        name=m.NAME_VERSUS,
        external_id="ext-1",
        factions=[
            m.NewFaction(players=["p1", "p2"], rank=1, points="10"),
            m.NewFaction(bot=True, rank=2, points="8", name="The Virus"),
        ],
    )
    assert nm.to_wire() == {
        "game": 13,
        "weight": "heavy",
        "name": "default_2",
        "notes": "",
        "factions": [
            {"players": ["p1", "p2"], "rank": 1, "points": "10", "name": ""},
            {"rank": 2, "points": "8", "name": "The Virus", "bot": True},
        ],
        "id": "ext-1",
    }
    assert nm.problems() == []


def test_new_match_accepts_other_client_forms():
    nm = m.NewMatch.model_validate(
        {
            "game": "13",
            "weight": "normal",
            "id": 42,
            "factions": [{"players": "p1", "rank": "1", "score": 7}, {"players": ["bot"], "rank": 2}],
        }
    )
    assert nm.game == 13 and nm.external_id == "42"
    assert nm.factions[0].players == ["p1"] and nm.factions[0].points == "7"
    assert nm.factions[1].bot and nm.factions[1].players == []


@pytest.mark.parametrize(
    "bad",
    [
        {"weight": "enormous", "factions": []},
        {"factions": []},
        {"weight": "normal", "factions": [{"players": ["a"], "rank": 0}]},
        {"weight": "normal", "factions": [{"players": ["a"], "rank": "first"}]},
        {"weight": "normal", "factions": [{"players": ["a"], "rank": 1, "bot": True}]},
        {"weight": "normal", "date": "yesterday"},
    ],
)
def test_new_match_validation(bad):
    with pytest.raises(ValidationError):
        m.NewMatch.model_validate(bad)


def test_problems_for_the_form():
    nm = m.NewMatch(
        weight="normal",
        factions=[
            m.NewFaction(players=["a"], rank=1),
            m.NewFaction(players=["a", "b"], rank=2),
            m.NewFaction(rank=3),
        ],
    )
    assert [(f, c) for f, c, _ in nm.problems()] == [
        ("game", "M004"),
        ("factions.1.players", "M006"),
        ("factions.2.players", "M007"),
    ]
    assert m.NewMatch(game=1, weight="normal", factions=[m.NewFaction(players=["a"], rank=1)]).problems() == [
        ("factions", "M007", "A match needs at least two factions.")
    ]


def _duel(**first) -> dict:
    return {
        "game": 1,
        "weight": "normal",
        "factions": [{"players": ["a"], "rank": 1, **first}, {"players": ["b"], "rank": 2}],
    }


@pytest.mark.parametrize(
    ("first", "field", "code"),
    [
        ({"rank": ""}, "factions.0.rank", "M008"),
        ({"rank": "10001"}, "factions.0.rank", "M008"),
        ({"rank": "¹"}, "factions.0.rank", "M008"),
        ({"rank": 0}, "factions.0.rank", "M008"),
        ({"points": "1.2.3"}, "factions.0.points", "M002"),
        ({"points": "NaN"}, "factions.0.points", "M002"),
        ({"name": "x" * 201}, "factions.0.name", "M002"),
        ({"bot": True}, "factions.0", "M009"),
    ],
)
def test_one_judge_gives_field_code_and_sentence(first, field, code):
    match, problems = read_match(_duel(**first))
    assert match is None
    assert [(p.field, p.code) for p in problems] == [(field, code)]
    assert problems[0].sentence.startswith("Faction 1: ") and problems[0].sentence.endswith(".")


def test_one_judge_accepts_and_normalises():
    match, problems = read_match(_duel(rank=" 10000 ", points=" 4,5 ", name=" Reds "))
    assert problems == [] and match is not None
    assert (match.factions[0].rank, match.factions[0].points, match.factions[0].name) == (
        10000,
        "4.5",
        "Reds",
    )
    match, problems = read_match({**_duel(), "date": "2026-05-28 20:00"})
    assert problems == [] and match is not None and match.date == "2026-05-28 20:00:00"
    assert match.to_wire()["date"] == "2026-05-28 20:00:00"


def test_a_date_that_cannot_be_read_is_one_sentence():
    match, problems = read_match({**_duel(), "date": "tuesday night"})
    assert match is None and len(problems) == 1
    assert (problems[0].field, problems[0].code) == ("date", "M002")
    assert "YYYY-MM-DD HH:MM" in problems[0].sentence


def test_match_wide_codes():
    two_bots = {
        **_duel(),
        "factions": [{"players": ["a"], "rank": 1}, {"bot": True, "rank": 2}, {"bot": 1, "rank": 3}],
    }
    assert [p.code for p in read_match(two_bots)[1]] == ["M009"]
    crowd = {**_duel(), "factions": [{"players": [str(i)], "rank": 1} for i in range(101)]}
    assert "M002" in [p.code for p in read_match(crowd)[1]]


def test_answer_combine_offsets_indexes():
    a = m.NewMatchAnswer.model_validate(
        {
            "total": 2,
            "accepted": [{"index": 0, "id": "x"}],
            "rejected": [{"index": 1, "errors": [{"code": "M003"}]}],
        }
    )
    b = m.NewMatchAnswer.model_validate({"total": 1, "accepted": [{"index": 0, "id": "y"}], "rejected": []})
    both = m.NewMatchAnswer.combine([a, b], [2, 1])
    assert both.total == 3 and both.accepted_count == 2 and both.rejected_count == 1
    assert [o.index for o in both.accepted] == [0, 2] and both.rejected[0].errors[0].code == "M003"


def test_match_wide_rules_speak_even_when_a_field_cannot_be_read():
    data = _duel(rank="")
    data["factions"][1]["players"] = ["a"]  # and a player twice
    match, problems = read_match(data)
    assert match is None
    assert [(p.field, p.code) for p in problems] == [
        ("factions.0.rank", "M008"),
        ("factions.1.players", "M006"),
    ]


@pytest.mark.parametrize(
    ("end", "number"),
    [
        (None, None),
        ({"id": "9", "number": 7, "date": "2026-05-01 20:00:00"}, 7),
        ({"id": "9", "number": "12", "date": "2026-05-01 20:00:00"}, 12),
        ({"id": "9", "date": "2026-05-01 20:00:00"}, 0),  # a match read without its number: the model's 0
        ("not a match", None),
    ],
)
def test_a_subsets_first_and_last_match_numbers(end, number):
    subset = m.Subset.model_validate({"id": "1", "firstMatch": end, "lastMatch": end})
    assert subset.first_number == subset.last_number == number
