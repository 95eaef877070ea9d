"""The mirror's tests share the client's scriptable fake service (`fake`, `client`, `group`)."""

from tests.client.conftest import client, fake, group

__all__ = ["client", "fake", "group"]
