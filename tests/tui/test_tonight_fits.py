"""Stats > Tonight at 80 columns with long names: who won a draw is said with "(draw)", whole names as many
as fit and "+N" for the others; the wins table keeps its counts ("Won", "of"), cutting a long name instead."""

from __future__ import annotations

from rich.cells import cell_len
from textual.widgets import DataTable

from rankterm.mirror import Group
from rankterm.tui.widgets.stats.tonight import TonightView, won_text
from rankterm.wire.models import NewFaction, NewMatch

from .pilot import settle


def test_won_text_keeps_the_draw_and_whole_names_first():
    names = ["*Tia Montgomery-Smith", "*Tom Wójcik-Kowalski"]
    assert won_text(["Ada"], False, 20) == "Ada"
    assert won_text(names, True, 60) == "*Tia Montgomery-Smith, *Tom Wójcik-Kowalski (draw)"
    assert won_text(names, True, 35) == "*Tia Montgomery-Smith +1 (draw)"
    short = won_text(names, True, 18)
    assert short.endswith("… +1 (draw)") and cell_len(short) <= 18


async def test_tonight_at_80_columns_says_the_draw_and_keeps_the_counts(make_app, demo_client):
    tia = await Group.of(demo_client).create_player("Tia Montgomery-Smith")
    tom = await Group.of(demo_client).create_player("Tom Wójcik-Kowalski")
    catan = next(g for g in await Group.of(demo_client).games() if g.name == "Catan")
    await demo_client.add_matches(
        NewMatch(
            game=catan.id,
            weight="normal",
            date="2026-05-27 23:00:00",
            factions=[NewFaction(players=[tia.id], rank=1), NewFaction(players=[tom.id], rank=1)],
        )
    )
    async with make_app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("s", "4")
        await settle(pilot)
        view = pilot.app.screen.query_one(TonightView)
        view.choose("night")
        await settle(pilot)
        matches = view.query_one("#tn-matches", DataTable)
        assert str(matches.get_row_at(0)[3]).endswith(" +1 (draw)")
        tally = view.query_one("#tn-tally", DataTable)
        assert [str(c.label) for c in tally.columns.values()] == ["Player", "Won", "of"]
        widths = sum(c.get_render_width(tally) for c in tally.columns.values())
        assert widths <= tally.scrollable_content_region.width  # every column on the screen
