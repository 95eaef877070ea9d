"""The embedded ranking service: a Starlette app over SQLite or PostgreSQL that speaks the public wire.

See docs/design/server.md for its floors (pyproject.toml's contract holds them) and its design.
"""
