"""The Textual terminal app. Talks to the service through `rankterm.api.client` only."""
