"""The match form reads a typed date in the seat's time zone (the config's `timezone`): sent as the wire's UTC,
judged "in the future" as the seat's clock reads it, the zone named beside the field and in its tooltip.

The demo's clock is 2026-05-28 20:26:40 UTC: 2026-05-29 08:26:40 in Auckland (NZST, UTC+12).
"""

from __future__ import annotations

from textual.widgets import Label

from rankterm.config import Config
from rankterm.wire.models import NewFaction, NewMatch, Weight

from .pilot import date_refused, open_form, quick_fill, settle


def _auckland() -> Config:
    return Config(timezone="Pacific/Auckland")


async def test_a_date_typed_in_auckland_is_sent_as_utc(make_app):
    async with make_app(config=_auckland()).run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Ada"], 1, "9"), (["Ben"], 2, "7")])
        screen.form.field("date").value = "2026-05-29 07:15"  # Auckland: 19:15 UTC the day before
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert screen.last_answer is not None and screen.last_answer.accepted_count == 1
        assert (await pilot.app.group.matches_page(1)).data[0].date == "2026-05-28 19:15:00"


async def test_the_future_is_judged_and_said_in_the_seats_zone(make_app):
    """08:50 in Auckland is 23 minutes ahead of its clock (08:26): refused and said in Auckland's time; 08:20
    there, read as UTC, would be 12 hours ahead: it is sent."""
    async with make_app(config=_auckland()).run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Ada"], 1, "9"), (["Ben"], 2, "7")])
        problem = await date_refused(pilot, screen, "2026-05-29 08:50")
        assert problem == (
            "✘ The date 2026-05-29 08:50 (Auckland) is in the future: a match is recorded once it has been played."
        )
        date = screen.form.field("date")
        assert date.has_class("-invalid") and date.value == "2026-05-29 08:50"
        date.value = "2026-05-29 08:20"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert screen.last_answer is not None and screen.last_answer.accepted_count == 1
        assert (await pilot.app.group.matches_page(1)).data[0].date == "2026-05-28 20:20:00"


async def test_an_unreadable_date_is_still_said_as_one(make_app):
    async with make_app(config=_auckland()).run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Ada"], 1, "9"), (["Ben"], 2, "7")])
        problem = await date_refused(pilot, screen, "2026-13-45 99:99")
        assert screen.last_answer is None
        assert "date cannot be read" in problem


async def test_the_zone_is_named_beside_the_date_and_a_loaded_match_shows_its_date_there(make_app):
    async with make_app(config=_auckland()).run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        form = screen.form
        zone = form.query_one("#date-zone", Label)
        assert str(zone.render()) == "Auckland"
        assert zone.region.right <= 80 and zone.region.width > 0  # on screen at 80 columns
        assert form.field("date").region.width > 0 and form.field("external-id").region.width >= 8
        assert (
            form.field("date").tooltip
            == "Empty: the moment you send or queue it. Else YYYY-MM-DD HH:MM, Auckland time."
        )
        match = NewMatch(
            weight=Weight.NORMAL,
            factions=[NewFaction(rank=1, players=["x"]), NewFaction(rank=2, players=["y"])],
            external_id="rt-rejected",
            date="2026-05-28 19:15:00",
        )
        await screen.edit_entry(match)
        await settle(pilot)
        assert form.field("date").value == "2026-05-29 07:15:00"
