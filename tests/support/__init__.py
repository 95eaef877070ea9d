"""Helpers that tests and benchmarks share: clocks, faults, transports, live servers, a pty seat.

Not part of rankterm (it is not shipped); the app never imports it.
"""
