"""The host's side of the warm parent: `rankterm host` starts it once, asks it for each seat, and reaps the seats
it forks (`warm.py` is the warm parent's side).

The warm parent is a fresh `rankterm seat --warm-fd N` process (an exec, never a fork of the host: it holds
nothing of the host's memory) with the seats' environment, which never has the secret. The host is the child
subreaper of its descendants, so each seat forked is handed to it: the host learns the seat's pid from the
warm parent, waits for it on a pidfd and gets its exit status itself. A warm parent that dies ends no seat;
the host starts another, and meanwhile (or when none can be had) a seat is a fork+exec as before.
See docs/design/seats.md ("The warm parent").
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
from collections.abc import Mapping, Sequence
from functools import partial

from rankterm.seats.lifeline import adopt_orphans, die_with_parent
from rankterm.seats.warm import MAX_REQUEST, ROOM_VARIABLE

READY_SECONDS = 60.0
"""How long the warm parent has to import what a seat needs, before the host does without it."""
FORK_SECONDS = 10.0
"""How long a request may wait for its answer before the warm parent is taken for stuck (and replaced)."""
ARGV_ROOM = 256
ENV_ROOM = 4096
"""Bytes of padding in the warm parent's command line and environment (beyond its own), over which each seat
writes its own (/proc shows a seat's, as for a seat started by exec)."""
MODE_VARIABLE = "RANKTERM_SEATS"
"""`RANKTERM_SEATS=exec` in the host's environment: every seat a fork+exec, as before (for comparisons)."""


class WarmUnavailable(Exception):
    """No warm parent can fork this seat now: the caller starts it the old way."""


class WarmChild:
    """A seat forked by the warm parent and handed to this process: its pid, its return code once it has ended
    (negative for a signal, as asyncio's), and `wait()`."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None
        loop = asyncio.get_running_loop()
        self._ended: asyncio.Future[int] = loop.create_future()
        try:
            self._pidfd = os.pidfd_open(pid)
        except ProcessLookupError as exc:  # already gone and reaped by someone else: not ours
            raise WarmUnavailable(f"the seat {pid} is not this host's child") from exc
        loop.add_reader(self._pidfd, self._reap)
        self._reap()

    def _reap(self) -> None:
        try:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
        except ChildProcessError:  # never handed over to this process: ended, its status unknown
            pid, status = self.pid, 255 << 8
        if pid == 0:
            return
        self.returncode = os.waitstatus_to_exitcode(status)
        loop = asyncio.get_running_loop()
        loop.remove_reader(self._pidfd)
        os.close(self._pidfd)
        if not self._ended.done():
            self._ended.set_result(self.returncode)

    async def wait(self) -> int:
        return await asyncio.shield(self._ended)


class WarmParent:
    """The warm parent of one host: `prefix` is a seat's command (`rankterm seat`: `hosting.seat_argvs`), which
    the warm parent runs with `--warm-fd`, and each seat with its own arguments after it; `env` the environment
    it starts with (the seats', with no secret in it)."""

    def __init__(self, prefix: Sequence[str], env: Mapping[str, str]) -> None:
        self.prefix = list(prefix)
        self.env = dict(env)
        self.pid: int | None = None
        self._process: asyncio.subprocess.Process | None = None
        self._sock: socket.socket | None = None
        self._ready: asyncio.Future[bool] | None = None
        self._lock = asyncio.Lock()
        self._closing = False
        self._tasks: set[asyncio.Task[None]] = set()
        self.starts = 0

    def fits(self, argv: Sequence[str]) -> bool:
        """`argv` is the seat command this warm parent can run."""
        return list(argv[: len(self.prefix)]) == self.prefix

    def start(self) -> None:
        """Start the warm parent in the background (`fork` waits for it to be ready)."""
        if self._closing or not adopt_orphans():
            return
        loop = asyncio.get_running_loop()
        self._ready = loop.create_future()
        task = loop.create_task(self._run(self._ready))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run(self, ready: asyncio.Future[bool]) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = {**self.env, ROOM_VARIABLE: "." * ENV_ROOM}
        try:
            process = await asyncio.create_subprocess_exec(
                *self.prefix,
                "--warm-fd",
                str(theirs.fileno()),
                "--room",
                "." * ARGV_ROOM,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                env=env,
                pass_fds=(theirs.fileno(),),
                start_new_session=True,  # the host's Ctrl+C is the host's: the warm parent ends with it
                preexec_fn=partial(die_with_parent, os.getpid()),
            )
        except OSError:
            ours.close()
            ready.set_result(False)
            return
        finally:
            theirs.close()
        self.starts += 1
        self._process, self.pid = process, process.pid
        if self._closing:  # the host stopped while it was being started
            ours.close()
            process.terminate()
            ready.set_result(False)
            await process.wait()
            return
        ours.setblocking(False)
        loop = asyncio.get_running_loop()
        try:
            said = await asyncio.wait_for(loop.sock_recv(ours, 4096), READY_SECONDS)
            ok = bool(said) and "ready" in json.loads(said)
        except (TimeoutError, OSError, ValueError):
            ok = False
        if ok:
            self._sock = ours
        else:
            ours.close()
            with contextlib.suppress(ProcessLookupError):
                process.kill()
        ready.set_result(ok)
        await process.wait()
        if self._sock is ours:
            self._sock = None
            ours.close()
        if ok and not self._closing:  # it was serving and died: another one, for the next guests
            self.start()

    async def fork(
        self,
        argv: Sequence[str],
        env: Mapping[str, str],
        streams: Sequence[int],
        pass_fds: Sequence[int] = (),
    ) -> WarmChild:
        """A seat running `argv` (a rankterm command: see `fits`) with `env` on `streams`: a pty (its standard
        streams and controlling terminal) or three descriptors (its standard input, output and error, and no
        terminal); holding `pass_fds` at the same numbers. WarmUnavailable when no warm parent can fork it now."""
        if len(streams) not in (1, 3):
            raise ValueError("a seat's streams are a pty or three descriptors")
        if self._ready is None or not self.fits(argv):
            raise WarmUnavailable("no warm parent")
        try:
            ok = await asyncio.wait_for(asyncio.shield(self._ready), READY_SECONDS)
        except TimeoutError as exc:
            raise WarmUnavailable("the warm parent is not ready") from exc
        if not ok:
            raise WarmUnavailable("the warm parent did not start")
        request = {
            "args": list(argv[len(self.prefix) :]),
            "argv": list(argv),
            "env": dict(env),
            "host": os.getpid(),
            "numbers": list(pass_fds),
            "streams": len(streams),
        }
        data = json.dumps(request).encode()
        if len(data) > MAX_REQUEST:
            raise WarmUnavailable("the request is too large")
        async with self._lock:
            sock = self._sock
            if sock is None:
                raise WarmUnavailable("the warm parent is gone")
            loop = asyncio.get_running_loop()
            try:
                socket.send_fds(sock, [data], [*streams, *pass_fds])
                said = await asyncio.wait_for(loop.sock_recv(sock, 4096), FORK_SECONDS)
            except TimeoutError as exc:
                self._stuck()
                raise WarmUnavailable("the warm parent did not answer") from exc
            except OSError as exc:
                raise WarmUnavailable(f"the warm parent is gone: {exc}") from exc
        if not said:
            raise WarmUnavailable("the warm parent is gone")
        try:
            answer = json.loads(said)
        except ValueError as exc:
            raise WarmUnavailable("the warm parent said nonsense") from exc
        pid = answer.get("pid") if isinstance(answer, dict) else None
        if not isinstance(pid, int) or pid <= 1:
            raise WarmUnavailable(str(answer.get("error") if isinstance(answer, dict) else answer))
        return WarmChild(pid)

    def _stuck(self) -> None:
        if self._process is not None and self._process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self._process.kill()  # its end starts another

    async def close(self) -> None:
        """End the warm parent (the host stops); seats it forked are the host's and end with their guests."""
        self._closing = True
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        if self._process is not None and self._process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self._process.terminate()
        if self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)


def warm_wanted(env: Mapping[str, str]) -> bool:
    """Seats are forked warm unless the host's environment says `RANKTERM_SEATS=exec`."""
    return env.get(MODE_VARIABLE, "warm").strip().lower() != "exec"
