"""Contract on a lived-in group: the demo (`seed_demo` into the file store), read through `RankingClient`,
and the whole service restarted on the same file (new `Store`, new server, new port for the socket).

Each test runs over both transports and on both engines, SQLite and PostgreSQL (see conftest).
"""

from __future__ import annotations

import pytest

from rankterm.client.auth import TokenCache
from rankterm.mirror import Group
from rankterm.wire.models import NewFaction, NewMatch, Weight

from .conftest import check_deltas, check_standings, participants

pytestmark = pytest.mark.both_engines

DEMO_MATCHES = 300
DEMO_PLAYERS = 10


async def test_demo_lists_every_page_of_every_subset(demo_client):
    group = Group.of(demo_client)
    players = await group.players()
    first = await group.players_page()
    assert len(players) == first.total_players == DEMO_PLAYERS and first.total_pages == 1
    assert len({p.id for p in players}) == DEMO_PLAYERS

    page = await group.matches_page(1)
    assert (page.total_pages, page.total_matches, len(page.data)) == (12, DEMO_MATCHES, 25)
    matches = await group.all_matches()
    assert [m.number for m in matches] == list(range(DEMO_MATCHES, 0, -1))
    assert matches[0].external_id == "demo-0300" and matches[-1].external_id == "demo-0001"
    known = {p.id for p in players}
    assert all(p.id in known for m in matches for f in m.factions for p in f.players)
    bot_matches = [m for m in matches if any(f.bot for f in m.factions)]
    assert bot_matches and all(m.type in ("player_vs_bot", "faction_vs_bot") for m in bot_matches)
    assert all(not f.players for m in bot_matches for f in m.factions if f.bot)

    subsets = await group.subsets()
    main, games = subsets[0], subsets[1:]
    assert main.id == "main" and main.is_main and main.count_matches == DEMO_MATCHES
    assert main.last_match == matches[0] and main.first_match == matches[-1]
    assert len(games) == 8 and sum(s.count_matches for s in games) == DEMO_MATCHES
    by_number = {m.number: m for m in matches}
    for subset in games:
        listed = await group.all_matches(subset=subset.id)
        numbers = [m.number for m in listed]
        assert len(listed) == subset.count_matches and numbers == sorted(numbers, reverse=True)
        assert all(m.game.id == subset.game.id == by_number[m.number].game.id for m in listed)
        # whole matches, as the subset's own pages of matches list them (rankade-py builds a Match of each)
        assert subset.last_match == listed[0] and subset.first_match == listed[-1]

    assert {g.id for g in await group.games()} == {s.game.id for s in games}
    most = max(games, key=lambda s: s.count_matches)
    assert (await group.client.popular_games())[0].id == most.game.id
    assert await group.client.match_exists("demo-0001") and not await group.client.match_exists("demo-0301")
    assert (await group.client.match_status()).total == DEMO_MATCHES
    assert dict((await group.client.status()).items())["processed"] == DEMO_MATCHES


async def test_demo_rankings_after_match_n_step_by_step(demo_client):
    group = Group.of(demo_client)
    known = {p.id for p in await group.players()}
    for n in (2, 151, DEMO_MATCHES):
        before = await group.rankings_page(match=n - 1)
        after = await group.rankings_page(match=n)
        assert before.match.number == n - 1 and after.match.number == n
        assert after.total_pages == 1
        check_deltas(before.data, after.data, participants(after))
        assert {r.player.id for r in after.data} <= known  # bots are rated, never listed
    last = await group.rankings_page()
    assert last.match.number == DEMO_MATCHES
    assert [(r.player.id, r.ree, r.position) for r in last.data] == [
        (r.player.id, r.ree, r.position) for r in after.data
    ]
    assert len(last.data) == DEMO_PLAYERS

    for subset in (await group.subsets())[1:]:
        numbers = sorted(m.number for m in await group.all_matches(subset=subset.id))
        k = len(numbers)
        for i in sorted({1, k // 2, k - 1}):  # pairs of consecutive matches of the subset
            before = await group.rankings_page(match=numbers[i - 1], subset=subset.id)
            after = await group.rankings_page(match=numbers[i], subset=subset.id)
            assert after.match.number == numbers[i]
            assert after.match.game.id == subset.game.id and after.subset == subset
            check_deltas(before.data, after.data, participants(after))
        # a group-wide match number that is not in the subset gives the subset's latest before it
        gap = next((n for n in range(numbers[0], numbers[-1]) if n not in numbers), None)
        if gap is not None:
            page = await group.rankings_page(match=gap, subset=subset.id)
            assert page.match.number == max(n for n in numbers if n < gap)
        check_standings(await group.all_rankings(subset=subset.id))


async def test_the_service_restarts_on_its_file_with_data_intact_and_old_tokens_valid(
    service, demo, demo_client, tmp_path
):
    group = Group.of(demo_client)
    newcomer = await group.create_player("Late Larry")
    players = await group.players()
    game = (await group.games())[0]
    answer = await group.add_matches(
        NewMatch(
            game=game.id,
            weight=Weight.MASSIVE,
            external_id="after-season-1",
            factions=[
                NewFaction(players=[newcomer.id], rank=1, points="99"),
                NewFaction(players=[players[0].id], rank=2, points="1"),
            ],
        )
    )
    assert answer.accepted_count == 1
    snapshot = {
        "players": [p.to_wire() for p in await group.players(refresh=True)],
        "matches": [m.to_wire() for m in await group.all_matches()],
        "rankings": [r.to_wire() for r in await group.all_rankings()],
        "rankings at 150": [r.to_wire() for r in await group.all_rankings(match=150)],
        "subsets": [s.to_wire() for s in await group.subsets(refresh=True)],
        "games": [g.to_wire() for g in await group.games(refresh=True)],
    }
    assert len(snapshot["matches"]) == DEMO_MATCHES + 1
    token = await group.client.authenticate()
    old_store, signing_key = service.store, service.store.signing_key

    await service.close_clients()
    new_store = service.restart()
    assert new_store is not old_store and new_store.path == old_store.path
    assert new_store.signing_key == signing_key
    cache = TokenCache(tmp_path / "tokens.toml")
    cache.save(service.base_url, demo.key, token)
    again = Group(service.client(demo.key, demo.secret, token_cache=cache))
    if service.transport == "socket":
        assert (
            again.client.base_url.startswith("http://127.0.0.1:")
            and again.client.base_url != "http://127.0.0.1:0/"
        )

    assert [p.to_wire() for p in await again.players()] == snapshot["players"]
    assert [m.to_wire() for m in await again.all_matches()] == snapshot["matches"]
    assert [r.to_wire() for r in await again.all_rankings()] == snapshot["rankings"]
    assert [r.to_wire() for r in await again.all_rankings(match=150)] == snapshot["rankings at 150"]
    assert [s.to_wire() for s in await again.subsets()] == snapshot["subsets"]
    assert [g.to_wire() for g in await again.games()] == snapshot["games"]
    assert await again.client.match_exists("after-season-1")
    rec = again.client.recorder
    assert "auth" not in rec.paths  # the token from before the restart is still good
    assert {e.authorization for e in rec.exchanges} == {f"Bearer {token.value}"}
    assert all(e.status == 200 for e in rec.exchanges)

    more = await again.add_matches(
        NewMatch(
            game=game.id,
            weight=Weight.NORMAL,
            external_id="after-restart-1",
            factions=[
                NewFaction(players=[players[1].id], rank=1),
                NewFaction(players=[newcomer.id], rank=2),
            ],
        )
    )
    assert more.accepted_count == 1
    latest = (await again.matches_page(1)).data[0]
    assert latest.number == DEMO_MATCHES + 2 and latest.external_id == "after-restart-1"
    assert (await again.client.match_status()).total == DEMO_MATCHES + 2
