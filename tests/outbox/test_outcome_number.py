"""The number of a match sent through the outbox, on the embedded service: the send's answer names the match
(`id`) but does not number it (WIRE.md), so the outcome carries its id and no number; `effect.number_for` is
the one place that finds the number (the matches list), and asks nothing when the outcome has one."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from rankterm.client.client import RankingClient
from rankterm.mirror import Group
from rankterm.outbox.outbox import Outbox, OutboxSender
from rankterm.outbox.outcome import Outcome, OutcomeState
from rankterm.server.seed import demo_app
from rankterm.stats.effect import EffectUnknown, number_for, outcome_effect
from rankterm.wire.models import NewFaction, NewMatch
from tests.support.transports import CountingTransport

BASE = "http://in-process.rankterm/"
NOW = 1_780_000_000.0


@pytest.fixture
async def seat():
    """A client on a fresh demo group (300 matches), its requests counted."""
    app, key, secret = demo_app(clock=lambda: NOW)
    counting = CountingTransport(httpx.ASGITransport(app=app))
    http = httpx.AsyncClient(transport=counting, base_url=BASE)
    group = Group(
        RankingClient(BASE, key=key, secret=secret, http=http, clock=lambda: NOW, retries=0, backoff=0)
    )
    yield group, counting
    await group.client.aclose()


async def test_an_accepted_send_gives_the_id_and_the_number_is_found_once(seat, tmp_path: Path):
    group, counting = seat
    players = {p.display_name: p.id for p in await group.players()}
    catan = next(g for g in await group.games() if g.name == "Catan")
    before = await group.matches_page(1)
    box = Outbox(tmp_path / "outbox.db", scope=group.client.scope)
    sent = [
        NewMatch(
            game=catan.id,
            weight="normal",
            external_id=f"num-{i}",
            factions=[
                NewFaction(players=[players["Ada"]], rank=1),
                NewFaction(players=[players["Ben"]], rank=2),
            ],
        )
        for i in range(2)
    ]
    box.add_many(sent)
    report = await OutboxSender(box, group).send_pending()
    outcomes = [report.outcomes["num-0"], report.outcomes["num-1"]]
    assert all(o.state is OutcomeState.ACCEPTED and o.match_id for o in outcomes)
    assert all(o.number is None for o in outcomes)  # the answer does not number the match
    assert [box.get(f"num-{i}").outcome().match_id for i in range(2)] == [o.match_id for o in outcomes]

    numbers = [await number_for(group, o) for o in outcomes]
    assert numbers == [before.total_matches + 1, before.total_matches + 2]
    listed = {m.external_id: m.number for m in (await group.matches_page(1)).data}
    assert [listed["num-0"], listed["num-1"]] == numbers

    asked = len(counting.paths)
    numbered = Outcome(0, OutcomeState.ACCEPTED, "num-1", match_id=outcomes[1].match_id, number=numbers[1])
    assert await number_for(group, numbered) == numbers[1]
    assert len(counting.paths) == asked  # an outcome that carries its number costs no request

    effect = await outcome_effect(group, numbered)
    assert effect.number == numbers[1] and {p.name for p in effect.players} == {"Ada", "Ben"}


async def test_a_match_the_service_does_not_list_has_no_number_and_no_effect(seat):
    group, _ = seat
    unknown = Outcome(0, OutcomeState.ACCEPTED, "never-sent", match_id="never-sent")
    assert await number_for(group, unknown) is None
    with pytest.raises(EffectUnknown):
        await outcome_effect(group, unknown)
