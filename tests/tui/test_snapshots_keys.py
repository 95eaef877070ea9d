"""Snapshots of the keys a person can find at 80x24: every screen of the SCREENS table as it opens (its footer:
the screen's own keys whole on the left, ? Keys, q Quit and the palette on the right), and the help overlay.

The demo group runs in-process with its clock frozen; each shot waits for timers and workers first. A mode
added to SCREENS gets its shot here without a new test. Update with
`pytest tests/tui/test_snapshots_keys.py --snapshot-update`, then LOOK at every SVG.
"""

from __future__ import annotations

import pytest

from rankterm.tui.screens import SCREENS
from tests.tui.pilot import settle


@pytest.mark.parametrize("mode", list(SCREENS))
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
