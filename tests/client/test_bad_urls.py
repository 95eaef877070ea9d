"""A base URL no request can be sent to (a port out of range or not a number, a malformed IPv6 host) gives
one sentence wherever it turns up: in config.toml (the command line says so and exits 2) and, as a last
wall, in a `RankingClient` made on it directly. Before, the socket layer's OverflowError or httpx's
InvalidURL came out as a traceback, and in the app ended the seat."""

from __future__ import annotations

import pytest

from rankterm.cli import main
from rankterm.client.client import RankingClient
from rankterm.mirror import Group
from rankterm.wire.errors import BadBaseURL, RanktermError

BAD = {
    "http://127.0.0.1:99999/": 'must have a port from 1 to 65535, not "99999"',
    "http://127.0.0.1:abc/": 'must have a port from 1 to 65535, not "abc"',
    "http://[::1/": "must close the brackets of its IPv6 host",
}


@pytest.fixture
def config_with(tmp_path, monkeypatch):
    def write(url: str) -> None:
        path = tmp_path / "config.toml"
        path.write_text(f'[profiles.room]\nbase_url = "{url}"\nkey = "k"\nsecret = "s"\n', encoding="utf-8")
        path.chmod(0o600)
        monkeypatch.setenv("RANKTERM_CONFIG", str(path))

    monkeypatch.setenv("RANKTERM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RANKTERM_DATA_DIR", str(tmp_path / "data"))
    return write


@pytest.mark.parametrize("url", list(BAD))
@pytest.mark.parametrize("command", [["rankings"], ["--profile", "room", "games"]])
def test_the_command_line_names_the_setting_in_one_line(config_with, capsys, url, command):
    config_with(url)
    assert main(command) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("rankterm: ") and "config.toml" in lines[0]
    assert f"profiles.room.base_url: {BAD[url]}" in lines[0]


@pytest.mark.parametrize("url", [*BAD, "http://:8765/", "ftp://127.0.0.1/"])
async def test_a_client_made_on_such_a_url_raises_one_sentence(url):
    group = Group(RankingClient(url, key="k", secret="s", retries=0))
    try:
        with pytest.raises(BadBaseURL) as raised:
            await group.client.test()
        with pytest.raises(RanktermError):
            await group.games(refresh=True)
    finally:
        await group.client.aclose()
    message = str(raised.value)
    assert message.startswith(f"The base URL {url} must ") and message.endswith(".") and "\n" not in message
    if url in BAD:
        assert BAD[url] in message


async def test_an_error_of_the_service_in_process_is_not_taken_for_a_bad_url():
    async def broken(scope, receive, send):  # an ASGI app that fails as a bug of the embedded service would
        raise ValueError("a bug of the service")

    group = Group(RankingClient.in_process(broken, key="k", secret="s", retries=0))
    try:
        with pytest.raises(ValueError, match="a bug of the service"):
            await group.client.test()
    finally:
        await group.client.aclose()


async def test_a_host_idna_cannot_encode_is_one_sentence_too():
    group = Group(RankingClient("http://xn--a/", key="k", secret="s", retries=0))
    try:
        with pytest.raises(BadBaseURL, match=r"^The base URL http://xn--a/ cannot be used \(.+\)\.$"):
            await group.client.test()
    finally:
        await group.client.aclose()
