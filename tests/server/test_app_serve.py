"""`rankterm serve` without a socket: first start, --new-client, --demo, --quota, bad arguments and bad files
(and a real process where the option is about what the service answers)."""

from __future__ import annotations

import io
import re
from dataclasses import replace

import pytest

from rankterm.server import addresses, serve
from rankterm.server.addresses import Address
from rankterm.server.db import schema
from rankterm.server.quota import UNLIMITED, QuotaBook, QuotaLimits
from rankterm.server.seed import DEMO_KEY
from rankterm.server.store import Store
from tests.support.live import start_serve, wait_answering
from tests.support.old_schema import downgrade


@pytest.fixture
def no_uvicorn(monkeypatch):
    """Replace the server's run loop; record the ports of the sockets it was given."""
    ran = []

    def run(self, sockets=None):
        ran.append((self.config, [s.getsockname()[1] for s in sockets or ()]))
        for sock in sockets or ():
            sock.close()

    monkeypatch.setattr(serve.uvicorn.Server, "run", run)
    return ran


def _credentials(text: str) -> tuple[str, str]:
    key = re.search(r'^key = "([^"]+)"$', text, re.M).group(1)
    secret = re.search(r'^secret = "([^"]+)"$', text, re.M).group(1)
    return key, secret


def test_first_start_makes_a_group_and_client_and_prints_them_once(tmp_path, no_uvicorn):
    db = tmp_path / "data" / "service.db"
    out = io.StringIO()
    assert serve.main(["--db", str(db), "--port", "0", "--token-ttl", "120"], out=out) == 0
    text = out.getvalue()
    assert "[profiles.home]" in text
    [(config, ports)] = no_uvicorn
    assert config.log_level == "warning"
    url = re.search(r'^base_url = "http://127\.0\.0\.1:(\d+)/"$', text, re.M)
    assert url and ports == [int(url.group(1))] and ports[0] > 0
    key, secret = _credentials(text)
    with Store(db) as store:
        assert store.authenticate(key, secret).key == key
        assert store.client_count() == 1 and len(store.groups()) == 1
    out = io.StringIO()
    assert serve.main(["--db", str(db), "--port", "0"], out=out) == 0
    assert "secret" not in out.getvalue() and "rankterm service on http://127.0.0.1:" in out.getvalue()


def test_new_client_prints_another_client_and_exits(tmp_path, no_uvicorn):
    db = tmp_path / "service.db"
    texts = []
    for _ in range(2):
        out = io.StringIO()
        assert serve.main(["--db", str(db), "--new-client"], out=out) == 0
        texts.append(out.getvalue())
    assert no_uvicorn == []
    keys = [_credentials(t)[0] for t in texts]
    assert keys[0] != keys[1]
    assert 'base_url = "http://127.0.0.1:8765/"' in texts[0]
    with Store(db) as store:
        assert store.client_count() == 2
        assert all(store.authenticate(*_credentials(t)) for t in texts)


def test_demo_seeds_an_empty_database_only(tmp_path, no_uvicorn):
    db = tmp_path / "service.db"
    out = io.StringIO()
    assert serve.main(["--db", str(db), "--demo", "--port", "0"], out=out) == 0
    assert "Seeded the demo group" in out.getvalue() and "[profiles.home]" not in out.getvalue()
    out = io.StringIO()
    assert serve.main(["--db", str(db), "--demo", "--port", "0"], out=out) == 0
    assert "Seeded" not in out.getvalue()
    with Store(db) as store:
        assert store.has_client(DEMO_KEY) and len(store.groups()) == 1
        assert store.match_status(store.groups()[0][0]).total == 300


@pytest.mark.parametrize("argv", [["--token-ttl", "0"], ["--port", "70000"], ["--port", "x"], ["--bogus"]])
def test_bad_arguments_exit_2(tmp_path, argv, capsys):
    with pytest.raises(SystemExit) as exited:
        serve.main(["--db", str(tmp_path / "s.db"), *argv])
    assert exited.value.code == 2


def test_a_file_that_is_no_database_is_one_line(tmp_path, capsys):
    bad = tmp_path / "notes.db"
    bad.write_bytes(b"this is not sqlite, not at all" * 100)
    assert serve.main(["--db", str(bad), "--new-client"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot open" in err and "Traceback" not in err


def test_the_default_database_is_in_the_user_data_dir():
    path = serve.default_db()
    assert path.name == "service.db" and "rankterm" in str(path.parent)


def test_an_unreachable_postgresql_is_one_line_without_the_password(capsys):
    url = "postgresql://someone:hunter2@127.0.0.1:18949/none"  # nothing listens there
    assert serve.main(["--db", url, "--new-client"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot open postgresql://someone@127.0.0.1:18949/none" in err
    assert "hunter2" not in err and "Traceback" not in err


@pytest.mark.parametrize("engine", ["postgresql"])
def test_first_start_on_postgresql_then_a_new_client(db, no_uvicorn, capsys):
    assert serve.main(["--db", db, "--port", "0"]) == 0
    first = _credentials(capsys.readouterr().out)
    assert serve.main(["--db", db, "--new-client"]) == 0
    second = _credentials(capsys.readouterr().out)
    with Store(db) as store:
        assert store.engine == "postgresql" and store.client_count() == 2
        assert store.authenticate(*first).group_id == store.authenticate(*second).group_id


@pytest.mark.parametrize("moment", ["as_it_says_so", "once_it_answers"])
def test_ctrl_c_stops_the_service_quietly(tmp_path, moment):
    """Ctrl+C (SIGINT) on a real `rankterm serve`, the moment its line says "Ctrl+C to stop" (the app still
    being built) or once it answers a request: exit 0 and no traceback (uvicorn raises it again once it has
    stopped)."""
    import signal

    proc, said, base = start_serve(
        ["--demo", "--db", str(tmp_path / "s.db"), "--port", "0"], env={"RANKTERM_DATA_DIR": str(tmp_path)}
    )
    try:
        if moment == "once_it_answers":
            wait_answering(base, "".join(said))
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err


def _profile(text: str, name: str) -> dict[str, str]:
    """The profile `name` printed in `text`, as config.toml would read it."""
    import tomllib

    start = text.index(f"[profiles.{name}]")
    block = text[start : text.index("\n\n", start)]
    return tomllib.loads(block)["profiles"][name]


def test_demo_prints_a_profile_to_paste_at_every_start(tmp_path, no_uvicorn):
    db = tmp_path / "service.db"
    for _ in range(2):  # seeding, then with the demo group already there
        out = io.StringIO()
        assert serve.main(["--db", str(db), "--demo", "--port", "0"], out=out) == 0
        profile = _profile(out.getvalue(), "demo")
        port = no_uvicorn.pop()[1][0]
        assert profile == {"base_url": f"http://127.0.0.1:{port}/", "key": "demo", "secret": "demo-secret"}
        with Store(db) as store:
            assert store.authenticate(profile["key"], profile["secret"]).key == DEMO_KEY
    assert "client key 'demo'" not in out.getvalue()


def test_demo_on_a_database_of_another_group_says_it_seeded_nothing(tmp_path, no_uvicorn):
    db = tmp_path / "service.db"
    assert serve.main(["--db", str(db), "--port", "0"], out=io.StringIO()) == 0
    out = io.StringIO()
    assert serve.main(["--db", str(db), "--demo", "--port", "0"], out=out) == 0
    assert "the demo group was not seeded" in out.getvalue() and "[profiles.demo]" not in out.getvalue()


ROOM = [
    Address("127.0.0.1", "lo"),
    Address("10.1.2.3", "eth0"),
    Address("192.168.1.7", "wlan0"),
    Address("::1", "lo"),
    Address("fd00::7", "wlan0"),
]
"""A laptop on two networks, as its interfaces would be read."""


@pytest.mark.parametrize("new_client", [False, True], ids=["first start", "new client"])
def test_a_wildcard_host_prints_the_addresses_this_machine_is_reached_at(
    tmp_path, no_uvicorn, monkeypatch, new_client
):
    monkeypatch.setattr(addresses, "interface_addresses", lambda: ROOM)
    argv = ["--db", str(tmp_path / "service.db"), "--host", "0.0.0.0", "--port", "0"]
    if new_client:
        argv[-1] = "8802"
        argv.append("--new-client")
    out = io.StringIO()
    assert serve.main(argv, out=out) == 0
    text = out.getvalue()
    port = 8802 if new_client else no_uvicorn[0][1][0]
    assert _profile(text, "home")["base_url"] == f"http://10.1.2.3:{port}/"
    assert "0.0.0.0:" not in text.replace(f"listening on 0.0.0.0:{port}", "")  # never a URL to paste
    assert f"http://192.168.1.7:{port}/ (wlan0)" in text
    assert f"http://127.0.0.1:{port}/ (this machine only)" in text
    assert "fd00::7" not in text  # 0.0.0.0 takes IPv4 only
    if not new_client:
        start = text.splitlines()[-1]
        assert start.startswith(f"rankterm service on http://10.1.2.3:{port}/ and http://192.168.1.7:{port}/")
        assert f"listening on 0.0.0.0:{port}" in start


def test_this_machines_addresses_are_its_own():
    """Every address read from the interfaces can be bound here (so it is this machine's), loopback among
    them; link-local ones, which a URL cannot use without naming the interface, are left out."""
    import socket

    found = addresses.interface_addresses()
    assert Address("127.0.0.1", "lo") in found
    for address in found:
        family = socket.AF_INET6 if address.version == 6 else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.bind((address.ip, 0))
    assert all(not ip.startswith("fe80") for ip in (a.ip for a in found))  # link-local: unusable in a URL


def test_serve_says_it_puts_an_older_databases_matches_in_played_order(tmp_path, no_uvicorn, capsys):
    db = tmp_path / "service.db"
    assert serve.main(["--db", str(db), "--port", "0"], out=io.StringIO()) == 0
    with Store(db) as store:
        downgrade(store, 3)
    capsys.readouterr()
    assert serve.main(["--db", str(db), "--port", "0"], out=io.StringIO()) == 0
    said = capsys.readouterr().err
    assert f"rankterm serve: upgrading the database from schema 3 to {schema.SCHEMA_VERSION}" in said
    assert "matches are put in the order they were played and every ranking is worked out again" in said


def _two_clients(db) -> list[str]:
    keys = []
    for _ in range(2):
        out = io.StringIO()
        assert serve.main(["--db", str(db), "--new-client"], out=out) == 0
        keys.append(_credentials(out.getvalue())[0])
    return keys


def test_quota_settings_are_kept_for_every_client_or_one_and_shown(tmp_path, no_uvicorn):
    db = tmp_path / "service.db"
    first, second = _two_clients(db)
    out = io.StringIO()
    assert serve.main(["--db", str(db), "--port", "0", "--quota", "unlimited"], out=out) == 0
    assert "Quota limits of every client: unlimited.\nrankterm service on" in out.getvalue()
    assert len(no_uvicorn) == 1
    with Store(db) as store:
        assert store.quota_book() == QuotaBook(UNLIMITED)

    out = io.StringIO()
    argv = ["--db", str(db), "--client", second, "--quota", "matchesPerHour=5_000,matchesPerDay=9"]
    assert serve.main([*argv, "--quota", "callsPerHour=0", "--show-quota"], out=out) == 0
    assert len(no_uvicorn) == 1  # shown, not served
    lines = out.getvalue().splitlines()
    assert lines[1:] == [
        "Quota limits of every client: unlimited.",
        f"  client {second}: calls 0/hour unlimited/year · matches 5,000/hour 9/day unlimited/year · ranking"
        " calls unlimited · games created unlimited.",
    ]
    with Store(db) as store:
        ids = {key: id_ for id_, key in store.client_keys()}
        book = store.quota_book()
        assert book.limits(ids[first]) == UNLIMITED
        assert book.limits(ids[second]) == replace(
            UNLIMITED, matches_per_hour=5000, matches_per_day=9, calls_per_hour=0
        )

    argv = ["--db", str(db), "--client", second, "--quota", "MATCHESPERDAY=default", "--show-quota"]
    assert serve.main(argv, out=io.StringIO()) == 0
    with Store(db) as store:  # back to what every client has
        assert store.quota_book().limits(ids[second]) == replace(
            UNLIMITED, matches_per_hour=5000, calls_per_hour=0
        )

    assert serve.main(["--db", str(db), "--quota", "callsPerHour=3", "--show-quota"], out=io.StringIO()) == 0
    with Store(db) as store:  # a setting for every client replaces a client's own setting of that field
        assert store.quota_book().limits(ids[second]) == replace(
            UNLIMITED, matches_per_hour=5000, calls_per_hour=3
        )

    out = io.StringIO()
    assert (
        serve.main(["--db", str(db), "--quota", "default", "--quota", "calls=7", "--show-quota"], out=out)
        == 0
    )
    with Store(db) as store:
        assert store.quota_book() == QuotaBook(QuotaLimits(calls_per_year=7, calls_per_hour=7))


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--quota", "matches=1", "--quota", "matchPerHour=5"], "'matchPerHour' is no quota field"),
        (["--quota", "matchesPerHour=-1"], "matchesPerHour='-1' is not a limit"),
        (["--quota", "matchesPerHour=lots"], "matchesPerHour='lots' is not a limit"),
        (["--quota", "matchesPerHour=5,000"], "write numbers without commas"),
        (["--quota", "unlimted"], "--quota takes 'unlimited', 'default' or field=value pairs"),
        (["--quota", "unlimited", "--client", "nobody"], "no API client has the key 'nobody'"),
        (["--client", "nobody"], "--client says which client --quota is for"),
    ],
)
def test_bad_quota_settings_are_one_sentence_exit_2_and_change_nothing(
    tmp_path, no_uvicorn, capsys, argv, said
):
    db = tmp_path / "service.db"
    _two_clients(db)
    assert serve.main(["--db", str(db), "--quota", "calls=9", "--show-quota"], out=io.StringIO()) == 0
    capsys.readouterr()
    assert serve.main(["--db", str(db), "--port", "0", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("rankterm serve: ") and said in err, err
    assert no_uvicorn == []
    with Store(db) as store:
        assert store.quota_book() == QuotaBook(QuotaLimits(calls_per_year=9, calls_per_hour=9))


@pytest.mark.parametrize("engine", ["postgresql"])
def test_quota_settings_on_postgresql(db, no_uvicorn, capsys):
    assert serve.main(["--db", db, "--port", "0", "--quota", "matches=unlimited"]) == 0
    assert (
        "Quota limits of every client: calls 5,000/hour 100,000/year · matches unlimited ·"
        in capsys.readouterr().out
    )
    with Store(db) as store:
        assert store.quota_book().every == replace(
            QuotaLimits(), matches_per_hour=None, matches_per_day=None, matches_per_year=None
        )


def test_a_real_service_holds_each_client_to_the_limits_it_started_with(tmp_path):
    """`rankterm serve --quota …` as a process: its clients' limits, refusals with Retry-After, the usage."""
    import time

    import httpx

    db = tmp_path / "service.db"
    (key, secret), (free_key, free_secret) = [_credentials_of(db) for _ in range(2)]
    assert serve.main(["--db", str(db), "--quota", "matchesPerHour=2", "--show-quota"]) == 0
    proc, said, base = start_serve(
        ["--db", str(db), "--port", "0", "--client", free_key, "--quota", "unlimited"],
        env={"RANKTERM_DATA_DIR": str(tmp_path)},
    )
    try:
        assert f"  client {free_key}: unlimited.\n" in said
        assert any(line.startswith("Quota limits of every client: calls 5,000/hour") for line in said)
        with httpx.Client(base_url=base, timeout=30) as http:

            def login(k: str, s: str) -> dict[str, str]:
                token = http.get("auth", params={"key": k, "secret": s}).json()["success"]["token"]
                return {"Authorization": f"Bearer {token}"}

            limited, free = login(key, secret), login(free_key, free_secret)
            people = [
                http.post("players/player", params={"name": n}, headers=free).json()["success"][0]["id"]
                for n in ("Ann", "Bob")
            ]
            game = http.post("games/game", params={"name": "Azul"}, headers=free).json()["success"][0]["id"]
            batch = [duel_match(game, *people) for _ in range(3)]
            for _ in range(2):
                answer = http.post("matches/match", json=batch, headers=free)
                assert answer.json()["success"]["acceptedCount"] == 3
            assert http.post("matches/match", json=batch[:2], headers=limited).status_code == 200
            refused = http.post("matches/match", json=batch[:1], headers=limited)
            assert refused.status_code == 429 and refused.json()["errors"][0]["code"] == "Q005"
            assert 1 <= int(refused.headers["retry-after"]) <= 3600 - int(time.time()) % 3600 + 1
            assert http.get("quota", headers=limited).json()["success"]["matchesPerHour"] == "100%"
            assert set(http.get("quota", headers=free).json()["success"].values()) == {"0%"}
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


def _credentials_of(db) -> tuple[str, str]:
    out = io.StringIO()
    assert serve.main(["--db", str(db), "--new-client"], out=out) == 0
    return _credentials(out.getvalue())


def duel_match(game: int, winner: str, loser: str) -> dict:
    return {
        "game": game,
        "weight": "normal",
        "factions": [{"players": [winner], "rank": 1, "points": "10"}, {"players": [loser], "rank": 2}],
    }
