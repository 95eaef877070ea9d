"""A guest seat's app (`RanktermApp(guest=True)`, what `rankterm seat` runs for `host` and `web`): every palette
entry of every screen run, and every key that once left the group or wrote on the host pressed; the config is
byte-identical, nothing is written outside the data and cache folders, the profiles and the import screen
cannot be opened, and a sentence naming a path of the host's is shown without it."""

from __future__ import annotations

import inspect
import os
from pathlib import Path

import pytest

from rankterm.config import config_path, data_dir, load_config
from rankterm.tui.app import GUEST_CLOSED_MODES, MODE_NAMES
from rankterm.tui.base import HOST_FILE

from .pilot import drain, settle

CONFIG = (
    '# the host\'s own\ntheme = "textual-dark"\ndefault_profile = "club"\n\n'
    '[profiles.club]\nbase_url = "http://demo.rankterm/"\nkey = "demo"\nsecret = "host-only-secret"\n'
)


@pytest.fixture
def host_config(isolated_paths: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The host's config.toml, and HOME in the test's folder (where a screenshot would be saved)."""
    monkeypatch.setenv("HOME", str(isolated_paths))
    monkeypatch.setenv("XDG_DOWNLOAD_DIR", str(isolated_paths / "Downloads"))
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(CONFIG, encoding="utf-8")
    return path


def listing(home: Path) -> dict[str, tuple[int, int]]:
    """Every file and folder under `home` but the data and cache folders: size and modification."""
    found = {}
    for folder, dirs, files in os.walk(home):
        here = Path(folder)
        dirs[:] = [d for d in dirs if here / d not in (home / "data", home / "cache")]
        for name in [*dirs, *files]:
            info = (here / name).stat()
            found[str((here / name).relative_to(home))] = (info.st_size, info.st_mtime_ns)
    return found


GUEST_MODES = [m for m in MODE_NAMES if m not in GUEST_CLOSED_MODES]
WALKS = {"odd": GUEST_MODES[0::2], "even": GUEST_MODES[1::2]}
"""The guest's screens in two walks, each on one app, so that the two workers walk side by side: a screen
mounted once serves every later palette entry that opens it (a fresh app a screen mounted every screen again
for each, twice the work)."""


async def run_every_palette_entry(app, pilot, mode: str) -> list[str]:
    """Every palette entry of `mode`'s screen run from that screen (Quit named, not run), each followed by
    closing what it opened and going back to `mode`; the entries' titles."""
    await app.switch_mode(mode)
    await drain(pilot)
    ran: list[str] = []
    for command in list(app.get_system_commands(app.screen)):
        title = str(command.title)
        ran.append(title)
        if title.startswith("Quit"):
            continue
        result = command.callback()
        if inspect.isawaitable(result):
            await result
        await drain(pilot)
        while len(app.screen_stack) > 1:
            app.pop_screen()
            await drain(pilot)
        assert app.current_mode not in GUEST_CLOSED_MODES, title
        if app.current_mode != mode:
            await app.switch_mode(mode)
            await drain(pilot)
    return ran


@pytest.mark.slow
@pytest.mark.parametrize("walk", WALKS)
async def test_every_palette_entry_of_every_guest_screen_leaves_the_host_alone(
    make_app, host_config: Path, isolated_paths: Path, walk: str
) -> None:
    before, config = listing(isolated_paths), host_config.read_bytes()
    app = make_app(config=load_config(), demo=False, guest=True)
    offered: dict[str, list[str]] = {}
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for mode in WALKS[walk]:
            offered[mode] = await run_every_palette_entry(app, pilot, mode)
        await settle(pilot, 0.5)  # a timer the last entries started fires while the app is still there
        assert app.is_running
    for mode, ran in offered.items():
        assert len(ran) > 5, mode  # the screen's entries and the app's, run
        words = " ".join(ran).lower()
        for word in ("theme", "screenshot", "import", "profiles", "demo group"):
            assert word not in words, mode
    assert host_config.read_bytes() == config
    assert listing(isolated_paths) == before


async def test_the_keys_that_left_the_group_or_wrote_the_config_do_nothing_on_a_guest_seat(
    make_app, host_config: Path, isolated_paths: Path
) -> None:
    before, config = listing(isolated_paths), host_config.read_bytes()
    app = make_app(config=load_config(), demo=False, guest=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        theme = app.theme
        for key in ("l", "ctrl+t", "f2", "f3", "ctrl+s", "escape"):
            await pilot.press(key)
            await settle(pilot)
            assert app.current_mode == "home", key
        assert app.theme == theme
        app.action_screenshot()
        assert app.deliver_screenshot() is None
        await app.action_open_mode("login")
        await app.action_open_mode("import")
        assert app.current_mode == "home"
        with pytest.raises(Exception, match="login"):
            await app.switch_mode("login")  # the screen is not even there
        app.theme = "textual-light"  # however a theme came to change, it is not saved
        await settle(pilot)
    assert host_config.read_bytes() == config
    assert listing(isolated_paths) == before


async def test_a_guest_seat_says_a_sentence_that_names_a_host_path_without_the_path(
    make_app, host_config: Path
) -> None:
    outbox = data_dir() / "outbox.db"
    app = make_app(config=load_config(), demo=False, guest=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.say(f"The outbox {outbox} is damaged; it was moved to {outbox}.bad and started afresh.")
        app.screen.say(f"{host_config} cannot be read.", "error", to="both")
        await settle(pilot)
        shown = " ".join(str(n.message) for n in app._notifications)
    assert str(host_config.parent) not in shown and str(outbox) not in shown
    assert f"The outbox {HOST_FILE} is damaged; it was moved to {HOST_FILE} and started afresh." in shown
    assert f"{HOST_FILE} cannot be read." in shown


async def test_a_refused_profile_keeps_a_guest_on_its_screen(make_app, host_config: Path) -> None:
    from rankterm.wire.errors import AuthError

    app = make_app(config=load_config(), demo=False, guest=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.credentials_refused(AuthError("auth", 401))
        await settle(pilot)
        assert app.current_mode == "home"
        shown = " ".join(str(n.message) for n in app._notifications)
    assert "The service refused the host's profile: tell the host." in shown
