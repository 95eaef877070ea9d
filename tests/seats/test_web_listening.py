"""`rankterm web` says where browsers open it only once its port listens: a browser opened the instant the
line appears is let in, never refused once.

The server runs in its own process (a child Python) whose standard output is a writer that, on the line that
ends the start lines, connects to the port there and then, before the server can go on: the connection is
accepted into the listen queue exactly when the port already listens."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tests.support.web_host import free_port

CHILD = textwrap.dedent(
    """
    import io, os, socket, sys
    from rankterm.seats.web_server import seat_server

    port = int(sys.argv[1])

    class Watch(io.TextIOBase):
        def write(self, text):
            if "seats at once" in text:
                try:
                    socket.create_connection(("127.0.0.1", port), 2).close()
                except OSError as error:
                    sys.__stdout__.write(f"refused: {error}\\n")
                    sys.__stdout__.flush()
                    os._exit(1)
                sys.__stdout__.write("listening\\n")
                sys.__stdout__.flush()
                os._exit(0)
            return len(text)

    sys.stdout = Watch()
    seat_server(["true"], host="127.0.0.1", port=port, join_code=None, title="t").serve()
    os._exit(2)
    """
)


def test_the_start_lines_come_once_the_port_listens() -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(free_port())], capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stdout.strip()) == (0, "listening"), done.stdout + done.stderr
