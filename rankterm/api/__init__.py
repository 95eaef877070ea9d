"""The service layer: HTTP and the wire of the ranking service. Knows nothing of Textual."""
