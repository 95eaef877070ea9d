"""`rankterm host`'s SSH server: the table joins the app with the `ssh` every laptop has.

- `keys`: the host key, made once and kept in the data dir, so guests' known_hosts stay quiet;
- `guard`: who may join (the join code and its lockout);
- `seat`: one `rankterm` process on a pseudo-terminal per SSH session, and its end when the guest goes;
- `server`: the asyncssh server that joins them, and refuses everything but the app.

Below the command line (`rankterm/cli/host.py` builds the settings) and above the embedded service, whose
address helpers it uses; it knows nothing of the app: each seat is a separate `rankterm` process.
"""
