"""What a match did, on the form (a toast only once the seat left it), driven by a pilot on the demo group
in-process: the line under an accepted match and no toast over the form's fields, one or two rankings calls a
match, a rankings quota that holds the effect back without holding back the answer, and one toast for the
effects read after the seat moved on."""

from __future__ import annotations

import itertools

import httpx

from rankterm.client.client import RankingClient
from rankterm.stats.effect import match_effect
from rankterm.tui.widgets.match_form import answer as answer_module
from rankterm.tui.widgets.match_form.answer import WAITING
from tests.support.faults import Fault, FaultyTransport

from .conftest import DEMO_URL, frozen_clock
from .pilot import open_form, quick_fill, settle


def counted_client(demo_service) -> tuple[RankingClient, list[str], FaultyTransport]:
    """A client on the test's demo group whose requests are listed, and whose rankings calls can be refused
    with a 429 (the rankings quota: `faults.script = [Fault.QUOTA_429]`)."""
    paths: list[str] = []

    class Listing(httpx.AsyncBaseTransport):
        def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
            self.inner = inner

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            paths.append(request.url.path.strip("/"))
            return await self.inner.handle_async_request(request)

    faults = FaultyTransport(
        httpx.ASGITransport(app=demo_service.asgi),
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
    return client, paths, faults


def rankings_calls(paths: list[str]) -> int:
    return sum(1 for p in paths if p.startswith("rankings"))


def toasts(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_a_sent_batch_shows_what_each_match_did_and_a_rankings_quota_only_delays_it(
    make_app, demo_service
):
    client, paths, faults = counted_client(demo_service)
    app = make_app(client=client)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["*Jonas"], 1, "10"), (["Ada"], 2, "4")])
        await pilot.press("ctrl+l")  # queued; the form keeps game and players for the rematch
        await settle(pilot)
        rows = screen.form.rows
        rows[0].rank_input.value, rows[1].rank_input.value = "2", "1"
        before = rankings_calls(paths)
        await pilot.press("ctrl+s")  # the queued match and the form's: one batch of two
        await settle(pilot)
        answer = screen.form.answer
        first, second = answer.effects
        assert second.number == first.number + 1
        assert rankings_calls(paths) - before <= 2 * 2
        lines = answer.text.splitlines()
        for effect, accepted in zip(
            answer.effects, [i for i, t in enumerate(lines) if "accepted" in t], strict=True
        ):
            assert lines[accepted + 1] == f"↳ Match {effect.number} · {effect.sentence()}"
        assert not any("Match" in t for t in toasts(app))  # said on the form's answer lines: no toast over it
        # the figures are those of the service's standings for that match
        assert (await match_effect(pilot.app.group, first.number)).sentence() == first.sentence()
        jonas, ada = first.players
        assert (jonas.name, ada.name) == ("*Jonas", "Ada")
        assert jonas.delta is not None and jonas.delta > 0 and ada.delta is not None and ada.delta < 0
        assert "Jonas +" in first.sentence() and "Ada \u2212" in first.sentence()
        # the second match's "before" is the first one's "after"
        assert {p.name: p.ree_before for p in second.players} == {p.name: p.ree_after for p in first.players}

        # the rankings quota is spent: the answer comes whole, the effect waits for the service
        faults.script = [Fault.QUOTA_429]
        await pilot.press("ctrl+r")  # a rematch
        await settle(pilot)
        screen.form.rows[0].points_input.value = "6"  # not the same match as the first (that would be asked)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "accepted" in answer.text and f"↳ {WAITING}" in answer.text
        assert len(answer.effects) == 2 and screen.last_answer.accepted_count == 1
        app.group_changed()  # e.g. the service answering again, or another seat recording
        await settle(pilot)
        third = answer.effects[-1]
        assert third.number == second.number + 1 and WAITING not in answer.text
        assert f"↳ Match {third.number} · {third.sentence()}" in answer.text
        assert not any("Match" in t for t in toasts(app))


async def test_effects_read_after_the_seat_left_the_form_are_one_toast(make_app, demo_service):
    """Two matches whose effects wait (the rankings quota), the seat goes to the Service screen, the effects are
    read: one toast says both; on the form, their lines say them too."""
    client, _paths, faults = counted_client(demo_service)
    app = make_app(client=client)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Ada"], 1, "10"), (["Ben"], 2, "4")])
        await pilot.press("ctrl+l")  # queued; the form keeps game and players for the rematch
        await settle(pilot)
        rows = screen.form.rows
        rows[0].rank_input.value, rows[1].rank_input.value = "2", "1"
        faults.script = [Fault.QUOTA_429, Fault.QUOTA_429]
        await pilot.press("ctrl+s")  # two accepted; their effects wait for the rankings quota
        await settle(pilot)
        answer = screen.form.answer
        assert answer.text.count(f"↳ {WAITING}") == 2 and not answer.effects
        await pilot.press("escape", "d")
        await settle(pilot)
        assert app.screen is not screen
        app.group_changed()  # the service answering again, or another seat recording
        await settle(pilot)
        first, second = answer.effects
        said = [t for t in toasts(app) if "Match" in t]
        assert said == [
            f"Match {first.number} · {first.sentence()}\nMatch {second.number} · {second.sentence()}"
        ]


async def test_an_effect_whose_line_was_replaced_gets_a_line_at_the_end_of_the_answer(
    make_app, demo_service, monkeypatch
):
    """A match's effect read after a later send replaced its line is said at the end of the form's answer,
    never as a toast over the form."""
    # No timed retry: on a loaded machine the 3 s one read the effect before the rematch replaced its line.
    monkeypatch.setattr(answer_module, "RETRY_AFTER", (600.0,))
    client, _paths, faults = counted_client(demo_service)
    app = make_app(client=client)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Ada"], 1, "10"), (["Ben"], 2, "4")])
        faults.script = [Fault.QUOTA_429]
        await pilot.press("ctrl+s")  # accepted; its effect waits
        await settle(pilot)
        answer = screen.form.answer
        assert f"↳ {WAITING}" in answer.text
        await pilot.press("ctrl+r")
        await settle(pilot)
        screen.form.rows[0].points_input.value = "7"  # not the same match as the first (that would be asked)
        await pilot.press("ctrl+s")  # the rematch's answer replaces the first one's lines
        await settle(pilot)
        first, second = answer.effects  # the first read again with the second (in order)
        assert f"Earlier: Match {first.number} · {first.sentence()}" in answer.text.splitlines()
        assert f"↳ Match {second.number} · {second.sentence()}" in answer.text.splitlines()
        assert not any("Match" in t for t in toasts(app))


async def test_a_match_the_outbox_sends_later_gets_its_accepted_line_and_its_effect(make_app, demo_service):
    """Sent while the service cannot be reached, the match's line says it is kept in the outbox; once the
    outbox sends it (the service back) with the form still shown, the line says accepted and what it did
    follows under it."""
    client, transport = demo_service.downable_client()
    app = make_app(client=client)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Elena"], 1, "10"), (["Ada"], 2, "8")])
        transport.down = True
        await pilot.press("ctrl+s")
        await settle(pilot)
        answer = screen.form.answer
        assert "saved in the outbox" in answer.text and answer.effects == []
        transport.down = False
        app.outbox_runner.cancel_retry()
        app.resume_sending()
        await settle(pilot)
        assert app.outbox_counts["sent"] == 1 and app.screen is screen
        assert "saved in the outbox" not in answer.text
        lines = answer.text.splitlines()
        accepted = next(i for i, t in enumerate(lines) if t.startswith("✔ Catan: Elena, Ada"))
        assert lines[accepted].endswith(": accepted.")
        (effect,) = answer.effects
        assert effect.number == 301
        assert lines[accepted + 1] == f"↳ Match 301 · {effect.sentence()}"
        assert "Elena +" in effect.sentence()
        # what it changed was read once the outbox sent it, as a walk of the whole history tells it
        from rankterm.stats.changes import changes
        from rankterm.stats.source import held_matches

        assert answer.changed[301] == [e for e in changes(held_matches(app.group)) if e.number == 301]


async def test_what_a_match_changed_is_said_under_what_it_did(make_app, demo_service):
    """Three wins in a row sent in one batch: under each match's effect, the events of the held history that
    match caused (the third: a streak), the same as a walk of the whole history gives; a match that changed
    nothing has no such line."""
    from rankterm.stats.changes import changes
    from rankterm.stats.source import held_matches
    from rankterm.tui.widgets.match_form.answer import changes_text

    client, _paths, _faults = counted_client(demo_service)
    app = make_app(client=client)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_form(pilot)
        for points in ("10", "11", "12"):
            await quick_fill(pilot, "Catan", [(["*Jonas"], 1, points), (["Ada"], 2, "4")])
            await pilot.press("ctrl+l" if points != "12" else "ctrl+s")
            await settle(pilot)
        answer = screen.form.answer
        assert len(answer.effects) == 3
        events = changes(held_matches(app.group))
        lines = answer.text.splitlines()
        for effect in answer.effects:
            caused = [e for e in events if e.number == effect.number]
            assert answer.changed[effect.number] == caused
            at = lines.index(f"↳ Match {effect.number} · {effect.sentence()}")
            following = lines[at + 1] if at + 1 < len(lines) else ""
            if caused:
                assert following == changes_text(caused)
            else:
                assert not following or following.startswith(("✔", "↳", "Earlier"))
        third = answer.changed[answer.effects[-1].number]
        assert any(e.kind == "streak" and e.text.startswith("*Jonas: ") for e in third)
        assert (
            "wins in a row"
            in lines[
                lines.index(f"↳ Match {answer.effects[-1].number} · {answer.effects[-1].sentence()}") + 1
            ]
        )


async def test_a_backdated_match_says_what_it_changed_where_it_was_played(make_app, demo_service):
    """A match dated just after a player's second win in a row, before later matches, is numbered there:
    its changes are the third win in a row it makes there, not the newest events of the group."""
    from datetime import datetime, timedelta

    from rankterm.stats.changes import changes
    from rankterm.stats.source import held_matches

    client, _paths, _faults = counted_client(demo_service)
    app = make_app(client=client)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_form(pilot)
        await app.group.sync_matches()
        held = held_matches(app.group)
        names = {p.label for p in screen.form.players}
        streaks: dict[str, int] = {}
        found = None
        for match, following in itertools.pairwise(held):
            people = [f for f in match.factions if not f.bot and f.players]
            best = min(f.rank for f in match.factions)
            for faction in people:
                for player in faction.players:
                    streaks[player.label] = streaks.get(player.label, 0) + 1 if faction.rank == best else 0
            gap = datetime.fromisoformat(following.date) - datetime.fromisoformat(match.date)
            two = [n for n, s in streaks.items() if s == 2 and n in names]
            if match.number < len(held) - 5 and gap > timedelta(minutes=3) and two:
                found = (match, two[0])
        assert found is not None
        before, winner = found
        loser = next(n for n in sorted(names) if n != winner and not n.startswith("*"))
        await quick_fill(pilot, "Catan", [([winner], 1, "10"), ([loser], 2, "4")])
        when = datetime.fromisoformat(before.date) + timedelta(minutes=1)
        screen.form.field("date").value = f"{when:%Y-%m-%d %H:%M}"
        await pilot.press("ctrl+s")
        await settle(pilot)
        answer = screen.form.answer
        (effect,) = answer.effects
        assert effect.number == before.number + 1 and effect.later > 0
        caused = [e for e in changes(held_matches(app.group)) if e.number == effect.number]
        assert answer.changed[effect.number] == caused
        assert f"{winner}: 3 wins in a row" in [e.text for e in caused]
        lines = answer.text.splitlines()
        at = lines.index(f"↳ {effect.heading()} · {effect.sentence()}")
        assert f"{winner}: 3 wins in a row" in lines[at + 1]
