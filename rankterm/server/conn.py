"""`Conn`: what the service's modules need of a database connection, met by sqlite3's and by `pg.PgConnection`.

The modules by role (`players`, `games`, `matches`, `rankings`, `reads`, `quota`) take a `Conn` inside the
transaction the `Store` opened; they write SQL once, in SQLite's dialect, and `pg` translates it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol

PG_MARK = "\uf8ff"
"""PostgreSQL's escape of text it cannot hold (a private-use character; see `pg.escape`). Here, not in `pg`,
which imports psycopg (an optional dependency), because the SQL both engines run orders names around it."""


class Rows(Protocol):
    """The answer of one statement."""

    @property
    def lastrowid(self) -> int | None: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Conn(Protocol):
    """A connection inside an open transaction."""

    def execute(self, sql: str, parameters: Any = ..., /) -> Rows: ...

    def executemany(self, sql: str, parameters: Any, /) -> Any: ...
