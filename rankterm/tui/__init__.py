"""The Textual terminal app. Talks to the service through `rankterm.client.client` only."""
