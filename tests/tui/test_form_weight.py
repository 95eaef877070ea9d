"""The weight follows the game picked: what the group's matches of that game held by the seat use most,
else the game's own weight, else normal; still changeable, and kept when the same game is picked again."""

from __future__ import annotations

from rankterm.mirror import Group
from rankterm.wire.models import NewFaction, NewMatch, Weight

from .pilot import open_form, sequence, settle, type_at


async def test_the_demos_brass_recorded_from_the_form_is_stored_heavy(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await type_at(pilot, sequence("B r a ⏎ E ⏎ A ⏎"), 0)
        await settle(pilot)
        assert screen.form.query_one("#weight").value == Weight.HEAVY  # the form shows it before sending
        await pilot.press("ctrl+s")
        await settle(pilot)
        match = (await pilot.app.group.matches_page(1)).data[0]
        assert match.game is not None and match.game.name == "Brass: Birmingham"
        assert match.weight == "heavy"


async def test_the_groups_held_matches_decide_and_a_weight_changed_by_hand_stays(make_app, demo_client):
    """More Catan matches recorded light than the demo's normal ones (the game says normal), held in the
    seat's mirror: Catan is proposed light; set to heavy by hand, Enter on Catan again keeps heavy."""
    group = Group(demo_client)  # the seat's group: the app is opened on it, its mirror holds the matches
    players = {p.display_name: p.id for p in await group.players()}
    await group.sync_matches()
    normal = len(group.mirror.held.select_matches(game_id="1"))
    assert normal > 0
    light = [
        NewMatch(
            game=1,
            weight=Weight.LIGHT,
            external_id=f"light-{number}",
            factions=[
                NewFaction(players=[players["Ada"]], rank=1),
                NewFaction(players=[players["Ben"]], rank=2),
            ],
        )
        for number in range(normal + 1)
    ]
    assert (await group.add_matches(light)).accepted_count == normal + 1
    await group.sync_matches()
    async with make_app(client=group).run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        weight = screen.form.query_one("#weight")
        await type_at(pilot, sequence("C a t ⏎"), 0)
        await settle(pilot)
        assert weight.value == Weight.LIGHT
        weight.value = Weight.HEAVY
        screen.form.game_picker.focus_input()
        await pilot.press("enter")
        await settle(pilot)
        assert weight.value == Weight.HEAVY
        await type_at(pilot, sequence("E ⏎ G ⏎ ^s"), 0)
        await settle(pilot)
        assert (await pilot.app.group.matches_page(1)).data[0].weight == "heavy"
