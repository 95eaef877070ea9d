"""Seasons and what changed: a period's standings are those of a fresh service that got only its matches,
periods are read as people write them, and the events of a history do not depend on the order its matches
arrived in; each rule (champion kept on a tie, nemesis thresholds, streaks, milestones) said once and held."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankterm.client.client import RankingClient
from rankterm.mirror import Group
from rankterm.server.seed import demo_app
from rankterm.stats import source
from rankterm.stats.changes import Event, Story, changes
from rankterm.stats.seasons import PeriodError, period_of, periods_by, roll_of_honour, season_standings
from rankterm.wire.localtime import UTC_ZONE, seat_zone
from rankterm.wire.models import Faction, Game, Match, NewFaction, NewMatch, Player
from tests.support.examples import examples

BASE = "http://in-process.rankterm/"
NOW = 1_780_000_000.0


@pytest.mark.parametrize(
    ("text", "name", "start", "end"),
    [
        ("2026", "2026", datetime(2026, 1, 1), datetime(2027, 1, 1)),
        ("2026-q4", "2026-Q4", datetime(2026, 10, 1), datetime(2027, 1, 1)),
        ("2026-Q1", "2026-Q1", datetime(2026, 1, 1), datetime(2026, 4, 1)),
        ("2026-12", "2026-12", datetime(2026, 12, 1), datetime(2027, 1, 1)),
        (" 2026-02 ", "2026-02", datetime(2026, 2, 1), datetime(2026, 3, 1)),
    ],
)
def test_a_season_is_read_as_people_write_it(text: str, name: str, start: datetime, end: datetime) -> None:
    period = period_of(text)
    assert (period.name, period.start, period.end) == (name, start, end)


@pytest.mark.parametrize("text", ["2026-13", "2026-Q5", "26", "2026-1", "spring", ""])
def test_what_is_not_a_season_is_one_sentence(text: str) -> None:
    with pytest.raises(PeriodError) as raised:
        period_of(text)
    assert "YYYY-Qn" in str(raised.value) and "\n" not in str(raised.value)


def test_a_match_belongs_to_the_period_of_the_seats_clock() -> None:
    late = Match(id="m", number=1, date="2026-01-31 23:30:00")  # UTC: already February in Paris
    assert period_of("2026-01").holds(late, UTC_ZONE)
    assert period_of("2026-02").holds(late, seat_zone("Europe/Paris"))


@settings(max_examples=60, deadline=None)
@given(
    zone_name=st.sampled_from(
        ["UTC", "Europe/Paris", "Pacific/Auckland", "America/Havana", "America/Santiago"]
    ),
    text=st.sampled_from(["2025", "2025-Q2", "2025-03", "2025-10", "2026-01"]),
    offsets=st.lists(st.integers(min_value=-3 * 86_400, max_value=3 * 86_400), min_size=1, max_size=30),
)
def test_a_seasons_matches_are_those_its_period_holds_by_the_seats_clock(
    zone_name: str, text: str, offsets: list[int]
) -> None:
    """Matches near a period's edges (a day or three either side, zones with midnight clock changes) count
    in its standings exactly when the seat's clock puts them inside."""
    zone = seat_zone(zone_name)
    period = period_of(text)
    edges = [zone.to_wire(period.start), zone.to_wire(period.end)]
    dates = [
        f"{datetime.fromisoformat(edges[i % 2]) + timedelta(seconds=offset):%Y-%m-%d %H:%M:%S}"
        for i, offset in enumerate(offsets)
    ]
    matches = [
        Match(
            id=f"m{n}",
            number=n,
            date=date,
            game=Game(id=1, name="G"),
            factions=[
                Faction(rank=1, players=[Player(id="a", display_name="A")]),
                Faction(rank=2, players=[Player(id="b", display_name="B")]),
            ],
        )
        for n, date in enumerate(sorted(dates), start=1)
    ]
    assert season_standings(matches, period, zone).matches == sum(period.holds(m, zone) for m in matches)


async def fresh_service_standings(played: list[Match]) -> dict[str, float]:
    """The standings of a new group on the embedded service that got only `played`, by player name."""
    from rankterm.server.app import create_app
    from rankterm.server.store import Store

    store = Store(":memory:")
    key, secret = store.create_client(store.create_group("Season"))
    app = create_app(store)
    http = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE)
    group = Group(RankingClient(BASE, key=key, secret=secret, http=http, retries=0, backoff=0))
    try:
        names = sorted({p.label for m in played for f in m.factions if not f.bot for p in f.players})
        ids = {name: str((await group.create_player(name.lstrip("*"))).id) for name in names}
        games = {}
        for match in played:
            assert match.game is not None
            if match.game.name not in games:
                games[match.game.name] = (await group.create_game(name=match.game.name)).id
        new = [
            NewMatch(
                game=games[m.game.name],  # type: ignore[union-attr]
                date=m.date,
                weight=m.weight or "normal",
                external_id=f"s{m.number}",
                factions=[
                    NewFaction(
                        rank=f.rank, players=[ids[p.label] for p in f.players] if not f.bot else [], bot=f.bot
                    )
                    for f in m.factions
                ],
            )
            for m in played
        ]
        answer = await group.add_matches(new)
        assert answer.accepted_count == len(new)
        return {row.player.label.lstrip("*"): float(row.ree) for row in await group.all_rankings()}
    finally:
        await group.client.aclose()
        store.close()


async def test_a_seasons_standings_are_a_fresh_groups_that_played_only_its_matches() -> None:
    app, key, secret = demo_app(clock=lambda: NOW)
    async with Group(RankingClient.in_process(app, key=key, secret=secret)) as demo:
        matches = await source.group_matches(demo)
        all_time = {row.player.id: row.ree for row in await demo.all_rankings()}
    month = periods_by(matches, "month", UTC_ZONE)[3]
    season = season_standings(matches, month, UTC_ZONE)
    played = [m for m in matches if month.holds(m, UTC_ZONE)]
    assert season.matches == len(played) > 10
    service = await fresh_service_standings(played)
    assert {row.name.lstrip("*"): row.ree for row in season.rows} == service
    assert [row.position for row in season.rows][:1] == [1]
    assert any(
        all_time[row.player_id] != row.ree for row in season.rows
    )  # a hard reset, not the all-time table


def test_the_roll_of_honour_leaves_out_the_period_not_over() -> None:
    matches = [history_match(i, [["A"], ["B"]], day=1 + i) for i in range(3)]
    matches += [history_match(10 + i, [["B"], ["A"]], day=1 + i, month=2) for i in range(2)]
    roll = roll_of_honour(matches, "month", UTC_ZONE, now=datetime(2026, 2, 15))
    assert [(s.period.name, s.matches, s.champion.name) for s in roll if s.champion] == [("2026-01", 3, "A")]


# ---------------------------------------------------------------------- what changed

PLAYERS = {name: Player(id=f"id{name}", display_name=name) for name in "ABCDEF"}


def history_match(
    number: int, places: list[list[str]], *, day: int = 1, month: int = 1, game: int = 1
) -> Match:
    """Match `number`: each inner list a faction, in finishing order (ties: write them as one list of lists)."""
    return Match(
        id=f"m{number}",
        number=number,
        date=f"2026-{month:02d}-{day:02d} {number // 60 % 24:02d}:{number % 60:02d}:00",
        weight="normal",
        game=Game(id=game, name=f"Game {game}"),
        factions=[Faction(rank=i + 1, players=[PLAYERS[n] for n in names]) for i, names in enumerate(places)],
    )


def texts(events: list[Event], kind: str) -> list[tuple[int, str]]:
    return [(e.number, e.text) for e in events if e.kind == kind]


def test_a_champion_keeps_the_title_on_a_tie_and_loses_it_when_passed() -> None:
    matches = [
        history_match(1, [["A"], ["B"]]),
        history_match(2, [["B"], ["A"]]),  # B equals A's 1 win in 2: A keeps it
        history_match(3, [["B"], ["A"]]),  # B passes
    ]
    assert texts(changes(matches), "champion") == [
        (1, "New Game 1 champion: A"),
        (3, "New Game 1 champion: B"),
    ]


def test_a_nemesis_needs_three_losses_and_more_losses_than_wins() -> None:
    matches = [history_match(1, [["A"], ["B"]])]
    matches += [history_match(n, [["B"], ["A"]]) for n in (2, 3)]
    assert texts(changes(matches), "nemesis") == []  # two losses
    matches.append(history_match(4, [["B"], ["A"]]))
    assert texts(changes(matches), "nemesis") == [(4, "A's new nemesis: B")]


def test_streaks_from_three_and_milestones_at_ten() -> None:
    matches = [history_match(n, [["A"], ["B"]]) for n in range(1, 11)]
    events = changes(matches)
    assert [n for n, _ in texts(events, "streak") if "A:" in _] == list(range(3, 11))
    assert texts(events, "matches") == [(10, "A's 10th match"), (10, "B's 10th match")]
    assert texts(events, "wins") == [(10, "A's 10th win")]


@st.composite
def histories(draw: st.DrawFn) -> list[Match]:
    count = draw(st.integers(min_value=1, max_value=40))
    out = []
    for number in range(1, count + 1):
        names = draw(st.permutations(list("ABCDEF")))
        sides = draw(st.integers(min_value=2, max_value=4))
        out.append(
            history_match(number, [[n] for n in names[:sides]], day=1 + number % 28, game=number % 3 + 1)
        )
    return out


@settings(max_examples=examples(40), deadline=None)
@given(histories(), st.randoms(use_true_random=False))
def test_the_events_do_not_depend_on_the_order_the_matches_arrived_in(
    matches: list[Match], rnd: random.Random
) -> None:
    arrived = list(matches)
    rnd.shuffle(arrived)
    assert changes(arrived) == changes(matches)


@settings(max_examples=40, deadline=None)
@given(histories(), st.data())
def test_a_story_kept_between_reads_tells_what_a_fresh_walk_tells(
    matches: list[Match], data: st.DataObject
) -> None:
    """Followed as the history grows, and after a match played before others arrives (the later ones renumbered),
    a kept story's events are a fresh walk's."""
    story = Story()
    grown = data.draw(st.integers(min_value=0, max_value=len(matches)), label="held first")
    assert story.follow(matches[:grown]) == changes(matches[:grown])
    late = data.draw(st.integers(min_value=0, max_value=len(matches) - 1), label="arrives late")
    before = [m if m.number < late + 1 else m.model_copy(update={"number": m.number - 1}) for m in matches]
    del before[late]
    assert story.follow(before) == changes(before)
    assert story.follow(matches) == changes(matches)
