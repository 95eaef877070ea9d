"""ctrl+s again on a form whose match was just recorded sends nothing and says so plainly, naming the match
(by its number once the service has it, else as waiting in the outbox): an answer, not an error."""

from __future__ import annotations

from rankterm.tui.widgets.match_form.answer import BAD
from tests.tui.pilot import match_count, open_form, quick_fill, settle


def _problem(screen) -> str:
    return str(screen.form.query_one("#form-problem").render())


async def test_ctrl_s_again_after_an_accepted_match_names_it(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Elena"], 1, "9"), (["Ada"], 2, "7")])
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert screen.last_answer is not None and screen.last_answer.accepted_count == 1
        number = (await pilot.app.group.matches_page(1)).data[0].number
        before = await match_count(pilot)
        for _ in range(2):  # a third press says it once, not twice
            await pilot.press("ctrl+s")
            await settle(pilot)
        assert await match_count(pilot) == before
        assert _problem(screen) == ""
        assert all(kind != BAD for kind, _ in screen.form.answer.lines)
        said = [text for _, text in screen.form.answer.lines if "already recorded" in text]
        assert len(said) == 1
        assert f"match {number}" in said[0] and "Catan" in said[0]


async def test_ctrl_s_again_after_a_match_kept_in_the_outbox_says_it_waits(make_app, demo_service):
    client, transport = demo_service.downable_client()
    async with make_app(client=client).run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        transport.down = True
        await quick_fill(pilot, "Catan", [(["Elena"], 1, "9"), (["Ada"], 2, "7")])
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert screen.last_answer is not None and screen.last_answer[0].waiting
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert _problem(screen) == ""
        assert all(kind != BAD for kind, _ in screen.form.answer.lines)
        said = [text for _, text in screen.form.answer.lines if "already recorded" in text]
        assert len(said) == 1 and "outbox" in said[0]
        assert len(pilot.app.session.outbox.entries()) == 1


async def test_ctrl_l_after_a_recorded_match_queues_nothing_and_says_why(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Elena"], 1, "9"), (["Ada"], 2, "7")])
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert screen.last_answer is not None and screen.last_answer.accepted_count == 1
        await pilot.press("ctrl+l")
        await settle(pilot)
        assert screen.queue == []
        assert _problem(screen) == ""
        assert any("already recorded" in text for _, text in screen.form.answer.lines)
