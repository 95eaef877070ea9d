"""Snapshots of the keys a person can find at 80x24: the help overlay, and every screen of the SCREENS table
as it opens, for its footer (the screen's own keys whole on the left; ? Keys, q Quit and the palette on the
right).

The screens already shot at 80x24 by the other snapshot files (their footers are in those pictures) are not
shot again here; a mode added to SCREENS later is shot here without a new test. The demo group runs
in-process with its clock frozen; each shot waits for timers and workers first. Update with
`pytest tests/tui/test_snapshots_keys.py --snapshot-update`, then LOOK at every SVG.
"""

from __future__ import annotations

import pytest

from rankterm.tui.screens import SCREENS
from tests.tui.pilot import settle

SHOT_ELSEWHERE = frozenset({"service", "games", "players", "login", "match", "rankings", "matches"})
"""Modes whose screen test_snapshots_service_and_lists / _form_and_standings already show at 80x24."""


@pytest.mark.parametrize("mode", [m for m in SCREENS if m not in SHOT_ELSEWHERE])
def test_screen_footer_80x24(snap_compare, make_app, mode):
    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.app.switch_mode(mode)
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=run_before)


def test_help_overlay_on_rankings_80x24(snap_compare, make_app):
    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=run_before)
