"""Modal screens: a dialog opens over a screen, asks or shows one thing, and closes with Escape."""
