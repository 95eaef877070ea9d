"""RankingClient against wire-shaped answers: auth, renewal, retries, pages, batches, cache, bad answers."""

from __future__ import annotations

import json
import stat
import time

import httpx
import pytest

from rankterm.client.auth import TokenCache
from rankterm.client.client import RankingClient
from rankterm.mirror import Group
from rankterm.wire import errors as er
from rankterm.wire.models import NewFaction, NewMatch
from tests.fake_service import BASE, fail, make_token, ok


async def test_auth_then_bearer(group, fake):
    group = Group.of(group)  # a client: read through its group
    players = await group.players_page(1)
    assert players.page == 1 and len(players.data) == 25
    auth, call = fake.requests
    assert auth.url.path.endswith("/auth") and dict(auth.url.params) == {"key": "key1", "secret": "s3cret"}
    assert "authorization" not in auth.headers
    assert (
        call.headers["authorization"].startswith("Bearer ") and call.headers["accept"] == "application/json"
    )
    await group.players_page(2)
    assert fake.count("auth") == 1


async def test_token_cached_on_disk_private_and_reused(group, fake, tmp_path):
    group = Group.of(group)  # a client: read through its group
    await group.games()
    path = tmp_path / "tokens.toml"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert "s3cret" not in path.read_text()
    http = httpx.AsyncClient(transport=httpx.MockTransport(fake))
    again = RankingClient(BASE, key="key1", secret="s3cret", http=http, token_cache=TokenCache(path))
    await Group(again).games()
    assert fake.count("auth") == 1
    other = RankingClient(BASE, key="key2", secret="x", http=http, token_cache=TokenCache(path))
    await Group(other).games()
    elsewhere = RankingClient(
        "http://svc.test/api/2/", key="key1", secret="s3cret", http=http, token_cache=TokenCache(path)
    )
    with pytest.raises(er.NotFound):
        await Group(elsewhere).games()  # its own auth call went to /api/2/: never reused the /api/1/ token
    assert fake.count("auth") == 2
    await http.aclose()


async def test_renews_a_token_about_to_expire(group, fake):
    group = Group.of(group)  # a client: read through its group
    fake.token_ttl = 30  # under the 60 s margin: every use needs a new one
    await group.games(refresh=True)
    await group.games(refresh=True)
    assert fake.count("auth") == 2


async def test_renews_once_on_a002_then_gives_up(group, fake):
    fake.routes["GET quota"] = lambda r: fail(403, "A002", "token expired")
    with pytest.raises(er.AuthError) as info:
        await group.client.quota()
    assert info.value.code == "A002"
    assert fake.count("auth") == 2 and fake.count("quota") == 2


async def test_a002_then_success(group, fake):
    answers = iter([fail(403, "A002"), ok({"callsPerYear": "3%"})])
    fake.routes["GET quota"] = lambda r: next(answers)
    quota = await group.client.quota()
    assert quota.usage()["callsPerYear"] == 3.0 and fake.count("auth") == 2


async def test_bad_credentials_no_retry(group, fake):
    fake.routes["GET auth"] = lambda r: fail(401, "A001", "invalid credentials")
    with pytest.raises(er.AuthError) as info:
        await group.client.status()
    assert not info.value.token_problem and fake.count("auth") == 1 and fake.count("status") == 0


async def test_get_retries_5xx_then_succeeds(group, fake):
    answers = iter([httpx.Response(502, text="bad gateway"), fail(500, "R001"), ok({"status": "ok"})])
    fake.routes["GET status"] = lambda r: next(answers)
    status = await group.client.status()
    assert dict(status.items())["status"] == "ok" and fake.count("status") == 3


async def test_get_retries_are_bounded(group, fake):
    def reset(request):
        raise httpx.ConnectError("Connection refused", request=request)

    fake.routes["GET status"] = reset
    with pytest.raises(er.Offline) as info:
        await group.client.status()
    assert "Connection refused" in str(info.value)
    assert fake.count("status") == 3  # 1 + retries(2)


async def test_post_never_retried(group, fake):
    group = Group.of(group)  # a client: read through its group
    fake.routes["POST players/player"] = lambda r: fail(500, "R001")
    with pytest.raises(er.ServiceError):
        await group.create_player("Zed")
    assert fake.count("players/player") == 1


async def test_all_pages_concurrent_bounded_and_ordered(fake, group):
    group = Group.of(group)  # a client: read through its group
    fake.players_total = 25 * 20 + 3
    fake.latency = 0.01
    group.client.concurrency = group.client.max_concurrency = (
        4  # a fixed window (the adaptive one: test_paging*.py)
    )
    players = await group.players()
    assert [p.id for p in players] == [f"p{i:010d}" for i in range(503)]
    assert fake.max_in_flight == 4
    assert fake.count("players/1") == 1 and fake.count("players/21") == 1


async def test_players_held_for_a_while_a_created_player_in_the_mirror_at_once(group, fake):
    group = Group.of(group)  # a client: read through its group
    fake.routes["POST players/player"] = lambda r: ok(
        [{"id": "n" * 11, "ghost": 1, "username": "", "displayName": "*" + r.url.params["name"], "icon": ""}]
    )
    now = [1000.0]
    group.client.clock = group.mirror.file.clock = lambda: now[0]
    await group.players()
    await group.players()
    assert fake.count("players/1") == 1
    created = await group.create_player("Zed")
    assert created.display_name == "*Zed" and created.ghost
    assert [p.id for p in group.cached_players()][-1] == "n" * 11  # from the answer, at once
    await group.players()
    assert fake.count("players/1") == 2  # then asked again, for the service's order
    await group.players()
    assert fake.count("players/1") == 2
    now[0] += group.fresh_for + 1
    await group.players()
    assert fake.count("players/1") == 3  # older than fresh_for: asked again (a ghost made elsewhere shows)
    group.invalidate("players")
    await group.players()
    assert fake.count("players/1") == 4


def _match(i: int) -> NewMatch:
    return NewMatch(
        game=1,
        weight="normal",
        external_id=f"e{i}",
        factions=[NewFaction(players=["a"], rank=1), NewFaction(players=["b"], rank=2)],
    )


async def test_matches_sent_in_batches_of_ten(group, fake):
    answer = await group.add_matches([_match(i) for i in range(23)])
    posts = [r for r in fake.requests if r.method == "POST"]
    assert [len(json.loads(r.content)) for r in posts] == [10, 10, 3]
    assert answer.total == 23 and answer.accepted_count == 23
    assert [o.index for o in answer.accepted] == list(range(23))
    assert json.loads(posts[0].content)[0] == _match(0).to_wire()


async def test_dry_run_flag(group, fake):
    await group.add_matches(_match(1), dry_run=True)
    post = next(r for r in fake.requests if r.method == "POST")
    assert post.url.params["dryrun"] == "1"


async def test_whole_request_rejected(group, fake):
    fake.routes["POST matches/match"] = lambda r: httpx.Response(
        202, json={"errors": [{"code": "M002", "message": "schema"}]}
    )
    with pytest.raises(er.MatchRejected) as info:
        await group.add_matches(_match(1))
    assert info.value.code == "M002"


async def test_partial_answer_kept_when_network_drops_mid_batch(group, fake):
    calls = {"n": 0}

    def flaky(request):
        calls["n"] += 1
        if calls["n"] == 2:
            raise httpx.ReadError("connection reset", request=request)
        body = json.loads(request.content)
        return ok({"total": len(body), "accepted": [{"index": i, "id": m["id"]} for i, m in enumerate(body)]})

    fake.routes["POST matches/match"] = flaky
    with pytest.raises(er.Offline) as info:
        await group.add_matches([_match(i) for i in range(15)])
    assert info.value.partial.accepted_count == 10
    assert calls["n"] == 2


@pytest.mark.parametrize(
    ("payload", "expected"), [({"exists": True}, True), (0, False), (True, True), ("1", True)]
)
async def test_match_exists_shapes(group, fake, payload, expected):
    fake.routes["GET matches/match/exists"] = lambda r: ok(payload)
    assert await group.client.match_exists("ext-9") is expected
    assert fake.requests[-1].url.params["id"] == "ext-9"


@pytest.mark.parametrize(
    ("code", "status", "cls"),
    [
        ("R001", 500, er.ServiceError),
        ("R002", 404, er.NotFound),
        ("R003", 400, er.BadRequest),
        ("Q001", 429, er.QuotaError),
        ("Q003", 429, er.QuotaError),
        ("M001", 400, er.MatchRejected),
    ],
)
async def test_every_code_becomes_its_exception(group, fake, code, status, cls):
    group = Group.of(group)  # a client: read through its group
    group.client.retries = 0
    fake.routes["GET subset"] = lambda r: fail(status, code)
    with pytest.raises(cls) as info:
        await group.subsets()
    assert info.value.code == code and info.value.endpoint == "subsets"


@pytest.mark.parametrize(
    ("response", "needle"),
    [
        (httpx.Response(200, text="<html><body>Bad Gateway</body></html>"), "not JSON"),
        (httpx.Response(200, json={"data": []}), "no envelope"),
        (httpx.Response(200, json={"success": [{"name": "no id"}]}), "'0.id'"),
        (httpx.Response(200, json={"success": {"not": "a list"}}), "not understood"),
    ],
)
async def test_unexpected_answers_name_the_endpoint(group, fake, response, needle):
    group = Group.of(group)  # a client: read through its group
    fake.routes["GET games"] = lambda r: response
    with pytest.raises(er.UnexpectedResponse) as info:
        await group.games()
    assert needle in str(info.value) and str(info.value).startswith("games:")


async def test_html_error_page_on_5xx_is_a_service_error(group, fake):
    group = Group.of(group)  # a client: read through its group
    group.client.retries = 0
    fake.routes["GET games"] = lambda r: httpx.Response(503, text="<html>down</html>")
    with pytest.raises(er.ServiceError) as info:
        await group.games()
    assert "HTTP 503" in str(info.value)


async def test_lenient_reads(group, fake):
    group = Group.of(group)  # a client: read through its group
    fake.routes["GET rankings/g1/7/2"] = lambda r: ok(
        {
            "page": "2",
            "totalPages": "2",
            "rowsForPage": "25",
            "totalMatches": "30",
            "subset": None,
            "match": None,
            "data": [
                {
                    "player": {"id": "a", "ghost": "1", "displayName": "*A", "surprise": 1},
                    "ree": "2001.5",
                    "deltaRee": None,
                    "position": "26",
                    "deltaPosition": "-2",
                    "belt": "green",
                }
            ],
        }
    )
    page = await group.rankings_page(2, subset="g1", match=7)
    row = page.data[0]
    assert page.page == 2 and page.subset is None and row.player.ghost and row.ree == 2001.5
    assert row.delta_ree is None and row.delta_position == -2


async def test_secret_not_in_repr_or_errors(group, fake):
    group = Group.of(group)  # a client: read through its group
    fake.routes["GET auth"] = lambda r: fail(401, "A001", "invalid credentials")
    with pytest.raises(er.AuthError) as info:
        await group.games()
    assert "s3cret" not in str(info.value) and "s3cret" not in repr(group)


async def test_expired_cached_token_not_used(fake, tmp_path):
    cache = TokenCache(tmp_path / "t.toml")
    from rankterm.client.auth import Token

    cache.save(BASE, "key1", Token.parse(make_token(ttl=-10, now=time.time())))
    http = httpx.AsyncClient(transport=httpx.MockTransport(fake))
    c = RankingClient(BASE, key="key1", secret="s", http=http, token_cache=cache)
    await Group(c).games()
    assert fake.count("auth") == 1
    await http.aclose()
