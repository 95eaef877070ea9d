"""Security promises: private files, secrets kept out of logs and messages, TLS on unless a profile says off."""

from __future__ import annotations

import logging
import os
import ssl
import stat

import pytest

from rankterm import config as cfg
from rankterm.cli import make_profile_client
from rankterm.client.auth import TokenCache
from rankterm.client.client import RankingClient
from rankterm.mirror import Group
from rankterm.outbox.outbox import Outbox
from rankterm.server.app import create_app
from rankterm.server.store import Store
from rankterm.wire.errors import AuthError
from rankterm.wire.models import NewMatch

SECRET = "sup3r-s3cret-value"


@pytest.fixture
def service(tmp_path):
    store = Store(tmp_path / "svc.db")
    group = store.create_group("G")
    key, secret = store.create_client(group)
    return store, key, secret


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_config_token_cache_and_outbox_are_private(tmp_path, monkeypatch):
    monkeypatch.setenv("RANKTERM_CONFIG", str(tmp_path / "c" / "config.toml"))
    os.umask(0o022)
    path = cfg.save_config(cfg.Config(profiles={"h": cfg.Profile(base_url="http://x.test/", secret=SECRET)}))
    cache = TokenCache(tmp_path / "cache" / "tokens.toml")
    from rankterm.client.auth import Token

    cache.save("http://x.test/", "k", Token.parse("t"))
    box = Outbox(tmp_path / "data" / "outbox.db", "scope")
    box.add(NewMatch(weight="normal"))
    assert _mode(path) == 0o600 and _mode(cache.path) == 0o600 and _mode(box.path) == 0o600


async def test_secret_never_in_logs_or_errors(service, caplog):
    store, key, _ = service
    caplog.set_level(logging.DEBUG)
    client = Group.of(RankingClient.in_process(create_app(store), key=key, secret=SECRET))
    with pytest.raises(AuthError) as info:
        await client.games()
    await client.aclose()
    assert SECRET not in str(info.value) and SECRET not in repr(client)
    assert "secret=***" in caplog.text  # httpx did log the auth URL, redacted
    assert SECRET not in caplog.text


async def test_real_secret_redacted_on_success(service, caplog):
    store, key, secret = service
    caplog.set_level(logging.DEBUG)
    client = Group.of(RankingClient.in_process(create_app(store), key=key, secret=secret))
    assert await client.games() == []
    await client.aclose()
    assert secret not in caplog.text


def _verify_mode(group: Group) -> int:
    pool = group.client.http._transport._pool  # httpx keeps the SSL context on the connection pool
    return pool._ssl_context.verify_mode


async def test_tls_verification_on_by_default_off_only_by_profile():
    on = make_profile_client(cfg.Profile(base_url="https://rank.example/", key="k", secret="s"))
    off = make_profile_client(
        cfg.Profile(base_url="https://rank.example/", key="k", secret="s", verify_tls=False)
    )
    assert _verify_mode(on) == ssl.CERT_REQUIRED
    assert _verify_mode(off) == ssl.CERT_NONE
    await on.aclose()
    await off.aclose()


def test_verify_tls_false_must_be_written_explicitly(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[profiles.a]\nbase_url = "https://x.test/"\n')
    assert cfg.load_config(path).profiles["a"].verify_tls is True
    path.write_text('[profiles.a]\nbase_url = "https://x.test/"\nverify_tls = false\n')
    assert cfg.load_config(path).profiles["a"].verify_tls is False


async def test_hostile_names_stored_verbatim_through_the_client(service):
    store, key, secret = service
    client = Group.of(RankingClient.in_process(create_app(store), key=key, secret=secret))
    names = ["Robert'); DROP TABLE players; --", "\x1b[31mRed\x1b[0m\x07", "[bold]markup[/bold]", "Zoë 🎲"]
    for name in names:
        await client.create_player(name)
    shown = sorted(p.display_name for p in await client.players(refresh=True))
    await client.aclose()
    assert shown == sorted("*" + n for n in names)


def test_no_secret_in_snapshots_or_screenshots():
    """The demo's secret and the test profiles' secrets never appear in what the app was seen to draw."""
    root = __import__("pathlib").Path(__file__).resolve().parents[2]
    svgs = [*root.glob("tests/tui/__snapshots__/**/*.svg"), *root.glob("screenshots/*.svg")]
    assert len(svgs) >= 20
    from rankterm.server.seed import DEMO_SECRET

    for svg in svgs:
        text = svg.read_text(encoding="utf-8")
        for secret in (DEMO_SECRET, "not-the-secret", SECRET):
            assert secret not in text, f"{svg.name} shows a secret"
