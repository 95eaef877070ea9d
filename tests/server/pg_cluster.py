"""A throwaway PostgreSQL for the tests, from the machine's own binaries: one server per test run.

`cluster()` finds ``initdb`` and ``pg_ctl`` (on PATH, else the newest ``/usr/lib/postgresql/*/bin``), makes
a cluster in a temporary directory (``initdb --no-sync``, fsync off: nothing here must survive a crash),
and starts it listening on a Unix socket in that directory only (no TCP port to collide with). As root
(CI), initdb refuses to run, so the cluster belongs to the ``postgres`` user and its commands run through
``runuser``. It is started once per process, on first use, and stopped at exit.

A test gets its own database with `Cluster.fresh_url`: ``CREATE DATABASE … TEMPLATE … STRATEGY FILE_COPY`` of
one database the service has already migrated and filled with its catalogue (no migration per test). A
background thread keeps a few such databases made ahead, so a test seldom waits for one. `Cluster.demo_url`
is the same from a template holding the seeded demo group (seeded once per run, not once per test).

When the binaries are missing, `cluster()` raises `Missing`; the root conftest installs Debian's PostgreSQL
before any test that needs it runs (tests/needs.py), so that happens only when that install failed, which
fails the test with its reason.
"""

from __future__ import annotations

import atexit
import glob
import itertools
import os
import pwd
import queue
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

import psycopg

from rankterm.server.seed import seed_demo
from rankterm.server.store import Store
from tests.support.clock import SettableClock

TEMPLATE = "rankterm_template"
DEMO_TEMPLATE = "rankterm_demo_template"
AHEAD = 3
USER = "rankterm"
PORT = 5432
"""Only names the socket file (``.s.PGSQL.5432``) in the cluster's own directory: no TCP."""


class Missing(RuntimeError):
    """No PostgreSQL binaries on this machine."""


def find_bin() -> Path | None:
    """The directory of ``initdb`` and ``pg_ctl``, or None."""
    found = shutil.which("initdb")
    if found:
        bindir = Path(os.path.realpath(found)).parent  # Debian's pg_wrapper links elsewhere: then the glob
        if (bindir / "initdb").exists() and (bindir / "pg_ctl").exists():
            return bindir
    candidates = sorted(
        glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name.split(".")[0])
    )
    for directory in reversed(candidates):
        if (Path(directory) / "initdb").exists() and (Path(directory) / "pg_ctl").exists():
            return Path(directory)
    return None


class Cluster:
    """One running PostgreSQL server in a temporary directory."""

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.root = Path(tempfile.mkdtemp(prefix="rk-pg-"))
        self.data = self.root / "data"
        self._prefix: list[str] = []
        if os.geteuid() == 0:
            owner = pwd.getpwnam("postgres")
            os.chown(self.root, owner.pw_uid, owner.pw_gid)
            self._prefix = ["runuser", "-u", "postgres", "--"]
        self._names = itertools.count(1)
        self._lock = threading.Lock()
        self._ready: queue.Queue[str] = queue.Queue(maxsize=AHEAD)
        self._demo_ready = False
        self._stopped = False

    def _run(self, *args: str) -> None:
        done = subprocess.run([*self._prefix, *args], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(args)} failed: {done.stdout}{done.stderr}")

    def url(self, database: str) -> str:
        return f"postgresql://{USER}@/{database}?host={self.root}&port={PORT}"

    def start(self) -> None:
        self._run(
            str(self.bindir / "initdb"),
            "-D",
            str(self.data),
            "-U",
            USER,
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--no-locale",
            "--no-sync",
        )
        options = (
            f"-k {self.root} -c listen_addresses='' -p {PORT} -c fsync=off -c synchronous_commit=off"
            " -c full_page_writes=off -c max_connections=300 -c shared_buffers=32MB"
        )
        log = self.root / "server.log"
        self._run(
            str(self.bindir / "pg_ctl"), "-D", str(self.data), "-l", str(log), "-o", options, "-w", "start"
        )
        with psycopg.connect(self.url("postgres"), autocommit=True) as admin:
            admin.execute(f"CREATE DATABASE {TEMPLATE}")
        with Store(self.url(TEMPLATE)) as store, store._write() as conn:
            # each database made from the template makes its own signing key
            conn.execute("DELETE FROM meta WHERE key = 'signing_key'")
        threading.Thread(target=self._make_ahead, name="rk-pg-ahead", daemon=True).start()

    def _create(self, template: str) -> str:
        with self._lock:
            name = f"t{os.getpid()}_{next(self._names)}"
        with psycopg.connect(self.url("postgres"), autocommit=True) as admin:
            admin.execute(f"CREATE DATABASE {name} TEMPLATE {template} STRATEGY FILE_COPY")
        return self.url(name)

    def _make_ahead(self) -> None:
        while True:
            try:
                url = self._create(TEMPLATE)
            except psycopg.Error:
                return  # the server is stopping
            self._ready.put(url)

    def fresh_url(self) -> str:
        """The URL of a new database, migrated and with the catalogue, never used before."""
        return self._ready.get(timeout=60)

    def demo_url(self) -> str:
        """The URL of a new database holding the demo group (`seed_demo` at the test clock's day)."""
        with self._lock:
            if not self._demo_ready:
                with psycopg.connect(self.url("postgres"), autocommit=True) as admin:
                    admin.execute(f"CREATE DATABASE {DEMO_TEMPLATE} TEMPLATE {TEMPLATE} STRATEGY FILE_COPY")
                with Store(self.url(DEMO_TEMPLATE), clock=SettableClock()) as store:
                    seed_demo(store)
                    with store._write() as conn:
                        conn.execute("DELETE FROM meta WHERE key = 'signing_key'")
                self._demo_ready = True
        return self._create(DEMO_TEMPLATE)

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        try:
            self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


_cluster: Cluster | None = None
_start_lock = threading.Lock()


def cluster() -> Cluster:
    """The run's PostgreSQL server, started on first use; `Missing` when the machine has none."""
    global _cluster
    with _start_lock:
        if _cluster is None:
            bindir = find_bin()
            if bindir is None:
                raise Missing(
                    "PostgreSQL binaries (initdb, pg_ctl) not found on PATH or under /usr/lib/postgresql/*/bin:"
                    " install the Debian package postgresql to run the PostgreSQL tests"
                )
            started = Cluster(bindir)
            started.start()
            atexit.register(started.stop)
            _cluster = started
        return _cluster


def stop_started() -> None:
    """Stop the run's server if this process started one. Called as the session ends: an xdist worker leaves
    by `os._exit`, which runs no atexit, and left its server running after the run."""
    if _cluster is not None:
        _cluster.stop()
