"""A disk that fills while the app runs: the match cannot be written to the outbox, and the form says so at once
(through the one outcome type: rejected, code `outbox-write`) and keeps the match; once there is room again
the same ctrl+s sends it."""

from __future__ import annotations

from pathlib import Path

from rankterm.client.client import RankingClient
from rankterm.outbox.outbox import Outbox
from rankterm.outbox.outcome import NOT_KEPT
from tests.outbox.mounts import fill, tmpfs

from .pilot import match_count, open_form, quick_fill, settle


async def test_a_full_disk_while_sending_is_said_at_once_and_the_form_keeps_the_match(
    make_app, demo_client: RankingClient, tmp_path: Path
) -> None:
    with tmpfs(tmp_path / "data", "512k") as data:
        path = data / "outbox.db"
        app = make_app(outbox_factory=lambda client, demo: Outbox(path, client.scope))
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await open_form(pilot)
            before = await match_count(pilot)
            await quick_fill(pilot, "Catan", [(["Ada"], 1, "9"), (["Ben"], 2, "7")])
            fill(data)
            await pilot.press("ctrl+s")
            await settle(pilot)
            outcome = screen.last_answer[0]
            assert outcome.rejected and outcome.has_code(NOT_KEPT)
            said = screen.form.answer.text
            assert "Not kept: the outbox could not be written (database or disk is full)" in said
            assert "Sending" not in said and "form is kept" in said
            assert [r.points_input.value for r in screen.form.rows[:2]] == [
                "9",
                "7",
            ]  # the match is still typed
            assert pilot.app.outbox_counts["pending"] == 0 and await match_count(pilot) == before

            (data / "filler").unlink()  # room again: the same keys send it
            await pilot.press("ctrl+s")
            await settle(pilot)
            assert screen.last_answer[0].accepted
            assert await match_count(pilot) == before + 1
