"""What the form says before a match: chances once two factions have players, newcomers marked, and for a
co-op match against the game the group's record with exactly those players."""

from __future__ import annotations

import math

from rankterm.stats.before import before_match
from rankterm.stats.model import TableModel
from rankterm.wire.models import Faction, Game, Match, Player

PANDEMIC = Game(id=7, name="Pandemic")


def person(pid: str) -> Player:
    return Player(id=pid, display_name=pid.upper())


def coop(number: int, players: list[str], won: bool, game: Game = PANDEMIC) -> Match:
    return Match(
        id=f"m{number}",
        number=number,
        date=f"2026-01-01 10:{number:02d}:00",
        weight="normal",
        game=game,
        factions=[
            Faction(rank=1 if won else 2, players=[person(p) for p in players]),
            Faction(rank=2 if won else 1, bot=True),
        ],
    )


def duel(number: int, winner: str, loser: str) -> Match:
    return Match(
        id=f"d{number}",
        number=number,
        date=f"2026-01-02 10:{number:02d}:00",
        weight="normal",
        game=Game(id=1, name="Catan"),
        factions=[Faction(rank=1, players=[person(winner)]), Faction(rank=2, players=[person(loser)])],
    )


def test_nothing_is_said_before_two_factions_have_players() -> None:
    model = TableModel()
    assert before_match(model, []) is None
    assert before_match(model, [(["a"], False), ([], False)]) is None


def test_chances_sum_to_one_in_the_forms_order_and_newcomers_are_marked() -> None:
    model = TableModel()
    model.follow([duel(n, "a", "b") for n in range(1, 6)])
    said = before_match(model, [(["b"], False), (["a"], False), (["z"], False)])
    assert said is not None and not said.is_coop
    assert [c.players for c in said.chances] == [("b",), ("a",), ("z",)]
    assert math.isclose(sum(c.chance for c in said.chances), 1.0, abs_tol=1e-9)
    assert said.chances[1].chance > said.chances[0].chance  # a beat b five times
    assert [c.newcomers for c in said.chances] == [(), (), ("z",)]


def test_a_coop_match_shows_the_record_of_exactly_those_players() -> None:
    history = [
        coop(1, ["a", "b"], won=True),
        coop(2, ["b", "a"], won=False),
        coop(3, ["a", "b"], won=True),
        coop(4, ["a", "b", "c"], won=True),  # another team
        coop(5, ["a", "b"], won=True, game=Game(id=8, name="Spirit Island")),  # the caller gives one game's
    ]
    pandemic = [m for m in history if m.game is not None and m.game.id == PANDEMIC.id]
    said = before_match(TableModel(), [(["b", "a"], False), ([], True)], pandemic)
    assert said is not None and said.is_coop
    assert (said.won, said.played) == (2, 3)


def test_a_player_in_two_factions_gets_no_chance() -> None:
    assert before_match(TableModel(), [(["a"], False), (["a"], False)]) is None


def test_a_team_that_never_played_the_game_has_no_record_yet() -> None:
    said = before_match(TableModel(), [(["a", "b"], False), ([], True)], [])
    assert said is not None and said.is_coop and (said.won, said.played) == (0, 0)
