"""Helpers that tests and benchmarks share; never used by the app itself."""
