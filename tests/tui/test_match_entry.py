"""The match form, driven by a pilot on the in-process demo group: typing, keys, checks, answers, queue.

The shared pilot helpers (`open_form`, `pick_game`, `add_players`, `fill_row`, `settle`) are in `pilot.py`.
"""

from __future__ import annotations

import asyncio

import pytest

from rankterm.mirror import Group
from rankterm.tui.dialogs.confirm import ConfirmDialog
from rankterm.tui.widgets.match_form.draft import DRAFT_EVERY, DraftFile
from rankterm.tui.widgets.match_form.player_chip import PlayerChip
from rankterm.tui.widgets.match_form.player_picker import PlayerPicker
from rankterm.wire.errors import ErrorItem, QuotaError

from .pilot import add_players, count_frames, keys, match_count, open_form, quick_fill, settle

# ---------------------------------------------------------------------- the form


async def test_form_starts_with_two_rows_and_a_generated_external_id(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        rows = screen.form.rows
        assert [r.rank_input.value for r in rows] == ["1", "2"]
        assert screen.form.field("external-id").value == "rt-test-0001"
        assert screen.form.game_picker.input.has_focus


async def test_empty_form_sends_nothing_and_marks_the_fields(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        group = pilot.app.group
        before = group.client.calls
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert group.client.calls == before  # nothing went to the service
        assert screen.form.game_picker.has_class("-invalid")
        problem = str(screen.form.query_one("#form-problem").render())
        assert "Choose a game." in problem
        rows = screen.form.rows
        assert all(r.picker.has_class("-invalid") for r in rows)
        assert "Faction 1 has no players." in str(rows[0].query_one(".problem").render())
        assert screen.form.game_picker.input.has_focus  # the first problem gets the focus


async def test_a_player_twice_and_a_bad_rank_are_caught_before_sending(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Ada"], 1, "10"), (["Ada"], 2, "8")])
        rows = screen.form.rows
        rows[1].rank_input.value = "0"
        count = await match_count(pilot)
        calls = pilot.app.client.calls
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert pilot.app.client.calls == calls
        assert await match_count(pilot) == count
        second = rows[1]
        text = str(second.query_one(".problem").render())
        assert "rank must be a whole number" in text
        assert "A player appears twice" in text
        assert second.rank_input.has_class("-invalid")
        assert second.picker.has_class("-invalid")
        assert not rows[0].has_class("-has-problem")


async def test_points_that_are_not_a_number_are_refused(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Ada"], 1, "1.2.3"), (["Ben"], 2, "8")])
        rows = screen.form.rows
        assert screen.form.collect() is None
        assert rows[0].points_input.has_class("-invalid")


async def test_game_search_falls_back_to_the_catalogue(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        picker = screen.form.game_picker
        picker.focus_input()
        await pilot.press(*keys("calic"))
        await pilot.pause(0.5)  # the debounce timer, then the search worker
        await settle(pilot)
        assert [g.name for g in picker.extra][:1] == ["Calico"]
        assert picker.is_open
        await pilot.press("enter")
        await pilot.pause()
        assert picker.game is not None and picker.game.name == "Calico"
        assert picker.game.id not in {g.id for g in picker.games}  # not one of the group's games


async def test_one_character_does_not_search(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        calls = pilot.app.client.calls
        screen.form.game_picker.focus_input()
        await pilot.press("z")
        await pilot.pause(0.5)
        await settle(pilot)
        assert pilot.app.client.calls == calls


async def test_players_are_chips_backspace_removes_the_last(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        row = screen.form.rows[0]
        await add_players(pilot, row, ["ad", "be"])
        assert [p.label for p in row.picker.chosen] == ["Ada", "Ben"]
        assert len(row.query(PlayerChip)) == 2
        await pilot.press("backspace")
        await pilot.pause()
        assert [p.label for p in row.picker.chosen] == ["Ada"]
        assert len(row.query(PlayerChip)) == 1
        await pilot.click(row.query_one(PlayerChip))  # a click on a chip removes it too
        await pilot.pause()
        assert row.picker.chosen == [] and len(row.query(PlayerChip)) == 0


async def test_bot_toggle_hides_the_players(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        row = screen.form.rows[1]
        row.bot_box.focus()
        await pilot.press("space")
        await pilot.pause()
        assert row.is_bot and row.has_class("-bot")
        assert not row.query_one(PlayerPicker).display
        raw = row.raw()
        assert raw["bot"] and raw["players"] == []


async def test_bot_toggle_on_and_off_differ_without_colour(make_app):
    """In 16 colours (or none) only the text tells on from off: the box must show a mark when on."""
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        box = screen.form.rows[1].bot_box
        off = box.render().plain
        box.value = True
        await pilot.pause()
        on = box.render().plain
        assert off != on and "Bot" in on and "Bot" in off


async def test_rank_10000_shows_whole_in_the_row(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        row = screen.form.rows[0]
        row.rank_input.value = "10000"
        screen.form.rows[1].points_input.focus()
        await pilot.pause()
        shown = "".join(seg.text for seg in row.rank_input.render_line(0))
        assert "10000" in shown, shown


async def test_add_and_remove_factions_with_keys_renumbers(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await pilot.press("ctrl+f")
        await pilot.press("ctrl+f")
        await settle(pilot)
        rows = screen.form.rows
        assert [r.rank_input.value for r in rows] == ["1", "2", "3", "4"]
        assert rows[3].picker.input.has_focus
        rows[1].rank_input.focus()
        await pilot.press("ctrl+d")
        await settle(pilot)
        rows = screen.form.rows
        assert [r.position for r in rows] == [1, 2, 3]
        assert [r.rank_input.value for r in rows] == ["1", "2", "3"]
        # a rank typed by hand (a tie) is kept when rows move
        rows[2].rank_input.value = "1"
        rows[0].rank_input.focus()
        await pilot.press("ctrl+d")
        await settle(pilot)
        assert [r.rank_input.value for r in screen.form.rows] == ["1", "1"]


async def test_custom_name_field_appears_for_custom(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        custom = screen.form.field("custom-name")
        assert not custom.display
        screen.form.query_one("#name-choice").value = "custom"
        await settle(pilot)
        assert custom.display and custom.has_focus


async def test_send_accepted_then_rematch_keeps_game_and_players(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        before = await match_count(pilot)
        await quick_fill(pilot, "Patchwork", [(["Ben"], 1, "20"), (["Greta"], 2, "11")])
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "accepted" in screen.form.answer.text
        assert screen.last_answer is not None and screen.last_answer.accepted_count == 1
        assert await match_count(pilot) == before + 1
        # the same form again sends nothing: it says the match is already recorded (no field is wrong)
        calls = pilot.app.client.calls
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert pilot.app.client.calls == calls
        assert not screen.form.field("external-id").has_class("-invalid")
        assert "already recorded" in screen.form.answer.text
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert screen.form.game_picker.game.name == "Patchwork"
        assert [[p.label for p in r.picker.chosen] for r in screen.form.rows] == [["Ben"], ["Greta"]]
        assert [r.points_input.value for r in screen.form.rows] == ["", ""]
        assert screen.form.field("external-id").value == "rt-test-0002"
        rows = screen.form.rows
        rows[0].rank_input.value = "2"
        rows[1].rank_input.value = "1"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert screen.last_answer.accepted_count == 1
        assert await match_count(pilot) == before + 2


async def test_queue_two_matches_and_send_them_as_one_batch(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        before = await match_count(pilot)
        await quick_fill(pilot, "7 Wonders Duel", [(["Dev"], 1, "60"), (["Chiara"], 2, "52")])
        await pilot.press("ctrl+l")
        await settle(pilot)
        assert len(screen.queue) == 1
        # game and players kept; ranks back to row order, points cleared, a new external id
        assert screen.form.game_picker.game.name == "7 Wonders Duel"
        assert [[p.label for p in r.picker.chosen] for r in screen.form.rows] == [["Dev"], ["Chiara"]]
        assert [r.points_input.value for r in screen.form.rows] == ["", ""]
        assert screen.form.field("external-id").value == "rt-test-0002"
        assert "Queue: 1 match" in str(screen.form.query_one("#queue-line").render())
        rows = screen.form.rows
        rows[0].rank_input.value = "2"
        rows[1].rank_input.value = "1"
        await pilot.press("ctrl+l")
        await settle(pilot)
        assert len(screen.queue) == 2
        group = pilot.app.group
        sent: list[int] = []
        real = group.add_matches

        async def spy(matches, **kw):
            sent.append(len(matches))
            return await real(matches, **kw)

        group.add_matches = spy
        await pilot.press("ctrl+s")  # the untouched form is not sent: only the two queued
        await settle(pilot)
        assert sent == [2]  # one batch of two
        assert screen.last_answer.accepted_count == 2 and screen.last_answer.total == 2
        assert screen.queue == []
        assert await match_count(pilot) == before + 2
        assert screen.form.answer.text.count("accepted") == 2


async def test_a_refused_request_is_one_sentence_and_the_form_stays(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Ada"], 1, "3"), (["Ben"], 2, "2")])

        async def over_quota(*args, **kwargs):
            raise QuotaError("match", 429, [ErrorItem("Q003", "matches per year limit reached")])

        pilot.app.client.add_matches = over_quota
        await pilot.press("f5")  # the F-key twin of ctrl+s
        await settle(pilot)
        text = screen.form.answer.text
        assert "match: matches per year limit reached (Q003)." in text
        assert "Traceback" not in text
        assert not screen.form.loading
        assert [r.points_input.value for r in screen.form.rows] == ["3", "2"]


async def test_a_repeated_external_id_leaves_the_cursor_in_the_external_id_field(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        taken = (await pilot.app.group.matches_page(1)).data[0].external_id  # already recorded
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Elena"], 1, "10"), (["Chiara"], 2, "7")])
        field = screen.form.field("external-id")
        field.value = taken
        screen.form.rows[1].points_input.focus()
        await pilot.press("ctrl+s")
        await settle(pilot)
        await pilot.pause(0.1)  # a focus taken late by the loading cover would show here
        assert "(M003)" in screen.form.answer.text
        assert screen.focused is field
        assert field.has_class("-invalid")


async def test_the_form_does_not_repaint_while_idle(make_app):
    """No blinking cursor, no timer: nothing is drawn while nobody types (over SSH every byte counts)."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        assert screen.form.game_picker.input.has_focus
        await pilot.pause(0.2)
        frames = count_frames(app)
        await asyncio.sleep(1.2)  # more than two blinks of a blinking cursor
        assert frames == []
        await pilot.press("c")  # and typing does draw
        assert frames


# ---------------------------------------------------------------------- lists, offline first


async def test_a_ghost_made_on_another_seat_is_offered_once_the_form_is_entered_again(make_app, demo_service):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        assert "*Kim" not in [p.label for p in screen.form.players]
        async with Group(demo_service.client()) as other_seat:
            await Group.of(other_seat).create_player("Kim")
        await pilot.press("escape", "p")
        await settle(pilot)
        screen = await open_form(pilot)
        row = screen.form.rows[0]
        await add_players(pilot, row, ["Kim"])
        assert [p.label for p in row.picker.chosen] == ["*Kim"]


async def test_the_form_shows_the_mirrors_lists_before_the_service_answers(make_app, demo_service):
    async with make_app().run_test(size=(80, 24)) as pilot:
        await open_form(pilot)
        await pilot.press("escape", "p")
        await settle(pilot)
        async with Group(demo_service.client()) as other_seat:
            await Group.of(other_seat).create_player("Kim")
        group = pilot.app.group
        await group.players(refresh=True)  # e.g. the players screen's filter: the mirror holds *Kim
        held = group.cached_players()
        assert "*Kim" in [p.label for p in held]
        answered = asyncio.Event()
        real_players = group.players

        async def slow_players(**kw):
            await answered.wait()
            return await real_players(**kw)

        group.players = slow_players
        await pilot.press("n")
        await pilot.pause()
        screen = pilot.app.screen
        assert [p.id for p in screen.form.players] == [p.id for p in held]  # at once, no answer yet
        answered.set()
        await settle(pilot)


# ---------------------------------------------------------------------- names that are not ours

EVIL = "Evil [/b] Eve\x1b[2J"


async def test_a_name_with_markup_in_a_row_problem_and_in_the_queue_line_shows_as_typed(
    make_app, demo_client
):
    await Group.of(demo_client).create_player(EVIL)
    async with make_app().run_test(size=(120, 30)) as pilot:
        screen = await open_form(pilot)
        evil = next(p for p in screen.form.players if "Evil" in p.label)
        await quick_fill(pilot, "Catan", [([evil.label], 1, "9"), (["Ben"], 2, "7")])
        row = screen.form.rows[0]
        row.show_problem("players", f"Faction 1: *{EVIL} cannot play this game.")
        await settle(pilot)
        shown = str(row.query_one(".problem").render())
        assert shown == "*Evil [/b] Eve␛[2J cannot play this game."
        await pilot.press("ctrl+l")
        await settle(pilot)
        assert "Queue: 1 match waiting" in str(screen.form.query_one("#queue-line").render())
        assert f"Queued match 1: Catan: {evil.label}, Ben" in screen.form.answer.text
        screen.form.show_queue(f"Queue: *{EVIL} and Ben waiting")  # a line that names a player
        await settle(pilot)
        line = str(screen.form.query_one("#queue-line").render())
        assert line == "Queue: *Evil [/b] Eve␛[2J and Ben waiting"
        await pilot.press("ctrl+r")  # the queue line stays up as the form changes; the app runs on
        await settle(pilot)
        assert pilot.app.is_running


# ---------------------------------------------------------------------- said aloud


@pytest.mark.slow
async def test_one_escape_leaves_a_field_with_its_list_open_and_coming_back_keeps_it_closed(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        picker = screen.form.game_picker
        await pilot.press("C", "a")
        await settle(pilot)
        assert picker.is_open
        await pilot.press("escape")
        await pilot.pause()
        assert not picker.is_open and pilot.app.focused is None
        await pilot.press("p")  # README's "Escape, then the letter"
        await settle(pilot)
        assert type(pilot.app.screen).__name__ == "PlayersScreen"
        await pilot.press("n")
        await settle(pilot)
        assert pilot.app.screen is screen and picker.input.has_focus
        assert not picker.is_open  # the lists came again: the rows below stay in sight
        await quick_fill(pilot, "Catan", [(["Ada"], 1, ""), (["Ben"], 2, "")])
        picker.focus_input()
        await pilot.press("escape", "d", "n")
        await settle(pilot)
        assert picker.game is not None and not picker.is_open  # not sent: kept as it was, list closed
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert screen.last_answer is not None and screen.last_answer.accepted_count == 1
        await pilot.press("escape", "d", "n")
        await settle(pilot)
        # "n" after a recorded match: a new match, typed from the game field
        assert picker.game is None and picker.input.has_focus
        assert [r.picker.chosen for r in screen.form.rows] == [[], []]


async def test_three_chips_leave_room_to_type_at_80x24_and_a_typed_name_is_said(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [([], 1, ""), (["Ben"], 2, "")])
        row = screen.form.rows[0]
        await add_players(pilot, row, ["Chi", "Ele", "Far"])
        await settle(pilot)
        assert [p.label for p in row.picker.chosen] == ["Chiara", "Elena", "Farid"]
        chips = list(row.query(PlayerChip))
        field = row.picker.input
        assert field.region.width >= 10
        assert all(c.region.right <= field.region.x for c in chips)
        assert field.region.right <= row.rank_input.region.x  # nothing pushed over the rank
        await add_players(pilot, row, ["Gre"])  # a fourth: the chips narrow, the field keeps its room
        await settle(pilot)
        assert row.picker.input.region.width >= 10
        assert row.picker.input.region.right <= row.rank_input.region.x
        await pilot.press("D")  # typed, not picked: said, not dropped
        calls = pilot.app.client.calls
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert pilot.app.client.calls == calls
        assert '"D" is typed but not picked' in str(row.query_one(".problem").render())


async def test_tab_and_enter_in_points_move_on_blank_rows_are_left_out_and_ctrl_g_makes_a_bot(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await pilot.press(*keys("Cat"), "enter", "E", "tab", "tab", "1", "0", "enter")
        await pilot.press("A", "tab", "tab", "8", "enter", "B", "enter")
        await settle(pilot)
        rows = screen.form.rows
        assert [[p.label for p in r.picker.chosen] for r in rows] == [["Elena"], ["Ada"], ["Ben"], []]
        assert rows[3].picker.input.has_focus
        match = screen.form.collect()
        assert match is not None and len(match.factions) == 3  # the empty fourth row is not a faction
        assert [(f.rank, f.points) for f in match.factions] == [(1, "10"), (2, "8"), (3, "")]
        await pilot.press("ctrl+g")  # the game plays the fourth faction; on to a fifth
        await settle(pilot)
        rows = screen.form.rows
        assert rows[3].is_bot and rows[4].picker.input.has_focus
        rows[3].rank_input.focus()
        await pilot.press("f2")  # the F-key twin, again: players back
        await settle(pilot)
        assert not rows[3].is_bot and rows[3].picker.input.has_focus
        await pilot.press("enter")  # on an empty faction: the next one
        await settle(pilot)
        assert rows[4].picker.input.has_focus and screen.last_answer is None
        await pilot.press("enter")  # on the empty last one: sent
        await settle(pilot)
        assert screen.last_answer is not None and screen.last_answer.accepted_count == 1
        newest = (await pilot.app.group.matches_page(1)).data[0]
        assert [[p.display_name for p in f.players] for f in newest.factions] == [["Elena"], ["Ada"], ["Ben"]]


async def test_a_date_an_hour_ahead_is_refused_at_the_date_field_and_nothing_is_sent(make_app):
    """The seat's clock judges a typed date as the service would (M010): an hour ahead is said at the Date
    field and nothing is sent; 3 minutes ahead (clocks differ a little) is sent."""
    async with make_app().run_test(size=(80, 24)) as pilot:  # the clock: 2026-05-28 20:26:40 UTC
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Ada"], 1, "9"), (["Ben"], 2, "7")])
        date = screen.form.field("date")
        date.value = "2026-05-28 21:30"
        calls = pilot.app.client.calls
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert pilot.app.client.calls == calls
        problem = str(screen.form.query_one("#form-problem").render())
        future = (
            "The date 2026-05-28 21:30 (UTC) is in the future: a match is recorded once it has been played."
        )
        assert problem == f"✘ {future}"
        assert date.has_class("-invalid") and date.has_focus and date.value == "2026-05-28 21:30"
        assert [r.points_input.value for r in screen.form.rows] == ["9", "7"]
        date.value = "2026-05-28 20:29"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert screen.last_answer is not None and screen.last_answer.accepted_count == 1
        assert (await pilot.app.group.matches_page(1)).data[0].date == "2026-05-28 20:29:00"


async def test_more_points_ranked_below_asks_once_enter_sends_escape_goes_back(make_app):
    """Elena 10 points ranked below Ada 8: the form asks before sending; Escape goes back to Elena's points
    with nothing sent, Enter sends. Points that follow the ranks are sent without a question."""
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Ada"], 1, "8"), (["Elena"], 2, "10")])
        before = await match_count(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        dialog = pilot.app.screen
        assert isinstance(dialog, ConfirmDialog)
        question = "Elena has more points than Ada but ranks below Ada — send anyway?"
        assert str(dialog.query_one("#confirm-question").render()) == question
        await pilot.press("escape")
        await settle(pilot)
        assert pilot.app.screen is screen and screen.last_answer is None
        assert screen.form.rows[1].points_input.has_focus and await match_count(pilot) == before
        await pilot.press("ctrl+s", "enter")
        await settle(pilot)
        assert pilot.app.screen is screen
        assert screen.last_answer is not None and screen.last_answer.accepted_count == 1
        newest = (await pilot.app.group.matches_page(1)).data[0]
        assert [(f.rank, f.points) for f in sorted(newest.factions, key=lambda f: f.rank)] == [
            (1, 8),
            (2, 10),
        ]
        await pilot.press("ctrl+n")
        await quick_fill(pilot, "Catan", [(["Elena"], 1, "10"), (["Ada"], 2, "8")])
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert pilot.app.screen is screen and screen.last_answer.accepted_count == 1
        assert (await pilot.app.group.matches_page(1)).data[0].number == newest.number + 1


@pytest.mark.slow
async def test_a_form_left_unsent_is_offered_on_the_next_n_enter_restores_delete_drops(
    make_app, demo_service
):
    """The form is kept on disk as it is typed: a seat that dies with a half-filled form (here: the app ends
    without sending) finds it again on the next `n`; Enter brings it back, and it can be sent; Delete drops
    it (the form stays blank, and the offer does not come back)."""
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Elena"], 1, "10"), (["Ada"], 2, "8")])
        await settle(pilot, DRAFT_EVERY * 2)
        assert screen.drafts is not None and screen.drafts.read() is not None
    for answer in ("enter", "delete"):
        async with make_app(client=demo_service.client()).run_test(size=(80, 24)) as pilot:
            screen = await open_form(pilot)
            assert screen.form.answer.text.startswith("A match from ")
            assert "was not sent — Enter restores it, Delete drops it." in screen.form.answer.text
            await pilot.press(answer)
            await settle(pilot, DRAFT_EVERY * 2)
            rows = screen.form.rows
            if answer == "delete":
                assert screen.form.game_picker.game is None and not rows[0].picker.chosen
                assert screen.drafts is not None and DraftFile(screen.drafts.group).load() is None
                break
            assert screen.form.game_picker.game is not None and screen.form.game_picker.game.name == "Catan"
            assert [([p.label for p in r.picker.chosen], r.points_input.value) for r in rows[:2]] == [
                (["Elena"], "10"),
                (["Ada"], "8"),
            ]
    async with make_app(client=demo_service.client()).run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        assert screen.offered is None and "was not sent" not in screen.form.answer.text


async def test_a_restored_form_is_sent_and_leaves_no_draft(make_app, demo_service):
    async with make_app().run_test(size=(80, 24)) as pilot:
        await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Elena"], 1, "10"), (["Ada"], 2, "8")])
        await settle(pilot, DRAFT_EVERY * 2)
    async with make_app(client=demo_service.client()).run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        before = await match_count(pilot)
        await pilot.press("enter", "ctrl+s")
        await settle(pilot, DRAFT_EVERY * 2)
        assert screen.last_answer is not None and screen.last_answer.accepted_count == 1
        assert await match_count(pilot) == before + 1
        assert screen.drafts is not None and DraftFile(screen.drafts.group).load() is None


async def test_a_game_search_that_answers_after_the_field_was_left_does_not_open_its_list(
    make_app, monkeypatch
):
    from rankterm.tui.widgets.match_form import game_picker

    monkeypatch.setattr(game_picker, "SEARCH_DELAY", 1.0)  # the catalogue answers once the seat came back
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        picker = screen.form.game_picker
        await pilot.press("C", "a", "escape", "p")
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        assert pilot.app.screen is screen and picker.input.has_focus and not picker.is_open
        await pilot.pause(1.5)
        assert picker.extra  # the search did answer
        assert not picker.is_open


async def test_escape_while_a_send_is_under_way_keeps_the_focus_out_for_the_screen_keys(
    make_app, demo_service
):
    from rankterm.tui.screens.service import ServiceScreen

    from .pilot import late_client

    group, transport = late_client(demo_service)
    async with make_app(client=group).run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Elena"], 1, "10"), (["Ada"], 2, "8")])
        transport.answers.clear()  # the service answers the send once the test lets it
        await pilot.press("ctrl+s")
        await pilot.pause(0.05)
        assert screen.sending
        await pilot.press("escape")  # before the answer: the letters are the screens' again
        transport.answers.set()
        for _ in range(100):
            if not screen.sending:
                break
            await pilot.pause(0.05)
        await settle(pilot)
        assert screen.last_answer is not None and screen.last_answer.accepted_count == 1
        assert screen.focused is None  # the answer did not put the cursor back in a field
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(pilot.app.screen, ServiceScreen)
