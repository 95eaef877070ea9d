"""The addresses at which other machines can reach a server of this one, for the set-up text to print.

A server listening on a wildcard (`0.0.0.0`, `::`) is reached at the addresses of this machine's network
interfaces, never at the wildcard itself. They are read from the interfaces, with nothing sent anywhere: on
Linux each interface's IPv4 address is asked of the kernel (`SIOCGIFADDR` on an unbound socket) and its IPv6
addresses are read from /proc/net/if_inet6. Elsewhere no interface is read, and the text says to use this
machine's address. Loopback addresses come last: they reach this machine only.
"""

from __future__ import annotations

import contextlib
import fcntl
import ipaddress
import socket
import struct
import sys
from dataclasses import dataclass
from pathlib import Path

SIOCGIFADDR = 0x8915
"""Linux's ioctl for an interface's IPv4 address."""
IF_INET6 = Path("/proc/net/if_inet6")
WILDCARDS = frozenset({"0.0.0.0", "::", ""})


@dataclass(frozen=True)
class Address:
    """An address of this machine and the interface that holds it."""

    ip: str
    interface: str

    @property
    def loopback(self) -> bool:
        return ipaddress.ip_address(self.ip).is_loopback

    @property
    def version(self) -> int:
        return ipaddress.ip_address(self.ip).version


def _ipv4_of(sock: socket.socket, name: str) -> str | None:
    request = struct.pack("256s", name.encode()[:15])
    try:
        answer = fcntl.ioctl(sock.fileno(), SIOCGIFADDR, request)
    except OSError:  # an interface without an IPv4 address, or gone meanwhile
        return None
    return socket.inet_ntoa(answer[20:24])


def _ipv6_addresses(text: str) -> list[Address]:
    """The usable IPv6 addresses of /proc/net/if_inet6's `text`: link-local ones (fe80::, which need the
    interface named in the URL) left out."""
    found = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) < 6 or len(fields[0]) != 32:
            continue
        ip = ipaddress.IPv6Address(bytes.fromhex(fields[0]))
        if not ip.is_link_local:
            found.append(Address(str(ip), fields[5]))
    return found


def interface_addresses() -> list[Address]:
    """This machine's addresses by interface (IPv4 then IPv6, in the kernel's order); empty where they cannot
    be read without a network request (not Linux)."""
    if not sys.platform.startswith("linux"):
        return []
    found: list[Address] = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:  # never bound nor connected: sends nothing
        for _, name in socket.if_nameindex():
            ip = _ipv4_of(sock, name)
            if ip is not None:
                found.append(Address(ip, name))
    with contextlib.suppress(OSError):
        found += _ipv6_addresses(IF_INET6.read_text())
    return found


def host_port(host: str, port: int) -> str:
    """`host:port`, an IPv6 address in brackets."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def url(host: str, port: int) -> str:
    """`http://host:port/`."""
    return f"http://{host_port(host, port)}/"


def is_loopback(host: str) -> bool:
    """True when `host` only accepts connections from this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def reachable(host: str, addresses: list[Address] | None = None) -> list[Address]:
    """Where a server listening on `host` is reached: `host` itself, unless it is a wildcard; then every
    address of `addresses` (default: this machine's) of the wildcard's family (IPv6's `::` takes IPv4 too,
    as Linux's dual-stack sockets do), others' first and loopback last."""
    if host not in WILDCARDS:
        return [Address(host, "")]
    found = interface_addresses() if addresses is None else addresses
    if host == "0.0.0.0":
        found = [a for a in found if a.version == 4]
    return sorted(found, key=lambda a: (a.loopback, a.version))
