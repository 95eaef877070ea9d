"""Everything that serves seats to guests: `rankterm host` (SSH), `rankterm web` (browsers), the token desk they
share with their seats, the table's one demo group, and a full-screen app that ends with its terminal.

The public face: other packages import these names from `rankterm.seats`, never from its modules. A name is
loaded on first use, so that the command line and a seat load only what they run (asyncssh, aiohttp and
textual-serve only for the server that needs them). See docs/design/seats.md.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rankterm.seats.desk import Desk, DeskError, ask_seat, ask_token
    from rankterm.seats.hangup import app_ends_with_terminal, run_on_terminal
    from rankterm.seats.hosting import host_desk, served_profile
    from rankterm.seats.pty_seat import set_size
    from rankterm.seats.ssh_host import serve_ssh, ssh_settings
    from rankterm.seats.ssh_server import HostSettings
    from rankterm.seats.web_server import seat_server, serve_web

__all__ = [
    "Desk",
    "DeskError",
    "HostSettings",
    "app_ends_with_terminal",
    "ask_seat",
    "ask_token",
    "host_desk",
    "run_on_terminal",
    "seat_server",
    "serve_ssh",
    "serve_web",
    "served_profile",
    "set_size",
    "ssh_settings",
]

HOMES = {
    "Desk": "desk",
    "DeskError": "desk",
    "ask_seat": "desk",
    "ask_token": "desk",
    "app_ends_with_terminal": "hangup",
    "run_on_terminal": "hangup",
    "host_desk": "hosting",
    "served_profile": "hosting",
    "set_size": "pty_seat",
    "serve_ssh": "ssh_host",
    "ssh_settings": "ssh_host",
    "HostSettings": "ssh_server",
    "seat_server": "web_server",
    "serve_web": "web_server",
}
"""The module of each public name."""


def __getattr__(name: str) -> Any:
    home = HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
