"""A browser seat's process for `rankterm web`: forked by the warm parent onto three pipes when it can be, else
started by fork+exec; either way what textual-serve reads a seat through, an `asyncio.subprocess.Process`.

textual-serve (`AppService.run`, `send_bytes`, `send_meta`) uses only a process's `stdin` (a StreamWriter:
`write`, `drain`), `stdout` (a StreamReader: `readline`, `readexactly`) and `stderr` (a StreamReader: `read`).
`WarmWebProcess` gives those over the pipes whose other ends the warm parent handed the seat, and the
`pid`, `returncode`, `wait()` and signals of the seat, which this process (a child subreaper) reaps itself
(`warm_host.WarmChild`). See docs/design/seats.md ("The warm parent").
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from rankterm.seats.lifeline import die_with_parent
from rankterm.seats.warm_host import WarmChild, WarmParent, WarmUnavailable

STREAM_LIMIT = 2**16
"""A StreamReader's buffer, as asyncio's subprocess gives it."""
END_SECONDS = 3.0
"""From textual-serve done with a seat (its output closed) to the seat surely gone: SIGTERM, then SIGKILL."""


class WarmWebProcess:
    """A browser seat forked by the warm parent, seen as the asyncio subprocess textual-serve expects."""

    def __init__(
        self,
        child: WarmChild,
        stdin: asyncio.StreamWriter,
        stdout: asyncio.StreamReader,
        stderr: asyncio.StreamReader,
    ) -> None:
        self.child = child
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr

    @property
    def pid(self) -> int:
        return self.child.pid

    @property
    def returncode(self) -> int | None:
        return self.child.returncode

    async def wait(self) -> int:
        return await self.child.wait()

    def send_signal(self, signum: int) -> None:
        if self.child.returncode is None:  # not yet reaped, so the pid is still the seat's
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.child.pid, signum)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


async def open_web_seat(
    argv: Sequence[str], env: Mapping[str, str], pass_fds: Sequence[int], warm: WarmParent | None
) -> Any:
    """`argv` with `env` on three pipes, holding `pass_fds` at the same numbers: forked by `warm` when it can,
    else started by fork+exec (an `asyncio.subprocess.Process`); it ends with this process however it ends."""
    if warm is not None and warm.fits(argv):
        with contextlib.suppress(WarmUnavailable):
            return await _forked(warm, argv, env, pass_fds)
    return await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        limit=STREAM_LIMIT,
        env=dict(env),
        pass_fds=tuple(pass_fds),
        preexec_fn=partial(die_with_parent, os.getpid()),
    )


async def _forked(
    warm: WarmParent, argv: Sequence[str], env: Mapping[str, str], pass_fds: Sequence[int]
) -> WarmWebProcess:
    stdin_r, stdin_w = os.pipe()
    stdout_r, stdout_w = os.pipe()
    stderr_r, stderr_w = os.pipe()
    ours = [stdin_w, stdout_r, stderr_r]
    try:
        child = await warm.fork(argv, env, [stdin_r, stdout_w, stderr_w], pass_fds)
    except BaseException:
        _close(ours)
        raise
    finally:
        _close([stdin_r, stdout_w, stderr_w])  # the seat holds them now: its end closes its pipes
    try:
        loop = asyncio.get_running_loop()
        stdout = await _reader(loop, stdout_r)
        stderr = await _reader(loop, stderr_r)
        protocol = asyncio.StreamReaderProtocol(asyncio.StreamReader(limit=STREAM_LIMIT))
        transport, _ = await loop.connect_write_pipe(lambda: protocol, os.fdopen(stdin_w, "wb", 0))
    except BaseException:
        os.kill(child.pid, signal.SIGKILL)
        raise
    stdin = asyncio.StreamWriter(transport, protocol, None, loop)
    return WarmWebProcess(child, stdin, stdout, stderr)


async def _reader(loop: asyncio.AbstractEventLoop, fd: int) -> asyncio.StreamReader:
    reader = asyncio.StreamReader(limit=STREAM_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(fd, "rb", 0))
    return reader


def _close(fds: Sequence[int]) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


async def end_web_seat(process: Any) -> None:
    """After textual-serve is done with a seat (it was asked to quit and its output has closed): SIGTERM if it
    is still there, then SIGKILL, within `END_SECONDS`, and reaped."""
    for signum in (None, signal.SIGTERM, signal.SIGKILL):
        if signum is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signum)
        try:
            await asyncio.wait_for(asyncio.shield(process.wait()), END_SECONDS / 3)
            return
        except TimeoutError:
            continue
