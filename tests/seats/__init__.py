"""Tests of `rankterm.seats` as a package: its public face, and the names that do not leave a module."""
