"""The table's model (rankterm/stats/model.py) against the embedded service: the same ree for every player
after every match of the demo, and after a match played before the others arrives."""

from __future__ import annotations

import httpx
import pytest

from rankterm.client.client import RankingClient
from rankterm.mirror import Group
from rankterm.server.seed import demo_app
from rankterm.stats import model as model_module
from rankterm.stats import source
from rankterm.stats.model import TableModel
from rankterm.wire.models import NewFaction, NewMatch

BASE = "http://in-process.rankterm/"
NOW = 1_780_000_000.0


@pytest.fixture
async def demo():
    app, key, secret = demo_app(clock=lambda: NOW)
    http = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE)
    group = Group(
        RankingClient(BASE, key=key, secret=secret, http=http, clock=lambda: NOW, retries=0, backoff=0)
    )
    yield group
    await group.client.aclose()


async def standings_after(group: RankingClient | Group, number: int) -> dict[str, float]:
    group = Group.of(group)  # a client: read through its group
    rows = await group.all_rankings(match=number)
    return {row.player.id: float(row.ree) for row in rows if not row.player.id.startswith("bot")}


def model_ree(model: TableModel, ids: list[str]) -> dict[str, float]:
    return {pid: model.ree(pid) for pid in ids}


async def test_the_model_gives_every_player_the_services_ree_after_every_match(demo: RankingClient) -> None:
    matches = await source.group_matches(demo)
    assert len(matches) >= 300
    model = TableModel()
    for end in range(1, len(matches) + 1):
        model.follow(matches[:end])
        if end % 7 and end != len(matches):  # every seventh match and the last, to keep it quick
            continue
        service = await standings_after(demo, matches[end - 1].number)
        assert model_ree(model, list(service)) == service, f"after match {matches[end - 1].number}"
    assert model.rated == 1


async def test_a_match_played_before_the_others_is_replayed_from_the_checkpoint_before_it(
    demo: RankingClient | Group, monkeypatch: pytest.MonkeyPatch
) -> None:
    demo = Group.of(demo)  # a client: read through its group
    monkeypatch.setattr(model_module, "CHECKPOINT_EVERY", 50)
    model = TableModel()
    before = await source.group_matches(demo)
    model.follow(before)
    players = await demo.players()
    match = NewMatch(
        game=before[0].game.id,  # type: ignore[union-attr]
        weight="heavy",
        date=before[120].date,  # numbered 121 once it is in: the checkpoint after 100 matches is before it
        external_id="table-model-backdated",
        factions=[NewFaction(rank=1, players=[players[0].id]), NewFaction(rank=2, players=[players[1].id])],
    )
    answer = await demo.add_matches(match)
    assert answer.accepted_count == 1
    matches = await source.group_matches(demo, max_age=0)
    assert len(matches) == len(before) + 1
    model.follow(matches)
    assert model.rated == len(matches) - 100
    service = await standings_after(demo, matches[-1].number)
    assert model_ree(model, list(service)) == service
    model.follow(matches)
    assert model.rated == 0


async def test_the_model_kept_in_the_mirror_starts_warm_and_follows_what_arrives(
    demo: RankingClient | Group, monkeypatch: pytest.MonkeyPatch
) -> None:
    demo = Group.of(demo)  # a client: read through its group
    from rankterm.stats import held_model as kept

    await source.sync_group(demo, max_age=0)
    first = kept.held_model(demo)
    replayed = TableModel()
    replayed.follow(await source.group_matches(demo))
    ids = [p.id for p in await demo.players()]
    assert [first.ree(i) for i in ids] == [replayed.ree(i) for i in ids]

    def no_replay(group: RankingClient) -> list:
        raise AssertionError("the whole history was parsed again")

    monkeypatch.setattr(kept, "held_in_parts", no_replay)
    again = kept.held_model(demo)  # as a new process would: from the mirror's note
    assert again is not first and [again.ree(i) for i in ids] == [first.ree(i) for i in ids]

    before = await source.group_matches(demo)
    appended = NewMatch(
        game=before[-1].game.id,  # type: ignore[union-attr]
        weight="normal",
        external_id="table-model-appended",
        factions=[NewFaction(rank=1, players=[ids[2]]), NewFaction(rank=2, players=[ids[3]])],
    )
    assert (await demo.add_matches(appended)).accepted_count == 1
    await source.sync_group(demo, max_age=0)
    followed = kept.held_model(demo)  # one match rated on top, nothing parsed again
    assert followed.followed == len(before) + 1
    service = await standings_after(demo, len(before) + 1)
    assert model_ree(followed, list(service)) == service

    monkeypatch.undo()
    backdated = appended.model_copy(update={"external_id": "table-model-early", "date": before[10].date})
    assert (await demo.add_matches(backdated)).accepted_count == 1
    await source.sync_group(demo, max_age=0)
    moved = kept.held_model(demo)  # the history moved: replayed
    service = await standings_after(demo, len(before) + 2)
    assert model_ree(moved, list(service)) == service
