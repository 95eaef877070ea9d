"""The embedded ranking service: a Starlette app over SQLite that speaks the public wire."""
