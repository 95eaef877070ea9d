"""Snapshots of the match form, the rankings and the matches, at 80x24 and 120x40, on the demo group.

Time is frozen (the demo service's clock and the client's) and external ids come from the app's fixed
`id_factory`, so every shot is deterministic. Each `run_before` drives the app to the interesting state with
a pilot, waits for every worker, and stops the text cursor from blinking before the shot is taken.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from tests.tui.pilot import crowd_catan, open_form, pick_game, quick_fill, settle

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]


async def steady(pilot: Pilot) -> None:
    """Wait for the workers, and keep the text cursor still (a blinking one would make the shot flaky)."""
    await settle(pilot)
    for field in pilot.app.screen.query(Input):
        field.cursor_blink = False
    await pilot.pause()


async def form_with_three_factions(pilot: Pilot) -> None:
    screen = await open_form(pilot)
    await pick_game(pilot, "cat")
    await quick_fill(pilot, "Catan", [(["Ada"], 1, "10"), (["Ben", "Chiara"], 2, "8"), (["Dev"], 3, "")])
    rows = screen.form.rows
    rows[1].name_input.value = "team blue"
    rows[2].points_input.focus()
    await pilot.press("5")
    await steady(pilot)


async def form_with_a_bot_faction(pilot: Pilot) -> None:
    screen = await open_form(pilot)
    await quick_fill(pilot, "Pandemic", [(["Ada", "Ben", "*Hugo"], 1, "")], bot_row=(2, ""))
    rows = screen.form.rows
    rows[1].name_input.value = "The Virus"
    screen.form.field("notes").value = "Epidemic level 5; cured all four diseases"
    rows[1].bot_box.focus()
    await steady(pilot)


async def form_with_validation_errors(pilot: Pilot) -> None:
    screen = await open_form(pilot)
    screen.form.game_picker.focus_input()
    await pilot.press("x", "y", "z", "z", "y")  # names no game: nothing can be picked
    await quick_fill_players(pilot)
    screen.form.rows[1].rank_input.value = ""
    await pilot.press("ctrl+s")
    await steady(pilot)


async def quick_fill_players(pilot: Pilot) -> None:
    """Ada in both rows (a player twice), without choosing a game."""
    screen = pilot.app.screen
    by_label = {p.label: p for p in screen.form.players}
    for row in screen.form.rows:
        row.fill(players=[by_label["Ada"]], rank=row.position)
    await settle(pilot)


async def rejected_match(pilot: Pilot) -> None:
    taken = (await pilot.app.group.matches_page(1)).data[0].external_id  # "demo-0300": already recorded
    screen = await open_form(pilot)
    await quick_fill(pilot, "Catan", [(["Elena"], 1, "10"), (["Chiara"], 2, "7"), (["Greta"], 3, "6")])
    screen.form.field("external-id").value = taken
    await pilot.press("ctrl+s")  # the cursor goes to the external id, the field the rejection names
    await steady(pilot)


async def rankings_catan_page_two(pilot: Pilot) -> None:
    await crowd_catan(pilot.app.group)
    await pilot.press("r")
    await settle(pilot)
    pilot.app.screen.picker.value = "g1"
    await settle(pilot)
    await pilot.press("right_square_bracket")
    await steady(pilot)


async def matches_with_detail(pilot: Pilot) -> None:
    await pilot.press("m")
    await settle(pilot)
    pilot.app.screen.picker.value = "g150"  # Pandemic: a bot faction in every match
    await settle(pilot)
    await pilot.press("down", "enter")
    await steady(pilot)


STATES: dict[str, Callable[[Pilot], Awaitable[None]]] = {
    "form_three_factions": form_with_three_factions,
    "form_bot_faction": form_with_a_bot_faction,
    "form_validation_errors": form_with_validation_errors,
    "form_rejected_match": rejected_match,
    "rankings_catan_page_2": rankings_catan_page_two,
    "matches_detail": matches_with_detail,
}


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("state", list(STATES))
def test_snapshot(state, size, make_app, snap_compare):
    assert snap_compare(make_app(), terminal_size=size, run_before=STATES[state])
