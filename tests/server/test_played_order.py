"""Matches are rated in the order they were played (date, then arrival), whatever order they arrive in.

The same matches sent in date order, in reverse, shuffled, or in batches of any size end with the same
numbers, the same matches pages and the same standings after every match of every subset; the ratings
stored (history, current rows, snapshots) are the same rows. A match dated before the group's first is
number 1; equal dates keep the order of arrival; a match sent again under its external id with another date
is refused (M003) and changes nothing. Snapshots are taken every `EVERY` matches of a subset here (every 256
in the service), so that backdating crosses snapshot boundaries; a second `Store` on the same database never
serves a snapshot of the standings from before a match was placed before it (`SnapshotCache`).

Row ids (a match's wire ``id``) are given in the order of arrival, so two groups are compared through each
match's external id and each player's name.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankterm.server import rankings
from rankterm.server.store import Store
from tests.support.examples import examples

from .conftest import postgres_url
from .played import NAMES, Group, season

EVERY = 3


@pytest.fixture(autouse=True)
def _snapshots_every_few_matches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rankings, "SNAPSHOT_EVERY", EVERY)


@pytest.fixture
def fresh_store(store: Store, tmp_path, clock) -> Iterator[Store]:
    """Another store on the same engine as `store`."""
    path = str(tmp_path / "fresh.db") if store.engine == "sqlite" else postgres_url()
    with Store(path, clock=clock) as fresh:
        yield fresh


def test_the_same_matches_in_any_order_and_any_batches_end_the_same(store, fresh_store):
    count = 14
    in_order = Group(fresh_store, "In order")
    in_order.accept(season(in_order, count))
    expected = in_order.everything()
    assert in_order.numbers() == [(n, f"m{n - 1:02d}") for n in range(1, count + 1)]
    assert expected["rating_snapshot"]  # snapshots were taken, and are compared below
    shuffled = random.Random(5).sample(range(count), count)
    for name, order, batch in (
        ("reverse", list(range(count))[::-1], 1),
        ("shuffled", shuffled, 1),
        ("shuffled, batches of 4", shuffled, 4),
        ("reverse, one batch", list(range(count))[::-1], 100),
    ):
        group = Group(store, name)
        matches = season(group, count)
        group.accept([matches[i] for i in order], batch)
        assert group.everything() == expected, name


def test_after_every_arrival_the_standings_are_those_of_the_same_matches_sent_in_date_order(store):
    count = 9
    arrived = Group(store, "Arrived")
    matches = season(arrived, count)
    order = [4, 2, 7, 0, 8, 1, 6, 3, 5]
    for k, i in enumerate(order):
        arrived.accept([matches[i]])
        fresh = Group(store, f"Fresh {k}")
        fresh_matches = season(fresh, count)
        fresh.accept([fresh_matches[j] for j in sorted(order[: k + 1])])
        assert arrived.everything() == fresh.everything(), k


def test_a_match_dated_before_the_first_is_number_one_and_later_numbers_move_up(store):
    group = Group(store)
    matches = season(group, 6, day=10)
    group.accept(matches[:5])
    ids_before = {m.external_id: m.id for m in store.matches_page(group.id, None, 1).data}
    early = {**matches[5], "id": "early", "date": "2025-09-01 12:00:00"}
    answer = group.send(early)
    assert answer.accepted_count == 1
    assert group.numbers() == [(1, "early"), *((n + 2, f"m{n:02d}") for n in range(5))]
    data = store.matches_page(group.id, None, 1).data
    assert {m.external_id: m.id for m in data if m.external_id != "early"} == ids_before  # ids stay
    subset = next(s for s in store.subsets(group.id) if s.is_main)
    assert subset.count_matches == 6
    assert subset.first_match is not None and subset.first_match.number == 1
    fresh = Group(store, "Fresh")
    fresh_matches = season(fresh, 6, day=10)
    fresh.accept([{**fresh_matches[5], "id": "early", "date": "2025-09-01 12:00:00"}, *fresh_matches[:5]])
    assert group.everything() == fresh.everything()


def test_equal_dates_keep_the_order_of_arrival(store):
    group = Group(store)
    a, b, c, d = group.players[:4]
    game = group.games[0]

    def duel(ext: str, winner: str, loser: str, date: str) -> dict:
        return {
            "id": ext,
            "game": game,
            "weight": "normal",
            "date": date,
            "factions": [{"players": [winner], "rank": 1}, {"players": [loser], "rank": 2}],
        }

    group.accept([duel("x1", a, b, "2025-10-02 20:00:00"), duel("x2", c, d, "2025-10-02 20:00:00")])
    group.accept([duel("late", a, c, "2025-10-05 20:00:00")])
    group.accept([duel("x3", b, d, "2025-10-02 20:00:00")])  # after the two of that date, before "late"
    group.accept([duel("x0", d, a, "2025-10-02 20:00:00"), duel("x00", a, d, "2025-10-01 09:00:00")])
    assert [e for _, e in group.numbers()] == ["x00", "x1", "x2", "x3", "x0", "late"]


def test_the_same_external_id_with_another_date_is_m003_and_changes_nothing(store):
    group = Group(store)
    matches = season(group, 5)
    group.accept(matches)
    before = group.everything()
    for date in ("2025-09-01 20:00:00", "2025-10-03 21:00:00", "2026-01-01"):
        answer = group.send({**matches[2], "date": date})
        assert answer.accepted_count == 0
        assert [e.code for e in answer.rejected[0].errors] == ["M003"]
    assert group.everything() == before


def test_snapshots_after_backdating_across_their_boundaries_are_those_of_the_played_order(store):
    count = 3 * EVERY + 2
    group = Group(store)
    matches = season(group, count, day=3)
    group.accept(matches)
    main = next(s for s in store.subsets(group.id) if s.is_main).id
    for n in range(1, count + 1):  # every snapshot read twice: held by the store's cache
        for _ in range(2):
            store.rankings_page(group.id, main, n, 1)
    late = {**matches[0], "id": "late", "date": "2025-10-02 08:00:00"}  # number 1: every snapshot moves
    group.accept([late])
    fresh = Group(store, "Fresh")
    fresh_matches = season(fresh, count, day=3)
    fresh.accept([{**fresh_matches[0], "id": "late", "date": "2025-10-02 08:00:00"}, *fresh_matches])
    assert group.everything() == fresh.everything()
    with store._read() as conn:
        taken = conn.execute(
            "SELECT count(DISTINCT p.at_number) FROM rating_snapshot p JOIN subsets s ON s.id = p.subset_id"
            " WHERE s.group_id = ? AND s.key = 'main'",
            (group.id,),
        ).fetchone()[0]
    assert taken == (count + 1) // EVERY


def test_a_second_store_never_serves_standings_from_before_a_backdated_match(db, clock):
    count = 4 * EVERY
    with Store(db, clock=clock) as writer, Store(db, clock=clock) as reader:
        group = Group(writer)
        matches = season(group, count, day=3)
        group.accept(matches)

        def pages(store: Store) -> list[dict]:
            total = store.match_status(group.id).total
            return [store.rankings_page(group.id, "main", n, 1).to_wire() for n in range(1, total + 1)]

        for one, other, day in ((writer, reader, 2), (reader, writer, 1)):
            pages(other)
            pages(other)  # asked twice: `other` holds the snapshots in its cache now
            late = {**matches[day], "id": f"late{day}", "date": f"2025-10-0{day} 08:00:00"}
            assert one.add_matches(group.id, [late]).accepted_count == 1
            assert pages(other)[0]["match"]["externalId"] == late["id"]  # placed first, read so
            with Store(db, clock=clock) as fresh_eyes:
                assert pages(other) == pages(fresh_eyes)


async def test_matches_sent_over_http_in_reverse_read_back_in_played_order(api, store):
    players = [await api.player(n) for n in NAMES[:3]]
    game = await api.game("Catan")
    sent = [
        {
            "id": f"h{i}",
            "game": game,
            "weight": "normal",
            "date": f"2025-11-0{i + 1} 20:00:00",
            "factions": [
                {"players": [players[i % 3]], "rank": 1},
                {"players": [players[(i + 1) % 3]], "rank": 2},
            ],
        }
        for i in range(4)
    ]
    for match in reversed(sent):
        assert (await api.add(match))["acceptedCount"] == 1
    listed = (await api.ok("matches"))["data"]
    assert [(m["number"], m["externalId"]) for m in listed] == [(4, "h3"), (3, "h2"), (2, "h1"), (1, "h0")]
    # A client notices: the match at number 1 had another id before the backdated ones arrived.
    assert [m["id"] for m in listed] == ["1", "2", "3", "4"]
    first = await api.ok("rankings/1")
    assert first["match"]["externalId"] == "h0"
    standings = [await api.ok(f"rankings/{n}") for n in range(1, 5)]
    again = Group(store, "In order")
    again.accept(
        [
            {**m, "game": again.games[0], "factions": _renamed(m["factions"], players, again.players)}
            for m in sent
        ]
    )
    in_order = [again.store.rankings_page(again.id, None, n, 1).to_wire() for n in range(1, 5)]
    assert [
        [(r["player"]["displayName"], r["ree"], r["position"]) for r in s["data"]] for s in standings
    ] == [[(r["player"]["displayName"], r["ree"], r["position"]) for r in s["data"]] for s in in_order]


def _renamed(factions: list[dict], old: list[str], new: list[str]) -> list[dict]:
    swap = dict(zip(old, new, strict=False))
    return [{**f, "players": [swap[p] for p in f["players"]]} for f in factions]


@st.composite
def small_groups(draw: st.DrawFn) -> tuple[list[tuple], list[int], list[int]]:
    """(matches as (day, game, sides), the order they are sent in, batch sizes)."""
    count = draw(st.integers(1, 9))
    days = draw(st.lists(st.integers(1, 60), min_size=count, max_size=count, unique=True))
    matches = []
    for day in days:
        who = draw(st.permutations(range(len(NAMES))))[: draw(st.integers(2, 4))]
        ranks = [draw(st.integers(1, len(who))) for _ in who]
        bot = draw(st.booleans())  # last, never tied
        matches.append((day, draw(st.integers(0, 1)), list(zip(who, ranks, strict=True)), bot))
    order = draw(st.permutations(range(count)))
    batches = draw(st.lists(st.integers(1, 4), min_size=count, max_size=count))
    return matches, list(order), batches


@pytest.mark.slow
@settings(
    max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(drawn=small_groups())
def test_any_order_and_batches_end_as_the_date_order(store, drawn):
    matches, order, batches = drawn

    def bodies(group: Group) -> list[dict]:
        out = []
        for i, (day, game, sides, bot) in enumerate(matches):
            factions: list[dict] = [{"players": [group.players[p]], "rank": r} for p, r in sides]
            if bot:
                factions.append({"bot": True, "rank": len(sides) + 1})
            out.append(
                {
                    "id": f"p{i}",
                    "game": group.games[game],
                    "weight": "normal",
                    "date": f"2025-{1 + day // 28:02d}-{1 + day % 28:02d} 20:00:00",
                    "factions": factions,
                }
            )
        return out

    expected = Group(store, "Date order")
    sent = bodies(expected)
    expected.accept(sorted(sent, key=lambda m: m["date"]))
    group = Group(store, "Any order")
    sent = bodies(group)
    pending = [sent[i] for i in order]
    for size in batches:
        if pending:
            group.accept(pending[:size], size)
            pending = pending[size:]
    assert group.everything() == expected.everything()
