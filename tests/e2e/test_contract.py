"""Contract of the embedded service as rankterm sees it: every `RankingClient` method against the real app.

Each test runs twice (see conftest): in-process over ASGI, and over a real socket to uvicorn. Nothing here
speaks raw HTTP; the wire is only looked at through the client's `Recorder` (what it sent, in order).
"""

from __future__ import annotations

import base64
import json
import re
from dataclasses import replace

import jwt
import pytest

import rankterm
from rankterm.client.auth import Token, TokenCache
from rankterm.mirror import Group
from rankterm.server.quota import QuotaLimits
from rankterm.wire.errors import (
    AuthError,
    BadRequest,
    MatchRejected,
    NotFound,
    QuotaError,
    ServiceError,
)
from rankterm.wire.models import (
    NAME_VERSUS,
    NewFaction,
    NewMatch,
    Player,
    Weight,
)
from tests.support.clock import T0

from .conftest import Clock, check_deltas, check_standings, duel, ghosts, participants

pytestmark = pytest.mark.both_engines

ID_RE = re.compile(r"[A-Za-z0-9]{11}")


# ---------------------------------------------------------------------- auth


async def test_token_is_fetched_once_and_reused(group, member):
    await group.games()
    await group.subsets()
    await group.players_page()
    await group.client.quota()
    await group.client.status()
    await group.client.match_status()
    rec = group.client.recorder
    assert rec.paths == ["auth", "games", "subset", "players/1", "quota", "status", "matches/status"]
    auth = rec.exchanges[0]
    assert auth.query == {"key": member.key, "secret": member.secret}
    assert auth.authorization is None
    sent = {e.authorization for e in rec.exchanges[1:]}
    assert len(sent) == 1 and sent.pop() == f"Bearer {(await group.client.authenticate()).value}"
    assert all(e.status == 200 for e in rec.exchanges)
    assert group.client.calls == 7


async def test_the_test_endpoint_needs_no_token(group):
    assert await group.client.test() == {"test": "ok"}
    assert group.client.recorder.paths == ["test"]


async def test_token_is_renewed_before_it_expires(service, member, clock):
    service.serve(token_ttl=61)
    group = Group(service.client(member.key, member.secret))
    first = await group.client.authenticate()
    assert first.expires_at == T0 + 61
    await group.client.match_status()
    clock.advance(2)  # 59 s left: inside the client's renewal margin, still valid for the service
    await group.client.match_status()
    second = await group.client.authenticate()
    assert second.value != first.value and second.expires_at == T0 + 2 + 61
    rec = group.client.recorder
    assert rec.paths == ["auth", "matches/status", "auth", "matches/status"]
    assert [e.status for e in rec.exchanges] == [200] * 4  # renewed ahead, never refused
    assert rec.exchanges[1].authorization == f"Bearer {first.value}"
    assert rec.exchanges[3].authorization == f"Bearer {second.value}"


async def test_a_token_the_service_finds_expired_is_a002_then_renewed_once(service, member, clock):
    group = Group(service.client(member.key, member.secret, clock=Clock()))  # the client's clock stands still
    await group.client.match_status()
    clock.advance(3601)  # the service's clock: the token expired an instant ago
    assert (await group.client.match_status()).total == 0
    rec = group.client.recorder
    assert rec.paths == ["auth", "matches/status", "matches/status", "auth", "matches/status"]
    assert [e.status for e in rec.exchanges] == [200, 200, 403, 200, 200]
    assert rec.exchanges[2].authorization == rec.exchanges[1].authorization
    assert rec.exchanges[4].authorization != rec.exchanges[1].authorization


@pytest.mark.parametrize("case", ["wrong secret", "unknown key", "disabled client"])
async def test_refused_credentials_are_auth_error_a001(service, member, case):
    key, secret = member.key, member.secret
    if case == "wrong secret":
        secret += "x"
    elif case == "unknown key":
        key = "no-such-key"
    else:
        service.store.set_client_disabled(key)
    group = Group(service.client(key, secret))
    with pytest.raises(AuthError) as info:
        await group.games()
    assert info.value.code == "A001" and info.value.status == 401
    assert not info.value.token_problem
    assert group.client.recorder.paths == ["auth"]  # no retry with the same credentials


def _forged(service, member, kind: str) -> str:
    client_id = service.store.authenticate(member.key, member.secret).id
    claims = {
        "sub": str(client_id),
        "grp": member.group_id,
        "key": member.key,
        "iat": int(T0),
        "exp": int(T0) + 3600,
    }
    if kind == "foreign key":
        return jwt.encode(claims, b"k" * 32, algorithm="HS256")
    if kind == "alg none":

        def part(data: dict) -> str:
            return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()

        return f"{part({'alg': 'none', 'typ': 'JWT'})}.{part(claims)}."
    # "tampered": a genuine signature over claims for another group
    genuine = jwt.encode(claims, service.store.signing_key, algorithm="HS256")
    head, _, sig = genuine.split(".")
    other = jwt.encode({**claims, "grp": member.group_id + 1}, b"x" * 32, algorithm="HS256").split(".")[1]
    return f"{head}.{other}.{sig}"


@pytest.mark.parametrize("kind", ["foreign key", "alg none", "tampered"])
async def test_a_forged_cached_token_is_a002_and_replaced(service, member, tmp_path, kind):
    forged = _forged(service, member, kind)
    cache = TokenCache(tmp_path / "tokens.toml")
    cache.save(service.base_url, member.key, Token.parse(forged))
    group = Group(service.client(member.key, member.secret, token_cache=cache))
    assert await group.games() == []
    rec = group.client.recorder
    assert rec.paths == ["games", "auth", "games"]
    assert [e.status for e in rec.exchanges] == [403, 200, 200]
    assert rec.exchanges[0].authorization == f"Bearer {forged}"
    renewed = cache.load(service.base_url, member.key)
    assert renewed is not None and renewed.value != forged
    assert rec.exchanges[2].authorization == f"Bearer {renewed.value}"


async def test_a_token_forged_on_every_request_surfaces_as_auth_error_a002(service, member):
    forged = _forged(service, member, "foreign key")
    group = Group(service.client(member.key, member.secret))

    async def forge(request):
        if "authorization" in request.headers:
            request.headers["Authorization"] = f"Bearer {forged}"

    group.client.http.event_hooks["request"].insert(0, forge)
    with pytest.raises(AuthError) as info:
        await group.games()
    assert info.value.code == "A002" and info.value.status == 403 and info.value.token_problem
    assert group.client.recorder.paths == ["auth", "games", "auth", "games"]  # one renewal, then the error


# ---------------------------------------------------------------------- games


async def test_games_search_popular_and_idempotent_creation(group):
    assert await group.games() == []
    cafe = await group.client.search_games("cafe")
    assert "Café International" in [g.name for g in cafe]
    exact = await group.client.search_games("CAFÉ international")
    assert exact[0].name == "Café International"
    assert {g.id for g in exact} <= {g.id for g in cafe}

    popular = await group.client.popular_games()
    assert 0 < len(popular) <= 20 and len({g.id for g in popular}) == len(popular)

    before = (await group.client.quota()).usage()["apiCreatedGames"]
    made = await group.create_game(name="Zombie Kittens Deluxe")
    again = await group.create_game(name="  zombie KITTENS deluxe ")
    assert again.id == made.id and again.name == "Zombie Kittens Deluxe" and made.weight == "normal"
    assert (await group.client.quota()).usage()["apiCreatedGames"] == before + 1  # counted once
    assert made.id in {g.id for g in await group.client.search_games("zombie kit")}

    catan = await group.create_game(bgg_id=13)
    assert catan.name == "Catan" and catan.bgg_id_game == 13
    assert (await group.create_game(name="CATAN")).id == catan.id
    assert (await group.client.quota()).usage()["apiCreatedGames"] == before + 1  # catalogue games are free

    # The group's games are those it played: a match makes Catan one (and the client's cache follows).
    assert await group.games() == []
    ann, bob = await ghosts(group, "Ann", "Bob")
    await group.add_matches(duel(catan, ann, bob))
    assert [g.id for g in await group.games()] == [catan.id]
    assert (await group.client.popular_games())[0].id == catan.id


# ---------------------------------------------------------------------- players


async def test_players_pages_cache_and_a_27_player_match(group):
    names = [f"Ghost {i:02d}" for i in range(27)]
    created = await ghosts(group, *names)
    for player, name in zip(created, names, strict=True):
        assert player.ghost and player.display_name == "*" + name and player.username == ""
        assert ID_RE.fullmatch(player.id)
    first, second = await group.players_page(1), await group.players_page(2)
    assert (first.page, first.total_pages, first.rows_for_page, first.total_players) == (1, 2, 25, 27)
    assert (second.page, len(first.data), len(second.data)) == (2, 25, 2)
    everyone = await group.players()
    assert [p.id for p in everyone] == [p.id for p in first.data + second.data]
    assert [p.display_name for p in everyone] == sorted("*" + n for n in names)
    assert {p.id for p in everyone} == {p.id for p in created}

    group.client.recorder.clear()
    assert await group.players() == everyone  # cached
    assert group.client.recorder.paths == []
    late = await group.create_player("Zed")
    refreshed = await group.players()
    assert group.client.recorder.paths == ["players/player", "players/1", "players/2"]
    assert len(refreshed) == 28 and refreshed[-1].id == late.id

    game = await group.create_game(name="Big Party Game")
    big = NewMatch(
        game=game.id,
        weight=Weight.NORMAL,
        factions=[NewFaction(players=[p.id], rank=i + 1) for i, p in enumerate(created)],
    )
    answer = await group.add_matches(big)
    assert answer.accepted_count == 1
    [match] = await group.all_matches()
    assert match.type == "multiplayer" and len(match.factions) == 27 and match.factions[0].winner
    page1 = await group.rankings_page()
    assert (page1.total_pages, len(page1.data)) == (2, 25)
    rows = await group.all_rankings()
    check_standings(rows)
    assert len(rows) == 27 and late.id not in {r.player.id for r in rows}
    assert rows[0].player.id == created[0].id and rows[-1].player.id == created[-1].id
    assert all(r.delta_position == 0 for r in rows)


# ---------------------------------------------------------------------- matches


async def test_23_matches_go_in_batches_of_10_with_indexes_across_the_whole(group):
    players = await ghosts(group, "Ann", "Bob", "Cy", "Dee")
    catan = await group.create_game(name="Catan")
    azul = await group.create_game(name="Azul")
    stranger = Player(id="Xx123456789")
    items = []
    for i in range(23):
        a, b = players[i % 4], players[(i + 1) % 4]
        game = catan if i % 3 else azul
        items.append(duel(game, a, b, external_id=f"night-{i:02d}", date=f"2026-05-{1 + i:02d} 20:00:00"))
    items[4] = duel(catan, players[0], stranger, external_id="night-04")  # M005
    items[13] = NewMatch(
        game=catan.id, weight=Weight.LIGHT, factions=[NewFaction(players=[players[0].id], rank=1)]
    )
    items[21] = duel(987_654, players[0], players[1], external_id="night-21")  # M004

    answer = await group.add_matches(items)
    posts = [e for e in group.client.recorder.exchanges if e.path == "matches/match"]
    assert [len(e.body) for e in posts] == [10, 10, 3]
    assert all(e.status == 200 and e.query == {} for e in posts)
    assert (answer.total, answer.accepted_count, answer.rejected_count, answer.dryrun) == (23, 20, 3, False)
    assert [o.index for o in answer.rejected] == [4, 13, 21]
    assert [[e.code for e in o.errors] for o in answer.rejected] == [["M005"], ["M007"], ["M004"]]
    assert all(e.message for o in answer.rejected for e in o.errors)
    assert "Xx123456789" in answer.rejected[0].errors[0].message
    assert [o.id for o in answer.rejected] == ["night-04", "", "night-21"]
    kept = [i for i in range(23) if i not in (4, 13, 21)]
    assert [o.index for o in answer.accepted] == kept
    assert [o.id for o in answer.accepted] == [f"night-{i:02d}" for i in kept]

    recorded = await group.all_matches()
    assert [m.number for m in recorded] == list(range(20, 0, -1))
    assert [m.external_id for m in reversed(recorded)] == [f"night-{i:02d}" for i in kept]
    first = recorded[-1]  # items[0]: Ann beats Bob at Azul on May 1st
    assert (
        first.game.id == azul.id and first.date == "2026-05-01 20:00:00" and first.type == "player_vs_player"
    )
    assert [(f.rank, f.points, f.winner, [p.id for p in f.players]) for f in first.factions] == [
        (1, 10, True, [players[0].id]),
        (2, 4, False, [players[1].id]),
    ]
    assert first.summary == "*Ann\n*Bob" and not first.draw and first.weight == "normal"

    by_subset = {s.id: s for s in await group.subsets()}
    main, g_catan, g_azul = by_subset["main"], by_subset[f"g{catan.id}"], by_subset[f"g{azul.id}"]
    assert list(by_subset) == ["main", g_azul.id, g_catan.id]  # main first, then games by name
    assert main.is_main and not g_catan.is_main and g_azul.id == f"g{azul.id}"
    azul_numbers = [m.number for m in recorded if m.game.id == azul.id]
    catan_numbers = [m.number for m in recorded if m.game.id == catan.id]
    assert (main.count_matches, g_azul.count_matches, g_catan.count_matches) == (
        20,
        len(azul_numbers),
        len(catan_numbers),
    )
    assert g_catan.game.id == catan.id and g_azul.type == "game"
    azul_listed = await group.all_matches(subset=g_azul.id)
    assert [m.number for m in azul_listed] == azul_numbers
    # a subset's first and last match: whole, as its pages of matches list them
    assert (main.first_match, main.last_match) == (recorded[-1], recorded[0])
    assert (g_azul.first_match, g_azul.last_match) == (azul_listed[-1], azul_listed[0])
    page = await group.matches_page(1, subset=g_catan.id)
    assert page.total_matches == len(catan_numbers) and [m.number for m in page.data] == catan_numbers
    assert await group.client.match_exists("night-22") and not await group.client.match_exists("night-04")
    status = await group.client.match_status()
    assert (status.total, status.processed, status.queued, status.waiting) == (20, 20, 0, 0)
    service_status = dict((await group.client.status()).items())
    assert service_status["status"] == "ok" and service_status["version"] == rankterm.__version__
    assert service_status["serverTime"] == "2026-05-28 20:26:40" and service_status["total"] == 20


async def test_each_rejection_has_its_m_code_and_the_rest_is_accepted(group):
    ann, bob, cy = await ghosts(group, "Ann", "Bob", "Cy")
    game = (await group.create_game(name="Catan")).id
    ok = duel(game, ann, bob, external_id="ok-1")
    accepted_before = await group.add_matches(duel(game, ann, cy, external_id="taken"))
    assert accepted_before.accepted_count == 1
    zero_rank = NewFaction.model_construct(players=[cy.id], rank=0, points="", name="", bot=False)
    bot = NewFaction(bot=True, rank=2, name="Automa")
    items = {
        "M002": NewMatch(
            game=game,
            weight=Weight.NORMAL,
            factions=[
                NewFaction.model_construct(players=[ann.id], rank=1, points="lots", name="", bot=False),
                NewFaction(players=[bob.id], rank=2),
            ],
        ),
        "M003": duel(game, bob, ann, external_id="taken"),
        "M004": duel(555_555, ann, bob),
        "M005": duel(game, ann, Player(id="nobody12345")),
        "M006": NewMatch(
            game=game,
            weight=Weight.NORMAL,
            factions=[NewFaction(players=[ann.id], rank=1), NewFaction(players=[ann.id, bob.id], rank=2)],
        ),
        "M007": NewMatch(game=game, weight=Weight.NORMAL, factions=[NewFaction(players=[ann.id], rank=1)]),
        "M008": NewMatch(
            game=game, weight=Weight.NORMAL, factions=[NewFaction(players=[ann.id], rank=1), zero_rank]
        ),
        "M009": NewMatch(
            game=game,
            weight=Weight.NORMAL,
            factions=[NewFaction(players=[ann.id], rank=1), bot, bot.model_copy(update={"rank": 3})],
        ),
    }
    answer = await group.add_matches([ok, *items.values()])
    assert [o.index for o in answer.accepted] == [0] and answer.accepted[0].id == "ok-1"
    codes = {o.index: [e.code for e in o.errors] for o in answer.rejected}
    assert codes == {i: [code] for i, code in enumerate(items, start=1)}
    assert all(e.message.strip() for o in answer.rejected for e in o.errors)
    assert answer.rejected[1].id == "taken"
    assert (await group.client.match_status()).total == 2


async def test_m003_for_an_external_id_already_accepted_or_earlier_in_the_batch(group):
    ann, bob = await ghosts(group, "Ann", "Bob")
    game = (await group.create_game(name="Azul")).id
    assert not await group.client.match_exists("dup-1")
    assert (await group.add_matches(duel(game, ann, bob, external_id="dup-1"))).accepted_count == 1
    assert await group.client.match_exists("dup-1")
    answer = await group.add_matches(
        [
            duel(game, ann, bob, external_id="dup-1"),
            duel(game, bob, ann, external_id="dup-2"),
            duel(game, ann, bob, external_id="dup-2"),
        ]
    )
    assert [o.index for o in answer.accepted] == [1]
    assert [(o.index, o.id, [e.code for e in o.errors]) for o in answer.rejected] == [
        (0, "dup-1", ["M003"]),
        (2, "dup-2", ["M003"]),
    ]
    assert "dup-1" in answer.rejected[0].errors[0].message
    assert await group.client.match_exists("dup-2") and not await group.client.match_exists("dup-3")
    assert [m.external_id for m in await group.all_matches()] == ["dup-2", "dup-1"]


async def test_a_dry_run_judges_but_saves_nothing(group):
    ann, bob, cy = await ghosts(group, "Ann", "Bob", "Cy")
    game = await group.create_game(name="Patchwork")
    items = [
        duel(game, ann, bob, external_id="d-1"),
        duel(game, bob, cy, external_id="d-2", name=NAME_VERSUS),
        duel(game, cy, Player(id="ghost000000"), external_id="d-3"),
    ]
    dry = await group.add_matches(items, dry_run=True)
    assert group.client.recorder.exchanges[-1].query == {"dryrun": "1"}
    assert dry.dryrun and (dry.accepted_count, dry.rejected_count) == (2, 1)
    assert [o.name for o in dry.accepted] == ["Patchwork", "*Bob vs *Cy"]
    assert [e.code for e in dry.rejected[0].errors] == ["M005"]
    assert (await group.client.match_status()).total == 0
    assert await group.all_matches() == [] and await group.games() == []
    assert not await group.client.match_exists("d-1")
    assert (await group.client.quota()).usage()["matchesPerHour"] == 0
    real = await group.add_matches(items)
    assert not real.dryrun and [o.id for o in real.accepted] == ["d-1", "d-2"]
    assert [o.name for o in real.accepted] == [o.name for o in dry.accepted]
    assert (await group.client.match_status()).total == 2


# ---------------------------------------------------------------------- rankings


async def test_rankings_after_match_n_against_the_previous_one_and_last(group):
    ann, bob, cy, dee = await ghosts(group, "Ann", "Bob", "Cy", "Dee")
    catan = await group.create_game(name="Catan")
    azul = await group.create_game(name="Azul")
    plan = [
        (catan, ann, bob),
        (catan, cy, dee),
        (azul, bob, cy),
        (catan, ann, cy),
        (azul, dee, ann),
        (catan, bob, dee),
        (azul, ann, bob),
        (catan, dee, cy),
    ]
    none_yet = await group.rankings_page()
    assert none_yet.match is None and none_yet.subset.count_matches == 0
    assert (none_yet.subset.first_match, none_yet.subset.last_match) == (None, None)
    await group.add_matches([duel(g, w, lo, weight=Weight.HEAVY) for g, w, lo in plan])

    first = await group.rankings_page(match=1)
    assert first.match.number == 1 and first.subset.id == "main"
    assert [r.player.id for r in first.data] == [ann.id, bob.id]
    assert first.data[0].delta_ree > 0 and first.data[0].delta_ree > first.data[1].delta_ree
    check_deltas([], first.data, {ann.id, bob.id})

    previous = first.data
    for n in range(2, len(plan) + 1):
        page = await group.rankings_page(match=n)
        assert page.match.number == n
        check_deltas(previous, page.data, participants(page))
        winner = next(r for r in page.data if r.player.id == plan[n - 1][1].id)
        loser = next(r for r in page.data if r.player.id == plan[n - 1][2].id)
        assert winner.delta_ree > 0 and winner.delta_ree > loser.delta_ree
        previous = page.data

    last = await group.rankings_page()
    assert last.match.number == len(plan) and last.subset.count_matches == len(plan)
    assert last.subset.last_match == last.match and last.subset.first_match == first.match
    beyond = await group.rankings_page(match=10**6)
    assert beyond.match.number == len(plan)
    step = [(r.player.id, r.ree, r.delta_ree, r.position) for r in previous]
    assert [(r.player.id, r.ree, r.delta_ree, r.position) for r in last.data] == step
    assert [(r.player.id, r.ree, r.position) for r in beyond.data] == [(p, e, o) for p, e, _, o in step]

    # The Azul subset: standings after its own latest match at or before n.
    azul_numbers = [i + 1 for i, m in enumerate(plan) if m[0] is azul]  # 3, 5, 7
    previous = []
    for n in azul_numbers:
        page = await group.rankings_page(match=n + 1, subset=f"g{azul.id}")  # n + 1 is a Catan match
        assert page.match.number == n and page.subset.id == f"g{azul.id}"
        assert page.match.game.id == azul.id
        check_deltas(previous, page.data, participants(page))
        previous = page.data
    assert {r.player.id for r in await group.all_rankings(subset=f"g{azul.id}")} == {
        ann.id,
        bob.id,
        cy.id,
        dee.id,
    }
    early = await group.rankings_page(match=2, subset=f"g{azul.id}")  # before Azul's first match
    assert early.match is None and early.data == []
    assert early.subset.first_match.number == azul_numbers[0] and early.subset.first_match.game.id == azul.id
    assert early.subset.last_match.number == azul_numbers[-1]


# ---------------------------------------------------------------------- quota


async def test_quota_percentages_move_with_each_kind_of_call(service, member):
    service.serve(
        limits=replace(
            QuotaLimits(),
            calls_per_hour=100,
            matches_per_hour=20,
            ranking_calls_per_hour=10,
            api_created_games=10,
        )
    )
    group = Group(service.client(member.key, member.secret))
    moving = ("callsPerHour", "matchesPerHour", "rankingCallsPerHour", "apiCreatedGames")

    async def usage() -> tuple:
        u = (await group.client.quota()).usage()
        return tuple(u[k] for k in moving)

    assert await usage() == (1, 0, 0, 0)  # the quota call counts itself; auth is free
    ann, bob = await ghosts(group, "Ann", "Bob")
    game = await group.create_game(name="Brand New Game")
    await group.create_game(name="Catan")  # found in the catalogue: not a creation
    assert await usage() == (6, 0, 0, 10)
    await group.add_matches([duel(game, ann, bob), duel(game, bob, ann), duel(game, ann, bob)])
    await group.rankings_page()
    await group.rankings_page(match=1)
    assert await usage() == (10, 15, 20, 10)
    assert (await group.client.quota()).usage()["callsPerYear"] == 1  # 11 of 100,000: rounded up


async def test_quota_q002_calls_per_hour_refuses_without_retry_until_the_next_hour(service, member, clock):
    service.serve(limits=replace(QuotaLimits(), calls_per_hour=3))
    group = Group(service.client(member.key, member.secret, backoff=0))
    await group.games()
    await group.subsets()
    assert (await group.client.quota()).calls_per_hour == "100%"
    with pytest.raises(QuotaError) as info:
        await group.client.status()
    assert info.value.code == "Q002" and info.value.status == 429
    assert group.client.recorder.count("status") == 1 and group.client.recorder.exchanges[-1].status == 429
    clock.advance(3600)
    assert dict((await group.client.status()).items())["status"] == "ok"


async def test_quota_q005_matches_refuses_the_batch_whole(service, member):
    service.serve(limits=replace(QuotaLimits(), matches_per_hour=5))
    group = Group(service.client(member.key, member.secret))
    ann, bob = await ghosts(group, "Ann", "Bob")
    game = await group.create_game(name="Catan")
    with pytest.raises(QuotaError) as info:
        await group.add_matches([duel(game, ann, bob) for _ in range(6)])
    assert info.value.code == "Q005" and info.value.status == 429
    assert (await group.client.match_status()).total == 0
    assert (await group.add_matches([duel(game, ann, bob) for _ in range(5)])).accepted_count == 5
    assert (await group.client.quota()).matches_per_hour == "100%"


async def test_quota_q008_ranking_calls_and_q009_created_games(service, member):
    service.serve(limits=replace(QuotaLimits(), ranking_calls_per_hour=1, api_created_games=0))
    group = Group(service.client(member.key, member.secret))
    await group.rankings_page()
    with pytest.raises(QuotaError) as info:
        await group.rankings_page()
    assert info.value.code == "Q008"
    with pytest.raises(QuotaError) as info:
        await group.create_game(name="Never Seen Before")
    assert info.value.code == "Q009" and info.value.status == 429
    assert (await group.create_game(name="Catan")).name == "Catan"  # an existing game costs nothing
    assert await group.client.search_games("never seen") == []


# ---------------------------------------------------------------------- other errors


async def test_not_found_and_bad_request_through_the_client(group):
    for call in (
        group.matches_page(1, subset="nosuch"),
        group.all_matches(subset="nosuch"),
        group.rankings_page(subset="nosuch"),
        group.all_rankings(subset="nosuch", match=3),
        group.create_game(bgg_id=99_999_999),
    ):
        with pytest.raises(NotFound) as info:
            await call
        assert info.value.code == "R002" and info.value.status == 404
    for call in (group.client.search_games("c"), group.create_player("   "), group.client.match_exists("")):
        with pytest.raises(BadRequest) as info:
            await call
        assert info.value.code == "R003" and info.value.status == 400
    assert all(e.status in (200, 400, 404) for e in group.client.recorder.exchanges)
    assert group.client.recorder.count("matches/nosuch/1") == 2  # a 4xx is never retried


async def test_a_request_refused_whole_is_match_rejected_m002(service, member):
    group = Group(service.client(member.key, member.secret, batch_size=101))
    ann, bob = await ghosts(group, "Ann", "Bob")
    game = await group.create_game(name="Catan")
    with pytest.raises(MatchRejected) as info:
        await group.add_matches([duel(game, ann, bob) for _ in range(101)])
    assert info.value.code == "M002" and info.value.status == 400
    assert info.value.partial is None
    assert (await group.client.match_status()).total == 0


async def test_a_service_failure_is_service_error_r001_gets_retried_posts_not(service, member, monkeypatch):
    group = Group(service.client(member.key, member.secret, backoff=0))

    def broken(*args, **kw):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(service.store, "match_status", broken)
    monkeypatch.setattr(service.store, "create_player", broken)
    with pytest.raises(ServiceError) as info:
        await group.client.match_status()
    assert info.value.code == "R001" and info.value.status == 500
    assert "disk on fire" not in str(info.value)  # no internals leak
    assert group.client.recorder.count("matches/status") == 3  # 1 + 2 retries
    with pytest.raises(ServiceError):
        await group.create_player("Ann")
    assert group.client.recorder.count("players/player") == 1
    monkeypatch.undo()
    assert (await group.create_player("Ann")).display_name == "*Ann"
