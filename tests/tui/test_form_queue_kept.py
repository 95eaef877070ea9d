"""Matches queued with ctrl+l are kept on disk with the form the moment they are queued: a seat that ends with
the queue not sent (an SSH connection dropped) finds them on the next `n`, back in the queue, with the
half-typed form offered as a draft; ctrl+n asks before dropping them, as quitting does."""

from __future__ import annotations

import itertools
import stat

from rankterm.tui.dialogs.confirm import ConfirmDialog
from rankterm.tui.widgets.match_form.draft import DRAFT_EVERY, DraftFile

from .pilot import match_count, open_form, quick_fill, settle


def later_ids(prefix: str):
    counter = itertools.count(1)
    return lambda: f"{prefix}-{next(counter):04d}"


async def test_a_queued_match_is_on_disk_at_once_and_comes_back_after_a_drop(make_app, demo_service):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Elena"], 1, "10"), (["Ada"], 2, "8")])
        await pilot.press("ctrl+l")
        # on disk before any timer ran: the seat may die right after the key
        assert screen.drafts is not None
        kept = screen.drafts.read()
        assert kept is not None and [m.external_id for m, _ in kept.queue] == ["rt-test-0001"]
        assert stat.S_IMODE(screen.drafts.path.stat().st_mode) == 0o600
        await settle(pilot)
        await quick_fill(pilot, "Catan", [(["Ben"], 1, "12"), (["Greta"], 2, "3")])
        await settle(pilot, DRAFT_EVERY * 2)
    # the seat is gone with one match queued and the next one typed, neither sent
    async with make_app(client=demo_service.client(), id_factory=later_ids("rt-two")).run_test(
        size=(80, 24)
    ) as pilot:
        before = await match_count(pilot)
        screen = await open_form(pilot)
        text = screen.form.answer.text
        assert "1 queued match from " in text and "back in the queue" in text
        assert "was not sent — Enter restores it" in text
        assert [p.match.external_id for p in screen.queue] == ["rt-test-0001"]
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert screen.last_answer is not None and screen.last_answer.accepted_count == 2
        assert await match_count(pilot) == before + 2
        names = {p.id: p.display_name for p in await pilot.app.group.players()}
        stored = (await pilot.app.group.matches_page(1)).data[:2]
        results = sorted(
            tuple(
                (names[str(f.players[0].id)], f.rank, float(f.points))
                for f in sorted(m.factions, key=lambda f: f.rank)
            )
            for m in stored
        )
        assert results == [
            (("Ben", 1, 12.0), ("Greta", 2, 3.0)),
            (("Elena", 1, 10.0), ("Ada", 2, 8.0)),
        ]
        assert screen.queue == []
        await settle(pilot, DRAFT_EVERY * 2)
        assert DraftFile(screen.drafts.group).load() is None


async def test_ctrl_n_asks_before_dropping_queued_matches(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Elena"], 1, "10"), (["Ada"], 2, "8")])
        await pilot.press("ctrl+l")
        await settle(pilot)
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert isinstance(pilot.app.screen, ConfirmDialog)
        assert "Drop the 1 queued match not sent" in pilot.app.screen.question
        await pilot.press("n")
        await settle(pilot)
        assert pilot.app.screen is screen and len(screen.queue) == 1
        await pilot.press("ctrl+n")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot, DRAFT_EVERY * 2)
        assert pilot.app.screen is screen and screen.queue == []
        assert screen.form.game_picker.game is None and screen.form.game_picker.input.has_focus
        assert DraftFile(screen.drafts.group).load() is None
