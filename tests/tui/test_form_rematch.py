"""ctrl+r (rematch) on a blank form: the last match recorded here comes back (same game and players, results
cleared), whether the form was left since, the service is gone, or the app was started again without it;
with nothing recorded yet it says so, and a match offered from an earlier session stays offered."""

from __future__ import annotations

from rankterm.mirror import Group, Mirror
from rankterm.outbox.outbox import Outbox
from rankterm.tui.dialogs.confirm import ConfirmDialog
from rankterm.wire.ids import is_local_id
from tests.tui.pilot import catan_duel, match_count, open_form, quick_fill, record_waiting, settle


def _sides(screen) -> list[list[str]]:
    return [[p.label for p in row.picker.chosen] for row in screen.form.rows if row.picker.chosen]


async def test_rematch_after_leaving_the_form_offline_brings_the_last_match_back(make_app, demo_service):
    client, transport = demo_service.downable_client()
    async with make_app(client=client).run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        transport.down = True
        sent = await record_waiting(pilot, "Elena", "Ada")
        await pilot.press("o")  # a look at the outbox, then back: the recorded form gave way to a blank one
        await settle(pilot)
        screen = await open_form(pilot)
        assert screen.form.game_picker.game is None
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert screen.form.game_picker.game is not None and screen.form.game_picker.game.name == "Catan"
        assert _sides(screen) == [["Elena"], ["Ada"]]
        assert [r.points_input.value for r in screen.form.rows] == ["", ""]
        assert [r.rank_input.value for r in screen.form.rows] == ["1", "2"]
        assert screen.form.field("external-id").value not in ("", sent)
        assert "Rematch" in screen.form.answer.text


async def test_rematch_after_a_restart_without_the_service_brings_the_last_match_back(
    make_app, demo_service, tmp_path
):
    path = tmp_path / "outbox.db"

    def outbox(client, demo):
        return Outbox(path, client.scope)

    def seat():  # the profile's mirror and outbox on disk, its network cut at will
        client, transport = demo_service.downable_client()
        return Group(client, Mirror(tmp_path / "mirror.db")), transport

    group, transport = seat()
    async with make_app(client=group, outbox_factory=outbox).run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        transport.down = True
        sent = await record_waiting(pilot, "Ben", "Chiara")
    group, transport = seat()
    transport.down = True
    async with make_app(client=group, outbox_factory=outbox).run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = await open_form(pilot)
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert screen.form.game_picker.game is not None and screen.form.game_picker.game.name == "Catan"
        assert _sides(screen) == [["Ben"], ["Chiara"]]
        assert [r.points_input.value for r in screen.form.rows] == ["", ""]
        assert screen.form.field("external-id").value not in ("", sent)


async def test_rematch_with_nothing_recorded_says_so_and_leaves_the_form_blank(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert screen.form.game_picker.game is None
        text = screen.form.answer.text
        assert "same game and players" not in text
        assert "No match recorded here yet" in text


async def test_rematch_keeps_the_game_and_players_of_a_form_being_typed(make_app):
    """A form with a match typed (not the last one recorded) keeps its own game and players: only the
    results are cleared, once the person says so (they were typed and not sent)."""
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Ada"], 1, "9"), (["Ben"], 2, "7")])
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert screen.last_answer is not None and screen.last_answer.accepted_count == 1
        await pilot.press("n")
        await settle(pilot)
        await quick_fill(pilot, "Patchwork", [(["Greta"], 1, "20"), (["Dev"], 2, "11")])
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert isinstance(pilot.app.screen, ConfirmDialog)  # the points typed and not sent: asked first
        await pilot.press("n")
        await settle(pilot)
        assert [r.points_input.value for r in screen.form.rows][:2] == ["20", "11"]
        await pilot.press("ctrl+r")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert screen.form.game_picker.game.name == "Patchwork"
        assert _sides(screen) == [["Greta"], ["Dev"]]
        assert [r.points_input.value for r in screen.form.rows] == ["", ""]


async def test_rematch_on_a_blank_form_offering_an_unsent_match_answers_the_offer_first(
    make_app, demo_service
):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Ada"], 1, "9"), (["Ben"], 2, "7")])
        screen.keep_draft_now()  # the app is gone before its draft timer: what a killed seat leaves
    async with make_app(client=demo_service.client()).run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        assert screen.offered is not None
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert screen.offered is not None
        assert "Enter restores it" in screen.form.answer.text
        await pilot.press("enter")
        await settle(pilot)
        assert _sides(screen) == [["Ada"], ["Ben"]]
        assert [r.points_input.value for r in screen.form.rows] == ["9", "7"]


async def test_rematch_of_a_match_naming_a_ghost_made_since_shows_the_ghost_by_name(make_app, demo_service):
    """A ghost typed in the form while the service was gone (a local id), made by the service once it came
    back: the rematch names it, not by the local id the match was recorded with."""
    client, transport = demo_service.downable_client()
    async with make_app(client=client).run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        transport.down = True
        await quick_fill(pilot, "Catan", [(["Ada"], 1, "")])
        row = screen.form.rows[1]
        row.picker.focus_input()
        await pilot.press(*"Zoe", "enter", "enter")
        await settle(pilot)
        assert [p.label for p in row.picker.chosen] == ["*Zoe"]
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert screen.last_answer is not None and screen.last_answer[0].waiting
        transport.down = False
        pilot.app.resume_sending()
        await settle(pilot)
        assert pilot.app.outbox_counts.get("pending", 0) == 0
        await pilot.press("o")
        await settle(pilot)
        await open_form(pilot)
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert _sides(screen) == [["Ada"], ["*Zoe"]]
        assert not any(is_local_id(p.id) for row in screen.form.rows for p in row.picker.chosen)


async def test_rematch_after_queueing_then_send_sends_the_queue_alone(make_app):
    """ctrl+l keeps game and players for the next match, and ctrl+s then sends the queue alone; a ctrl+r
    between them (the same form under a new external id) adds no match nobody typed a result for."""
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        before = await match_count(pilot)
        await quick_fill(pilot, "Catan", [(["Ada"], 1, "9"), (["Ben"], 2, "7")])
        await pilot.press("ctrl+l")
        await settle(pilot)
        assert len(screen.queue) == 1
        await pilot.press("ctrl+r")
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert screen.last_answer is not None and len(screen.last_answer.outcomes) == 1
        assert await match_count(pilot) == before + 1


async def test_rematch_on_a_blank_form_does_not_replay_another_running_app_of_the_profile(
    make_app, demo_service, tmp_path
):
    """Two apps of one profile on one machine share the outbox: a match the other one recorded (it is still
    running) is not this app's last match; once that app has ended, its match is an earlier session's."""
    path = tmp_path / "outbox.db"
    client, _transport = demo_service.downable_client()
    async with make_app(
        client=client, outbox_factory=lambda client, demo: Outbox(path, client.scope)
    ).run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        other = Outbox(path, pilot.app.session.outbox.outbox.scope)  # the other app's, still open
        other.add(await catan_duel(pilot.app.group, "other-app-1", "Dev", "Greta"))
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert screen.form.game_picker.game is None
        assert "No match recorded here yet" in screen.form.answer.text
        other.close()  # that app ended
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert _sides(screen) == [["Dev"], ["Greta"]]
