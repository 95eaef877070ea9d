"""rankterm: a terminal app for game groups that keep rankings, with an embedded ranking service."""

__version__ = "0.1.0"
