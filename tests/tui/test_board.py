"""The scoreboard, driven by a pilot on the demo group in-process: what it shows, the kiosk
that shows nothing else, another seat's match arriving (marked, then the game's standings in turn), names shown
as typed, a board at rest that writes nothing, and `rankterm board` on the command line."""

from __future__ import annotations

import asyncio

import pytest
from textual.content import Content

from rankterm.cli import parser
from rankterm.cli.board import build_board
from rankterm.mirror import Group
from rankterm.stats.effect import match_effect, signed
from rankterm.tui.screens.board import BoardScreen
from rankterm.tui.widgets.board.panels import LastMatchPanel, RecentPanel, StandingsPanel
from rankterm.tui.widgets.board.podium import EffectBox, PodiumBox
from rankterm.wire.models import NewFaction, NewMatch

from .pilot import count_frames, settle


def text_of(screen: BoardScreen, panel: type) -> str:
    return str(screen.query_one(panel).render())


def podium_titles(screen: BoardScreen) -> list[str]:
    return [
        Content.from_markup(box.border_title or "").plain for box in screen.query(PodiumBox) if box.display
    ]


async def open_board(pilot) -> BoardScreen:
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, BoardScreen)
    return screen


async def record_duel(group, winner: str, loser: str, external_id: str) -> int:
    """Another seat records a 7 Wonders Duel; the new match's number."""
    group = Group.of(group)  # a client: read through its group
    ids = {p.display_name: p.id for p in await group.players(refresh=True)}
    duel = next(g for g in await group.games() if g.name == "7 Wonders Duel")
    answer = await group.add_matches(
        NewMatch(
            game=duel.id,
            weight="normal",
            external_id=external_id,
            factions=[NewFaction(players=[ids[winner]], rank=1), NewFaction(players=[ids[loser]], rank=2)],
        )
    )
    assert answer.accepted_count == 1
    return (await group.matches_page(1)).data[0].number


async def test_the_board_shows_the_standings_the_last_match_and_the_last_five(make_app, demo_client):
    app = make_app(home="board", kiosk=True)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_board(pilot)
        effect = await match_effect(pilot.app.group, 300)
        assert podium_titles(screen) == ["1  Ada", "2  Chiara", "3  Elena"]
        standings = text_of(screen, StandingsPanel).splitlines()
        assert standings[1].split()[:2] == ["4", "Ben"] and len(standings) == 8  # head + places 4 to 10
        greta = next(line for line in standings if "Greta" in line)
        greta_change = next(p for p in effect.players if p.name == "Greta").delta
        assert greta_change is not None and round(greta_change) != 0
        assert greta.rstrip().endswith(
            signed(greta_change)
        )  # she played the last match: her change is marked
        last = text_of(screen, LastMatchPanel).splitlines()
        assert last[0].startswith("LAST MATCH #300 Catan")
        assert [line.split()[1] for line in last[1:]] == [p.name for p in effect.players]
        for line, player in zip(
            last[1:], effect.players, strict=True
        ):  # each change as the service's standings
            assert player.delta is not None and signed(player.delta) in line
            move = f"{player.position_before}→{player.position_after}"
            assert (move in line) == player.moved, (line, player)
        recent = text_of(screen, RecentPanel).splitlines()
        assert [line.split()[0] for line in recent[1:]] == ["#300", "#299", "#298", "#297", "#296"]
        assert len(screen.views) == 1  # the demo's last match is a day old: no cycle
        assert app.current_mode == "board"

        # a match of twenty newcomers with long names: at 80x24 what does not fit is counted, never cut off
        guests = [
            await Group.of(demo_client).create_player(f"Guest with a long name {i:02d}") for i in range(20)
        ]
        catan = next(g for g in await Group.of(demo_client).games() if g.name == "Catan")
        places = [NewFaction(players=[g.id], rank=i + 1) for i, g in enumerate(guests)]
        await demo_client.add_matches(NewMatch(game=catan.id, weight="normal", factions=places))
        app.group_changed()
        await settle(pilot)
        standings = text_of(screen, StandingsPanel).splitlines()
        last = text_of(screen, LastMatchPanel).splitlines()
        assert len(standings) == 17  # the panel's height: a head, 15 places, what is not shown
        assert standings[-1].strip() == "+ 7 more (to #25, and beyond)"  # 30 ranked, 25 a page
        assert last[0] == "LAST MATCH #301 Catan · 28 May 20:26"
        assert last[-1].strip() == f"+ {20 - (len(last) - 2)} more" and "new (→" not in last[-1]
        assert all("…  new →" in line for line in last[1:-1])  # " 1. *Guest with a long…  new →8"
        recent = text_of(screen, RecentPanel).splitlines()
        assert [line.split()[0] for line in recent[1:]] == ["#301", "#300", "#299", "#298", "#297"]


async def test_another_seats_match_is_marked_and_its_games_standings_take_turns(make_app, demo_service):
    other = demo_service.client()
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("b")  # in the app, b opens the board
        screen = await open_board(pilot)
        ghost = await Group.of(other).create_player("Evil [/b] Eve")
        number = await record_duel(other, ghost.display_name, "Ada", "seat-2-1")
        app.group_changed()  # what the live probe calls when it notices the other seat's match
        await settle(pilot)
        assert screen.view.match.number == number
        assert list(screen.views) == [None, "g286"] and screen.cycling
        assert "*Evil [/b] Eve" in text_of(screen, LastMatchPanel)  # shown as typed, never markup
        boxes = [
            Content.from_markup(b.border_title or "").plain for b in screen.query(EffectBox) if b.display
        ]
        assert boxes == ["1. *Evil [/b] Eve", "2. Ada"]
        screen.flip()  # what the cycle's timer does after MAIN_SECONDS
        await pilot.pause()
        assert screen.view.title == "7 Wonders Duel" and screen.view.subset_id == "g286"
        duel = await match_effect(Group.of(other), number, "g286")
        assert screen.view.effect == duel and duel.before_number == 291  # that game's previous match
        assert "7 Wonders Duel" in str(screen.query_one("#board-title").render())
        screen.cycle_until = 0.0  # the match is no longer fresh
        screen._turn()
        await pilot.pause()
        assert list(screen.views) == [None] and screen.view.title == "Main" and screen._timer is None
        await pilot.press("o")  # not a kiosk: the other screens are a key away
        await pilot.pause()
        assert app.current_mode == "outbox"
        await other.aclose()


async def test_a_kiosk_board_at_rest_writes_nothing_shows_nothing_else_and_quits_at_once(make_app):
    app = make_app(home="board", kiosk=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_board(pilot)
        await pilot.pause(0.2)
        frames = count_frames(app)
        await asyncio.sleep(0.8)
        assert frames == []
        app.screen.reload_data()  # revalidated, nothing changed: nothing drawn
        await settle(pilot)
        assert frames == []
        for key in ("n", "d", "r", "l", "o"):  # a kiosk shows nothing else
            await pilot.press(key)
            await pilot.pause()
            assert app.current_mode == "board"
        await pilot.press("q")
        await pilot.pause()
        assert app._exit  # nothing can be entered here: nothing to ask about


def test_rankterm_board_is_a_command_that_builds_a_kiosk(monkeypatch):
    args = parser().parse_args(["board", "--demo"])
    assert args.run.__name__ == "run_board" and args.demo
    app = build_board(demo=True, profile=None)
    assert app.kiosk and app.home == "board" and app.client is None and app.demo
    with pytest.raises(Exception, match="No profile"):
        build_board(demo=False, profile=None)


async def test_two_newcomers_who_tie_share_a_place_and_their_boxes_show_the_ree_they_entered_with(
    make_app, demo_client
):
    tia, tom = (
        await Group.of(demo_client).create_player("Tia"),
        await Group.of(demo_client).create_player("Tom"),
    )
    catan = next(g for g in await Group.of(demo_client).games() if g.name == "Catan")
    await demo_client.add_matches(
        NewMatch(
            game=catan.id,
            weight="normal",
            factions=[NewFaction(players=[tia.id], rank=1), NewFaction(players=[tom.id], rank=1)],
        )
    )
    app = make_app(home="board", kiosk=True)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await open_board(pilot)
        rows = {r.player.id: r for r in screen.views[None].rows}
        assert rows[tia.id].ree == rows[tom.id].ree and rows[tia.id].position != rows[tom.id].position
        shared = min(rows[tia.id].position, rows[tom.id].position)
        standings = text_of(screen, StandingsPanel).splitlines()
        places = {line.split()[0] for line in standings if "*Tia" in line or "*Tom" in line}
        assert places == {str(shared)}
        boxes = [box for box in screen.query(EffectBox) if box.display]
        assert len(boxes) == 2
        for box in boxes:
            assert box.query_one("Digits").value == str(round(rows[tia.id].ree))  # not an empty box
            assert Content.from_markup(box.border_subtitle or "").plain == f"new, →{shared}"
