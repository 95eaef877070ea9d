"""The Stats mode and the story pages: a player's page, head-to-head, a game's page, tonight.

`StatsScreen` (mode "stats", key s) lives in `mode.py` and is imported on first use, so that opening a
player's page from the rankings does not load the whole mode.
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    if name == "StatsScreen":
        from rankterm.tui.screens.stats.mode import StatsScreen

        return StatsScreen
    raise AttributeError(name)
