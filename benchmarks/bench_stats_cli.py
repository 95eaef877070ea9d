"""`rankterm stats player|h2h|game` on a big group, warm, each a new process: this code beside an earlier one.

The group is a service database kept by `bench_server.py --db FILE` (100,000 matches among 500 players).
A copy of it (made once under `--work`, its quotas lifted) is served by `rankterm serve` on a free port, run
with this checkout's code. Each code tree (`--before`, default /tmp/stats-before: `git worktree add
/tmp/stats-before df830bb`; and this checkout) gets its own profile, cache and mirror under `--work`; its
first `stats` syncs the mirror (timed once, "cold"). Then, `--runs` times, for each code in turn (so that the
machine's load weighs on both alike), each command runs as a new process (`python -m rankterm --profile bench
stats ...`, output discarded):

- `stats player P` and `stats h2h P` (P against everyone) for a player among the most active,
- `stats h2h P Q` (Q the player P met most),
- `stats game Catan` (about 22,700 matches).

Prints, per command, the median wall time and the largest peak RSS (the process's `ru_maxrss`) of each code,
and their ratio this/before.

    python benchmarks/bench_stats_cli.py --db /tmp/g100k.db [--runs 5] [--work DIR] [--before DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
SECRET_ENV = "RANKTERM_BENCH_SECRET"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(port: int) -> None:
    """Until something listens on 127.0.0.1:`port` (at most 10 s)."""
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)


def rankterm(code: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rankterm", *args],
        cwd=tempfile.gettempdir(),  # not a code tree: `-m` puts the working directory first on the path
        env={**env, "PYTHONPATH": str(code)},
        capture_output=True,
        text=True,
        check=False,
    )


def timed(code: Path, env: dict[str, str], *args: str) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB) of one `rankterm` process; exits when it fails."""
    began = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "rankterm", *args],
        cwd=tempfile.gettempdir(),
        env={**env, "PYTHONPATH": str(code)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - began
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode:
        err = process.stderr.read().decode() if process.stderr else ""
        raise SystemExit(f"{code}: rankterm {' '.join(args)} exited {process.returncode}: {err[-500:]}")
    return wall, usage.ru_maxrss / 1024


def prepare(db: Path, work: Path) -> tuple[Path, str, str, int]:
    """The served copy of `db` (made once, quotas lifted), a client's key and secret, and the port to serve
    it on (the same each run: a mirror's file is named after the service's address)."""
    work.mkdir(parents=True, exist_ok=True)
    served, creds = work / "service.db", work / "creds.json"
    if not served.exists() or not creds.exists():
        for suffix in ("", "-wal", "-shm"):
            Path(f"{served}{suffix}").unlink(missing_ok=True)
        with sqlite3.connect(db) as source, sqlite3.connect(served) as copy:
            source.backup(copy)
        env = dict(os.environ)
        made = rankterm(HERE, env, "serve", "--db", str(served), "--new-client")
        found = dict(
            line.split(" = ", 1)
            for line in made.stdout.splitlines()
            if line.startswith(("key = ", "secret = "))
        )
        rankterm(HERE, env, "serve", "--db", str(served), "--quota", "unlimited", "--show-quota")
        creds.write_text(json.dumps({**{k: v.strip('"') for k, v in found.items()}, "port": free_port()}))
    keys = json.loads(creds.read_text())
    return served, keys["key"], keys["secret"], int(keys.get("port") or free_port())


def chosen(served: Path) -> tuple[str, str]:
    """A player among the most active, and the one they met most (by id)."""
    with sqlite3.connect(f"file:{served}?mode=ro", uri=True) as db:
        rows = db.execute(
            "SELECT player_id, count(*) AS n FROM faction_players GROUP BY player_id ORDER BY n DESC LIMIT 10"
        ).fetchall()
        p = str(rows[len(rows) // 2][0])
        q = db.execute(
            "SELECT b.player_id, count(*) AS n FROM faction_players a JOIN faction_players b"
            " ON b.match_id = a.match_id AND b.idx != a.idx WHERE a.player_id = ?"
            " GROUP BY b.player_id ORDER BY n DESC LIMIT 1",
            (p,),
        ).fetchone()
    return p, str(q[0])


def main() -> None:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("--db", type=Path, required=True, help="a service database kept by bench_server.py --db")
    cli.add_argument("--runs", type=int, default=5)
    cli.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "rankterm-bench-stats-cli")
    cli.add_argument("--before", type=Path, default=Path("/tmp/stats-before"), help="the earlier code tree")
    a = cli.parse_args()
    if not (a.before / "rankterm").is_dir():
        raise SystemExit(f"{a.before}: no code tree there (git worktree add {a.before} <commit>)")
    served, key, secret, port = prepare(a.db, a.work)
    p, q = chosen(served)
    url = f"http://127.0.0.1:{port}/"
    server = subprocess.Popen(
        [sys.executable, "-m", "rankterm", "serve", "--db", str(served), "--port", str(port)],
        cwd=tempfile.gettempdir(),
        env={**os.environ, "PYTHONPATH": str(HERE)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(port)
        codes = {"before": a.before.resolve(), "this": HERE}
        envs = {}
        for name in codes:
            home = a.work / name
            home.mkdir(exist_ok=True)
            (home / "config.toml").write_text(
                f'[profiles.bench]\nbase_url = "{url}"\nkey = "{key}"\nsecret_env = "{SECRET_ENV}"\n'
            )
            envs[name] = {
                **os.environ,
                "RANKTERM_CONFIG": str(home / "config.toml"),
                "RANKTERM_CACHE_DIR": str(home / "cache"),
                "RANKTERM_DATA_DIR": str(home / "data"),
                SECRET_ENV: secret,
            }
        commands = {
            "stats player P": ["stats", "player", p],
            "stats h2h P (everyone)": ["stats", "h2h", p],
            "stats h2h P Q": ["stats", "h2h", p, q],
            "stats game Catan": ["stats", "game", "Catan"],
        }
        print(f"{a.db}: players P={p} Q={q}; served at {url}")
        for name, code in codes.items():  # the first sync of each code's mirror (cold the first time)
            wall, rss = timed(code, envs[name], "--profile", "bench", *commands["stats player P"])
            print(f"  {name:6} first stats (mirror synced since the last run of this benchmark, or cold): "
                  f"{wall:6.2f} s, peak RSS {rss:5.0f} MB")  # fmt: skip
        got: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for _ in range(a.runs):
            for name, code in codes.items():
                for what, args in commands.items():
                    got.setdefault((name, what), []).append(
                        timed(code, envs[name], "--profile", "bench", *args)
                    )
        print(f"warm, each a new process, median of {a.runs} (peak RSS: the largest)")
        print(f"{'':24}{'before':>18}{'this':>18}{'this/before':>24}")
        for what in commands:
            before, this = got[("before", what)], got[("this", what)]
            bw, tw = statistics.median(w for w, _ in before), statistics.median(w for w, _ in this)
            br, tr = max(r for _, r in before), max(r for _, r in this)
            print(
                f"{what:24}{bw:8.2f} s {br:5.0f} MB{tw:8.2f} s {tr:5.0f} MB"
                f"{tw / bw:10.2f} x time {tr / br:5.2f} x RSS"
            )
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
