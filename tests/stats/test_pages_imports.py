"""The stats screens import no module that imports them back (the player's and the game's page open each
other; both live in `pages`, and `player_page` / `game_page` only name them)."""

from __future__ import annotations

import itertools

import grimp


def test_no_stats_screen_imports_one_that_imports_it_back():
    graph = grimp.build_graph("rankterm")
    screens = sorted(m for m in graph.modules if m.startswith("rankterm.tui.screens.stats."))
    assert "rankterm.tui.screens.stats.pages" in screens
    cycles = [
        (a, b)
        for a, b in itertools.combinations(screens, 2)
        if graph.find_shortest_chain(importer=a, imported=b)
        and graph.find_shortest_chain(importer=b, imported=a)
    ]
    assert cycles == []
