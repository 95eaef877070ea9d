"""Widgets of rankterm, one a file, each with its DEFAULT_CSS beside it."""
