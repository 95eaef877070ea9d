"""The match form is built in two steps of the event loop: its fields first, its two faction rows once that was
drawn (`MatchForm._first_rows`), so that its ~85 widgets are not styled in one step. What is typed right after
`n`, in one burst, still lands where it did (tests/tui/test_key_bursts.py types whole matches so)."""

from __future__ import annotations

import asyncio

from rankterm.tui.widgets.match_form.faction_row import FactionRow
from rankterm.tui.widgets.match_form.form import MatchForm
from tests.tui.pilot import burst, open_form, settle


async def test_the_form_is_drawn_before_its_faction_rows_are_mounted(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        burst(pilot, ["n"])
        seen = []
        for _ in range(20_000):
            forms = pilot.app.screen.query(MatchForm)
            if forms and forms.first().is_mounted:
                rows = forms.first().query(FactionRow)
                seen.append(sum(1 for row in rows if row.is_mounted))
                if seen[-1] == 2:
                    break
            await asyncio.sleep(0)
        assert seen and seen[0] == 0  # the form's first step: no row yet
        assert seen[-1] == 2
        await settle(pilot)
        form = pilot.app.screen.query_one(MatchForm)
        assert [row.position for row in form.rows] == [1, 2]


async def test_a_blank_form_and_a_new_match_have_two_rows_with_the_players(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        rows = screen.form.rows
        assert len(rows) == 2
        # the group's players reached them, though they may have come while the rows were being mounted
        assert all(row.picker.loaded and row.picker.players for row in rows)
        await screen.form.clear("rt-x")
        assert len(screen.form.rows) == 2
