"""Themes: the shipped TOML files, user themes, broken files skipped with a notice, the choice remembered."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from rankterm.config import config_path, load_config, user_themes_dir
from rankterm.tui.themes import load_themes, shipped_themes_dir, theme_from_file
from rankterm.tui.widgets.usage_bar import UsageBar


def test_the_shipped_themes_load():
    loaded = load_themes([shipped_themes_dir()])
    names = {t.name for t in loaded.themes}
    assert {"rankterm-dark", "rankterm-light", "rankterm-contrast"} <= names
    assert loaded.problems == []
    contrast = next(t for t in loaded.themes if t.name == "rankterm-contrast")
    assert contrast.background.upper() == "#000000" and contrast.foreground.upper() == "#FFFFFF"


def test_broken_files_are_named_in_one_sentence_and_skipped(tmp_path: Path):
    (tmp_path / "a-good.toml").write_text('primary = "#336699"\n')
    (tmp_path / "b-not-toml.toml").write_text("primary = #336699\n")
    (tmp_path / "c-bad-colour.toml").write_text('primary = "blurple"\n')
    (tmp_path / "d-unknown-key.toml").write_text('primary = "#336699"\nsparkle = true\n')
    (tmp_path / "e-no-primary.toml").write_text('background = "#000000"\n')
    loaded = load_themes([tmp_path])
    assert [t.name for t in loaded.themes] == ["a-good"]
    assert len(loaded.problems) == 4
    for problem, stem in zip(loaded.problems, "bcde", strict=True):
        assert f"{stem}-" in problem and problem.endswith("skipped.") and "\n" not in problem


def test_a_user_theme_replaces_a_shipped_one_of_the_same_name(tmp_path: Path):
    (tmp_path / "mine.toml").write_text('name = "rankterm-dark"\nprimary = "#FF0000"\n')
    loaded = load_themes([shipped_themes_dir(), tmp_path])
    dark = [t for t in loaded.themes if t.name == "rankterm-dark"]
    assert len(dark) == 1 and dark[0].primary == "#FF0000"
    assert theme_from_file(tmp_path / "mine.toml").primary == "#FF0000"


async def test_the_app_uses_the_default_theme_and_registers_user_themes(make_app, wait):
    folder = user_themes_dir()
    folder.mkdir(parents=True)
    (folder / "club.toml").write_text('primary = "#AA5500"\ndark = false\n')
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        assert app.theme == "rankterm-dark"
        assert "club" in app.available_themes
        assert not app._notifications  # nothing broken, nothing said


async def test_a_broken_user_theme_is_reported_and_skipped(make_app, wait):
    folder = user_themes_dir()
    folder.mkdir(parents=True)
    (folder / "broken.toml").write_text('primary = "#12"\n[[oops\n')
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        messages = [n.message for n in app._notifications]
        assert any("broken.toml" in m and "skipped" in m for m in messages), messages
        assert "broken" not in app.available_themes
        assert app.theme == "rankterm-dark"  # the app still starts with the default


async def test_a_theme_picked_is_saved_to_the_config(make_app, wait):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        await pilot.press("ctrl+t")
        await wait(pilot)
        await pilot.press(*"rankterm-light", "enter")
        await wait(pilot)
        assert app.theme == "rankterm-light"
    saved = tomllib.loads(config_path().read_text())
    assert saved["theme"] == "rankterm-light"
    assert load_config().theme == "rankterm-light"


async def test_the_remembered_theme_is_used_at_start(make_app, wait):
    from rankterm.config import Config

    app = make_app(config=Config(theme="rankterm-contrast"))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        assert app.theme == "rankterm-contrast"
        assert not config_path().exists()  # starting does not rewrite the config


async def test_an_unknown_remembered_theme_falls_back_with_a_notice(make_app, wait):
    from rankterm.config import Config

    app = make_app(config=Config(theme="gone"))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        assert app.theme == "rankterm-dark"
        assert any("'gone'" in n.message for n in app._notifications)


async def test_no_color_gives_a_monochrome_service_screen_that_still_shows_the_bars(
    make_app, wait, monkeypatch
):
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        await pilot.press("d")  # the quota bars are on the Service screen
        await wait(pilot)
        assert app.no_color
        svg = app.export_screenshot()
        bars = list(app.screen.query(UsageBar))
        assert len(bars) == 9
        text = str(bars[0].render())
        assert "░" in text and "%" in text
    colours = {c.lower() for c in re.findall(r"fill: (#[0-9a-fA-F]{6})", svg)} - {"#c5c8c6"}  # frame
    greys = {c for c in colours if c[1:3] == c[3:5] == c[5:7]}
    assert colours == greys, colours - greys
