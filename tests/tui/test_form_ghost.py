"""A ghost made from the match form, where the name is typed: Enter on a name nobody has says so, Enter again
makes the ghost and picks it (two keys from the typed name), in a burst too; a name like one in the group
(ignoring case and accents) is asked about first, as the players screen does: y makes it anyway (three keys)."""

from __future__ import annotations

from rankterm.tui.dialogs.confirm import ConfirmDialog

from .pilot import GAPS, match_count, open_form, send_keys, settle


@GAPS
async def test_enter_twice_on_a_name_nobody_has_makes_the_ghost_and_moves_on(make_app, gap):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        before = await match_count(pilot)
        await send_keys(pilot, "C a t ⏎ Z o e ⏎ ⏎ A d ⏎ ^s", gap)
        assert screen.last_answer is not None and screen.last_answer.accepted_count == 1
        assert await match_count(pilot) == before + 1
        match = (await pilot.app.group.matches_page(1)).data[0]
        assert sorted((f.rank, [p.display_name for p in f.players]) for f in match.factions) == [
            (1, ["*Zoe"]),
            (2, ["Ada"]),
        ]
        assert [p.display_name for p in await pilot.app.group.players()].count("*Zoe") == 1


async def test_a_name_like_a_players_is_asked_about_first(make_app):
    """ "Élèna" is Elena ignoring accents, but the picker finds nobody for it: the form says who is in the
    group before making a second one; Escape goes back to the name, y makes the ghost."""
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await send_keys(pilot, "C a t ⏎ É l è n a ⏎ ⏎", 0.01)
        assert isinstance(pilot.app.screen, ConfirmDialog)
        asked = str(pilot.app.screen.query_one("#confirm-question").render())
        assert asked == "Already in the group: Elena (member). Make the ghost Élèna anyway?"
        await pilot.press("escape")
        await settle(pilot)
        picker = screen.form.rows[0].picker
        assert pilot.app.screen is screen and picker.input.has_focus and picker.text == "Élèna"
        assert picker.chosen == []
        await send_keys(pilot, "⏎ y", 0.01)  # the offer stands: Enter asks again, y makes it
        assert [p.label for p in picker.chosen] == ["*Élèna"]
        assert screen.form.rows[1].picker.input.has_focus
