"""Snapshots at 80x24 of what tells counts and words as they are: the matches screen's subset list open (as wide as
its longest label), Stats > Tonight with long names, a player's page, the offline status line.

The demo group runs in-process with its clock frozen. Update with `--snapshot-update`, then LOOK at every SVG.
"""

from __future__ import annotations

from tests.tui.pilot import settle

SIZE = (80, 24)


def test_matches_subset_list_open(snap_compare, make_app):
    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("m")
        await settle(pilot)
        await pilot.press("s", "enter")
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=run_before)
