"""`rankterm --profile NAME` starts the app as `rankterm` does, without building the whole command line: every
command's module (stats, odds, export, import, host, web, ...) would be imported for nothing and held for the
app's whole life (benchmarks/bench_memory.py, the app on a remote service). The short way must read exactly
what the parser reads, and leave every other command line to it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from rankterm import cli
from tests.support.terminal import home_env


def _by_the_parser(argv: list[str]) -> str | None:
    """The profile the whole parser opens the app on for `argv`; None when it runs a command or refuses."""
    try:
        args = cli.parser().parse_args(argv)
    except SystemExit:
        return None
    return None if getattr(args, "run", None) is not None else args.profile


@pytest.mark.parametrize(
    "argv",
    [
        ["--profile", "room"],
        ["--profile=room"],
        ["--profile", "demo"],
        ["--profile="],
        ["--profile", "room", "games"],
        ["--profile"],
        ["--profile", "--version"],
        ["games", "--profile", "room"],
        ["--profile=room", "rankings"],
    ],
)
def test_the_short_way_opens_the_profile_the_parser_would(argv, capsys):
    short = cli.app_profile(argv)  # None: the parser reads it, as before
    assert short is None or short == _by_the_parser(argv)
    capsys.readouterr()


def test_the_short_way_takes_only_the_app_alone():
    assert cli.app_profile(["--profile", "room"]) == "room"
    assert cli.app_profile(["--profile=room"]) == "room"
    for other in (["--profile", "room", "games"], ["--profile"], ["--profile", "-h"], ["--prof", "room"], []):
        assert cli.app_profile(other) is None


CHILD = """
import json, sys
import rankterm.cli
import rankterm.cli.app as app

def run_app(*, demo, profile):  # stands in for the app: what was loaded by the time it would start
    print(json.dumps({"demo": demo, "profile": profile, "modules": sorted(sys.modules)}))
    return 0

app.run_app = run_app
sys.exit(rankterm.cli.main(["--profile", "room"]))
"""


def test_rankterm_with_a_profile_imports_no_commands_module(tmp_path):
    env = home_env(tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", CHILD], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert (seen["demo"], seen["profile"]) == (False, "room")
    commands = sorted(m for m in seen["modules"] if m.startswith("rankterm.cli.") and m != "rankterm.cli.app")
    assert commands == [], commands
