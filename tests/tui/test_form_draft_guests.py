"""A seat that is gone leaves its form and queued matches in its draft. Another seat's unsent matches are not
a guest's to drop, as in the outbox: a guest seat is offered the form (Enter restores it) but Delete does not
drop it, and the queued matches stay on disk, not in the guest's queue where its ctrl+n could drop them. The
host's own app takes them up at its next `n`."""

from __future__ import annotations

import json
import sqlite3

from rankterm.tui.widgets.match_form.draft import DRAFT_EVERY
from tests.tui.pilot import open_form, quick_fill, settle


async def _leave_a_draft(make_app, demo_service) -> None:
    """A guest queues one match and types the next, then its connection drops."""
    async with make_app(client=demo_service.client(), guest=True).run_test(size=(80, 24)) as pilot:
        await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Elena"], 1, "10"), (["Ada"], 2, "8")])
        await pilot.press("ctrl+l")
        await settle(pilot)
        await quick_fill(pilot, "Catan", [(["Ben"], 1, "12"), (["Greta"], 2, "3")])
        await settle(pilot, DRAFT_EVERY * 2)


async def test_a_guest_seat_leaves_another_seats_queue_and_form_for_the_host(make_app, demo_service):
    await _leave_a_draft(make_app, demo_service)
    async with make_app(client=demo_service.client(), guest=True).run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        assert screen.queue == []
        assert "kept for the host" in screen.form.answer.text
        assert screen.offered is not None  # the form is offered: Enter restores it
        await pilot.press("delete")
        await settle(pilot)
        assert screen.offered is not None and "the host can drop it" in screen.form.answer.text
        await quick_fill(pilot, "Patchwork", [(["Dev"], 1, "20"), (["Farid"], 2, "11")])  # its own match
        await settle(pilot, DRAFT_EVERY * 2)
    async with make_app(client=demo_service.client()).run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        assert [p.match.external_id for p in screen.queue] == ["rt-test-0001"]
        assert "back in the queue" in screen.form.answer.text
        assert "Enter restores it, Delete drops it" in screen.form.answer.text
        await pilot.press("enter")  # the newest form left: the second guest's own match
        await settle(pilot, DRAFT_EVERY * 2)
        assert [r.points_input.value for r in screen.form.rows][:2] == ["20", "11"]
        left = screen.drafts.path
    # the first guest's form waits on disk for a later seat, its queue kept by the host's app alone
    assert [(points, queue) for points, queue in _drafts_kept(left) if queue == []] == [(["12", "3"], [])]


def _drafts_kept(path) -> list[tuple[list[str], list]]:
    """Each draft in the drafts' file at `path`: its form's points, row by row, and its queue."""
    db = sqlite3.connect(path)
    try:
        bodies = [json.loads(body) for (body,) in db.execute("SELECT body FROM drafts")]
    finally:
        db.close()
    return [([row["points"] for row in (b["form"] or {}).get("rows", [])], b["queue"]) for b in bodies]
