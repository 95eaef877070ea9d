"""One seat of `rankterm host`: a `rankterm` process on a pseudo-terminal of its own, joined to one SSH session.

The process leads a session with the pty as its controlling terminal, as under sshd (resizes, the hangup).
Bytes move without blocking the host's loop, and a slow guest holds back only their own seat. When the guest
goes, `end` sends SIGHUP, then SIGTERM, then SIGKILL, all within `END_SECONDS`. See docs/design/seats.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import os
import signal
import struct
import termios
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Protocol

from rankterm.seats.lifeline import die_with_parent

if TYPE_CHECKING:
    from rankterm.seats.warm_host import WarmParent

END_SECONDS = 4.5
"""From the guest gone to the process surely gone: SIGHUP, SIGTERM after a third, SIGKILL after two thirds."""
INPUT_LIMIT = 64 * 1024
"""Keys buffered for a process that does not read them, before the guest's channel stops being read."""
READ_SIZE = 64 * 1024


def set_size(fd: int, columns: int, rows: int) -> None:
    """Give the terminal on `fd` its size (TIOCSWINSZ takes rows first)."""
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))


def keys_as_typed(fd: int) -> None:
    """Put the terminal on `fd` in the mode a seat's app reads keys in, before the app starts: a guest who
    types ahead of the first screen (a paste, an SSH burst) has ctrl+s read as a key, not as "stop output"
    (IXON), which froze the app's first write; Enter as Enter, not ctrl+j (ICRNL); and no echo of the keys
    over the screen. Output is processed as before (OPOST) and ctrl+c still interrupts until the app takes it."""
    attrs = termios.tcgetattr(fd)
    attrs[0] &= ~(termios.IXON | termios.IXOFF | termios.ICRNL | termios.INLCR | termios.IGNCR)
    attrs[3] &= ~(termios.ICANON | termios.ECHO | termios.IEXTEN)
    attrs[6][termios.VMIN] = 1
    attrs[6][termios.VTIME] = 0
    termios.tcsetattr(fd, termios.TCSANOW, attrs)


def _take_terminal(parent: int) -> None:  # pragma: no cover - runs in the child, between fork and exec
    """In the child, already leading a new session: make its pty (standard input) the controlling terminal,
    hear its hangup and interrupts even when the host was started ignoring them (nohup, a background job), and
    end with the host (`parent`) however it ends."""
    die_with_parent(parent)
    for signum in (signal.SIGHUP, signal.SIGINT, signal.SIGQUIT):
        signal.signal(signum, signal.SIG_DFL)
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class SeatProcess(Protocol):
    """A seat's process: an asyncio subprocess (fork+exec) or a seat forked warm (`warm_host.WarmChild`)."""

    @property
    def pid(self) -> int: ...

    @property
    def returncode(self) -> int | None: ...

    async def wait(self) -> int: ...


class Seat:
    """`argv` on a new pty of `size` (columns, rows) with `env`; its output goes to `write`.

    `pass_fds` are handed to the process as they are (the seat's end of its desk: `desk.py`). With `warm`, the
    process is forked by the warm parent when it can be (`warm_host.py`), else started by fork+exec.
    `pause_input` / `resume_input` are called when the keys buffered for the process pass `INPUT_LIMIT` and
    when they have drained; `on_exit(returncode)` once the process has ended and its last output was given to
    `write`."""

    def __init__(
        self,
        argv: Sequence[str],
        env: Mapping[str, str],
        size: tuple[int, int],
        *,
        write: Callable[[bytes], None],
        pause_input: Callable[[], None],
        resume_input: Callable[[], None],
        on_exit: Callable[[int], None],
        pass_fds: Sequence[int] = (),
        warm: WarmParent | None = None,
    ) -> None:
        self.argv = list(argv)
        self.warm = warm
        self.pass_fds = tuple(pass_fds)
        self.env = dict(env)
        self.size = size
        self._write = write
        self._pause_input = pause_input
        self._resume_input = resume_input
        self._on_exit = on_exit
        self.master = -1
        self.process: SeatProcess | None = None
        self._keys = bytearray()
        self._input_paused = False
        self._output_paused = False
        self._output_done = asyncio.Event()
        self._ended = False
        self._watch: asyncio.Task[None] | None = None

    @property
    def pid(self) -> int | None:
        return None if self.process is None else self.process.pid

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        master, slave = os.openpty()
        try:
            set_size(slave, *self.size)
            keys_as_typed(slave)
            self.process = await self._spawn(slave)
        except BaseException:
            os.close(master)
            raise
        finally:
            os.close(slave)
        self.master = master
        os.set_blocking(master, False)
        loop.add_reader(master, self._readable)
        self._watch = asyncio.create_task(self._wait_for_exit())

    async def _spawn(self, slave: int) -> SeatProcess:
        if self.warm is not None and self.warm.fits(self.argv):
            from rankterm.seats.warm_host import WarmUnavailable

            try:
                return await self.warm.fork(self.argv, self.env, [slave], self.pass_fds)
            except WarmUnavailable:
                pass  # the warm parent is gone or starting again: this seat the old way
        return await asyncio.create_subprocess_exec(
            *self.argv,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=self.env,
            start_new_session=True,
            pass_fds=self.pass_fds,
            preexec_fn=partial(_take_terminal, os.getpid()),
        )

    # ------------------------------------------------------------------ output: pty -> guest

    def _readable(self) -> None:
        try:
            data = os.read(self.master, READ_SIZE)
        except BlockingIOError:
            return
        except OSError as exc:  # EIO: every holder of the pty's other side is gone
            if exc.errno != errno.EIO:
                raise
            data = b""
        if not data:
            self._stop_reading()
            self._output_done.set()
            return
        self._write(data)

    def _stop_reading(self) -> None:
        if self.master >= 0:
            asyncio.get_running_loop().remove_reader(self.master)

    def pause_output(self) -> None:
        """The guest's channel is full: read nothing more from the pty until `resume_output`."""
        if not self._output_paused and not self._output_done.is_set():
            self._output_paused = True
            self._stop_reading()

    def resume_output(self) -> None:
        if self._output_paused and not self._output_done.is_set() and self.master >= 0:
            self._output_paused = False
            asyncio.get_running_loop().add_reader(self.master, self._readable)

    # ------------------------------------------------------------------ input: guest -> pty

    def keys(self, data: bytes) -> None:
        """What the guest typed, handed to the process as soon as its pty takes it."""
        if self.master < 0 or self._ended:
            return
        had = bool(self._keys)
        self._keys += data
        if not had:
            self._flush_keys()
        if len(self._keys) > INPUT_LIMIT and not self._input_paused:
            self._input_paused = True
            self._pause_input()

    def _flush_keys(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            written = os.write(self.master, self._keys)
        except BlockingIOError:
            written = 0
        except OSError:  # the process is gone: nobody to type to
            self._keys.clear()
            loop.remove_writer(self.master)
            return
        del self._keys[:written]
        if self._keys:
            loop.add_writer(self.master, self._flush_keys)
        else:
            loop.remove_writer(self.master)
            if self._input_paused:
                self._input_paused = False
                self._resume_input()

    def resize(self, columns: int, rows: int) -> None:
        """The guest's terminal changed size: the kernel tells the process (SIGWINCH)."""
        self.size = (columns, rows)
        if self.master >= 0 and columns > 0 and rows > 0:
            with contextlib.suppress(OSError):
                set_size(self.master, columns, rows)

    # ------------------------------------------------------------------ the end

    async def _wait_for_exit(self) -> None:
        assert self.process is not None
        returncode = await self.process.wait()
        with contextlib.suppress(TimeoutError):  # a grandchild holding the pty: stop waiting
            await asyncio.wait_for(self._output_done.wait(), 1.0)
        self._close_master()
        self._on_exit(returncode)

    def _close_master(self) -> None:
        if self.master >= 0:
            loop = asyncio.get_running_loop()
            loop.remove_reader(self.master)
            loop.remove_writer(self.master)
            os.close(self.master)
            self.master = -1
        self._output_done.set()

    def _signal(self, signum: int) -> None:
        if self.process is not None and self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signum)

    async def end(self) -> int | None:
        """The guest is gone: SIGHUP (and the terminal hung up), then SIGTERM, then SIGKILL, until the
        process has ended (at most `END_SECONDS`); its return code."""
        if self._ended:
            return None if self.process is None else self.process.returncode
        self._ended = True
        if self.process is None:
            self._close_master()
            return None
        step = END_SECONDS / 3
        for signum in (signal.SIGHUP, signal.SIGTERM, signal.SIGKILL):
            self._signal(signum)
            if signum == signal.SIGHUP:
                self._close_master()  # the hangup, as a dropped sshd session gives it
            try:
                return await asyncio.wait_for(asyncio.shield(self.process.wait()), step)
            except TimeoutError:
                continue
        return self.process.returncode
