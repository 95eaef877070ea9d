"""The command line's tests run in UTC (`TZ=UTC`, `tests.seat_env`): a table for people shows times in the
seat's time zone, the machine's unless the config names one, so that what is printed does not depend on the
machine. Their config, cache and data live in the test's tmp folder (`isolated`).

`league_profile` serves a store on 127.0.0.1 and makes it the only profile, ``league``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from rankterm.server.app import create_app
from rankterm.server.store import Store
from tests.seat_env import use_home, utc_seat  # noqa: F401  (utc_seat, autouse: every command line test runs in UTC)
from tests.support.live import UvicornThread


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Config, cache and data under tmp_path: no test reads or writes the user's files."""
    use_home(monkeypatch, tmp_path)
    return tmp_path


@contextmanager
def league_profile(
    tmp_path: Path, store: Store, key: str, secret: str, **app_kw: Any
) -> Iterator[UvicornThread]:
    """`store` served with `create_app(store, **app_kw)` on 127.0.0.1 and
    the only profile, ``league``, on it with `key` and `secret`, for the ``with`` block; then the server (unless
    the test stopped it) and the store are closed."""
    server = UvicornThread(create_app(store, **app_kw))
    server.start()
    config = tmp_path / "config" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f'[profiles.league]\nbase_url = "{server.base_url}"\nkey = "{key}"\nsecret = "{secret}"\n'
    )
    try:
        yield server
    finally:
        if server.thread.is_alive():
            server.stop()
        store.close()
