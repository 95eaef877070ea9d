"""The client's fixtures: a scriptable fake service (`fake`) and a RankingClient on it (`client`)."""

from __future__ import annotations

import httpx
import pytest

from rankterm.client.client import RankingClient
from tests.fake_service import BASE, FakeService


@pytest.fixture
def fake() -> FakeService:
    return FakeService()


@pytest.fixture
async def client(fake, tmp_path):
    from rankterm.client.auth import TokenCache

    http = httpx.AsyncClient(transport=httpx.MockTransport(fake))
    c = RankingClient(
        BASE,
        key="key1",
        secret="s3cret",
        http=http,
        token_cache=TokenCache(tmp_path / "tokens.toml"),
        backoff=0.001,
    )
    yield c
    await http.aclose()


@pytest.fixture
def group(client):
    """The group read through `client`, its mirror in memory."""
    from rankterm.mirror import Group

    return Group(client)
