"""The tests' own set-up installs what they drive when it is missing, and says in one sentence when it cannot."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests import needs


def test_a_need_already_met_installs_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_install(*args: object, **kwargs: object) -> None:
        raise AssertionError("nothing should be installed for a program that is there")

    monkeypatch.setattr(subprocess, "run", no_install)
    need = needs.Need("sh", "dash", ("sh",))
    monkeypatch.setitem(needs.NEEDS, "sh", need)
    assert needs.ensure("sh") == needs.found(need)
    assert Path(needs.ensure("sh")).name == "sh"


def test_a_package_apt_refuses_is_one_sentence_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = tmp_path / "calls"
    apt = tmp_path / "apt-get"
    apt.write_text(f'#!/bin/sh\necho "$@" >> {calls}\necho "E: Unable to locate package $6" >&2\nexit 100\n')
    apt.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(needs, "LOCK", tmp_path / "lock")
    monkeypatch.setattr(needs.os, "geteuid", lambda: 0)
    monkeypatch.setitem(
        needs.NEEDS, "nothing", needs.Need("nothing", "no-such-package", ("no-such-program",))
    )
    with pytest.raises(needs.Unmet) as raised:
        needs.ensure("nothing")
    message = str(raised.value)
    assert "no-such-package" in message and "\n" not in message
    tried = calls.read_text().splitlines()
    assert [line.split()[1] for line in tried] == [
        "install",
        "update",
        "install",
    ]  # lists refreshed once, then again
