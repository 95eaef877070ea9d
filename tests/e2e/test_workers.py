"""`rankterm serve --db postgresql://… --workers 2`, raced by 8 clients sending the same 200 matches.

The real command runs as a subprocess (uvicorn's supervisor, two worker processes on one socket, each with
its own pool on the shared database). Eight API clients of one group each send the same 200 matches (same
external ids, same content), shuffled differently, 10 to a request, all at once. Afterwards the database
holds each external id exactly once (the others were M003), and every subset's rating history equals a
one-process replay of the accepted matches in match order on a fresh SQLite store: ratings were computed
in match order even with two workers recording the same subsets at once.

Also here: ``--workers`` with SQLite is refused with one line.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import httpx
import pytest

from rankterm.server import serve
from rankterm.server.store import Store
from tests.conftest import postgres_url
from tests.support.live import end_process

CLIENTS = 8
MATCHES = 200
BATCH = 10
NAMES = ("Ann", "Bob", "Cy", "Dee", "Eve", "Fay")
GAMES = ("Chess", "Go")


def _match(i: int, players: list[str], games: list[int]) -> dict:
    rng = random.Random(i)
    chosen = rng.sample(players, rng.randint(2, 4))
    return {
        "id": f"race-{i}",
        "game": games[i % len(games)],
        "weight": "normal",
        "date": f"2026-03-{1 + i // 24:02d} {i % 24:02d}:00:00",
        "factions": [{"players": [p], "rank": r + 1, "points": str(10 - r)} for r, p in enumerate(chosen)],
    }


def _start(url: str, workers: int) -> tuple[subprocess.Popen, str]:
    code = "import sys; from rankterm.server.serve import main; sys.exit(main(sys.argv[1:]))"
    args = ["--db", url, "--port", "0", "--workers", str(workers)]
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        found = re.search(r"rankterm service on (http://\S+/)", line)
        if found:
            return proc, found.group(1)
    proc.kill()
    raise AssertionError(f"rankterm serve did not start: {proc.stderr.read() if proc.stderr else ''}")


async def _ready(http: httpx.AsyncClient) -> None:
    for _ in range(200):
        try:
            if (await http.get("test")).status_code == 200:
                return
        except httpx.TransportError:
            pass
        await asyncio.sleep(0.05)
    raise AssertionError("the workers never answered")


async def _send_all(base: str, key: str, secret: str, items: list[dict], seed: int) -> list[dict]:
    order = items[:]
    random.Random(seed).shuffle(order)
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        await _ready(http)
        auth = await http.get("auth", params={"key": key, "secret": secret})
        headers = {"Authorization": f"Bearer {auth.json()['success']['token']}"}
        answers = []
        for start in range(0, len(order), BATCH):
            response = await http.post("matches/match", json=order[start : start + BATCH], headers=headers)
            assert response.status_code == 200, response.text
            answers.append(response.json()["success"])
        return answers


async def _counted(base: str) -> tuple[float, float]:
    """(matches recorded, match batches answered 200) as ``GET metrics`` says them."""
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        text = (await http.get("metrics")).text
    values = {
        name: sum(float(v) for v in re.findall(rf"^{re.escape(name)}(?:{{[^}}]*}})? (\S+)$", text, re.M))
        for name in ("rankterm_matches_recorded_total",)
    }
    batches = re.findall(r'^rankterm_requests_total{endpoint="match",status="200"} (\S+)$', text, re.M)
    return values["rankterm_matches_recorded_total"], sum(float(b) for b in batches)


def _history(store: Store, rename: dict[str, str]) -> list[tuple]:
    """Every rating history row as (subset key, player, match number, mu, sigma, played), players renamed."""
    with store._read() as conn:
        rows = conn.execute(
            "SELECT s.key, h.player, h.number, h.mu, h.sigma, h.played FROM rating_history h"
            " JOIN subsets s ON s.id = h.subset_id ORDER BY s.key, h.number, h.player"
        ).fetchall()
    return sorted((k, rename.get(p, p), n, round(mu, 9), round(sg, 9), pl) for k, p, n, mu, sg, pl in rows)


@pytest.mark.slow
@pytest.mark.postgres
async def test_200_ids_from_8_clients_on_2_workers_are_stored_once_and_rated_in_match_order(tmp_path):
    url = postgres_url()
    with Store(url) as store:
        group = store.create_group("Club")
        players = [store.create_player(group, name).id for name in NAMES]
        games = [store.create_game(group, name=name).id for name in GAMES]
        clients = [store.create_client(group) for _ in range(CLIENTS)]
    items = [_match(i, players, games) for i in range(MATCHES)]

    proc, base = _start(url, workers=2)
    try:
        results = await asyncio.gather(
            *(_send_all(base, key, secret, items, seed) for seed, (key, secret) in enumerate(clients))
        )
        counted = [await _counted(base) for _ in range(6)]  # each on a new connection: either worker answers
    finally:
        end_process(proc)
    batches = CLIENTS * MATCHES // BATCH
    assert counted == [(MATCHES, batches)] * 6  # both workers' counts, whichever worker is asked

    accepted = [o["id"] for answers in results for a in answers for o in a["accepted"]]
    rejected = [o for answers in results for a in answers for o in a["rejected"]]
    assert sorted(accepted) == sorted(m["id"] for m in items)  # each id accepted exactly once, by someone
    assert len(rejected) == (CLIENTS - 1) * MATCHES
    assert {e["code"] for o in rejected for e in o["errors"]} == {"M003"}

    with Store(url) as store:
        with store._read() as conn:
            stored = conn.execute(
                "SELECT external_id, count(*) FROM matches WHERE group_id = ? GROUP BY external_id", (group,)
            ).fetchall()
            numbers = [r[0] for r in conn.execute("SELECT number FROM matches ORDER BY number").fetchall()]
            in_order = [
                r[0] for r in conn.execute("SELECT external_id FROM matches ORDER BY number").fetchall()
            ]
        assert len(stored) == MATCHES and all(count == 1 for _, count in stored)
        assert numbers == list(range(1, MATCHES + 1))
        raced = _history(store, {})

    by_id = {m["id"]: m for m in items}
    with Store(tmp_path / "replay.db") as replay:
        again = replay.create_group("Replay")
        twins = {old: replay.create_player(again, name).id for old, name in zip(players, NAMES, strict=True)}
        game_ids = {
            old: replay.create_game(again, name=name).id for old, name in zip(games, GAMES, strict=True)
        }
        for ext in in_order:
            m = by_id[ext]
            copy = {
                **m,
                "game": game_ids[m["game"]],
                "factions": [{**f, "players": [twins[p] for p in f["players"]]} for f in m["factions"]],
            }
            assert replay.add_matches(again, copy).accepted_count == 1
        key_of = {f"g{new}": f"g{old}" for old, new in game_ids.items()}
        replayed = [
            (key_of.get(k, k), p, n, mu, sg, pl)
            for k, p, n, mu, sg, pl in _history(replay, {new: old for old, new in twins.items()})
        ]
    assert len(raced) > 2 * MATCHES
    assert raced == sorted(replayed)


def test_workers_with_sqlite_are_refused_with_one_line(tmp_path: Path, capsys):
    assert serve.main(["--db", str(tmp_path / "s.db"), "--workers", "2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--workers needs a PostgreSQL database" in err
    assert not (tmp_path / "s.db").exists()


@pytest.mark.parametrize("workers", ["0", "-1"])
def test_fewer_than_one_worker_is_a_usage_error(workers: str, capsys):
    with pytest.raises(SystemExit) as stop:
        serve.main(["--workers", workers])
    assert stop.value.code == 2


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.postgres
async def test_workers_end_when_the_supervisor_is_killed_and_the_port_is_free_again():
    url = postgres_url()
    proc, base = _start(url, workers=2)
    workers: list[int] = []
    try:
        async with httpx.AsyncClient(base_url=base, timeout=10) as http:
            await _ready(http)
        workers = [pid for pid in _children(proc.pid) if "spawn" in Path(f"/proc/{pid}/cmdline").read_text()]
        assert len(workers) == 2
        left = list(Path(tempfile.gettempdir()).glob(f"{serve.METRICS_PREFIX}{proc.pid}-*"))
        assert len(left) == 1
        proc.kill()  # SIGKILL: the supervisor has no word in it
        proc.wait(10)
        for _ in range(200):
            if not any(_alive(pid) for pid in workers):
                break
            await asyncio.sleep(0.05)
        assert not any(_alive(pid) for pid in workers)
    finally:
        if proc.poll() is None:
            proc.kill()
        for pid in workers:  # a failed run leaves nothing behind either
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
    port = base.rstrip("/").rsplit(":", 1)[1]
    code = "import sys; from rankterm.server.serve import main; sys.exit(main(sys.argv[1:]))"
    again = subprocess.Popen(
        [sys.executable, "-c", code, "--db", url, "--port", port, "--workers", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        async with httpx.AsyncClient(base_url=base, timeout=10) as http:
            await _ready(http)  # the same port serves again
        assert not left[0].exists()  # the killed supervisor's metrics folder, removed by the next one
    finally:
        end_process(again)
    assert again.stderr is not None and "Address already in use" not in again.stderr.read()
