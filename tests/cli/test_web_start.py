"""What `rankterm web` says once its port listens (its server's lines, without serving): addresses a browser
can open (never a wildcard), and a reason for having no join code that is true of the host given."""

from __future__ import annotations

import pytest

import rankterm.cli
from rankterm.seats.web_server import seat_server
from rankterm.server import addresses
from rankterm.server.addresses import Address

ROOM = [Address("127.0.0.1", "lo"), Address("10.1.2.3", "eth0"), Address("192.168.1.7", "wlan0")]


def said_at_start(capsys: pytest.CaptureFixture[str], host: str, join_code: str | None) -> list[str]:
    server = seat_server("true", host=host, port=8765, join_code=join_code, title="rankterm demo")
    server.say_listening()  # what the server says once its port listens
    return capsys.readouterr().out.splitlines()


@pytest.mark.parametrize("host", ["127.0.0.2", "::1", "localhost"])
def test_a_loopback_host_says_only_this_machine_can_connect_and_why(
    capsys: pytest.CaptureFixture[str], host: str
) -> None:
    serving, code, seats = said_at_start(capsys, host, None)
    assert serving.startswith(f"rankterm web: serving rankterm demo on {addresses.url(host, 8765)} ")
    assert code.startswith("rankterm web: no join code: only this machine can connect (")
    assert host in code and "127.0.0.1" not in code  # the host given, not another
    assert seats == "rankterm web: at most 12 seats at once"


def test_every_address_of_this_machine_is_said_for_a_wildcard_and_the_code_link_uses_one(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(addresses, "interface_addresses", lambda: ROOM)
    serving, code, _ = said_at_start(capsys, "0.0.0.0", "SEAT2345")
    assert serving == (
        "rankterm web: serving rankterm demo on http://10.1.2.3:8765/ and http://192.168.1.7:8765/ and"
        " http://127.0.0.1:8765/ (Ctrl+C stops)"
    )
    assert code == "rankterm web: join code SEAT2345  (or open http://10.1.2.3:8765/?code=SEAT2345)"


def test_a_port_no_socket_can_have_is_refused_in_one_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    assert rankterm.cli.main(["web", "--demo", "--port", "70000"]) == 2
    assert capsys.readouterr().err == "rankterm: --port must be between 0 and 65535, not 70000.\n"
