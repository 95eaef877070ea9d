"""What a match did (rankterm/stats/effect.py): the sentence from two standings, and the reads against the
embedded service in-process: the numbers agree with the service's own deltas, a game's subset compares with
that game's previous match, a player on page 2 is found, and the rankings calls stay one or two a match."""

from __future__ import annotations

import httpx
import pytest

from rankterm.client.client import RankingClient
from rankterm.mirror import Group
from rankterm.server.seed import demo_app
from rankterm.stats.effect import (
    MINUS,
    EffectUnknown,
    PlayerEffect,
    effect_of,
    match_effect,
    number_of,
    player_text,
    signed,
)
from rankterm.wire import errors as er
from rankterm.wire.models import Faction, Match, NewFaction, NewMatch, Player, RankingRow
from tests.support.faults import FaultyTransport
from tests.support.transports import CountingTransport

BASE = "http://in-process.rankterm/"
M = MINUS
NOW = 1_780_000_000.0


def person(name: str) -> Player:
    return Player(id=f"id-{name.lower()}", display_name=name)


def row(name: str, ree: float, position: int) -> RankingRow:
    return RankingRow(player=person(name), ree=ree, position=position)


def played(*places: tuple[int, list[str]], number: int = 42, bot_rank: int | None = None) -> Match:
    factions = [Faction(rank=rank, players=[person(n) for n in names]) for rank, names in places]
    if bot_rank is not None:
        factions.append(Faction(rank=bot_rank, bot=True))
    return Match(number=number, factions=factions)


# ---------------------------------------------------------------------- the sentence


def test_the_sentence_of_the_issue():
    match = played((1, ["Elena"]), (2, ["Ada"]), (3, ["Ben"]), (4, ["Chiara"]))
    before = [row("Chiara", 2100, 1), row("Dev", 2090, 2), row("Elena", 2000, 3), row("Fay", 1990, 4)]
    before += [row("Ada", 1950, 5), row("Ben", 1900, 6)]
    after = [row("Elena", 2058, 1), row("Dev", 2090, 2), row("Fay", 1990, 3), row("Chiara", 2013, 4)]
    after += [row("Ada", 1968, 5), row("Ben", 1911, 6)]  # Dev and Fay did not play
    effect = effect_of(match, before, after)
    assert effect.sentence() == f"Elena +58 (3→1) · Ada +18 · Ben +11 · Chiara {M}87 (1→4)"
    assert MINUS == "\u2212" and MINUS in effect.sentence() and "-" not in effect.sentence()


def test_signed_rounds_to_a_whole_number_with_a_true_minus():
    assert [signed(v) for v in (57.6, -86.5001, 0.4, -0.4, 0)] == ["+58", f"{M}87", "±0", "±0", "±0"]


def test_a_player_new_to_the_standings_shows_new_and_where_they_entered():
    new = PlayerEffect("x", "Dora", rank=1, ree_after=1700.0, position_after=5)
    assert new.new and new.delta is None and player_text(new) == "Dora new (→5)"
    stayed = PlayerEffect("y", "Ben", 2, 1890.0, 4, ree_before=1900.0, position_before=4)
    assert player_text(stayed) == f"Ben {M}10"


def test_players_follow_the_result_then_the_change_and_bots_are_left_out():
    match = played((2, ["Ben", "Ada"]), (1, ["Chiara"]), bot_rank=3)
    before = [row("Ada", 2000, 1), row("Ben", 1990, 2), row("Chiara", 1980, 3)]
    after = [row("Chiara", 2030, 1), row("Ada", 1990, 2), row("Ben", 1975, 3), row("Dev", 1500, 4)]
    effect = effect_of(match, before, after)
    assert [p.name for p in effect.players] == ["Chiara", "Ada", "Ben"]  # Dev did not play
    assert effect.sentence() == f"Chiara +50 (3→1) · Ada {M}10 (1→2) · Ben {M}15 (2→3)"


# ---------------------------------------------------------------------- against the embedded service


@pytest.fixture
async def seat():
    """A client on a fresh demo group (300 matches), its requests counted, its network cuttable."""
    app, key, secret = demo_app(clock=lambda: NOW)
    faults = FaultyTransport(httpx.ASGITransport(app=app))
    counting = CountingTransport(faults)
    http = httpx.AsyncClient(transport=counting, base_url=BASE)
    group = Group(
        RankingClient(BASE, key=key, secret=secret, http=http, clock=lambda: NOW, retries=0, backoff=0)
    )
    group.counting = counting  # type: ignore[attr-defined]
    group.faults = faults  # type: ignore[attr-defined]
    yield group
    await group.client.aclose()


async def record(
    group: RankingClient | Group, external_id: str, *places: tuple[int, list[str]], game: str = "Catan"
) -> int:
    """A match between the group's players (by display name); its number, found as the app finds it."""
    group = Group.of(group)  # a client: read through its group
    ids = {p.display_name: p.id for p in await group.players()}
    played = next(g for g in await group.games() if g.name == game)
    match = NewMatch(
        game=played.id,
        weight="normal",
        external_id=external_id,
        factions=[NewFaction(players=[ids[n] for n in names], rank=rank) for rank, names in places],
    )
    answer = await group.add_matches(match)
    assert answer.accepted_count == 1
    number = await number_of(group, match_id=answer.accepted[0].id)
    assert number is not None
    assert await number_of(group, external_id=external_id) == number
    return number


async def test_the_effect_agrees_with_the_services_own_deltas_in_two_rankings_calls(seat):
    seat = Group.of(seat)  # a client: read through its group
    number = await record(seat, "fx-1", (1, ["Farid"]), (2, ["Ada"]), (3, ["*Jonas"]))
    before = seat.counting.calls_to("rankings")
    effect = await match_effect(seat, number)
    assert seat.counting.calls_to("rankings") - before == 2
    assert effect.number == number and effect.game == "Catan" and effect.before_number == number - 1
    assert [p.name for p in effect.players] == ["Farid", "Ada", "*Jonas"]
    rows = {r.player.id: r for r in await seat.all_rankings(match=number)}
    for p in effect.players:
        told = rows[p.player_id]
        assert p.delta == pytest.approx(told.delta_ree, abs=0.01)
        assert p.climbed == told.delta_position
        assert p.position_after == told.position


async def test_standings_read_once_are_not_asked_again(seat):
    first = await record(seat, "fx-2", (1, ["Ben"]), (2, ["Chiara"]))
    await match_effect(seat, first)
    await record(seat, "fx-3", (1, ["Chiara"]), (2, ["Ben"]))  # now the standings after `first` are final
    before = seat.counting.calls_to("rankings")
    again = await match_effect(seat, first)
    assert seat.counting.calls_to("rankings") - before == 1  # "before" came from the mirror
    assert again.sentence() == (await match_effect(seat, first)).sentence()


async def test_in_a_games_subset_the_effect_is_against_that_games_previous_match(seat):
    seat = Group.of(seat)  # a client: read through its group
    duel = next(s for s in await seat.subsets() if s.game is not None and s.game.name == "7 Wonders Duel")
    number = await record(seat, "fx-4", (1, ["Greta"]), (2, ["Dev"]), game="7 Wonders Duel")
    earlier = max(m.number for m in await seat.all_matches(subset=duel.id) if m.number < number)
    assert earlier < number - 1  # other games were played since
    effect = await match_effect(seat, number, duel.id)
    assert effect.before_number == earlier and effect.subset == duel.id
    rows = {r.player.id: r for r in await seat.all_rankings(subset=duel.id, match=number)}
    assert [p.delta for p in effect.players] == pytest.approx(
        [rows[p.player_id].delta_ree for p in effect.players], abs=0.01
    )


async def test_a_player_on_the_second_page_is_found(seat):
    seat = Group.of(seat)  # a client: read through its group
    guests = [await seat.create_player(f"Guest {i:02d}") for i in range(1, 21)]
    catan = next(g for g in await seat.games() if g.name == "Catan")
    answer = await seat.add_matches(
        NewMatch(
            game=catan.id,
            weight="normal",
            factions=[NewFaction(players=[g.id], rank=i + 1) for i, g in enumerate(guests)],
        )
    )
    number = await number_of(seat, match_id=answer.accepted[0].id)
    assert number is not None
    effect = await match_effect(seat, number)
    assert len(effect.players) == 20 and all(p.new for p in effect.players)
    assert max(p.position_after for p in effect.players) > 25  # some of them are on page 2
    assert "Guest 20 new (→" in effect.sentence()


async def test_a_match_not_in_the_subset_is_said_and_offline_is_an_error(seat):
    seat = Group.of(seat)  # a client: read through its group
    pandemic = next(s for s in await seat.subsets() if s.game is not None and s.game.name == "Pandemic")
    with pytest.raises(EffectUnknown):
        await match_effect(seat, 300, pandemic.id)  # match 300 is a Catan match
    seat.faults.down = True
    with pytest.raises(er.RanktermError):
        await match_effect(seat, 299)


def test_players_of_equal_ree_share_a_position_in_the_sentence():
    match = played((1, ["*Tia", "*Tom"]), (2, ["Ben"]))
    before = [row("Ben", 1900, 12)]
    after = [row("Ben", 1850, 12), row("*Tia", 1793.3, 13), row("*Tom", 1793.3, 14), row("Uma", 1700, 15)]
    effect = effect_of(match, before, after)
    assert effect.sentence() == f"*Tia new (→13) · *Tom new (→13) · Ben {M}50"


async def test_two_newcomers_who_tie_enter_at_one_position(seat):
    seat = Group.of(seat)  # a client: read through its group
    tia, tom = await seat.create_player("Tia"), await seat.create_player("Tom")
    catan = next(g for g in await seat.games() if g.name == "Catan")
    answer = await seat.add_matches(
        NewMatch(
            game=catan.id,
            weight="normal",
            factions=[NewFaction(players=[tia.id], rank=1), NewFaction(players=[tom.id], rank=1)],
        )
    )
    number = await number_of(seat, match_id=answer.accepted[0].id)
    assert number is not None
    effect = await match_effect(seat, number)
    rows = {r.player.id: r for r in await seat.all_rankings(match=number)}
    assert rows[tia.id].ree == rows[tom.id].ree and rows[tia.id].position != rows[tom.id].position
    shared = min(rows[tia.id].position, rows[tom.id].position)
    assert {p.position_after for p in effect.players} == {shared}
    assert effect.sentence() == f"*Tia new (→{shared}) · *Tom new (→{shared})"
