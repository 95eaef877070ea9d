"""`Store`: the embedded service's data, on one engine (a SQLite file, ``":memory:"``, or PostgreSQL); thread-safe.

Every public method is one transaction of the engine, rolled back whole on any error. Which database it
is stays the engine's (`db.engines`). The work lives in modules by role, each taking the connection:
`players`, `games`, `matches`, `rankings`, `reads`, `quota`, `tokens`. Errors meant for the client are
raised as `wire.Fault`. See docs/design/server.md.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from rankterm.server import games, groups, matches, players, quota, reads, tokens
from rankterm.server.db import RENEW_VERSIONS, REPLAY, Conn, Work
from rankterm.server.db.engine import Engine
from rankterm.server.db.engines import copy_of_file, open_engine, shown
from rankterm.server.db.schema import SCHEMA_VERSION
from rankterm.server.groups import GroupSummary
from rankterm.server.latest_order import LatestOrders
from rankterm.server.quota import QuotaBook, QuotaLimits, Setting
from rankterm.server.snapshots import SnapshotCache
from rankterm.server.wire import Fault, format_time
from rankterm.wire.models import (
    Game,
    MatchesPage,
    MatchOutcome,
    MatchStatus,
    NewMatchAnswer,
    Player,
    PlayersPage,
    Quota,
    RankingsPage,
    Subset,
)

__all__ = ["MIGRATION_WORK", "Client", "Store"]

MEMORY = ":memory:"

MIGRATION_WORK: Work = {REPLAY: matches.replay_everything, RENEW_VERSIONS: matches.renew_history_versions}
"""What the schema's migrations cannot do in SQL, done by this rankterm's own code (`Engine.migrate`)."""


@dataclass(frozen=True, slots=True)
class Client:
    """An API client: who a token speaks for."""

    id: int
    group_id: int
    key: str
    disabled: bool
    tokens_from: int = 0
    """Tokens issued (``iat``) before this second are refused: the client's secret was rotated then."""


class Store:
    """The service's database. `clock` (seconds since the epoch) stamps dates and quota buckets."""

    def __init__(
        self,
        path: str | os.PathLike[str] = MEMORY,
        *,
        clock: Callable[[], float] | None = None,
        notice: Callable[[str], None] | None = None,
    ):
        """Open (create, upgrade) the database at `path`, its files owner-only (0600); `notice` is told of a
        file found open to others (and tightened), and before a long upgrade starts."""
        self.path = os.fspath(path)
        self.clock: Callable[[], float] = clock or time.time
        self.snapshots = SnapshotCache()
        """The standings' snapshots read from this database (they never change: read once, kept)."""
        self.latest_orders = LatestOrders()  # the latest standings' order, checked at each use
        self._owed: quota.Owed = {}
        self._owed_lock = threading.Lock()
        self._batches = 0
        self.on_write_wait: Callable[[float], None] | None = None
        """Told how long each write waited for the database or its group's lock (the service's metrics)."""
        self._engine = open_engine(self.path)
        try:
            for file in self._engine.private():
                if notice is not None:
                    notice(f"{file} could be read by other users: made it owner-only (0600).")
            with self._engine.setup():  # workers starting together set up once, one after the other
                self._engine.migrate(notice, MIGRATION_WORK)
                with self._write() as conn:
                    games.sync_catalogue(conn)
                    conn.execute(
                        "INSERT INTO meta (key, value) VALUES ('signing_key', ?) ON CONFLICT (key) DO NOTHING",
                        (tokens.new_signing_key(),),
                    )
            self._signing_key = self._load_signing_key()
        except BaseException:
            self._engine.close()
            raise

    @classmethod
    def _on(cls, engine: Engine, clock: Callable[[], float]) -> Store:
        """A store on an engine already set up (a copy): nothing migrated, nothing synced."""
        store = cls.__new__(cls)
        store.path = MEMORY
        store.clock = clock
        store.snapshots = SnapshotCache()
        store.latest_orders = LatestOrders()
        store._owed = {}
        store._owed_lock = threading.Lock()
        store._batches = 0
        store.on_write_wait = None
        store._engine = engine
        store._signing_key = store._load_signing_key()
        return store

    @property
    def engine(self) -> str:
        """The engine's name, for people and tests: ``"sqlite"`` or ``"postgresql"``."""
        return self._engine.name

    @property
    def _conn(self) -> Conn | None:
        """The engine's one connection when it has one (tests and benchmarks look inside)."""
        return self._engine.connection

    def disk_full(self, exc: BaseException) -> bool:
        """Whether `exc`, raised by the store, says the database's disk is full (`Engine.disk_full`)."""
        return self._engine.disk_full(exc)

    def free_now(self) -> bool:
        """Whether a short request may run on the caller's thread (`Engine.free_now`)."""
        return self._engine.free_now()

    def not_ready(self) -> str | None:
        """None when the database answers and is at this rankterm's schema; else why not, in a few words."""
        try:
            with self._read(snapshot=False) as conn:
                version = self._engine.schema_version(conn)
        except Exception as exc:  # whatever the engine says: the service is not ready
            return f"the database does not answer ({type(exc).__name__})."
        if version != SCHEMA_VERSION:
            return f"the database is at schema {version}, not {SCHEMA_VERSION}."
        return None

    def _load_signing_key(self) -> bytes:
        with self._read(snapshot=False) as conn:
            return bytes(conn.execute("SELECT value FROM meta WHERE key = 'signing_key'").fetchone()[0])

    # ------------------------------------------------------------------ lifecycle

    def close(self) -> None:
        """Close the database (idempotent), the quota counts still owed written first."""
        with contextlib.suppress(Exception):
            self._pay_owed()
        self._engine.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Store({shown(self.path)!r})"

    def backup_to(self, target: str | os.PathLike[str] | Conn) -> None:
        """Copy the whole database into a file or an open connection of the engine (`Engine.backup_to`)."""
        self._engine.backup_to(target)

    def restore_from(self, path: str | os.PathLike[str]) -> None:
        """Replace the whole database with the backup file at `path` (`Engine.restore_from`, which says what
        it raises); this store forgets what it had read of the old one."""
        self._engine.restore_from(path)
        self.snapshots.clear()
        self.latest_orders.clear()
        self._signing_key = self._load_signing_key()

    def clone(self) -> Store:
        """An independent in-memory copy, with its own token signing key (`TypeError` where the engine keeps
        no copies)."""
        copy = Store._on(self._engine.copy(), self.clock)
        with copy._write() as conn:
            conn.execute("UPDATE meta SET value = ? WHERE key = 'signing_key'", (tokens.new_signing_key(),))
        copy._signing_key = copy._load_signing_key()
        return copy

    @classmethod
    def copy_of(cls, path: str | os.PathLike[str], *, clock: Callable[[], float] | None = None) -> Store:
        """An in-memory copy of the database file at `path`, which is only read, as `backup_to` wrote it:
        neither migrated nor its catalogue synced, unlike ``Store(path)`` (`engines.copy_of_file`, which
        says what it raises)."""
        return cls._on(copy_of_file(path), clock or time.time)

    @contextlib.contextmanager
    def _write(self, lock_group: int | None = None) -> Iterator[Conn]:
        """One write transaction; `lock_group`'s writes run one after the other (`Engine.write`); the time
        it waited to begin is told to `on_write_wait`."""
        started = time.perf_counter()
        with self._engine.write(lock_group) as conn:
            if self.on_write_wait is not None:
                self.on_write_wait(time.perf_counter() - started)
            yield conn

    def _read(self, snapshot: bool = True) -> AbstractContextManager[Conn]:
        """One read transaction: one consistent snapshot (none needed for a one-statement read)."""
        return self._engine.read(snapshot)

    def _now(self, now: float | None) -> float:
        return self.clock() if now is None else now

    @property
    def signing_key(self) -> bytes:
        """The HS256 key of this service's tokens (made once, kept in the database)."""
        return self._signing_key

    # ------------------------------------------------------------------ groups and clients

    def create_group(self, name: str, *, now: float | None = None) -> int:
        """A new group (with its main subset), created at `now` (the clock's time by default); returns its id."""
        created = format_time(self._now(now))
        with self._write() as conn:
            group_id = int(
                conn.execute(
                    "INSERT INTO groups (name, created) VALUES (?, ?) RETURNING id", (name, created)
                ).fetchone()[0]
            )
            matches.subset_id(conn, group_id, matches.MAIN_SUBSET, game=None, created=created)
        return group_id

    def groups(self) -> list[tuple[int, str]]:
        """(id, name) of every group, oldest first."""
        with self._read(snapshot=False) as conn:
            return [(r[0], r[1]) for r in conn.execute("SELECT id, name FROM groups ORDER BY id")]

    def group_summaries(self, group_id: int | None = None) -> list[GroupSummary]:
        """Every group (or the one of `group_id`: [] when there is none) with its counts of players, matches
        and clients, oldest first."""
        with self._read() as conn:
            return groups.summaries(conn, group_id)

    def rename_group(self, group_id: int, name: str) -> bool:
        """Give the group a new name; False when there is no such group."""
        with self._write() as conn:
            return (
                conn.execute(
                    "UPDATE groups SET name = ? WHERE id = ? RETURNING id", (name, group_id)
                ).fetchone()
                is not None
            )

    def purge_group(self, group_id: int) -> dict[str, int]:
        """Delete every row of the group, in one transaction taken under the group's lock (no batch of its
        matches is half-written meanwhile); the rows each table lost ({} when there was no such group)."""
        with self._write(lock_group=group_id) as conn:
            return groups.purge(conn, group_id)

    def create_client(
        self, group_id: int, *, key: str | None = None, secret: str | None = None, now: float | None = None
    ) -> tuple[str, str]:
        """A new API client of the group; returns (key, secret). Only the secret's hash is kept.

        Tokens are taken from the client's first second on: a token of a client deleted with its group whose
        id was given again (SQLite reuses the highest ids) is refused."""
        key = key or tokens.random_id(20)
        secret = secret or tokens.new_secret()
        hashed = tokens.hash_secret(secret)
        moment = self._now(now)
        with self._write() as conn:
            conn.execute(
                "INSERT INTO clients (group_id, key, secret_hash, created, tokens_from) VALUES (?, ?, ?, ?, ?)",
                (group_id, key, hashed, format_time(moment), int(moment)),
            )
        return key, secret

    def client_count(self) -> int:
        """How many API clients the service has (all groups)."""
        with self._read(snapshot=False) as conn:
            return conn.execute("SELECT count(*) FROM clients").fetchone()[0]

    def has_client(self, key: str) -> bool:
        """Whether a client with this key exists."""
        with self._read(snapshot=False) as conn:
            return conn.execute("SELECT 1 FROM clients WHERE key = ?", (key,)).fetchone() is not None

    def set_client_disabled(self, key: str, disabled: bool = True) -> bool:
        """Disable (or enable again) a client: it can no longer authenticate, its tokens stop working at its
        next request (every request reads its client). False when no client has the key."""
        with self._write() as conn:
            return (
                conn.execute(
                    "UPDATE clients SET disabled = ? WHERE key = ? RETURNING id", (int(disabled), key)
                ).fetchone()
                is not None
            )

    def rotate_client(self, key: str, *, now: float | None = None) -> str | None:
        """A new secret for the client of `key` (returned; only its hash kept), the old one refused from now
        on, and every token issued before refused too; None when no client has the key."""
        secret = tokens.new_secret()
        hashed = tokens.hash_secret(secret)
        with self._write() as conn:
            row = conn.execute(
                "UPDATE clients SET secret_hash = ?, tokens_from = ? WHERE key = ? RETURNING id",
                (hashed, int(self._now(now)) + 1, key),
            ).fetchone()
        return secret if row is not None else None

    def client(self, client_id: int) -> Client | None:
        """The client with this id, or None."""
        with self._read(snapshot=False) as conn:
            row = conn.execute(
                "SELECT id, group_id, key, disabled, tokens_from FROM clients WHERE id = ?", (client_id,)
            ).fetchone()
        return Client(row[0], row[1], row[2], bool(row[3]), int(row[4])) if row else None

    def client_by_key(self, key: str) -> Client | None:
        """The client with this key, or None."""
        with self._read(snapshot=False) as conn:
            row = conn.execute(
                "SELECT id, group_id, key, disabled, tokens_from FROM clients WHERE key = ?", (key,)
            ).fetchone()
        return Client(row[0], row[1], row[2], bool(row[3]), int(row[4])) if row else None

    def authenticate(self, key: str, secret: str) -> Client:
        """The enabled client with these credentials; `Fault` A001 otherwise."""
        with self._read(snapshot=False) as conn:
            row = conn.execute(
                "SELECT id, group_id, key, disabled, secret_hash, tokens_from FROM clients WHERE key = ?",
                (key,),
            ).fetchone()
        # The hash is checked even for an unknown key, so timing does not tell which keys exist.
        stored = row[4] if row else tokens.dummy_hash()
        ok = tokens.check_secret(secret, stored)
        if row is None or not ok or row[3]:
            raise Fault("A001", "Invalid credentials, or the client is disabled.")
        return Client(row[0], row[1], row[2], bool(row[3]), int(row[5]))

    # ------------------------------------------------------------------ quota

    def charge(
        self, client_id: int, amounts: Mapping[str, int], limits: QuotaLimits, now: float | None = None
    ) -> None:
        """Count `amounts` against the client's quota, or raise the first Q… code exceeded (nothing counted;
        nothing written at all when every meter it touches is unlimited).

        A count never waits for a batch of matches being written (a backdated one re-rates thousands of
        matches, on an engine that writes one transaction at a time): while one is, a count that finds the
        database busy is judged on the last committed counts plus those owed, kept in memory, and written by
        the next count or batch that finds the database free. (A count of the same meter in flight in another
        write at that moment is not seen: at the limit, one call more may pass.) Otherwise it waits its turn,
        as every write does, and is exact."""
        if not quota.counted(amounts, limits):
            return
        moment = self._now(now)
        if self._counted_in(self._engine.write_if_free(), client_id, amounts, limits, moment):
            return
        if not self._batches:  # a short write holds the database: wait for it
            self._counted_in(self._write(), client_id, amounts, limits, moment)
            return
        with self._read(snapshot=False) as conn, self._owed_lock:
            quota.owe(conn, client_id, amounts, limits, moment, self._owed)

    def _counted_in(
        self,
        transaction: AbstractContextManager[Conn | None],
        client_id: int,
        amounts: Mapping[str, int],
        limits: QuotaLimits,
        moment: float,
    ) -> bool:
        """Count `amounts` (and pay what is owed) in `transaction`; False when it gave no connection."""
        owed = self._take_owed()
        written = False
        try:
            with transaction as conn:
                if conn is not None:
                    quota.pay(conn, owed)
                    quota.charge(conn, client_id, amounts, limits, moment)
            written = conn is not None
        finally:
            if not written:  # busy, refused or failed: what was owed is still owed
                self._owe_again(owed)
        return written

    @contextlib.contextmanager
    def _batch_on(self, on: bool) -> Iterator[None]:
        """Say, for the block, that a batch is being written (before it waits for the database, and until it
        has let go of it), so that counts do not wait for it (`charge`)."""
        if not on:
            yield
            return
        with self._owed_lock:
            self._batches += 1
        try:
            yield
        finally:
            with self._owed_lock:
                self._batches -= 1

    def _take_owed(self) -> quota.Owed:
        with self._owed_lock:
            owed, self._owed = self._owed, {}
        return owed

    def _owe_again(self, owed: quota.Owed) -> None:
        with self._owed_lock:
            for row, amount in owed.items():
                self._owed[row] = self._owed.get(row, 0) + amount

    def _pay_owed(self) -> None:
        """Write the quota counts owed, if any (after a long write, which made them owed)."""
        owed = self._take_owed()
        if not owed:
            return
        written = False
        try:
            with self._engine.write_if_free() as conn:
                if conn is not None:
                    quota.pay(conn, owed)
            written = conn is not None
        finally:
            if not written:
                self._owe_again(owed)

    def quota(self, client_id: int, limits: QuotaLimits, now: float | None = None) -> Quota:
        """The client's quota usage, in percentages."""
        with self._read() as conn:
            return Quota.model_validate(quota.usage(conn, client_id, limits, self._now(now)))

    def quota_book(self) -> QuotaBook:
        """The quota limits the host set (every client's, and each client's own)."""
        with self._read() as conn:
            return quota.stored_book(conn)

    def set_quota(
        self, settings: Mapping[str, Setting], client_key: str | None = None, *, group_id: int | None = None
    ) -> None:
        """Keep `settings` (quota field -> limit, `quota.parse_settings`) for the client of `client_key`, for
        every client of the group `group_id`, or for every client when neither is given; `KeyError` when no
        client has that key or there is no such group (nothing changed)."""
        with self._write() as conn:
            if group_id is not None:
                if conn.execute("SELECT 1 FROM groups WHERE id = ?", (group_id,)).fetchone() is None:
                    raise KeyError(group_id)
                quota.store_group_settings(conn, group_id, settings)
                return
            client_id = quota.EVERY
            if client_key is not None:
                row = conn.execute("SELECT id FROM clients WHERE key = ?", (client_key,)).fetchone()
                if row is None:
                    raise KeyError(client_key)
                client_id = row[0]
            quota.store_settings(conn, client_id, settings)

    def client_keys(self) -> list[tuple[int, str]]:
        """(id, key) of every API client, in the order they were made (for the quota table `serve` prints)."""
        with self._read() as conn:
            return [(r[0], r[1]) for r in conn.execute("SELECT id, key FROM clients ORDER BY id")]

    # ------------------------------------------------------------------ players

    def create_player(
        self, group_id: int, name: Any, *, ghost: bool = True, username: str = "", now: float | None = None
    ) -> Player:
        """A new ghost player of the group (a member when `ghost` is False: the demo's regulars).

        `Fault` R003 for an empty name or one over 50 characters.
        """
        checked = players.check_name(name)
        with self._write() as conn:
            return players.create(
                conn, group_id, checked, format_time(self._now(now)), ghost=ghost, username=username
            )

    def players_page(self, group_id: int, page: int) -> PlayersPage:
        """Page `page` (from 1) of the group's players, 25 a page."""
        with self._read() as conn:
            return players.page(conn, group_id, page)

    # ------------------------------------------------------------------ games

    def games(self, group_id: int) -> list[Game]:
        """The group's games (those with at least one match)."""
        with self._read() as conn:
            return games.group_games(conn, group_id)

    def search_games(self, group_id: int, name: Any) -> list[Game]:
        """Catalogue and group games whose name contains `name`, ignoring case and accents."""
        if not isinstance(name, str):
            raise Fault("R003", "Give the name to search for.")
        with self._read() as conn:
            return games.search(conn, group_id, name)

    def popular_games(self, group_id: int) -> list[Game]:
        """The group's most played games, then the catalogue's."""
        with self._read() as conn:
            return games.popular(conn, group_id)

    def create_game(
        self,
        group_id: int,
        *,
        bgg_id: Any = None,
        name: Any = None,
        client_id: int | None = None,
        limits: QuotaLimits | None = None,
        now: float | None = None,
    ) -> Game:
        """The game with this BGG id or name, created in the group when it does not exist yet.

        An unknown BGG id without a name is `Fault` R002 (the service has no access to BGG). A creation
        counts against the client's ``apiCreatedGames`` quota when `client_id` and `limits` are given.
        """
        bgg, text = games.check_request(bgg_id, name)
        with self._write(lock_group=group_id) as conn:
            found = games.find(conn, group_id, bgg_id=bgg, name=text)
            if found is not None:
                return found
            if text is None:
                raise Fault("R002", f"No game with BGG id {bgg} in the catalogue; give its name too.")
            if client_id is not None and limits is not None:
                quota.charge(conn, client_id, {quota.CREATED_GAMES: 1}, limits, self._now(now))
            return games.insert(conn, group_id, text, bgg)

    # ------------------------------------------------------------------ matches

    def add_matches(
        self,
        group_id: int,
        body: Any,
        *,
        dryrun: bool = False,
        client_id: int | None = None,
        limits: QuotaLimits | None = None,
        now: float | None = None,
    ) -> NewMatchAnswer:
        """Judge and (unless `dryrun`) record a match or a list of matches, match by match, each at its place
        in the group's played order (`matches.Recorder`); a date more than 5 minutes after `now` (the
        clock's time by default) is M010.

        `Fault` M002 for a body that is not a match or a list of 1..100 of them; `Fault` Q… when the
        accepted matches would take the client past a matches quota (then nothing is recorded).
        """
        items = matches.batch_items(body)
        moment = self._now(now)
        stamp = format_time(moment)
        # A dry run only reads: it never waits for, nor holds up, the group's writes.
        transaction = self._read() if dryrun else self._write(lock_group=group_id)
        with self._batch_on(not dryrun), transaction as conn:
            verdicts = matches.judge(conn, group_id, items, now=datetime.fromtimestamp(moment, UTC))
            accepted = [v for v in verdicts if v.accepted]
            ids: dict[int, str] = {}
            if not dryrun:
                if accepted and client_id is not None and limits is not None:
                    quota.charge(conn, client_id, {quota.MATCHES: len(accepted)}, limits, moment)
                recorder = matches.Recorder(conn, group_id, stamp, client_id)
                for verdict in accepted:
                    match_id = recorder.add(verdict)
                    ids[verdict.index] = verdict.external_id or str(match_id)
                recorder.finish()
        self._pay_owed()  # the counts of the calls answered while this write ran
        answer = NewMatchAnswer(
            total=len(verdicts),
            accepted_count=len(accepted),
            rejected_count=len(verdicts) - len(accepted),
            accepted=[
                MatchOutcome(index=v.index, id=ids.get(v.index, v.external_id), name=v.name) for v in accepted
            ],
            rejected=[
                MatchOutcome(
                    index=v.index,
                    id=v.external_id,
                    name=v.name,
                    errors=[{"code": c, "message": m} for c, m in v.errors],
                )
                for v in verdicts
                if not v.accepted
            ],
            dryrun=dryrun,
        )
        return answer

    def match_exists(self, group_id: int, external_id: str) -> bool:
        """Whether the group has an accepted match with this external id."""
        with self._read(snapshot=False) as conn:
            return matches.exists(conn, group_id, external_id)

    def match_status(self, group_id: int) -> MatchStatus:
        """Counts of the group's matches by stage; recording is synchronous, so all are processed."""
        with self._read(snapshot=False) as conn:
            total = conn.execute(
                "SELECT coalesce(max(number), 0) FROM matches WHERE group_id = ?", (group_id,)
            ).fetchone()[0]
        return MatchStatus(queued=0, waiting=0, added=0, processed=total, total=total)

    def matches_page(self, group_id: int, subset: str | None, page: int) -> MatchesPage:
        """Page `page` of a subset's matches (main subset when None), newest first; `Fault` R002 for no subset."""
        with self._read() as conn:
            return reads.matches_page(conn, group_id, subset, page)

    def subsets(self, group_id: int) -> list[Subset]:
        """The group's subsets: main first, then one per game played."""
        with self._read() as conn:
            return reads.subsets(conn, group_id)

    def rankings_page(
        self, group_id: int, subset: str | None, match: int | None, page: int, now: float | None = None
    ) -> RankingsPage:
        """Page `page` of a subset's standings after the group's match `match` (latest when None)."""
        with self._read() as conn:
            return reads.rankings_page(
                conn,
                group_id,
                subset,
                match,
                page,
                format_time(self._now(now)),
                self.snapshots,
                self.latest_orders,
            )
