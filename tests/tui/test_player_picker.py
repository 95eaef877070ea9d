"""The right player: typing a name offers the member before the ghost of that name, the latest to play first,
and two players of one name are told apart."""

from __future__ import annotations

from rankterm.mirror import Group
from rankterm.tui.recency import Recent, recent_play
from rankterm.tui.widgets.match_form.player_picker import PlayerPicker, order_players
from rankterm.wire.models import Game, Match, Player

from .conftest import settle


def player(pid: str, name: str, ghost: bool = False) -> Player:
    return Player(id=pid, ghost=ghost, username="" if ghost else name.lower(), display_name=name)


ADA = player("member00ada", "Ada")
GHOST_ADA = player("ghost000ada", "*Ada", ghost=True)
ADAM = player("member0adam", "Adam")
ADALINE = player("ghost0adali", "*Adaline", ghost=True)


def test_the_exact_name_then_members_before_ghosts():
    everyone = [GHOST_ADA, ADALINE, ADAM, ADA]
    assert order_players("Ada", everyone, {}) == [ADA, GHOST_ADA, ADAM, ADALINE]
    assert order_players("*ada", everyone, {})[:2] == [ADA, GHOST_ADA]


def test_then_whoever_played_last():
    zed, zoe = player("member00zed", "Zed"), player("member00zoe", "Zoe")
    recent = {zoe.id: Recent("2026-05-28 20:00:00", "Catan"), zed.id: Recent("2026-05-01 20:00:00", "Azul")}
    assert order_players("z", [zed, zoe], recent) == [zoe, zed]
    assert order_players("z", [zed, zoe], {}) == [zed, zoe]


def test_recent_play_keeps_each_players_latest_match():
    def match(date: str, game: str, *players: Player) -> Match:
        return Match.model_validate(
            {
                "date": date,
                "game": Game(id=1, name=game).to_wire(),
                "factions": [{"rank": i + 1, "players": [p.to_wire()]} for i, p in enumerate(players)],
            }
        )

    matches = [match("2026-05-02 10:00:00", "Azul", ADA, ADAM), match("2026-05-09 10:00:00", "Catan", ADA)]
    assert recent_play(matches) == {
        ADA.id: Recent("2026-05-09 10:00:00", "Catan"),
        ADAM.id: Recent("2026-05-02 10:00:00", "Azul"),
    }


async def test_enter_on_ada_picks_the_member_and_namesakes_are_told_apart(make_app, demo_client):
    ghost = await Group.of(demo_client).create_player("Ada")  # "*Ada": a ghost named like the member Ada
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        picker = app.screen.query(PlayerPicker).first()
        picker.focus_input()
        await pilot.press("A", "d", "a")
        await settle(pilot)
        shown = picker._shown
        assert [p.label for p in shown[:2]] == ["Ada", "*Ada"]
        prompts = [picker.suggestion_prompt(p) for p in shown[:2]]
        assert "last played" in prompts[0]  # the member has matches in the demo group
        assert prompts[1].endswith(f"· id {ghost.id}")  # the new ghost has none: its id tells it apart
        await pilot.press("enter")
        await settle(pilot)
        assert [p.label for p in picker.chosen] == ["Ada"] and not picker.chosen[0].ghost


def test_a_first_letter_picks_the_name_that_starts_with_it_whoever_played_last():
    ben, elena = player("member00ben", "Ben"), player("member0elena", "Elena")
    recent = {ben.id: Recent("2026-05-28 20:00:00", "Catan"), elena.id: Recent("2026-04-01 20:00:00", "Azul")}
    assert order_players("e", [ben, elena], recent) == [elena, ben]  # "Ben" holds an e, played later
    assert order_players("e", [ben, elena], {}) == [elena, ben]  # the same before the matches were read
    hugo = player("ghost00hugo", "*Hugo", ghost=True)
    chiara = player("member0chia", "Chiara")
    assert order_players("h", [chiara, hugo], {})[0] == hugo  # a ghost's name starting with it first


async def test_a_name_picked_before_the_players_came_waits_then_becomes_the_player_or_is_said(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        form = app.screen.form
        games, players = form.game_picker.games, form.players
        rows = form.rows
        for row in rows:  # as before the group's players arrive
            row.picker.players, row.picker.loaded = [], False
        rows[0].picker.focus_input()
        await pilot.press("E", "l", "enter", "Z", "z", "enter")
        await settle(pilot)
        assert [c.waiting for c in rows[0].picker.waiting_chips] == ["El"]
        assert [c.waiting for c in rows[1].picker.waiting_chips] == ["Zz"]
        assert form.waiting
        form.set_lists(games, players)
        await settle(pilot)
        assert [p.label for p in rows[0].picker.chosen] == ["Elena"] and not form.waiting
        assert rows[1].picker.unknown == ["Zz"]
        assert form.collect() is None
        assert 'Nobody in the group matches "Zz".' in str(rows[1].query_one(".problem").render())
