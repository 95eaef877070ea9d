"""`rankterm import` as a script runs it: the dry run as JSON, a real import into the in-process demo
group, a second import of the same file recording nothing, and the exit code of a file it cannot read.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rankterm.cli import import_plays, main, parser
from rankterm.cli.app import make_demo_client
from rankterm.cli.common import run_headless

FIXTURES = Path(__file__).parent.parent / "fixtures" / "import"


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("RANKTERM_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setenv("RANKTERM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RANKTERM_DATA_DIR", str(tmp_path / "data"))


def test_dry_run_as_json_records_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", str(FIXTURES / "plays.xml"), "--demo", "--dry-run", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)["dryRun"]
    assert (out["kind"], out["plays"], out["toRecord"]) == ("bgg", 11, 6)  # no map: the co-op loss is skipped
    assert {p["source"]: p["how"] for p in out["players"]}["Ada"] == "same name"  # the demo's Ada
    reasons = {s["externalId"]: s["reason"] for s in out["skippedPlays"]}
    assert reasons["bgg-104"] == "marked incomplete on BGG"


def test_import_then_the_same_file_again(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mapping = tmp_path / "players.toml"
    mapping.write_text('[games]\ncooperative = ["Pandemic"]\n')
    parsed = parser().parse_args(["import", str(FIXTURES / "plays.csv"), "--map", str(mapping), "--demo"])
    client = make_demo_client()  # one demo group for both runs (each `--demo` run would make its own)
    assert run_headless(parsed, import_plays.run_import, client) == 0
    first = capsys.readouterr()
    assert "Recorded 5 matches" in first.err and "To record: 5 matches" in first.out
    assert run_headless(parsed, import_plays.run_import, client) == 0
    second = capsys.readouterr()
    assert "To record: 0 matches" in second.out and "already recorded: 5" in second.out
    assert "nothing new to record" in second.err


def test_a_file_it_cannot_read_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    junk = tmp_path / "notes.txt"
    junk.write_text("milk, eggs\n")
    assert main(["import", str(junk), "--demo", "--dry-run"]) == 2
    assert "not a file rankterm can import" in capsys.readouterr().err
    bad_map = tmp_path / "map.toml"
    bad_map.write_text("[players]\nAda = 3\n")
    assert main(["import", str(FIXTURES / "plays.csv"), "--demo", "--map", str(bad_map)]) == 2
    assert "map.toml" in capsys.readouterr().err


def test_json_is_one_document_with_the_dry_run_and_what_was_sent(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", str(FIXTURES / "bgstats.json"), "--demo", "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["dryRun"]["toRecord"] == 8
    assert document["sent"]["recorded"] == 8 and document["sent"]["waiting"] == 0
