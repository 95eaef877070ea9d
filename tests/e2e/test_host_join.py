"""Who may join a `rankterm host` table, and what a guest may do there: the join code typed into OpenSSH's own
client (keyboard-interactive and password authentication), five wrong codes locking an address out, keys of
`--authorized-keys`, and every request other than a terminal with the app refused (asyncssh's client, where
OpenSSH cannot be scripted)."""

from __future__ import annotations

import asyncio
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path

import asyncssh
import pytest

from tests.support.ssh import RunningHost, SshGuest, environ_of, start_host
from tests.support.terminal import home_env

pytestmark = pytest.mark.needs("ssh")  # OpenSSH's client, installed before the run when missing

CODE = "SEAT2345"
KBDINT = ["-o", "PreferredAuthentications=keyboard-interactive"]
PASSWORD = ["-o", "PreferredAuthentications=password"]


def host_env(tmp_path: Path) -> dict[str, str]:
    assert shutil.which("ssh"), (
        "OpenSSH's client is needed (Debian's openssh-client; tests/needs.py installs it)"
    )
    return home_env(tmp_path, RANKTERM_LIVE_EVERY="0")


@pytest.fixture
def coded(tmp_path: Path) -> Iterator[RunningHost]:
    """`rankterm host --demo --join-code SEAT2345` on 127.0.0.1: a code even on loopback, since one is given."""
    with start_host(["--demo", "--join-code", CODE], host_env(tmp_path)) as host:
        yield host


def try_code(host: RunningHost, code: str, options: list[str], source: str = "127.0.0.1") -> SshGuest:
    """A guest from `source` who types `code` when ssh asks for it."""
    guest = SshGuest(host.port, options=[*options, "-b", source])
    prompt = "Join code:" if options is KBDINT else "password:"
    assert guest.wait_for(prompt, 15), guest.seen[-400:]
    guest.press(code.encode() + b"\r")
    return guest


def refused(guest: SshGuest) -> bool:
    code = guest.exit_code()
    return code == 255 and "Permission denied" in guest.seen


def test_a_wrong_code_is_refused_and_the_fifth_locks_the_address_out(coded: RunningHost) -> None:
    assert coded.join_code == CODE
    assert refused(try_code(coded, "WRONG234", KBDINT))
    assert coded.seat_pids() == []

    right = try_code(coded, CODE.lower(), KBDINT)  # typed as people type it
    try:
        assert right.wait_for("Home", 30), right.seen[-600:]
    finally:
        right.kill()

    for options in (PASSWORD, PASSWORD, KBDINT, KBDINT):  # the second to fifth wrong codes, by either method
        assert refused(try_code(coded, "NOTTHIS2", options))

    locked = SshGuest(coded.port, options=KBDINT)
    assert refused(locked)
    assert "Too many wrong join codes from this address: wait 10 minutes." in locked.seen
    assert refused(try_code(coded, CODE, PASSWORD))  # even the right code, while the lockout lasts

    other = try_code(coded, CODE, KBDINT, source="127.0.0.2")  # another address is not locked out
    try:
        assert other.wait_for("Home", 30), other.seen[-600:]
    finally:
        other.kill()
    assert coded.wait_for_seats(0, 6) == []


def connect(port: int, **kw) -> asyncssh.SSHClientConnection:
    """asyncssh's client on the host, with nothing of the user's (keys, agent, config, known hosts)."""
    options = {
        "username": "guest",
        "known_hosts": None,
        "agent_path": None,
        "config": None,
        "client_keys": None,
    }
    return asyncssh.connect("127.0.0.1", port, **{**options, **kw})


async def refusals(port: int) -> None:
    async with connect(port) as conn:
        with pytest.raises(asyncssh.ChannelOpenError):  # a local forward, to a port that listens
            await conn.open_connection("127.0.0.1", port)
        with pytest.raises(asyncssh.ChannelOpenError):
            await conn.open_unix_connection("/run/any.sock")
        with pytest.raises(asyncssh.ChannelListenError):  # a remote forward
            await conn.forward_remote_port("127.0.0.1", 0, "127.0.0.1", port)
        with pytest.raises(asyncssh.ChannelOpenError):  # exec
            await conn.create_process("echo let-me-in", term_type="xterm")
        with pytest.raises((asyncssh.ChannelOpenError, asyncssh.SFTPError)):  # the SFTP subsystem
            await conn.start_sftp_client()
        with pytest.raises(asyncssh.ChannelOpenError):  # X11 forwarding
            await conn.create_process(term_type="xterm", x11_forwarding=True, x11_display="127.0.0.1:0")


def test_exec_subsystems_and_forwarding_are_refused(tmp_path: Path) -> None:
    with start_host(["--demo"], host_env(tmp_path)) as host:
        asyncio.run(refusals(host.port))
        assert host.seat_pids() == []


async def with_agent_forwarding(port: int, agent: str, host: RunningHost) -> dict[str, str]:
    """The environment of a seat whose guest asked for agent forwarding (the agent at `agent`)."""
    async with connect(port, agent_path=agent, agent_forwarding=True) as conn:
        process = await conn.create_process(term_type="xterm", term_size=(80, 24))
        try:
            [seat] = await asyncio.to_thread(host.wait_for_seats, 1, 10)
            return environ_of(seat)
        finally:
            process.close()


def test_no_ssh_agent_reaches_a_seat_the_guests_or_the_hosts(tmp_path: Path) -> None:
    agent = tmp_path / "agent.sock"
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(agent))
    listener.listen()
    try:
        hosts_agent = {**host_env(tmp_path), "SSH_AUTH_SOCK": str(agent)}  # the host's own agent, too
        with start_host(["--demo"], hosts_agent) as host:
            env = asyncio.run(with_agent_forwarding(host.port, str(agent), host))
            assert not any(name.startswith("SSH_") for name in env), env
            assert env["TERM"] == "xterm"
    finally:
        listener.close()


async def seat_with_key(port: int, key: asyncssh.SSHKey, host: RunningHost) -> int:
    async with connect(port, client_keys=[key], password=None) as conn:
        process = await conn.create_process(term_type="xterm-256color", term_size=(80, 24))
        try:
            return len(await asyncio.to_thread(host.wait_for_seats, 1, 10))
        finally:
            process.close()


async def refused_key(port: int, key: asyncssh.SSHKey) -> None:
    with pytest.raises(asyncssh.PermissionDenied):
        async with connect(port, client_keys=[key], password="SEAT2345"):
            pass


def test_authorized_keys_let_their_keys_in_and_no_other(tmp_path: Path) -> None:
    guest_key = asyncssh.generate_private_key("ssh-ed25519")
    stranger = asyncssh.generate_private_key("ssh-ed25519")
    keys = tmp_path / "authorized_keys"
    keys.write_bytes(guest_key.export_public_key())
    with start_host(["--demo", "--authorized-keys", str(keys)], host_env(tmp_path)) as host:
        assert any("keys of --authorized-keys join without a code" in line for line in host.lines)
        assert host.join_code is None  # the keys alone: no code to guess
        assert asyncio.run(seat_with_key(host.port, guest_key, host)) == 1
        asyncio.run(refused_key(host.port, stranger))
