"""The profile a command works on is chosen by one rule, `Config.chosen_profile`: the one named, else the
default one; a sentence saying which is missing otherwise. Every command that opens a profile says the same."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rankterm.cli import app, board, common, host, web
from rankterm.config import load_config
from rankterm.wire.errors import RanktermError

NAMED = "No profile named 'nowhere' in the config (see `rankterm locate`)."
NONE = "No profile is configured: run `rankterm` to add one, or pass --demo."


def write_config(home: Path, text: str) -> None:
    path = home / "config" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def profile_text(name: str) -> str:
    return f'[profiles.{name}]\nbase_url = "http://127.0.0.1:9"\nkey = "k"\nsecret = "s"\n'


def args(profile: str | None) -> argparse.Namespace:
    return argparse.Namespace(
        profile=None,
        command_profile=profile,
        demo=False,
        host="127.0.0.1",
        port=0,
        join_code=None,
        authorized_keys=None,
        max_seats=12,
    )


def test_the_named_profile_else_the_default_else_the_only_one(isolated: Path) -> None:
    write_config(isolated, 'default_profile = "club"\n' + profile_text("club") + profile_text("home"))
    config = load_config()
    assert config.chosen_profile("home").name == "home"
    assert config.chosen_profile().name == "club"
    write_config(isolated, profile_text("home"))
    assert load_config().chosen_profile().name == "home"


def test_a_missing_profile_is_one_sentence(isolated: Path) -> None:
    write_config(isolated, profile_text("home"))
    with pytest.raises(RanktermError) as named:
        load_config().chosen_profile("nowhere")
    write_config(isolated, "")
    with pytest.raises(RanktermError) as none:
        load_config().chosen_profile()
    assert (str(named.value), str(none.value)) == (NAMED, NONE)


OPENERS: dict[str, Callable[[str | None], Any]] = {
    "headless commands": lambda p: common.open_client(args(p)),
    "web": lambda p: web.run(args(p)),
    "board": lambda p: board.build_board(demo=False, profile=p),
    "host": lambda p: host.run(args(p)),
}


@pytest.mark.parametrize("opener", OPENERS.values(), ids=OPENERS.keys())
def test_every_command_that_needs_a_profile_says_the_same(
    isolated: Path, opener: Callable[[str | None], Any]
) -> None:
    write_config(isolated, profile_text("home"))
    with pytest.raises(
        RanktermError, match=r"^No profile named 'nowhere' in the config \(see `rankterm locate`\)\.$"
    ):
        opener("nowhere")
    write_config(isolated, "")
    with pytest.raises(
        RanktermError, match=r"^No profile is configured: run `rankterm` to add one, or pass --demo\.$"
    ):
        opener(None)


def test_the_app_and_locate_refuse_only_a_name_that_is_not_there(isolated: Path) -> None:
    write_config(isolated, "")
    for opener in (lambda p: app.build_app(demo=False, profile=p), app.locate):
        with pytest.raises(RanktermError, match=r"^No profile named 'nowhere'"):
            opener("nowhere")
    assert app.locate(None) == 0  # no profile yet: the app asks for one, locate says so


@pytest.mark.parametrize("build", [app.build_app, board.build_board], ids=["app", "board"])
def test_the_full_screen_commands_print_the_configs_warnings_first(
    isolated: Path, capsys: pytest.CaptureFixture[str], build: Callable[..., Any]
) -> None:
    write_config(isolated, profile_text("home"))
    (isolated / "config" / "config.toml").chmod(0o644)
    build(demo=True, profile=None)
    err = capsys.readouterr().err
    assert err.startswith("rankterm: warning: ") and "can be read by other users: run chmod 600" in err


def test_several_profiles_and_no_default_say_so_and_name_them(isolated: Path) -> None:
    write_config(isolated, profile_text("club") + profile_text("home"))
    with pytest.raises(RanktermError) as no_default:
        load_config().chosen_profile()
    assert str(no_default.value) == (
        "No default profile among club, home: pass --profile NAME, or set default_profile."
    )
