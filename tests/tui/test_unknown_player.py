"""A name in a faction's player field that no player of the group matches: Enter says so in one sentence, shown
as typed, and keeps the text for mending, so nobody at the table thinks the key was lost."""

from __future__ import annotations

from rankterm.tui.widgets.match_form.player_picker import PlayerPicker

from .pilot import keys, open_form, pick_game, settle


async def test_enter_on_a_name_nobody_has_says_so_as_typed_and_keeps_it(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await pick_game(pilot, "Cat")
        await settle(pilot)
        picker = screen.form.query(PlayerPicker).first()
        assert picker.input.has_focus
        await pilot.press(*keys("Evil [/b] Eve"), "enter")
        await settle(pilot)
        toasts = [n.message for n in pilot.app._notifications]
        assert any("No player is called “Evil [/b] Eve”" in text for text in toasts), toasts
        assert picker.input.value == "Evil [/b] Eve"
        assert picker.input.has_focus
        assert picker.chosen == []
