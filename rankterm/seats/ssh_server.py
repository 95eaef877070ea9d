"""The SSH server of `rankterm host`: each session a seat (`seat.Seat`), and nothing else.

Who may join (`HostSettings`): with no guard and no authorized keys (loopback), anyone, without a password;
with a join code, keyboard-interactive or password authentication by the code (`guard.JoinCodeGuard`: an
address that gave too many wrong codes is told so in a banner and refused); with authorized keys, the keys
listed. A session gets the app when it asked for a terminal and a shell (`ssh -p PORT host`), the
scoreboard when the user name is `board`; an exec, a subsystem (SFTP), port, socket, agent or X11 forwarding
is refused. At most `max_seats` seats at once: the next guest is told so and let go. With a `desk`, each seat
gets its end of a socketpair to ask the host for tokens (`desk.Desk`).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import asyncssh

from rankterm.seats.desk import Desk
from rankterm.seats.guard import JoinCodeGuard
from rankterm.seats.hosting import seat_side
from rankterm.seats.per_address import OpenCount
from rankterm.seats.pty_seat import Seat
from rankterm.seats.warm_host import WarmParent

BOARD_USER = "board"
KEEPALIVE_SECONDS, KEEPALIVE_MISSES = 15, 4
"""A guest whose laptop vanished without closing its connection is noticed within about a minute."""
TERM_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,63}")
DEFAULT_TERM = "xterm-256color"


@dataclass(frozen=True)
class HostSettings:
    """What `rankterm host` serves, and to whom."""

    app_argv: Sequence[str]
    board_argv: Sequence[str]
    env: Mapping[str, str]
    """The environment of every seat's process (the host's own), before TERM and COLORTERM are set."""
    guard: JoinCodeGuard | None = None
    authorized_keys: asyncssh.SSHAuthorizedKeys | None = None
    max_seats: int = 12
    title: str = "rankterm"
    """What is served, for the start lines ("profile club", "the demo group")."""
    desk: Desk | None = None
    """Where each seat gets the service's address and its tokens (`desk.py`): the seat's end of a
    socketpair is passed to it as `--desk-fd N`, added to its command line."""
    warm: WarmParent | None = None
    """Where each seat is forked from, already warm (`warm_host.py`); None: each seat a fork+exec."""

    @property
    def open_door(self) -> bool:
        """Anyone may join, without authenticating."""
        return self.guard is None and self.authorized_keys is None


HOST_ONLY = frozenset({"LINES", "COLUMNS", "TERM", "COLORTERM", "DISPLAY", "WAYLAND_DISPLAY"})
"""What of the host's environment describes the host's own terminal or display, not a guest's seat."""


def seat_env(base: Mapping[str, str], term: str | None) -> dict[str, str]:
    """`base` with the guest's terminal type (when it is a plausible name) and 24-bit colour; without the host
    terminal's size (it would override the guest's), its display, or its SSH agent and connection (`SSH_*`):
    nothing of the host's keys reaches a seat."""
    env = {k: v for k, v in base.items() if k not in HOST_ONLY and not k.startswith("SSH_")}
    env["TERM"] = term if term and TERM_NAME.fullmatch(term) else DEFAULT_TERM
    env["COLORTERM"] = "truecolor"  # SSH does not forward it; every terminal that runs ssh today has it
    return env


class Table:
    """Every seat of one server: the settings, the sessions that hold a seat now, and the connections open
    from each address."""

    def __init__(self, settings: HostSettings) -> None:
        self.settings = settings
        self.sessions: set[SeatSession] = set()
        self.tasks: set[asyncio.Task[Any]] = set()
        self.open_from = OpenCount()

    def spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    @property
    def pids(self) -> list[int]:
        return [s.seat.pid for s in self.sessions if s.seat is not None and s.seat.pid is not None]

    async def close(self) -> None:
        """End every seat (the host stops)."""
        await asyncio.gather(*(s.leave() for s in list(self.sessions)), return_exceptions=True)
        if self.tasks:
            await asyncio.gather(*list(self.tasks), return_exceptions=True)


class HostConnection(asyncssh.SSHServer):
    """One guest's connection: who they are, and a seat for each session they open."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.conn: asyncssh.SSHServerConnection | None = None
        self.peer = "?"
        self.username = ""

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn
        peer = conn.get_extra_info("peername")
        self.peer = str(peer[0]) if peer else "?"
        if not self.table.open_from.enter(self.peer):
            asyncio.get_running_loop().call_soon(conn.abort)  # asyncssh is still setting it up

    def connection_lost(self, exc: Exception | None) -> None:
        self.table.open_from.leave(self.peer)

    def begin_auth(self, username: str) -> bool:
        self.username = username
        settings = self.table.settings
        if settings.open_door:
            return False
        guard = settings.guard
        if guard is not None and guard.locked(self.peer) and self.conn is not None:
            self.conn.send_auth_banner(_locked_text(guard))
        return True

    # ---------------------------------------------------------------- the join code

    def password_auth_supported(self) -> bool:
        return self.table.settings.guard is not None

    def validate_password(self, username: str, password: str) -> bool:
        guard = self.table.settings.guard
        return guard is not None and guard.try_code(self.peer, password)

    def kbdint_auth_supported(self) -> bool:
        return self.table.settings.guard is not None

    def get_kbdint_challenge(self, username: str, lang: str, submethods: str) -> Any:
        guard = self.table.settings.guard
        if guard is None:
            return False
        if guard.locked(self.peer):
            return ("rankterm", _locked_text(guard), "", [])
        return (
            "rankterm",
            "Type the join code shown where `rankterm host` runs.",
            "",
            [("Join code: ", False)],
        )

    def validate_kbdint_response(self, username: str, responses: Sequence[str]) -> bool:
        guard = self.table.settings.guard
        return guard is not None and len(responses) == 1 and guard.try_code(self.peer, responses[0])

    # ---------------------------------------------------------------- authorized keys

    def public_key_auth_supported(self) -> bool:
        return self.table.settings.authorized_keys is not None

    # ---------------------------------------------------------------- only the app

    def session_requested(self) -> SeatSession:
        return SeatSession(self.table, board=self.username == BOARD_USER)

    def connection_requested(self, dest_host: str, dest_port: int, orig_host: str, orig_port: int) -> bool:
        return False

    def server_requested(self, listen_host: str, listen_port: int) -> bool:
        return False

    def unix_connection_requested(self, dest_path: str) -> bool:
        return False

    def unix_server_requested(self, listen_path: str) -> bool:
        return False


def _locked_text(guard: JoinCodeGuard) -> str:
    minutes = round(guard.lockout_seconds / 60)
    return f"Too many wrong join codes from this address: wait {minutes} minutes.\r\n"


class SeatSession(asyncssh.SSHServerSession):
    """One SSH session: a terminal and a shell request get a seat; nothing else is granted."""

    def __init__(self, table: Table, *, board: bool) -> None:
        self.table = table
        self.board = board
        self.chan: Any = None
        self.term: str | None = None
        self.size = (80, 24)
        self.seat: Seat | None = None
        self.gone = False

    def connection_made(self, chan: Any) -> None:
        self.chan = chan

    def pty_requested(self, term_type: str, term_size: tuple[int, int, int, int], term_modes: Any) -> bool:
        self.term = term_type
        if term_size[0] > 0 and term_size[1] > 0:
            self.size = (seat_side(term_size[0]), seat_side(term_size[1]))
        return True

    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
        if width > 0 and height > 0:
            self.size = (seat_side(width), seat_side(height))
            if self.seat is not None:
                self.seat.resize(*self.size)

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        return False

    def subsystem_requested(self, subsystem: str) -> bool:
        return False

    def session_started(self) -> None:
        self.table.spawn(self._start())

    async def _start(self) -> None:
        if self.term is None:
            self._refuse("rankterm host serves a full-screen app: connect with `ssh -t`, and no command.")
            return
        settings = self.table.settings
        if len(self.table.sessions) >= settings.max_seats:
            self._refuse(
                f"No seat is free (at most {settings.max_seats} at once): try again when someone leaves."
            )
            return
        self.table.sessions.add(self)
        argv = list(settings.board_argv if self.board else settings.app_argv)
        ours = theirs = None
        if settings.desk is not None:
            ours, theirs = settings.desk.pair()
            argv += ["--desk-fd", str(theirs.fileno())]
        seat = Seat(
            argv,
            seat_env(settings.env, self.term),
            self.size,
            write=self._output,
            pause_input=self.chan.pause_reading,
            resume_input=self.chan.resume_reading,
            on_exit=self._exited,
            pass_fds=() if theirs is None else (theirs.fileno(),),
            warm=settings.warm,
        )
        try:
            await seat.start()
        except OSError as exc:
            self.table.sessions.discard(self)
            if ours is not None:
                ours.close()
            self._refuse(f"The seat could not be started: {exc.strerror or exc}.")
            return
        finally:
            if theirs is not None:
                theirs.close()  # the seat holds its end now
        if settings.desk is not None and ours is not None:
            self.table.spawn(settings.desk.serve(ours))
        self.seat = seat
        if self.gone:  # the guest left while the process was starting
            await self.leave()
        elif seat.size != self.size:  # the guest's window changed while the process was starting
            seat.resize(*self.size)

    def _refuse(self, message: str) -> None:
        with contextlib.suppress(Exception):  # the channel closed meanwhile
            self.chan.write(f"\r\n{message}\r\n".encode())
            self.chan.exit(1)

    def _output(self, data: bytes) -> None:
        with contextlib.suppress(Exception):  # the channel closed meanwhile: the seat is being ended
            self.chan.write(data)

    def _exited(self, returncode: int) -> None:
        self.table.sessions.discard(self)
        with contextlib.suppress(Exception):
            self.chan.exit(returncode if returncode >= 0 else 128 - returncode)

    def data_received(self, data: bytes, datatype: Any) -> None:
        if self.seat is not None:
            self.seat.keys(data)

    def eof_received(self) -> bool:
        return True  # the guest's input ended; the seat stays until the connection goes

    def pause_writing(self) -> None:
        if self.seat is not None:
            self.seat.pause_output()

    def resume_writing(self) -> None:
        if self.seat is not None:
            self.seat.resume_output()

    def connection_lost(self, exc: Exception | None) -> None:
        self.gone = True
        if self.seat is not None:
            self.table.spawn(self.leave())

    async def leave(self) -> None:
        """End this seat's process (the guest is gone, or the host stops)."""
        if self.seat is not None:
            await self.seat.end()
        self.table.sessions.discard(self)


async def start_server(
    settings: HostSettings, host_key: asyncssh.SSHKey, host: str, port: int
) -> tuple[asyncssh.SSHAcceptor, Table]:
    """Listen on `host`:`port`; the listener and the table of its seats."""
    table = Table(settings)
    acceptor = await asyncssh.create_server(
        lambda: HostConnection(table),
        host,
        port,
        server_host_keys=[host_key],
        authorized_client_keys=settings.authorized_keys,
        encoding=None,
        line_editor=False,
        agent_forwarding=False,
        x11_forwarding=False,
        allow_scp=False,
        keepalive_interval=KEEPALIVE_SECONDS,
        keepalive_count_max=KEEPALIVE_MISSES,
        reuse_address=True,
    )
    return acceptor, table
