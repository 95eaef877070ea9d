"""The status line tells the truth in the room it has: offline at 80 and 100 columns it keeps the outbox's
count and how old the figures are, whole (no "…"), saying what becomes of a match more briefly; a board on a
TV (`rankterm board`, kiosk) names no outbox, online or off. Against the demo group in-process, its network
cut for real (`FaultyTransport`)."""

from __future__ import annotations

import pytest
from rich.cells import cell_len

from rankterm.tui.widgets.status_line import StatusLine, offline_line, outbox_counts

from .pilot import open_form, quick_fill, settle


def drawn(pilot) -> str:
    line = pilot.app.screen.query_one(StatusLine)
    return line.render_line(0).text.rstrip() if line.display else ""


def test_the_line_says_less_of_the_end_until_it_fits():
    outbox = outbox_counts(3, 51, 0)
    assert outbox == "Outbox: 3 pending · 51 sent (o)"  # a count of 0 is not said
    wide = offline_line(200, outbox, "as of 20:26")
    assert wide == "⚠ Offline · Outbox: 3 pending · 51 sent (o) · as of 20:26 · " + (
        "matches are kept and sent when the service answers"
    )
    for room in (98, 78, 60):
        line = offline_line(room, outbox, "as of 20:26")
        assert cell_len(line) <= room and line.startswith("⚠ Offline · " + outbox + " · as of 20:26")
    assert offline_line(40, outbox, "as of 20:26") == "⚠ Offline · " + outbox  # the count, never cut first


@pytest.mark.parametrize("width", [80, 100])
async def test_offline_the_line_fits_the_window_with_the_count_and_the_time(make_app, demo_service, width):
    client, transport = demo_service.downable_client()
    async with make_app(client=client).run_test(size=(width, 24)) as pilot:
        await pilot.press("r")
        await settle(pilot)
        await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Ada"], 1, "9"), (["Ben"], 2, "7")])
        transport.down = True
        await pilot.press("ctrl+s")
        await settle(pilot)
        await pilot.press("escape", "r")
        await settle(pilot)
        line = drawn(pilot)
        assert pilot.app.offline and line.startswith("⚠ Offline · Outbox: 1 pending (o) · as of 20:26 · ")
        assert "…" not in line and cell_len(line) <= width - 2
        assert "sent when" in line  # what becomes of the match is still said, briefly


async def test_a_board_on_a_tv_names_no_outbox(make_app, demo_service):
    client, transport = demo_service.downable_client()
    app = make_app(client=client, home="board", kiosk=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.outbox_counts = {"pending": 0, "sent": 51, "rejected": 0}  # other seats' of the profile's file
        await settle(pilot)
        assert drawn(pilot) == ""
        transport.down = True
        await pilot.press("f5")
        await settle(pilot)
        line = drawn(pilot)
        assert app.offline and line.startswith("⚠ Offline · as of 20:26")
        assert "Outbox" not in line and "kept" not in line and "sent" not in line
