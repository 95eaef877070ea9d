"""`Conn`: what the service's modules need of a connection inside a transaction, whichever engine gave it.

The modules by role (`players`, `games`, `matches`, `rankings`, `reads`, `quota`, `snapshots`) take a `Conn`
inside the transaction the `Store` opened through its `engine.Engine`. They write SQL once, in words both
engines know (``?`` placeholders, ``INSERT … RETURNING``, ``ON CONFLICT``); what cannot be written once is
asked of the connection's `Dialect`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from typing import Any, Protocol

CHUNK = 500
"""Values named in one statement at most (SQLite allows 32,766 parameters; PostgreSQL 65,535)."""


class Dialect(ABC):
    """The SQL an engine writes its own way, as pieces the modules put into their statements.

    An engine has one instance (hashable: statements built from it may be cached by it).
    """

    @abstractmethod
    def name_order(self, text: str) -> str:
        """An SQL expression that orders as Python orders the names given.

        Args:
            text: an SQL expression of a stored name (a column such as ``sort_key``, or ``?``).

        Returns:
            The expression to put where `text` would be compared or ordered.
        """


class Rows(Protocol):
    """The answer of one statement."""

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Conn(Protocol):
    """A connection inside an open transaction."""

    @property
    def dialect(self) -> Dialect: ...

    def execute(self, sql: str, parameters: Any = ..., /) -> Rows: ...

    def executemany(self, sql: str, parameters: Any, /) -> Any: ...


def in_chunks(ids: Sequence[str]) -> Iterator[tuple[Sequence[str], str]]:
    """`ids` a statement's worth at a time (`CHUNK`), each with its ``?`` marks ("?,?,?")."""
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        yield chunk, ",".join("?" * len(chunk))
