"""The stats figures on hand-made matches with known answers: wins, draws, teams, bots, streaks in the order
played, a player in one match only, a game nobody won, the evening, and finding a name."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from rankterm.stats import game_figures, head_to_head, player_figures, tonight
from rankterm.stats.documents import game_document, h2h_document, player_document, tonight_document
from rankterm.stats.lookup import AmbiguousName, NameNotFound, find_game, find_player
from rankterm.stats.rules import result_of
from rankterm.wire.models import Match

BOT = "bot"
GAMES = {1: "Catan", 2: "Pandemic", 3: "Tichu", 4: "Hanabi"}


def match(number: int, game: int, *sides: Any, date: str | None = None) -> Match:
    """`sides`: (rank, "a", "b", ...) for players, (rank, BOT) for the game's bot."""
    factions = []
    for rank, *who in sides:
        if who == [BOT]:
            factions.append({"rank": rank, "bot": 1, "players": [], "name": "the game"})
        else:
            players = [{"id": p, "displayName": p.upper(), "ghost": 0, "username": p} for p in who]
            factions.append({"rank": rank, "bot": 0, "players": players})
    when = date or (datetime(2026, 5, 1, 19, 0) + timedelta(minutes=number)).strftime("%Y-%m-%d %H:%M:%S")
    return Match.model_validate(
        {
            "id": f"m{number}",
            "number": number,
            "date": when,
            "game": {"id": game, "name": GAMES[game]},
            "factions": factions,
        }
    )


# ---------------------------------------------------------------------- results


def test_a_win_is_alone_at_the_best_rank_a_draw_shares_it_and_a_bot_win_is_everyones_loss():
    duel = match(1, 1, (1, "a"), (2, "b"))
    shared = match(2, 1, (1, "a"), (1, "b"), (3, "c"))
    coop_lost = match(3, 2, (2, "a", "b"), (1, BOT))
    coop_won = match(4, 2, (1, "a", "b"), (2, BOT))
    coop_tied = match(5, 2, (1, "a", "b"), (1, BOT))
    assert [result_of(duel, p) for p in "abc"] == ["W", "L", None]
    assert [result_of(shared, p) for p in "abc"] == ["D", "D", "L"]
    assert [result_of(coop_lost, p) for p in "ab"] == ["L", "L"]
    assert [result_of(coop_won, p) for p in "ab"] == ["W", "W"]
    assert [result_of(coop_tied, p) for p in "ab"] == ["D", "D"]


def test_a_players_page():
    matches = [
        match(1, 1, (1, "a"), (2, "b"), (3, "c")),  # W
        match(2, 1, (2, "a"), (1, "b")),  # L
        match(3, 1, (1, "a"), (1, "c")),  # D
        match(4, 3, (1, "a", "b"), (2, "c", "d")),  # W with b
        match(5, 2, (2, "a", "c"), (1, BOT)),  # L to the bot
        match(6, 1, (1, "a"), (2, "b")),  # W
        match(7, 1, (1, "a"), (2, "c")),  # W
        match(8, 4, (1, "b"), (2, "c")),  # not a's
    ]
    f = player_figures(matches, "a")
    assert (f.played, f.wins, f.draws, f.losses) == (7, 4, 1, 2)
    assert f.win_rate == pytest.approx(4 / 7)
    assert f.form == ("W", "L", "D", "W", "L", "W", "W") and f.form_line == "W L D W L W W"
    assert (f.current_streak, f.longest_streak) == (2, 2)
    assert f.name == "A" and f.match_numbers == (1, 2, 3, 4, 5, 6, 7)
    catan = f.per_game[0]
    assert (catan.game_name, catan.played, catan.wins, catan.draws, catan.losses) == ("Catan", 5, 3, 1, 1)
    assert f.best_game == catan  # the only game played 3 times or more
    # b: met in 1, 2, 6 (team-mate in 4: not a meeting): a ahead twice, b once
    # c: met in 1, 3, 4, 7 (team-mate in 5): a ahead in 1, 4, 7, tie in 3
    assert f.nemesis is not None and (f.nemesis.player_id, f.nemesis.behind, f.nemesis.meetings) == (
        "b",
        1,
        3,
    )
    assert f.victim is not None and (f.victim.player_id, f.victim.ahead, f.victim.ties) == ("c", 3, 1)
    assert (f.first_date, f.last_date) == (matches[0].date, matches[6].date)


def test_streaks_follow_the_order_played_not_the_order_recorded():
    # recorded late: match 9 was played before match 2
    matches = [
        match(1, 1, (1, "a"), (2, "b"), date="2026-05-01 19:00:00"),
        match(2, 1, (2, "a"), (1, "b"), date="2026-05-03 19:00:00"),
        match(9, 1, (1, "a"), (2, "b"), date="2026-05-02 19:00:00"),
        match(3, 1, (1, "a"), (2, "b"), date="2026-05-04 19:00:00"),
    ]
    f = player_figures(matches, "a")
    assert f.form == ("W", "W", "L", "W")
    assert (f.longest_streak, f.current_streak) == (2, 1)
    assert f.match_numbers == (1, 9, 2, 3)


def test_a_draw_ends_a_streak_and_the_form_is_the_last_ten_oldest_first():
    results = "WWWDWWLWWWWW"
    matches = [
        match(i, 1, (1, "a"), (1 if r == "D" else 2 if r == "W" else 0, "b"))
        for i, r in enumerate(results, start=1)
    ]
    f = player_figures(matches, "a")
    assert "".join(f.form) == results[-10:]
    assert (f.longest_streak, f.current_streak) == (5, 5)


def test_a_player_in_one_match_only_and_a_player_in_none():
    matches = [match(1, 1, (1, "a"), (2, "b")), match(2, 1, (1, "a"), (2, "c"))]
    f = player_figures(matches, "c")
    assert (f.played, f.wins, f.losses, f.form, f.current_streak, f.longest_streak) == (1, 0, 1, ("L",), 0, 0)
    assert f.best_game is None and f.nemesis is None and f.victim is None  # fewer than 3 of anything
    nobody = player_figures(matches, "zed")
    assert (nobody.played, nobody.win_rate, nobody.form, nobody.per_game) == (0, None, (), ())
    assert nobody.name == "zed" and nobody.first_date is None
    assert player_document(nobody)["win_rate"] is None


def test_best_game_needs_three_matches_and_the_better_rate():
    matches = [
        *[match(i, 1, (1, "a"), (2, "b")) for i in (1, 2)],  # Catan 2/2: too few
        *[match(i, 3, (1 if i != 5 else 2, "a"), (2 if i != 5 else 1, "b")) for i in (3, 4, 5)],  # Tichu 2/3
        *[
            match(i, 4, (1 if i < 9 else 2, "a"), (2 if i < 9 else 1, "b")) for i in (6, 7, 8, 9)
        ],  # Hanabi 3/4
    ]
    best = player_figures(matches, "a").best_game
    assert best is not None and (best.game_name, best.wins, best.played) == ("Hanabi", 3, 4)


def test_no_nemesis_when_nobody_ever_finished_ahead():
    matches = [match(i, 1, (1, "a"), (2, "b")) for i in range(1, 5)]
    assert player_figures(matches, "a").nemesis is None
    victim = player_figures(matches, "a").victim
    assert victim is not None and victim.player_id == "b" and victim.ahead == 4
    assert player_figures(matches, "b").nemesis == player_figures(matches, "b").nemesis
    nemesis = player_figures(matches, "b").nemesis
    assert nemesis is not None and nemesis.player_id == "a" and nemesis.behind == 4


# ---------------------------------------------------------------------- head-to-head


def test_head_to_head_of_two_who_never_met_names_them_from_the_roster():
    matches = [match(1, 1, (1, "a"), (2, "c")), match(2, 1, (1, "b"), (2, "c"))]
    h = head_to_head(matches, "a", "b", {"a": "Ada", "b": "Ben [/b] 🎲"})
    assert (h.meetings, h.a_name, h.b_name) == (0, "A", "Ben [/b] 🎲")  # a's own matches name a
    assert head_to_head(matches, "a", "b").b_name == "b"  # nobody names b: the id stands in


def test_head_to_head_counts_meetings_ties_and_team_mates_apart():
    matches = [
        match(1, 1, (1, "a"), (2, "b")),  # a ahead
        match(2, 1, (2, "a"), (1, "b"), (3, "c")),  # b ahead
        match(3, 1, (1, "a"), (1, "b")),  # tie
        match(4, 3, (1, "a", "b"), (2, "c", "d")),  # together, won
        match(5, 2, (2, "a", "b"), (1, BOT)),  # together, lost to the bot
        match(6, 1, (1, "c"), (2, "d")),  # neither
        match(7, 2, (1, "a"), (2, BOT)),  # a alone against the bot: no meeting
    ]
    h = head_to_head(matches, "a", "b")
    assert (h.meetings, h.a_ahead, h.b_ahead, h.ties, h.together, h.together_wins) == (3, 1, 1, 1, 2, 1)
    assert (h.a_name, h.b_name) == ("A", "B")
    assert [m.match_number for m in h.last] == [3, 2, 1]  # newest first
    assert [m.outcome for m in h.last] == ["tie", "b", "a"]
    by_game = {g.game_name: g for g in h.per_game}
    assert (by_game["Catan"].meetings, by_game["Tichu"].together_wins, by_game["Pandemic"].together) == (
        3,
        1,
        1,
    )
    mirrored = head_to_head(matches, "b", "a")
    assert (mirrored.a_ahead, mirrored.b_ahead, mirrored.together) == (h.b_ahead, h.a_ahead, h.together)
    doc = h2h_document(h)
    assert doc["b"] == {"id": "b", "name": "B"} and doc["last"][0]["ahead"] == "tie"


def test_against_everyone_each_other_player_of_a_match_counts():
    matches = [
        match(1, 1, (1, "a"), (2, "b"), (3, "c")),  # a ahead of b and c
        match(2, 3, (2, "a", "b"), (1, "c", "d")),  # with b; behind c and d
        match(3, 2, (1, "a", "b", "c"), (2, BOT)),  # with b and c, won
    ]
    h = head_to_head(matches, "a", None)
    assert (h.b_id, h.b_name) == (None, "everyone")
    assert (h.meetings, h.a_ahead, h.b_ahead, h.ties, h.together, h.together_wins) == (4, 2, 2, 0, 3, 2)
    assert {m.other_id for m in h.last} == {"b", "c", "d"}
    assert h2h_document(h)["b"] is None


# ---------------------------------------------------------------------- a game


def test_a_games_page_with_a_bot():
    matches = [
        match(1, 2, (1, "a", "b"), (2, BOT)),
        match(2, 2, (2, "a", "c"), (1, BOT)),
        match(3, 2, (1, "a", "c", "d"), (2, BOT)),
        match(4, 2, (1, "b"), (2, BOT)),
        match(5, 1, (1, "b"), (2, "c")),  # another game
    ]
    g = game_figures(matches, 2)
    assert (g.name, g.played, g.players) == ("Pandemic", 4, 4)
    assert g.average_factions == 2.0
    assert (g.bot_matches, g.bot_wins, g.bot_win_rate) == (4, 1, 0.25)
    assert g.top_winner is not None and (g.top_winner.player_id, g.top_winner.wins) == (
        "b",
        2,
    )  # 2/2 beats a's 2/3
    assert g.longest_streak is not None
    assert (g.longest_streak.player_id, g.longest_streak.length) == ("b", 2)
    assert (g.longest_streak.first, g.longest_streak.last) == (1, 4)
    assert game_document(g)["bot_win_rate"] == 0.25


def test_a_game_nobody_won():
    matches = [
        match(1, 2, (2, "a"), (1, BOT)),
        match(2, 2, (2, "a", "b"), (1, BOT)),
        match(3, 4, (1, "a"), (1, "b")),
    ]
    lost = game_figures(matches, 2)
    assert (lost.played, lost.bot_wins, lost.top_winner, lost.longest_streak) == (2, 2, None, None)
    drawn = game_figures(matches, 4)  # only a draw: no win either
    assert (drawn.played, drawn.bot_matches, drawn.bot_win_rate, drawn.top_winner) == (1, 0, None, None)
    none = game_figures(matches, 99)
    assert (none.played, none.average_factions, none.name, none.longest_streak) == (0, None, "", None)


def test_the_longest_streak_of_a_game_is_the_record_set_first():
    matches = [
        match(1, 1, (1, "a"), (2, "b")),
        match(2, 1, (1, "a"), (2, "b")),
        match(3, 1, (1, "b"), (2, "a")),
        match(4, 1, (1, "b"), (2, "a")),
    ]
    streak = game_figures(matches, 1).longest_streak
    assert streak is not None and (streak.player_id, streak.length, streak.first, streak.last) == (
        "a",
        2,
        1,
        2,
    )


# ---------------------------------------------------------------------- tonight


def test_tonight_who_won_what_the_biggest_gain_and_the_biggest_upset():
    matches = [
        match(1, 1, (1, "a"), (2, "b"), date="2026-05-01 12:00:00"),  # before the evening
        match(2, 1, (1, "b"), (2, "a"), (3, "c"), date="2026-05-01 20:00:00"),
        match(3, 1, (1, "a"), (1, "c"), date="2026-05-01 21:00:00"),  # a draw
        match(4, 2, (2, "a", "b"), (1, BOT), date="2026-05-01 22:00:00"),  # the bot
        match(5, 1, (1, "c"), (2, "a"), date="2026-05-01 23:00:00"),
    ]
    before = {(2, "a"): 2000.0, (2, "b"): 1900.0, (2, "c"): 1500.0, (5, "c"): 1450.0, (5, "a"): 2010.0}
    after = {(5, "a"): 1980.0, (5, "c"): 1520.0, (4, "b"): 1950.0}
    t = tonight(matches, datetime(2026, 5, 1, 18, 0), before, after)
    assert [m.number for m in t.matches] == [2, 3, 4, 5]
    assert [(m.winners, m.draw, m.bot_won) for m in t.matches] == [
        (("b",), False, False),
        (("a", "c"), True, False),
        ((), False, True),
        (("c",), False, False),
    ]
    assert [(x.player_id, x.wins, x.played) for x in t.tallies] == [("b", 1, 2), ("c", 1, 3), ("a", 0, 4)]
    assert t.biggest_gain is not None and (t.biggest_gain.player_id, t.biggest_gain.gain) == ("b", 50.0)
    assert t.biggest_upset is not None
    assert (t.biggest_upset.player_id, t.biggest_upset.match_number, t.biggest_upset.ree_before) == (
        "c",
        5,
        1450.0,
    )
    doc = tonight_document(t, ree_loaded=4, ree_wanted=4)
    assert doc["biggest_gain"]["gain"] == 50.0 and doc["matches"][2]["bot_won"] is True
    bare = tonight(matches, datetime(2026, 5, 1, 18, 0))
    assert bare.biggest_gain is None and bare.biggest_upset is None and len(bare.matches) == 4


def test_tonight_since_an_aware_time_is_read_in_utc():
    matches = [match(1, 1, (1, "a"), (2, "b"), date="2026-05-01 20:00:00")]
    two_hours_east = timezone(timedelta(hours=2))
    assert len(tonight(matches, datetime(2026, 5, 1, 21, 30, tzinfo=two_hours_east)).matches) == 1
    assert len(tonight(matches, datetime(2026, 5, 1, 20, 0, 1, tzinfo=UTC)).matches) == 0
    assert tonight([], datetime(2026, 5, 1)).tallies == ()


# ---------------------------------------------------------------------- names


def test_find_a_player_or_a_game_by_id_or_name():
    matches = [match(1, 1, (1, "ada"), (2, "bén")), match(2, 3, (1, "ada"), (2, "ghost"))]
    players = [p for m in matches for f in m.factions for p in f.players]
    players = list({p.id: p for p in players}.values())
    players[2] = players[2].model_copy(update={"display_name": "*Ghost"})
    assert find_player(players, "ada").id == "ada"
    assert find_player(players, "BÉN").id == "bén"
    assert find_player(players, "ben").id == "bén"  # accents and case ignored
    assert find_player(players, "ghost").id == "ghost"  # id first
    assert find_player([*players[:2], players[2].model_copy(update={"id": "g1"})], "Ghost").id == "g1"
    with pytest.raises(NameNotFound):
        find_player(players, "zed")
    twins = [players[0], players[0].model_copy(update={"id": "other", "display_name": "Ada"})]
    twins[0] = twins[0].model_copy(update={"display_name": "ADA"})
    with pytest.raises(AmbiguousName) as caught:
        find_player(twins, "aDa")
    assert {c[0] for c in caught.value.candidates} == {"ada", "other"}
    assert find_player(twins, "Ada").id == "other"  # the exact name wins over the folded one
    games = [m.game for m in matches if m.game is not None]
    assert find_game(games, "3").name == "Tichu" and find_game(games, "catan").id == 1
