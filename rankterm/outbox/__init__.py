"""What was recorded and not yet acknowledged: the outbox file, ghosts made offline, the sender and its outcomes."""
