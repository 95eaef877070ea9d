"""`rankterm admin` on both engines: groups and clients made, listed, renamed, purged; a revoked or rotated
client refused by a service already running on the database; quota limits per group read again by it; and a
backup restored (on the same engine and across) with every group's matches and standings as before."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from rankterm.cli import main
from rankterm.server import app as service_app
from rankterm.server.app import create_app
from rankterm.server.db.copying import TABLES
from rankterm.server.store import Store
from tests.conftest import postgres_url
from tests.server.played import Group, season

NOW = 1_764_000_000.0
BASE_URL = "http://rankterm.test/"


@pytest.fixture(params=("sqlite", "postgresql"))
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A new service database (made as `rankterm serve` makes it) on each engine."""
    name = str(tmp_path / "service.db") if request.param == "sqlite" else postgres_url()
    Store(name).close()
    return name


@pytest.fixture
def store(db: str) -> Iterator[Store]:
    """The database as a running service holds it (a store of its own, beside the admin command's)."""
    with Store(db, clock=lambda: NOW) as s:
        yield s


def admin(db: str, *args: str, answer: str = "") -> tuple[int, str, str]:
    """Run ``rankterm admin --db DB ARGS`` with `answer` on stdin: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("sys.stdout", out)
        mp.setattr("sys.stderr", err)
        mp.setattr("sys.stdin", io.StringIO(answer))
        code = main(["admin", "--db", db, *args])
    return code, out.getvalue(), err.getvalue()


def admin_json(db: str, *args: str) -> Any:
    code, out, err = admin(db, *args, "--format", "json")
    assert code == 0, err
    return json.loads(out)


async def login(http: httpx.AsyncClient, key: str, secret: str) -> httpx.Response:
    return await http.get("auth", params={"key": key, "secret": secret})


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def group_rows(store: Store, group_id: int) -> dict[str, int]:
    """How many rows of each table belong to the group (through what each row hangs from)."""
    from rankterm.server.groups import PURGE

    with store._read() as conn:
        return {
            table: conn.execute(f"SELECT count(*) FROM {table} WHERE {cond}", (group_id,)).fetchone()[0]
            for table, cond in PURGE
        }


def test_group_add_and_list_answer_the_issue_s_json_shapes(db: str, store: Store) -> None:
    added = admin_json(db, "group", "add", "Thursday club")
    assert set(added) == {"group", "name", "key", "secret"} and added["name"] == "Thursday club"
    club = Group.reopened(store, added["group"])
    club.players = [store.create_player(club.id, n).id for n in ("Ann", "Bob", "Cy")]
    club.games = [store.create_game(club.id, bgg_id=13).id]
    club.accept([_duel(club, 0, 1), _duel(club, 1, 2)])
    other = admin_json(db, "group", "add", "Café")
    assert admin_json(db, "client", "add", "--group", str(other["group"]))["group"] == other["group"]

    listed = admin_json(db, "group", "list")
    assert listed == [
        {"id": added["group"], "name": "Thursday club", "players": 3, "matches": 2, "clients": 1},
        {"id": other["group"], "name": "Café", "players": 0, "matches": 0, "clients": 2},
    ]
    assert admin(db, "group", "rename", str(other["group"]), "Café Meeple")[0] == 0
    assert admin_json(db, "group", "list")[1]["name"] == "Café Meeple"


def _duel(group: Group, winner: int, loser: int) -> dict:
    return {
        "game": group.games[0],
        "weight": "normal",
        "date": f"2025-10-0{winner + 1} 20:00:00",
        "factions": [
            {"players": [group.players[winner]], "rank": 1},
            {"players": [group.players[loser]], "rank": 2},
        ],
    }


@pytest.mark.parametrize("bad", ["", "   ", "x" * 101, "bell\x07"])
def test_a_bad_group_name_is_one_sentence_and_nothing_is_made(db: str, store: Store, bad: str) -> None:
    code, out, err = admin(db, "group", "add", bad)
    assert (
        code == 2 and out == "" and err.startswith("rankterm admin: a group's name") and err.count("\n") == 1
    )
    assert store.groups() == []


async def test_a_revoked_client_s_token_stops_at_once_on_the_running_service(db: str, store: Store) -> None:
    added = admin_json(db, "group", "add", "Club")
    app = create_app(store)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE_URL) as http:
        token = (await login(http, added["key"], added["secret"])).json()["success"]["token"]
        assert (await http.get("status", headers=bearer(token))).status_code == 200

        assert admin(db, "client", "revoke", added["key"])[0] == 0

        refused = await http.get("status", headers=bearer(token))
        assert refused.json()["errors"][0]["code"] == "A002"
        assert (await login(http, added["key"], added["secret"])).json()["errors"][0]["code"] == "A001"
    code, _, err = admin(db, "client", "revoke", "no-such-key")
    assert code == 2 and "no API client has the key" in err


async def test_a_rotated_client_s_old_secret_and_tokens_stop_and_the_new_secret_works(
    db: str, store: Store
) -> None:
    added = admin_json(db, "group", "add", "Club")
    app = create_app(store)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE_URL) as http:
        old = (await login(http, added["key"], added["secret"])).json()["success"]["token"]

        rotated = admin_json(db, "client", "rotate", added["key"])
        assert set(rotated) == {"key", "secret"} and rotated["secret"] != added["secret"]

        assert (await http.get("status", headers=bearer(old))).json()["errors"][0]["code"] == "A002"
        assert (await login(http, added["key"], added["secret"])).json()["errors"][0]["code"] == "A001"
        new = (await login(http, added["key"], rotated["secret"])).json()["success"]["token"]
        assert (await http.get("status", headers=bearer(new))).status_code == 200


def test_a_purge_is_said_and_asked_first_and_leaves_no_row_of_the_group(db: str, store: Store) -> None:
    doomed, kept = Group(store, "Doomed"), Group(store, "Kept")
    doomed.accept(season(doomed, 12), batch=4)
    kept.accept(season(kept, 12, seed=2), batch=4)
    store.create_client(doomed.id)
    admin(db, "quota", "set", "calls=9", "--group", str(doomed.id))
    before = kept.everything()
    rows = group_rows(store, doomed.id)
    assert rows["matches"] == 12 and rows["rating_history"] > 0 and rows["group_quota_limits"] == 2

    code, _, err = admin(db, "group", "delete", str(doomed.id))
    assert code == 2 and "--purge" in err
    code, out, _ = admin(db, "group", "delete", str(doomed.id), "--purge", answer="no\n")
    assert code == 1 and "12 matches" in out and "Nothing was deleted." in out
    assert group_rows(store, doomed.id) == rows

    code, out, _ = admin(db, "group", "delete", str(doomed.id), "--purge", answer=f"{doomed.id}\n")
    assert code == 0 and f"Deleted group {doomed.id}" in out
    assert set(group_rows(store, doomed.id).values()) == {0}
    assert store.groups() == [(kept.id, "Kept")]
    assert kept.everything() == before


async def test_quota_set_for_a_group_reaches_the_running_service_and_not_the_other_groups(
    db: str, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(service_app, "QUOTA_READ_EVERY", 0.0)
    limited, free = admin_json(db, "group", "add", "Limited"), admin_json(db, "group", "add", "Free")
    app = create_app(store)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE_URL) as http:
        tokens = {}
        for group in (limited, free):
            tokens[group["group"]] = (await login(http, group["key"], group["secret"])).json()["success"][
                "token"
            ]

        code, out, _ = admin(db, "quota", "set", "calls=0", "--group", str(limited["group"]))
        assert code == 0 and f"group {limited['group']} (Limited): calls 0/hour 0/year" in out

        refused = await http.get("status", headers=bearer(tokens[limited["group"]]))
        assert refused.status_code == 429 and refused.json()["errors"][0]["code"].startswith("Q")
        assert (await http.get("status", headers=bearer(tokens[free["group"]]))).status_code == 200
    code, _, err = admin(db, "quota", "set", "calls=0", "--group", "999")
    assert code == 2 and "there is no group 999" in err


def _history(store: Store) -> list[Group]:
    groups = [Group(store, f"Club {i}") for i in range(3)]
    for i, group in enumerate(groups):
        group.accept(season(group, 10 + 3 * i, seed=i), batch=5)
    return groups


@pytest.mark.parametrize("into", ["same", "sqlite"])
def test_every_group_s_matches_and_standings_are_the_same_after_a_restore(
    db: str, store: Store, tmp_path: Path, into: str
) -> None:
    groups = _history(store)
    before = {g.id: g.everything() for g in groups}
    backup = tmp_path / "backup.db"
    code, out, err = admin(db, "backup", str(backup))
    assert code == 0, err
    assert "Backed up 3 groups, 39 matches" in out

    target = db if into == "same" else str(tmp_path / "restored.db")
    if into == "same":  # what the backup does not hold goes
        groups[0].accept(
            [{**m, "id": f"late{i}"} for i, m in enumerate(season(groups[0], 3, seed=9, day=20))]
        )
        admin(db, "group", "delete", str(groups[1].id), "--purge", "--yes")
        assert admin(target, "restore", str(backup), answer="no\n")[0] == 1
    code, out, err = admin(target, "restore", str(backup), answer="restore\n")
    assert code == 0, err
    assert "Restored 3 groups, 39 matches" in out

    with Store(target, clock=lambda: NOW) as restored:
        after = {g.id: Group.reopened(restored, g.id).everything() for g in groups}
        with restored._read() as conn:
            counts = {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}
        new = restored.create_group("After")  # ids go on after the restored ones
    assert after == before
    assert counts["matches"] == 39 and counts["groups"] == 3
    assert new == max(g.id for g in groups) + 1


def test_restore_refuses_a_file_that_is_no_backup(db: str, tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_text("not a database")
    code, out, err = admin(db, "restore", str(junk), "--yes")
    assert code == 2 and out == "" and "not a rankterm backup" in err and err.count("\n") == 1
    code, _, err = admin(db, "restore", str(tmp_path / "missing.db"), "--yes")
    assert code == 2 and "no such file" in err


def test_admin_on_a_missing_sqlite_file_says_so_and_makes_nothing(tmp_path: Path) -> None:
    missing = tmp_path / "nothing.db"
    code, _, err = admin(str(missing), "group", "list")
    assert code == 2 and "no service database at" in err
    assert not missing.exists()
