"""`rankterm` and `rankterm demo` start the app without building the whole command line (~15 ms of CPU
before the first screen); every other form still goes through the parser."""

from __future__ import annotations

import pytest

import rankterm.cli
import rankterm.cli.app


@pytest.fixture
def started(monkeypatch) -> list[tuple[bool, str | None]]:
    runs: list[tuple[bool, str | None]] = []

    def run_app(*, demo: bool, profile: str | None) -> int:
        runs.append((demo, profile))
        return 0

    monkeypatch.setattr(rankterm.cli.app, "run_app", run_app)
    return runs


def test_the_app_and_the_demo_start_without_the_parser(started, monkeypatch):
    def no_parser():
        raise AssertionError("the parser was built")

    monkeypatch.setattr(rankterm.cli, "parser", no_parser)
    assert rankterm.cli.main(["demo"]) == 0
    assert rankterm.cli.main([]) == 0
    assert started == [(True, None), (False, None)]


def test_other_forms_still_go_through_the_parser(started, capsys):
    assert rankterm.cli.main(["--profile", "room"]) == 0
    assert rankterm.cli.main(["demo"]) == 0
    with pytest.raises(SystemExit) as done:
        rankterm.cli.main(["demo", "--help"])
    assert done.value.code == 0 and "demo" in capsys.readouterr().out
    assert started == [(False, "room"), (True, None)]
