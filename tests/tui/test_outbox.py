"""The outbox in the app: offline entry keeps working, the status line tells, sending resumes, rejected
matches are edited and sent again, revoked credentials go back to the profiles keeping every match."""

from __future__ import annotations

import httpx
from textual.coordinate import Coordinate
from textual.widgets import DataTable

from rankterm.client.client import RankingClient
from rankterm.mirror import Group
from rankterm.outbox.outbox import Outbox, State
from rankterm.server.app import create_app
from rankterm.server.seed import DEMO_KEY, DEMO_SECRET, demo_store
from rankterm.tui import outbox_runner
from rankterm.tui.dialogs.confirm import ConfirmDialog
from rankterm.tui.screens.outbox import COLUMNS, OutboxScreen
from rankterm.tui.widgets.status_line import StatusLine
from rankterm.wire.models import NewFaction, NewMatch
from tests.support.faults import FaultyTransport

from .conftest import DEMO_URL, frozen_clock
from .pilot import match_count, open_form, quick_fill, settle


def faulty_demo() -> tuple[RankingClient, FaultyTransport, object]:
    """A client on a fresh demo group through a transport whose network can be pulled (`.down = True`)."""
    store = demo_store(clock=frozen_clock)
    transport = FaultyTransport(httpx.ASGITransport(app=create_app(store, clock=frozen_clock)))
    http = httpx.AsyncClient(transport=transport, base_url=DEMO_URL)
    client = RankingClient(
        DEMO_URL, key=DEMO_KEY, secret=DEMO_SECRET, http=http, clock=frozen_clock, retries=0, backoff=0
    )
    return client, transport, store


def status(pilot) -> StatusLine:
    return pilot.app.screen.query_one(StatusLine)


async def test_status_line_hidden_while_there_is_nothing_to_say(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert not status(pilot).display
        assert pilot.app.outbox_counts == {"pending": 0, "sent": 0, "rejected": 0}


async def test_offline_entry_is_kept_then_sent_when_the_network_returns(make_app):
    client, transport, store = faulty_demo()
    async with make_app(client=client).run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Ada"], 1, "9"), (["Ben"], 2, "7"), (["Chiara"], 3, "4")])
        transport.down = True
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "saved in the outbox" in screen.form.answer.text
        assert pilot.app.offline and pilot.app.outbox_counts["pending"] == 1
        line = status(pilot)
        assert line.display and "Offline" in str(line.render()) and "1 pending" in str(line.render())
        assert store.match_exists(1, "rt-test-0001") is False

        # More matches can be entered while offline: a rematch goes to the outbox too.
        await pilot.press("ctrl+r")
        await quick_fill(pilot, "Catan", [(["Ada"], 2, "5"), (["Ben"], 1, "8"), (["Chiara"], 3, "1")])
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert pilot.app.outbox_counts["pending"] == 2

        transport.down = False
        pilot.app.outbox_runner.cancel_retry()
        pilot.app.resume_sending()
        await settle(pilot)
        assert pilot.app.outbox_counts == {"pending": 0, "sent": 2, "rejected": 0}
        assert not pilot.app.offline and "Offline" not in str(status(pilot).render())
        assert await match_count(pilot) == 302


async def test_a_rejected_match_is_listed_edited_and_sent_again(make_app):
    async with make_app().run_test(size=(100, 30)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Ada"], 1, "9"), (["Ben"], 2, "7")])
        screen.form.field("external-id").value = "demo-0001"  # the demo's first match has this id: M003
        await pilot.press("ctrl+s")
        await settle(pilot)
        outcome = screen.last_answer[0]
        assert outcome.rejected and outcome.has_code("M003")  # an M003 on a first attempt: a real rejection
        assert f"{outcome.errors[0].message} (M003)" in screen.form.answer.text  # the service's sentence
        assert screen.form.field("external-id").has_class("-invalid")  # pointed at by its code
        assert pilot.app.outbox_counts["rejected"] == 1

        await pilot.press("escape", "o")
        await settle(pilot)
        outbox = pilot.app.screen
        assert isinstance(outbox, OutboxScreen)
        assert [(e.external_id, e.state) for e in outbox.entries] == [("demo-0001", State.REJECTED)]
        assert outbox.entries[0].outcome().codes == ("M003",)
        table = outbox.query_one("#outbox-table", DataTable)
        at = [COLUMNS.index(c) for c in ("State", "External id", "Game")]
        state, external_id, game = (table.get_cell_at(Coordinate(0, i)) for i in at)
        widths = [table.ordered_columns[i].get_render_width(table) - 2 * table.cell_padding for i in at]
        assert [str(state), str(external_id), str(game)] == ["rejected", "demo-0001", "Catan"]
        # no cell clipped to its column's title (the columns were once as narrow as "State", "Game")
        assert all(
            w >= n for w, n in zip(widths, [len("rejected"), len("demo-0001"), len("Catan")], strict=True)
        )

        await pilot.press("e")
        await settle(pilot)
        form_screen = pilot.app.screen
        assert form_screen.form.field("external-id").value == "demo-0001"
        assert [r.points_input.value for r in form_screen.form.rows] == ["9", "7"]
        assert form_screen.form.game_picker.game.name == "Catan"
        # Fixing it here means a fresh external id: the fix takes the rejected entry's place.
        form_screen.form.field("external-id").value = "fixed-0001"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "accepted" in form_screen.form.answer.text
        assert pilot.app.outbox_counts == {"pending": 0, "sent": 1, "rejected": 0}

        await pilot.press("escape", "o")
        await settle(pilot)
        assert [(e.external_id, e.state) for e in pilot.app.screen.entries] == [("fixed-0001", State.SENT)]


async def test_discard_asks_first(make_app):
    async with make_app().run_test(size=(100, 30)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Ada"], 1, "9"), (["Ben"], 2, "7")])
        screen.form.field("external-id").value = "demo-0001"
        await pilot.press("ctrl+s")
        await settle(pilot)
        await pilot.press("escape", "o")
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        assert isinstance(pilot.app.screen, ConfirmDialog)
        assert pilot.app.outbox_counts["rejected"] == 1  # nothing discarded yet
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(pilot.app.screen, OutboxScreen) and pilot.app.outbox_counts["rejected"] == 1
        await pilot.press("x")
        await settle(pilot)
        await pilot.press("enter")  # No has the focus: a habitual Enter keeps the entry
        await settle(pilot)
        assert pilot.app.outbox_counts["rejected"] == 1
        await pilot.press("x")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert pilot.app.outbox_counts == {"pending": 0, "sent": 0, "rejected": 0}


async def test_pending_matches_of_an_earlier_run_are_sent_at_start(make_app, demo_client, tmp_path):
    players = {p.display_name: p.id for p in await Group.of(demo_client).players()}
    catan = next(g.id for g in await Group.of(demo_client).games() if g.name == "Catan")
    path = tmp_path / "outbox.db"
    scope = f"{demo_client.base_url}|{demo_client.key}"
    earlier = Outbox(path, scope)
    earlier.add(
        NewMatch(
            game=catan,
            weight="normal",
            external_id="left-over-1",
            factions=[
                NewFaction(players=[players["Ada"]], rank=1),
                NewFaction(players=[players["Ben"]], rank=2),
            ],
        )
    )
    earlier.close()
    app = make_app(outbox_factory=lambda client, demo: Outbox(path, scope))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert pilot.app.outbox_counts == {"pending": 0, "sent": 1, "rejected": 0}
        assert await pilot.app.client.match_exists("left-over-1")


async def test_revoked_credentials_go_to_the_profiles_and_keep_the_matches(make_app):
    client, _transport, store = faulty_demo()
    async with make_app(client=client).run_test(size=(80, 24)) as pilot:
        await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Ada"], 1, "9"), (["Ben"], 2, "7")])
        store.set_client_disabled(DEMO_KEY)
        client.forget_token()
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert pilot.app.current_mode == "login"
        assert pilot.app.outbox_counts["pending"] == 1  # kept, to be sent once the key works again
        notes = " ".join(str(n.message) for n in pilot.app._notifications)
        assert "A001" in notes and "kept in the outbox" in notes


def footer_text(pilot) -> str:
    """The footer's line as drawn."""
    strips = pilot.app.screen._compositor.render_strips()
    return "".join(segment.text for segment in strips[-1])


async def test_outbox_keys_s_is_stats_ctrl_s_sends_caption_and_footer_say_x_discards(make_app):
    client, transport, _ = faulty_demo()
    async with make_app(client=client).run_test(size=(80, 24)) as pilot:
        await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Ada"], 1, "9"), (["Ben"], 2, "7")])
        transport.down = True
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert pilot.app.outbox_counts["pending"] == 1

        await pilot.press("escape", "o")
        await settle(pilot)
        outbox = pilot.app.screen
        assert isinstance(outbox, OutboxScreen)
        caption, footer = str(outbox.query_one("#outbox-caption").render()), footer_text(pilot)
        assert "x discards" in caption and " x Discard " in footer and "del" not in footer
        assert "e edits" in caption and " e Edit " in footer and " ^s Send now " in footer

        await pilot.press("s")  # Stats, as on every other screen
        await settle(pilot)
        assert pilot.app.current_mode == "stats"

        pilot.app.screen.set_focus(None)
        await pilot.press("o")
        await settle(pilot)
        transport.down = False
        pilot.app.outbox_runner.cancel_retry()
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert pilot.app.current_mode == "outbox"
        assert "Sending the pending entries." in [n.message for n in pilot.app._notifications]
        assert pilot.app.outbox_counts == {"pending": 0, "sent": 1, "rejected": 0}


def shown_status(pilot) -> str:
    """The status line as drawn (what the window's width leaves of it)."""
    line = status(pilot)
    return line.render_line(0).text if line.display else ""


async def test_offline_at_80_columns_the_status_line_keeps_the_outbox_count_and_the_send_is_one_calm_line(
    make_app,
):
    client, transport, _ = faulty_demo()
    async with make_app(client=client).run_test(size=(80, 24)) as pilot:
        await pilot.press("r")  # the standings, read once: offline they come from the mirror, "as of"
        await settle(pilot)
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Ada"], 1, "9"), (["Ben"], 2, "7")])
        transport.down = True
        await pilot.press("ctrl+s")
        await settle(pilot)

        # The match's one line says where it is; nothing in the error colour under it.
        answer = screen.form.answer
        assert [kind for kind, _ in answer.lines if kind == "bad"] == []
        assert "Cannot reach" not in answer.text
        assert len([t for _, t in answer.lines if "saved in the outbox" in t]) == 1

        await pilot.press("escape", "r")
        await settle(pilot)
        assert pilot.app.as_of is not None
        drawn = shown_status(pilot)
        assert drawn.startswith("⚠ Offline · Outbox: 1 pending")
        assert "as of 20:26" in drawn


async def test_the_seat_knocks_only_while_the_service_cannot_be_reached_and_its_answer_brings_it_back(
    make_app, monkeypatch
):
    monkeypatch.setattr(outbox_runner, "KNOCK_EVERY", 0.05)
    monkeypatch.setattr(outbox_runner, "RETRY_DELAYS", (3600.0,))
    client, transport, store = faulty_demo()
    async with make_app(client=client).run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        runner = pilot.app.outbox_runner
        await pilot.pause(0.3)
        assert runner.knocks == 0  # the service answers: nothing more is asked
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Ada"], 1, "9"), (["Ben"], 2, "7")])
        transport.down = True
        await pilot.press("ctrl+s")
        await settle(pilot)
        for _ in range(100):
            if runner.knocks >= 3:
                break
            await pilot.pause(0.05)
        assert runner.knocks >= 3 and pilot.app.offline
        assert pilot.app.outbox_counts["pending"] == 1

        transport.down = False
        for _ in range(100):
            if not pilot.app.outbox_counts["pending"]:
                break
            await pilot.pause(0.05)
        await settle(pilot)
        assert pilot.app.outbox_counts == {"pending": 0, "sent": 1, "rejected": 0}
        assert not pilot.app.offline and pilot.app.screen is screen
        knocks = runner.knocks
        await pilot.pause(0.3)
        assert runner.knocks == knocks  # back: no more knocks
        assert store.match_exists(1, "rt-test-0001")
