"""Login / profiles: test a connection, save a profile, open one, open the demo group."""

from __future__ import annotations

import tomllib

from textual.widgets import Input, OptionList, Static

from rankterm.config import Config, Profile, config_path
from rankterm.tui.screens.home import HomeScreen
from rankterm.tui.screens.login import LoginScreen
from rankterm.tui.screens.service import ServiceScreen
from rankterm.tui.widgets.usage_bar import UsageBar

URL = "http://demo.rankterm/"


def status_text(app) -> str:
    return str(app.screen.query_one("#login-status", Static).render())


async def fill(pilot, *, name="club", url=URL, key="demo", secret="", env=""):
    screen = pilot.app.screen
    for field, value in (
        ("f-name", name),
        ("f-url", url),
        ("f-key", key),
        ("f-secret", secret),
        ("f-env", env),
    ):
        screen.query_one(f"#{field}", Input).value = value
    await pilot.pause()


async def test_a_wrong_secret_gives_one_sentence(make_app, wait):
    app = make_app(client=None, demo=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        await fill(pilot, secret="not-the-secret")
        await pilot.press("f3")
        await wait(pilot)
        text = status_text(app)
        assert "auth" in text and "A001" in text, text
        assert text.count(".") >= 1 and "\n" not in text and "Traceback" not in text
        assert app.screen.query_one("#login-status").has_class("-error")
        assert app.client is None  # a test never opens the profile


async def test_the_right_secret_connects_and_shows_the_status(make_app, wait, demo_service):
    app = make_app(client=None, demo=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        await fill(pilot, secret=demo_service.secret)
        await pilot.press("f3")
        await wait(pilot)
        assert status_text(app).startswith(f"Connected to {URL}: status ok")


async def test_the_secret_can_come_from_an_env_var(make_app, wait, demo_service, monkeypatch):
    monkeypatch.setenv("CLUB_SECRET", demo_service.secret)
    app = make_app(client=None, demo=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        await fill(pilot, secret="ignored", env="CLUB_SECRET")
        await pilot.press("f3")
        await wait(pilot)
        assert status_text(app).startswith("Connected")


async def test_the_secret_field_is_masked(make_app, wait):
    app = make_app(client=None, demo=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        await fill(pilot, secret="hunter2")
        assert app.screen.query_one("#f-secret", Input).password
        assert "hunter2" not in app.export_screenshot()


async def test_a_bad_url_is_refused_inline_before_any_call(make_app, wait):
    app = make_app(client=None, demo=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        await fill(pilot, url="ftp://x")
        await pilot.press("ctrl+s")
        await wait(pilot)
        assert "base URL" in status_text(app)
        assert app.screen.query_one("#f-url").has_class("-invalid")
        assert not config_path().exists()


async def test_save_writes_the_profile_to_config_toml(make_app, wait):
    app = make_app(client=None, demo=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        await fill(pilot, name="club", env="CLUB_SECRET")
        await pilot.press("ctrl+s")
        await wait(pilot)
        options = app.screen.query_one("#login-list", OptionList)
        labels = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert labels == ["Built-in demo, not saved", "club (default)"]
    saved = tomllib.loads(config_path().read_text())
    assert saved["default_profile"] == "club"
    assert saved["profiles"]["club"] == {"base_url": URL, "key": "demo", "secret_env": "CLUB_SECRET"}


async def test_open_a_saved_profile_goes_home(make_app, wait, demo_service):
    config = Config(profiles={"club": Profile(base_url=URL, key="demo", secret=demo_service.secret)})
    app = make_app(client=None, demo=False, config=config)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        await pilot.press("down")  # from the demo group to "club": the form fills in
        await wait(pilot)
        assert app.screen.query_one("#f-name", Input).value == "club"
        await pilot.press("enter")
        await wait(pilot)
        assert isinstance(app.screen, HomeScreen)
        assert app.client is not None and app.sub_title == "club" and not app.demo


async def test_f2_opens_the_demo_group_home_and_d_its_bars_and_counters(make_app, wait):
    app = make_app(client=None, demo=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        assert isinstance(app.screen, LoginScreen)
        await pilot.press("f2")
        await wait(pilot)
        assert isinstance(app.screen, HomeScreen)
        assert app.demo and app.client is not None
        assert app.sub_title == "built-in demo, not saved"
        assert "Ada" in str(app.screen.query_one("#home-standings").render())
        await pilot.press("d")
        await wait(pilot)
        assert isinstance(app.screen, ServiceScreen)
        assert len(app.screen.query(UsageBar)) == 9  # the quota bars
        assert "processed" in str(app.screen.query_one("#service-counters-text", Static).render())


async def test_a_missing_env_var_is_named(make_app, wait, monkeypatch):
    monkeypatch.delenv("CLUB_SECRET", raising=False)
    app = make_app(client=None, demo=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        await fill(pilot, env="CLUB_SECRET")
        await pilot.press("ctrl+o")
        await wait(pilot)
        assert (
            status_text(app) == "The environment variable CLUB_SECRET is not set: it should hold the secret."
        )
        assert isinstance(app.screen, LoginScreen) and app.client is None


async def test_saving_a_profile_keeps_what_the_form_does_not_show(make_app, wait):
    """A profile's `timezone` and `verify_tls = false` are not in the form: saving it (a new key typed) keeps
    them; saved under a new name, the copy keeps them too."""
    held = Profile(
        base_url=URL, key="old", secret_env="CLUB_SECRET", verify_tls=False, timezone="Pacific/Auckland"
    )
    app = make_app(config=Config(profiles={"club": held}), client=None, demo=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        screen = app.screen
        assert isinstance(screen, LoginScreen)
        screen.fill_form(held)
        screen.query_one("#f-key", Input).value = "demo"
        await pilot.press("ctrl+s")
        await wait(pilot)
        screen.query_one("#f-name", Input).value = "club-copy"
        await pilot.press("ctrl+s")
        await wait(pilot)
    saved = tomllib.loads(config_path().read_text())["profiles"]
    expected = {
        "base_url": URL,
        "key": "demo",
        "secret_env": "CLUB_SECRET",
        "verify_tls": False,
        "timezone": "Pacific/Auckland",
    }
    assert saved["club"] == expected
    assert saved["club-copy"] == expected
