"""The demo's client opens with a token minted in-process (`seed.demo_token`): its first read asks for no token,
the token is one the service accepts, and an expired one is renewed with the demo's secret as before."""

from __future__ import annotations

from rankterm.cli.app import make_demo_client
from rankterm.server.seed import demo_app, demo_token
from rankterm.server.store import Store
from tests.support.clock import SettableClock


async def test_the_demo_client_reads_at_once_with_the_minted_token():
    clock = SettableClock()
    client = make_demo_client(clock)
    try:
        status = await client.match_status()
        assert status.total == 300
        assert client.calls == 1  # the read itself: no GET auth before it
        clock.advance(2 * 3600)  # past the minted token's hour: renewed with the secret, and read again
        assert (await client.match_status()).total == 300
        assert client.calls == 3
    finally:
        await client.aclose()


def test_a_token_only_for_a_store_holding_the_demo_client():
    app, _, _ = demo_app(clock=SettableClock())
    assert demo_token(app, SettableClock()()) is not None
    empty, _, _ = demo_app(clock=SettableClock())
    empty.state.store = Store(":memory:", clock=SettableClock())
    assert demo_token(empty, SettableClock()()) is None
