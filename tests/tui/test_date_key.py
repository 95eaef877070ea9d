"""ctrl+o (F12) takes the match form to its Date field from wherever the cursor is, the field's text selected so
that what is typed replaces it; the footer shows it. Pressed within README's free-for-all, in one burst too, the
match is recorded on the date typed (the seat's zone: UTC in the tests)."""

from __future__ import annotations

import pytest

from rankterm.tui.screens.match_entry import MatchEntryScreen

from .pilot import keys, open_form, sequence, settle, type_at

DATED = [*sequence("n C a t ⏎ E ⏎ A ⏎"), "ctrl+o", *keys("2026-05-28 19:05"), "ctrl+s"]
"""Catan, Elena beats Ada, played an hour before (the tests' clock is 2026-05-28 20:26 UTC)."""


def shown_lines(app) -> list[str]:
    return ["".join(s.text for s in strip) for strip in app.screen._compositor.render_strips()]


@pytest.mark.parametrize("burst", ["pilot.press", "one write"])
async def test_ctrl_o_in_a_burst_dates_the_match(make_app, burst):
    async with make_app().run_test(size=(80, 24)) as pilot:
        app = pilot.app
        await settle(pilot)
        before = (await app.group.matches_page(1)).data[0].number
        if burst == "pilot.press":
            await pilot.press(*DATED)
        else:
            await type_at(pilot, DATED, 0)  # every key reaches the app before it handled the first
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MatchEntryScreen)
        assert screen.last_answer is not None and screen.last_answer.accepted_count == 1, (
            screen.form.answer.text
        )
        match = (await app.group.matches_page(1)).data[0]
        assert match.number == before + 1
        assert match.date == "2026-05-28 19:05:00"
        assert [
            [p.display_name for p in f.players] for f in sorted(match.factions, key=lambda f: f.rank)
        ] == [
            ["Elena"],
            ["Ada"],
        ]


async def test_ctrl_o_and_f12_reach_the_date_from_any_field_and_typing_replaces_it(make_app):
    async with make_app().run_test(size=(120, 40)) as pilot:
        screen = await open_form(pilot)
        date = screen.form.field("date")
        date.value = "2026-01-02 03:04"
        for start, key in (
            (screen.form.game_picker.input, "ctrl+o"),
            (screen.form.rows[1].rank_input, "f12"),
        ):
            screen.set_focus(start)
            await settle(pilot)
            await pilot.press(key)
            await settle(pilot)
            assert screen.focused is date, key
        await pilot.press(*keys("2026-05-28 19:05"))
        await settle(pilot)
        assert date.value == "2026-05-28 19:05"
        assert "^o Date" in shown_lines(pilot.app)[-1]  # in the footer
