"""The warm parent's side: a process that has imported what a seat needs and forks each seat of `rankterm host`
from there, so that a seat neither imports Textual, httpx and the app again nor keeps its own copy of them.

`serve(fd)` runs in the warm parent (`rankterm seat --warm-fd N`, started by `warm_host.WarmParent`), after the
imports: single-threaded, with no event loop, it answers one request at a time on its socket (SOCK_SEQPACKET),
a JSON message with the seat's standard streams (a pty for an SSH seat, three pipes for a browser seat
of `rankterm web`) and the descriptors it must hold (SCM_RIGHTS). It forks twice: the seat is
the grandchild, handed over to the host (a child subreaper) when the middle process ends, so the host reaps it
and signals it, and a warm parent that dies ends no seat. `serve` returns only in a seat, with the command
line it is to run in this already-warm process. See docs/design/seats.md ("The warm parent").
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import gc
import json
import os
import signal
import socket
import sys
import termios
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from rankterm.seats.lifeline import die_with_parent

MAX_REQUEST = 256 * 1024
"""A request's JSON (the seat's environment is most of it); a larger one is refused."""
MAX_FDS = 8
ROOM_VARIABLE = "RANKTERM_SEAT_ROOM"
"""Padding of the warm parent's own environment, so that each seat can write its environment over it."""


@dataclass(frozen=True)
class Request:
    """A seat to fork: `args` follow `rankterm` on its command line (`argv` is the whole of it, as shown in
    /proc); `fds` are received here: first its `streams` (one, a pty, which becomes its controlling terminal
    and standard input, output and error; or three, which become standard input, output and error), then
    those it must hold, in the order of `numbers`, the numbers it must hold them at; `host` is the pid it
    ends with."""

    args: list[str]
    argv: list[str]
    env: dict[str, str]
    host: int
    fds: list[int]
    numbers: list[int]
    streams: int = 1


def parse(data: bytes, fds: list[int]) -> Request:
    """The request in `data`, with the descriptors received beside it; ValueError when it is not one."""
    raw = json.loads(data)
    if not isinstance(raw, dict):
        raise ValueError("a request is a JSON object")
    args, argv, env, numbers = raw.get("args"), raw.get("argv"), raw.get("env"), raw.get("numbers")
    host, streams = raw.get("host"), raw.get("streams", 1)
    if not (isinstance(args, list) and all(isinstance(a, str) for a in args)):
        raise ValueError("args must be strings")
    if not (isinstance(argv, list) and all(isinstance(a, str) for a in argv)):
        raise ValueError("argv must be strings")
    if not (isinstance(env, dict) and all(isinstance(v, str) for v in env.values())):
        raise ValueError("env must map names to strings")
    if not (isinstance(numbers, list) and all(isinstance(n, int) and n > 2 for n in numbers)):
        raise ValueError("numbers must be descriptors above 2")
    if not isinstance(host, int) or host <= 1:
        raise ValueError("host must be a pid")
    if streams not in (1, 3) or isinstance(streams, bool):
        raise ValueError("streams must be 1 (a pty) or 3 (standard input, output and error)")
    if len(fds) != len(numbers) + streams:
        raise ValueError(f"{len(numbers) + streams} descriptors expected, {len(fds)} received")
    return Request(list(args), list(argv), dict(env), host, list(fds), list(numbers), streams)


def send(sock: socket.socket, message: Mapping[str, object]) -> None:
    sock.sendall(json.dumps(message).encode())


def serve(fd: int) -> Request | None:
    """In the warm parent: tell the host it is ready, then fork a seat for each request until the host closes
    the socket (None). In each seat forked: its request, once it is set up (see `become_seat`)."""
    if threading.active_count() != 1:  # a fork would copy locks held by threads that are not copied
        raise RuntimeError("the warm parent must have no thread but its main one")
    sock = socket.socket(fileno=fd)
    gc.freeze()  # what is here now stays out of the collector: the collector would write on every shared page
    send(sock, {"ready": os.getpid()})
    while True:
        data, fds, flags, _ = socket.recv_fds(sock, MAX_REQUEST, MAX_FDS)
        if not data and not fds:
            sock.close()
            return None
        try:
            if flags & (socket.MSG_TRUNC | socket.MSG_CTRUNC):
                raise ValueError("request too large")
            request = parse(data, fds)
        except ValueError as exc:
            _close(fds)
            send(sock, {"error": str(exc)})
            continue
        try:
            result = fork_seat(sock, request)
        except Exception:
            result = 0
        if isinstance(result, Request):
            return result  # in the seat
        _close(fds)  # the seat holds its own copies; ours would keep its pty from hanging up
        send(sock, {"pid": result} if result > 0 else {"error": "the seat could not be forked"})


def _close(fds: Sequence[int]) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


def fork_seat(sock: socket.socket, request: Request) -> int | Request:
    """In the warm parent: the seat's pid (0 when it could not be made). In the seat: its request."""
    report_r, report_w = os.pipe()
    try:
        middle = os.fork()
    except OSError:
        _close([report_r, report_w])
        return 0
    if middle == 0:
        os.close(report_r)
        result = _middle(sock, request, report_w)
        if isinstance(result, Request):
            return result
        os._exit(0)
    os.close(report_w)
    with os.fdopen(report_r, "rb") as report:
        said = report.read()
    os.waitpid(middle, 0)
    try:
        return int(said or b"0")
    except ValueError:
        return 0


def _middle(
    sock: socket.socket, request: Request, report: int
) -> Request | None:  # pragma: no cover - a child
    """The middle process: fork the seat, wait until it is set up, say its pid and end (the seat is then
    handed to the nearest subreaper, the host). Returns only in the seat."""
    ready_r, ready_w = os.pipe()
    try:
        seat = os.fork()
    except OSError:
        os.write(report, b"0")
        os._exit(0)
    if seat == 0:
        os.close(ready_r)
        os.close(report)
        try:
            become_seat(sock, request, ready_w)
        except BaseException:  # a seat that cannot be set up says nothing: the host sees it end at once
            os._exit(1)
        return request
    os.close(ready_w)
    set_up = os.read(ready_r, 1)
    os.write(report, str(seat if set_up else 0).encode())
    os._exit(0)


def become_seat(sock: socket.socket, request: Request, ready: int) -> None:  # pragma: no cover - a child
    """In the seat, before it runs: what `pty_seat._take_terminal` and an exec would give it. Its own session
    with its standard streams (a pty as controlling terminal too); the descriptors at their numbers; the signal
    dispositions of a fresh Python; its environment and command line, also as /proc shows them; and, once
    handed to the host, an end with the host however it ends."""
    sock.close()  # the warm parent's socket: a seat never talks to it
    middle = os.getppid()
    os.setsid()
    streams, held = request.fds[: request.streams], request.fds[request.streams :]
    if request.streams == 1:  # a pty: the seat's terminal
        fcntl.ioctl(streams[0], termios.TIOCSCTTY, 0)
        streams = streams * 3
    for target, fd in enumerate(streams):  # every fd received is above 2: the warm parent holds 0, 1 and 2
        os.dup2(fd, target)
    floor = max([*request.numbers, *request.fds, ready, 2]) + 1
    ready = fcntl.fcntl(ready, fcntl.F_DUPFD_CLOEXEC, floor)
    moved = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, floor) for fd in held]
    _close([fd for fd in request.fds if fd > 2])
    for fd, number in zip(moved, request.numbers, strict=True):
        os.dup2(fd, number)
        os.close(fd)
    for signum in (signal.SIGHUP, signal.SIGQUIT, signal.SIGTERM):
        signal.signal(signum, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    os.environ.clear()
    os.environ.update(request.env)
    show_in_proc(request.argv, request.env)
    sys.argv = [sys.argv[0], *request.args]
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, ValueError, OSError):
            stream.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    os.write(ready, b"1")
    os.close(ready)
    while os.getppid() == middle:  # the middle process ends at once: then the host is the parent
        time.sleep(0.0005)
    die_with_parent(request.host)


def show_in_proc(argv: Sequence[str], env: Mapping[str, str]) -> None:
    """Write `argv` and `env` over the command line and environment the warm parent was started with, where
    /proc/PID/cmdline and environ (ps, top, the tests) read them; what does not fit is left out."""
    fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
    arg_start, arg_end, env_start, env_end = (int(x) for x in fields[45:49])  # fields 48 to 51 of proc(5)
    _write_block(arg_start, arg_end, [a.encode() for a in argv])
    _write_block(env_start, env_end, [f"{k}={v}".encode() for k, v in env.items()])


def _write_block(start: int, end: int, items: list[bytes]) -> None:
    size = end - start
    if start <= 0 or size <= 0:
        return
    block = b""
    for item in items:
        if len(block) + len(item) + 1 >= size:  # the last byte stays NUL: /proc then reads the whole block
            break
        block += item + b"\0"
    ctypes.memmove(start, block.ljust(size, b"\0"), size)
