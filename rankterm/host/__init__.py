"""`rankterm host`'s SSH server: the table joins the app with the `ssh` every laptop has.

- `keys`: the host key, made once and kept in the data dir, so guests' known_hosts stay quiet;
- `guard`: who may join (the join code and its lockout);
- `seat`: one `rankterm seat` process (a guest seat) on a pseudo-terminal per SSH session, and its end when
  the guest goes;
- `server`: the asyncssh server that joins them, and refuses everything but the app;
- `desk`: how a seat gets the service's address and its tokens from the host, never the secret (`rankterm web`
  uses it too);
- `lifeline`: every child of `host` and `web` ends with its parent, even a killed one.

Below the command line (`rankterm/cli/host.py` builds the settings) and above the embedded service, whose
address helpers it uses; it knows nothing of the app: each seat is a separate `rankterm` process.
"""
