"""Import sources read by content into plays, and each play's finishing order rebuilt: the
fixtures in tests/fixtures/import/ (written from FORMATS.md, with the awkward rows) and the rules of
rankterm/importing/ranks.py. No service here: tests/api/test_import_plan.py sends them.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rankterm.importing import open_source
from rankterm.importing.csv_plays import header_fields
from rankterm.importing.plays import Seat, SourceGame, SourcePlay, read_score
from rankterm.importing.ranks import NO_RESULT, sides
from rankterm.wire.errors import RanktermError

FIXTURES = Path(__file__).parent.parent / "fixtures" / "import"


def by_id(kind_file: str) -> dict[str, SourcePlay]:
    """The fixture's plays by external id (the last one of an id that appears twice)."""
    return {p.external_id: p for p in open_source(FIXTURES / kind_file).plays()}


def ranked(play: SourcePlay) -> list[tuple[int, tuple[str, ...], str, bool]]:
    """(rank, names, points, bot) of each side, in the play's order."""
    out, why = sides(play)
    assert why == "", why
    return [(s.rank, tuple(play.seats[i].name for i in s.seats), s.points, s.bot) for s in out]


def test_kinds_are_told_by_content_not_by_name(tmp_path: Path) -> None:
    kinds = {name: open_source(FIXTURES / name).kind for name in ("bgstats.json", "plays.xml", "plays.csv")}
    assert kinds == {"bgstats.json": "bgstats", "plays.xml": "bgg", "plays.csv": "csv"}
    renamed = tmp_path / "export.txt"
    renamed.write_bytes((FIXTURES / "plays.xml").read_bytes())
    assert open_source(renamed).kind == "bgg"
    junk = tmp_path / "plays.csv"
    junk.write_text("hello,world\n1,2\n")
    with pytest.raises(RanktermError, match="date,game,player,team,rank,score"):
        open_source(junk)


def test_bgstats_plays_with_the_awkward_rows() -> None:
    plays = list(open_source(FIXTURES / "bgstats.json").plays())
    assert len(plays) == 14
    got = by_id("bgstats.json")
    assert ranked(got["bgs-play-01-tie"]) == [
        (1, ("Ada",), "10", False),
        (2, ("Bob",), "8", False),
        (2, ("Carla",), "8", False),
    ]
    # a typed sum is added up: -10+7+22 = 19 beats 12
    assert ranked(got["bgs-play-02-sum"]) == [(1, ("Ada",), "19", False), (2, ("Bob",), "12", False)]
    # highestWins false: the lowest score wins
    assert [r[0] for r in ranked(got["bgs-play-03-lowest"])] == [2, 1, 3]
    # co-op: a loss is the game's (a bot faction's) win, a win the players'
    assert ranked(got["bgs-play-04-coop-loss"]) == [(2, ("Ada", "Bob"), "", False), (1, (), "", True)]
    assert ranked(got["bgs-play-05-coop-win"]) == [(1, ("Ada", "Carla"), "", False), (2, (), "", True)]
    # teams as factions, named after the team; winner flags order them
    teams = ranked(got["bgs-play-06-teams"])
    assert [(r[0], r[1]) for r in teams] == [(1, ("Ada", "Bob")), (2, ("Carla", "Dán"))]
    assert [s.name for s in sides(got["bgs-play-06-teams"])[0]] == ["Red", "Blue"]
    # noPoints: the scores are left out and the winner flags decide
    assert ranked(got["bgs-play-07-winner-only"]) == [
        (2, ("Ada",), "", False),
        (1, ("Bob",), "", False),
        (2, ("Carla",), "", False),
    ]
    assert sides(got["bgs-play-08-no-result"]) == ([], NO_RESULT)
    assert got["bgs-play-09-no-name"].seats[1].name == ""
    assert got["bgs-play-10-ignored"].skip == "marked as ignored in BG Stats"
    assert got["bgs-play-12-anonymous"].seats[1].anonymous
    # an explicit rank beats the scores
    assert [r[0] for r in ranked(got["bgs-play-13-ranked"])] == [2, 1]
    assert [p.external_id for p in plays].count("bgs-play-01-tie") == 2


def test_bgg_plays_quantity_skips_and_ties() -> None:
    plays = list(open_source(FIXTURES / "plays.xml").plays())
    ids = [p.external_id for p in plays]
    assert ids.count("bgg-101") == 2  # the duplicate play is read; the plan says it is there twice
    assert "bgg-102" in ids and "bgg-102-2" in ids  # quantity="2": two matches
    got = {p.external_id: p for p in plays}
    assert got["bgg-104"].skip == "marked incomplete on BGG"
    assert "nowinstats" in got["bgg-105"].skip
    assert got["bgg-102"].date == "2026-04-02 12:00:00"
    assert [r[0] for r in ranked(got["bgg-103"])] == [1, 1, 3]  # equal scores tie
    assert [r[0] for r in ranked(got["bgg-108"])] == [2, 1, 2]  # no scores: winners first, the rest tied
    assert got["bgg-103"].notes == "A tie for first."
    assert got["bgg-109"].game == SourceGame("Our Kitchen Table Game", 999999)
    assert got["bgg-109"].seats[0].username == "dan_b"


def test_csv_plays_grouped_by_date_and_game() -> None:
    plays = list(open_source(FIXTURES / "plays.csv").plays())
    assert [p.where for p in plays] == [
        "lines 2-4",
        "lines 5-8",
        "lines 9-10",
        "lines 11-12",
        "lines 13-14",
        "lines 15-16",
        "lines 17-18",
        "lines 19-21",
        "lines 22-23",
    ]
    first, teams, _coop, none, nameless, summed, bad_date, again, by_rank = plays
    assert again.external_id == first.external_id  # the same rows twice: one play told twice
    assert ranked(first) == [
        (1, ("Ada",), "10", False),
        (2, ("Bob",), "8", False),
        (2, ("Carla",), "8", False),
    ]
    assert [(r[0], r[1]) for r in ranked(teams)] == [(1, ("Ada", "Bob")), (2, ("Carla", "Dán"))]
    assert teams.date == "2026-05-02 19:30:00"
    assert sides(none) == ([], NO_RESULT)
    assert nameless.seats[1].name == ""
    assert ranked(summed)[0][2] == "19"
    assert bad_date.skip.startswith("the date cannot be read")
    assert [r[0] for r in ranked(by_rank)] == [2, 1]


def test_csv_header_in_any_order_with_semicolons_and_a_play_column(tmp_path: Path) -> None:
    path = tmp_path / "x.csv"
    path.write_text(
        "\ufeffPlay;Score;Player;Game;Date\n"
        "a;3;Ada;Catan;2026-01-01\na;2;Bob;Catan;2026-01-01\n"
        "b;1;Ada;Catan;2026-01-01\nb;5;Bob;Catan;2026-01-01\n",
        encoding="utf-8",
    )
    plays = list(open_source(path).plays())
    assert len(plays) == 2 and plays[0].external_id != plays[1].external_id
    assert [r[0] for r in ranked(plays[1])] == [2, 1]


def test_rankterm_export_streamed_and_pretty_printed_alike(tmp_path: Path) -> None:
    match = {
        "id": "m1",
        "externalId": "demo-0001",
        "number": 1,
        "date": "2026-01-02 20:00:00",
        "weight": "heavy",
        "notes": "n",
        "game": {"id": 5, "name": "Pandemic", "bggIdGame": 30549},
        "factions": [
            {
                "rank": 2,
                "points": None,
                "name": "",
                "bot": 0,
                "players": [{"id": "P1", "displayName": "*Ada"}],
            },
            {"rank": 1, "points": 3, "name": "The Virus", "bot": 1, "players": []},
        ],
    }
    lines = '{"format": "rankterm-export",\n "version": 1,\n "games": [],\n "players": [],\n "matches": [\n  '
    streamed = tmp_path / "a.json"
    streamed.write_text(lines + json.dumps(match) + '\n ],\n "counts": {"matches": 1}\n}\n')
    pretty = tmp_path / "b.json"
    pretty.write_text(json.dumps({"format": "rankterm-export", "version": 1, "matches": [match]}, indent=4))
    for path in (streamed, pretty):
        source = open_source(path)
        (play,) = list(source.plays())
        assert play.external_id == "demo-0001" and play.weight == "heavy"
        assert play.seats == (Seat(key="rt-player-P1", name="Ada"),)
        assert ranked(play) == [(2, ("Ada",), "", False), (1, (), "3", True)]
    assert open_source(streamed).kind == "rankterm"
    newer = tmp_path / "c.json"
    newer.write_text(lines.replace('"version": 1', '"version": 9') + json.dumps(match) + "\n ]\n}\n")
    with pytest.raises(RanktermError, match="version"):
        list(open_source(newer).plays())


@pytest.mark.parametrize(
    ("typed", "value"),
    [("19", Decimal(19)), ("-10+7+22", Decimal(19)), (" 7,5 ", Decimal("7.5")), ("1.5 - 0.5", Decimal(1))],
)
def test_scores_as_typed(typed: str, value: Decimal) -> None:
    assert read_score(typed) == value


@pytest.mark.parametrize("typed", ["", "3*4", "ten", "1e5", "--2", "nan"])
def test_what_is_no_score(typed: str) -> None:
    assert read_score(typed) is None


@given(st.lists(st.integers(-50, 50), min_size=2, max_size=8), st.booleans())
def test_ranks_by_score_are_competition_ranks(scores: list[int], lowest: bool) -> None:
    seats = tuple(Seat(key=str(i), name=f"P{i}", score=str(s)) for i, s in enumerate(scores))
    play = SourcePlay("x", "here", SourceGame("G", lowest_wins=lowest), "2026-01-01 12:00:00", seats)
    out, why = sides(play)
    assert why == ""
    for side in out:
        mine = scores[side.seats[0]]
        better = sum(1 for s in scores if (s < mine if lowest else s > mine))
        assert side.rank == better + 1


@pytest.mark.parametrize(
    ("line", "delimiter"),
    [
        ("date,game,player,team,rank,score", ","),
        ("\ufeffDate; Game; Player; Score\r\n", ";"),
        ("date\tgame\tplayer", "\t"),
        ('"date";"game";"player"', ";"),
        # csv.Sniffer guesses "," for this line (its first choice of the two it finds); each candidate is
        # tried against the columns a header needs instead
        ("date;game;player;score (points, total)", ";"),
        ("date,game,player,notes;comments", ","),
    ],
)
def test_a_headers_delimiter_is_the_one_that_gives_the_needed_columns(line: str, delimiter: str) -> None:
    found = header_fields(line)
    assert found is not None and found[0] == delimiter
    assert {"date", "game", "player"} <= set(found[1])


@pytest.mark.parametrize("line", ["date,game", "date game player", ""])
def test_a_line_without_the_needed_columns_is_no_header(line: str) -> None:
    assert header_fields(line) is None
