"""Every table that is filled while its screen is shown has its column widths at once: each column at least as
wide, in terminal cells, as its widest cell (title included) right after the fill, before the table is next
idle. (A `DataTable` measures columns added without a width only when idle; a screen or dialog drawn before
that showed every cell cut to its title's width: "Tick", "Wing", "Patc".)

Each test wraps the method that fills a table and measures the table as soon as it returns, on the demo group
with a player and a game whose names are hostile (markup, an escape, an emoji, wide characters): those are
shown literally, and measured by their cells, not their characters.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from rich.text import Text
from textual.widgets import DataTable

from rankterm.mirror import Group
from rankterm.tui.dialogs.match_detail import MatchDetailScreen
from rankterm.tui.dialogs.player_matches import PlayerMatchesScreen
from rankterm.tui.screens.import_plays import ImportScreen
from rankterm.tui.screens.outbox import OutboxScreen
from rankterm.tui.screens.players import PlayersScreen
from rankterm.tui.widgets.stats.head_to_head import GAME_WIDTH, HeadToHeadView
from rankterm.tui.widgets.text_table import NAME_CELLS
from rankterm.wire.models import NewFaction, NewMatch, Player

from .pilot import settle

EVE = "Evil [/b] Eve 🎲"
GAME = "ボードゲーム [b]\x1b[31m 🎲 Night"
"""Wide characters (2 cells each), markup, an escape sequence (shown as ␛[31m), an emoji."""
GAME_SHOWN = "ボードゲーム [b]␛[31m 🎲 Night"


def cells(value: Any) -> int:
    if isinstance(value, Text):
        return value.cell_len
    return 0 if value is None else cell_len(str(value))


def measure(table: DataTable) -> tuple[int, list[str]]:
    """The table's rows and its columns narrower than their widest cell: "title: width < widest"."""
    cut = []
    for index, column in enumerate(table.ordered_columns):
        width = column.get_render_width(table) - 2 * table.cell_padding
        widest = max(
            [column.label.cell_len, *(cells(table.get_row_at(r)[index]) for r in range(table.row_count))]
        )
        if width < widest:
            cut.append(f"{column.label.plain}: {width} < {widest}")
    return table.row_count, cut


Seen = list[tuple[str, int, list[str]]]
"""(selector, rows, cut columns) of each table measured."""


def measured_after(monkeypatch, cls: type, name: str, *selectors: str, seen: Seen | None = None) -> Seen:
    """Wrap `cls.name` (a method that fills the tables `selectors`): each time it returns, each table is
    measured there and then, before anything else runs; what is seen is added to `seen` (returned)."""
    seen = [] if seen is None else seen
    original: Callable[..., Any] = getattr(cls, name)

    @functools.wraps(original)
    def measuring(self, *args: Any, **kwargs: Any) -> Any:
        result = original(self, *args, **kwargs)
        for selector in selectors:
            seen.append((selector, *measure(self.query_one(selector, DataTable))))
        return result

    monkeypatch.setattr(cls, name, measuring)
    return seen


def filled(seen: Seen) -> Seen:
    """The fills that put rows in a table (there is one at least: else the test would prove nothing)."""
    with_rows = [s for s in seen if s[1]]
    assert with_rows, seen
    return with_rows


def strings(table: DataTable) -> set[str]:
    return {str(c) for r in range(table.row_count) for c in table.get_row_at(r)}


@pytest.fixture
async def hostile(demo_service) -> tuple[Player, Player]:
    """Eve (a ghost with a hostile name) and Ada, who met three times at a game with a hostile name."""
    async with Group(demo_service.client()) as setup:
        eve = await Group.of(setup).create_player(EVE)
        ada = next(p for p in await Group.of(setup).players() if p.label == "Ada")
        game = await Group.of(setup).create_game(name=GAME)
        for n in range(3):
            await setup.add_matches(
                NewMatch(
                    game=game.id,
                    weight="normal",
                    factions=[
                        NewFaction(players=[eve.id], rank=1 + n % 2, points=str(70 + n)),
                        NewFaction(players=[ada.id], rank=2 - n % 2, points="58"),
                    ],
                )
            )
    return eve, ada


async def test_players_page(make_app, hostile, monkeypatch):
    seen = measured_after(monkeypatch, PlayersScreen, "show_players", "#players-table")
    async with make_app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("p")
        await settle(pilot)
        assert "*" + EVE in strings(pilot.app.screen.query_one("#players-table", DataTable))
    assert [cut for _, _, cut in filled(seen)] == [[]]


async def test_match_detail_and_a_player_s_matches(make_app, hostile, monkeypatch):
    eve, _ = hostile
    detail = measured_after(monkeypatch, MatchDetailScreen, "on_mount", "#md-table")
    recent = measured_after(monkeypatch, PlayerMatchesScreen, "_fill", "#pm-table")
    async with make_app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        group = pilot.app.group
        match = next(
            m
            for m in (await group.matches_page(1)).data
            if any(p.id == eve.id for f in m.factions for p in f.players)
        )
        pilot.app.push_screen(MatchDetailScreen(match))
        await settle(pilot)
        assert "*" + EVE in strings(pilot.app.screen.query_one("#md-table", DataTable))
        assert [cut for _, _, cut in filled(detail)] == [[]]
        await pilot.press("escape")
        pilot.app.push_screen(PlayerMatchesScreen(eve, None, fetch=group.matches_page))
        await settle(pilot)
        assert GAME_SHOWN in strings(pilot.app.screen.query_one("#pm-table", DataTable))
        assert [cut for _, _, cut in filled(recent)] == [[]]


async def test_head_to_head_narrow_and_wide(make_app, hostile, monkeypatch):
    eve, ada = hostile
    seen = measured_after(monkeypatch, HeadToHeadView, "_fill_games", "#h2h-games")
    measured_after(monkeypatch, HeadToHeadView, "_fill_last", "#h2h-last", seen=seen)
    async with make_app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("s", "2")
        await settle(pilot)
        view = pilot.app.screen.query_one(HeadToHeadView)
        del seen[:]
        view.pick(eve.id, ada.id)
        await settle(pilot)
        assert [(selector, cut) for selector, _, cut in filled(seen)] == [
            ("#h2h-games", []),
            ("#h2h-last", []),
        ]
        # narrow: game names cut to GAME_WIDTH cells (not characters), the column that wide
        games = view.query_one("#h2h-games", DataTable)
        shown = str(games.get_row_at(0)[0])
        assert games.ordered_columns[0].width == GAME_WIDTH
        assert cell_len(shown) <= GAME_WIDTH and shown.endswith("…") and shown.startswith("ボードゲ")

        del seen[:]
        await pilot.resize_terminal(120, 40)
        view.pick(eve.id, ada.id)  # drawn again, wide: names whole
        await settle(pilot)
        assert [(selector, cut) for selector, _, cut in filled(seen)] == [
            ("#h2h-games", []),
            ("#h2h-last", []),
        ]
        assert str(games.get_row_at(0)[0]) == GAME_SHOWN


async def test_outbox(make_app, demo_service, monkeypatch):
    seen = measured_after(monkeypatch, OutboxScreen, "show", "#outbox-table")
    client, transport = demo_service.downable_client()
    group = Group(client)  # the seat's group: the app reads through it
    async with make_app(client=group).run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        transport.down = True  # the ghost stays in the outbox
        await pilot.app.outbox_runner.create_ghost(EVE)
        await pilot.press("o")
        await settle(pilot)
        assert "*" + EVE in strings(pilot.app.screen.query_one("#outbox-table", DataTable))
    assert all(cut == [] for _, _, cut in filled(seen)), seen


async def test_import_dry_run(make_app, monkeypatch, tmp_path: Path):
    seen = measured_after(monkeypatch, ImportScreen, "_show", *(f"#import-table-{n}" for n in range(4)))
    plays = tmp_path / "plays.csv"
    plays.write_text(
        f"date,game,player,team,rank,score\n2026-05-01,{GAME},{EVE},,1,10\n2026-05-01,{GAME},Ada,,2,8\n",
        encoding="utf-8",
    )
    async with make_app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.app.switch_mode("import")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, ImportScreen)
        screen.query_one("#import-path").value = str(plays)
        screen.query_one("#import-path").focus()
        await pilot.press("enter")
        await settle(pilot)
        assert any(EVE in s for s in strings(screen.query_one("#import-table-0", DataTable)))
    assert all(cut == [] for _, _, cut in filled(seen)), seen


LONG_NAME = "漢字" * 25
"""50 characters (the service's longest name), 100 cells."""
LONG_GAME = "遊戯" * 25


async def test_a_name_of_100_cells_is_cut_and_leaves_every_column_on_an_80_column_screen(
    make_app, demo_service
):
    async with Group(demo_service.client()) as setup:
        long = await Group.of(setup).create_player(LONG_NAME)
        ada = next(p for p in await Group.of(setup).players() if p.label == "Ada")
        game = await Group.of(setup).create_game(name=LONG_GAME)
        await setup.add_matches(
            NewMatch(
                game=game.id,
                weight="normal",
                factions=[NewFaction(players=[long.id], rank=1), NewFaction(players=[ada.id], rank=2)],
            )
        )
    async with make_app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for key, selector, name in (
            ("r", "#rank-table", "*" + LONG_NAME),
            ("p", "#players-table", "*" + LONG_NAME),
            ("m", "#matches-table", LONG_GAME),
        ):
            await pilot.press(key)
            await settle(pilot)
            table = pilot.app.screen.query_one(selector, DataTable)
            shown = [s for s in strings(table) if s.startswith(name[:5])]
            assert shown and all(s.endswith("…") and NAME_CELLS <= cell_len(s) < 80 for s in shown), (
                selector,
                shown,
            )
            assert table.virtual_size.width <= table.size.width, (selector, table.virtual_size, table.size)
