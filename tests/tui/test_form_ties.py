"""Equal points with no rank typed are a tie in the match form, as in `rankterm import`: the form shows the
order it will send (Elena and Ben tied, then Greta) before anything is sent, and the service stores the tie."""

from __future__ import annotations

import pytest

from rankterm.importing.plays import Seat, SourceGame, SourcePlay
from rankterm.importing.ranks import sides
from rankterm.wire.result_line import PLACE_SEP

from .pilot import open_form, quick_fill, sequence, settle, type_at


def importer_ranks(points: list[str]) -> list[int]:
    seats = tuple(Seat(key=str(i), name=f"P{i}", score=p) for i, p in enumerate(points))
    out, why = sides(SourcePlay("x", "here", SourceGame("G"), "2026-01-01 12:00:00", seats))
    assert why == ""
    ranks = [0] * len(points)
    for side in out:
        ranks[side.seats[0]] = side.rank
    return ranks


async def test_equal_points_typed_in_a_burst_are_shown_and_stored_as_a_tie(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        keys = "C a t ⏎ E l Tab Tab 1 0 ⏎ B e n Tab Tab 1 0 ⏎ G r Tab Tab 7"
        await type_at(pilot, sequence(keys), 0)
        await settle(pilot)
        line = str(screen.form.query_one("#result-line").render())
        assert line == f"Result: Elena = Ben{PLACE_SEP}Greta"
        before = (await pilot.app.group.matches_page(1)).total
        await pilot.press("ctrl+s")
        await settle(pilot)
        page = await pilot.app.group.matches_page(1)
        assert page.total == before + 1
        stored = sorted((f.rank, [p.display_name for p in f.players]) for f in page.data[0].factions)
        assert stored == [(1, ["Ben"]), (1, ["Elena"]), (3, ["Greta"])]


@pytest.mark.parametrize("points", [["10", "10", "7"], ["5", "5", "5"], ["9", "8", "8"], ["3", "", ""]])
async def test_the_forms_ranks_are_the_importers(make_app, points):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        names = ["Elena", "Ben", "Greta"]
        await quick_fill(
            pilot, "Catan", [([n], i + 1, p) for i, (n, p) in enumerate(zip(names, points, strict=True))]
        )
        match = screen.form.collect()
        assert match is not None
        expected = importer_ranks(points) if all(points) else [1, 2, 3]
        assert [f.rank for f in match.factions] == expected


async def test_a_typed_rank_is_kept_as_typed(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Elena"], 1, "10"), (["Ben"], 3, "10"), (["Greta"], 2, "7")])
        match = screen.form.collect()
        assert match is not None and [f.rank for f in match.factions] == [1, 3, 2]
        assert (
            str(screen.form.query_one("#result-line").render())
            == f"Result: Elena{PLACE_SEP}Greta{PLACE_SEP}Ben"
        )
