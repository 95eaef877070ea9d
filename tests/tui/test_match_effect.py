"""What a match did, on the form and as a toast (issue 10, part 2), driven by a pilot on the demo group
in-process: the line under an accepted match, the toast, one or two rankings calls a match, and a rankings
quota that holds the effect back without holding back the answer."""

from __future__ import annotations

import httpx

from rankterm.api.client import RankingClient
from rankterm.api.effect import match_effect
from rankterm.testing.faults import Fault, FaultyTransport
from rankterm.tui.widgets.match_form.answer import WAITING

from .conftest import DEMO_URL, frozen_clock
from .pilot import open_form, quick_fill, settle


def counted_client(demo_service, *, quota_on_rankings: int = 0) -> tuple[RankingClient, list[str]]:
    """A client on the test's demo group whose requests are listed; the first `quota_on_rankings` rankings
    calls are answered 429 (the rankings quota)."""
    paths: list[str] = []

    class Listing(httpx.AsyncBaseTransport):
        def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
            self.inner = inner

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            paths.append(request.url.path.strip("/"))
            return await self.inner.handle_async_request(request)

    faults = FaultyTransport(
        httpx.ASGITransport(app=demo_service.asgi),
        script=[Fault.QUOTA_429] * quota_on_rankings,
        applies_to=lambda r: r.url.path.strip("/").startswith("rankings"),
    )
    http = httpx.AsyncClient(transport=Listing(faults), base_url=DEMO_URL)
    client = RankingClient(
        DEMO_URL,
        key=demo_service.key,
        secret=demo_service.secret,
        http=http,
        clock=frozen_clock,
        retries=0,
        backoff=0,
    )
    return client, paths


def rankings_calls(paths: list[str]) -> int:
    return sum(1 for p in paths if p.startswith("rankings"))


def toasts(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_a_sent_match_shows_what_it_did_under_its_line_and_as_a_toast(make_app, demo_service):
    client, paths = counted_client(demo_service)
    app = make_app(client=client)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["*Jonas"], 1, "10"), (["Ada"], 2, "4")])
        before = rankings_calls(paths)
        await pilot.press("ctrl+s")
        await settle(pilot)
        answer = screen.form.answer
        assert len(answer.effects) == 1
        effect = answer.effects[0]
        assert rankings_calls(paths) - before <= 2
        lines = answer.text.splitlines()
        accepted = next(i for i, line in enumerate(lines) if "accepted" in line)
        assert lines[accepted + 1] == f"↳ Match {effect.number} · {effect.sentence()}"
        assert f"Match {effect.number} · {effect.sentence()}" in toasts(app)
        # the figures are those of the standings the service itself tells for that match
        again = await match_effect(client, effect.number)
        assert again.sentence() == effect.sentence()
        jonas, ada = effect.players
        assert (jonas.name, ada.name) == ("*Jonas", "Ada")
        assert jonas.delta is not None and jonas.delta > 0 and ada.delta is not None and ada.delta < 0
        assert "Jonas +" in effect.sentence() and "Ada \u2212" in effect.sentence()


async def test_a_batch_shows_each_matchs_effect_in_order(make_app, demo_service):
    client, paths = counted_client(demo_service)
    async with make_app(client=client).run_test(size=(100, 30)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "7 Wonders Duel", [(["Dev"], 1, "60"), (["Chiara"], 2, "52")])
        await pilot.press("ctrl+l")
        await settle(pilot)
        rows = screen.form.rows
        rows[0].rank_input.value, rows[1].rank_input.value = "2", "1"
        await pilot.press("ctrl+l")
        await settle(pilot)
        before = rankings_calls(paths)
        await pilot.press("ctrl+s")
        await settle(pilot)
        effects = screen.form.answer.effects
        assert [e.number for e in effects] == [effects[0].number, effects[0].number + 1]
        assert rankings_calls(paths) - before <= 2 * len(effects)
        text = screen.form.answer.text
        assert text.index(f"↳ Match {effects[0].number} ·") < text.index(f"↳ Match {effects[1].number} ·")
        # the second match's "before" is the first one's "after"
        first, second = ({p.name: p for p in e.players} for e in effects)
        assert second["Dev"].ree_before == first["Dev"].ree_after


async def test_a_rankings_quota_keeps_the_answer_and_the_effect_follows_later(make_app, demo_service):
    client, _ = counted_client(demo_service, quota_on_rankings=1)
    app = make_app(client=client)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Ben"], 1, "10"), (["Farid"], 2, "4")])
        await pilot.press("ctrl+s")
        await settle(pilot)
        answer = screen.form.answer
        assert "accepted" in answer.text and f"↳ {WAITING}" in answer.text
        assert answer.effects == [] and screen.last_answer.accepted_count == 1
        app.group_changed()  # e.g. the service answering again, or another seat recording
        await settle(pilot)
        assert len(answer.effects) == 1
        assert WAITING not in answer.text
        assert f"↳ Match {answer.effects[0].number} · Ben +" in answer.text
        assert any(t.startswith(f"Match {answer.effects[0].number} · Ben +") for t in toasts(app))
