"""A base URL no request can use, in the app: the Profiles form refuses it on the spot (save, test, open)
and says why under the form; a client that has one anyway shows the sentence and the seat stays up.

Before, the form took `http://127.0.0.1:99999/` as it was: F3 said "Testing the connection…" forever,
ctrl+o "Opening …" forever (the worker's OverflowError was not a RanktermError), ctrl+s saved it silently;
and the app on such a client ended with a traceback when its first list was read."""

from __future__ import annotations

from textual.widgets import Input, Static

from rankterm.client.client import RankingClient
from rankterm.config import config_path
from tests.tui.pilot import settle

BAD = {
    "http://127.0.0.1:99999/": 'The base URL must have a port from 1 to 65535, not "99999".',
    "http://127.0.0.1:abc/": 'The base URL must have a port from 1 to 65535, not "abc".',
    "http://[::1/": "The base URL must close the brackets of its IPv6 host",
}


def status_text(app) -> str:
    return str(app.screen.query_one("#login-status", Static).render())


async def test_the_profiles_form_refuses_the_url_and_says_why(make_app):
    app = make_app(client=None, demo=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        for url, sentence in BAD.items():
            for key in ("ctrl+s", "f3", "ctrl+o"):  # save, test, open
                for field, value in (
                    ("f-name", "bad2"),
                    ("f-url", url),
                    ("f-key", "demo"),
                    ("f-secret", "s"),
                ):
                    screen.query_one(f"#{field}", Input).value = value
                screen.query_one("#f-name", Input).focus()
                await pilot.pause()
                await pilot.press(key)
                await settle(pilot)
                text = status_text(app)
                assert text.startswith(sentence) and "\n" not in text, (key, text)
                field = screen.query_one("#f-url", Input)
                assert field.has_class("-invalid") and field.has_focus, key
                assert field.value == url  # nothing typed is lost
                assert app.screen is screen and app.client is None and app.is_running
    assert not config_path().exists()


async def test_the_app_on_a_client_with_such_a_url_says_so_and_stays_up(make_app):
    client = RankingClient("http://127.0.0.1:99999/", key="k", secret="s", retries=0)
    app = make_app(client=client, demo=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for key in "rpm":  # rankings, players, matches: each reads its list, and says why it cannot
            await pilot.press(key)
            await settle(pilot)
            screen = app.screen
            said = str(screen.query_one(screen.INFO, Static).render())
            assert said.endswith(
                'The base URL http://127.0.0.1:99999/ must have a port from 1 to 65535, not "99999".'
            ), (
                type(screen).__name__,
                said,
            )
        assert app.is_running
