"""tsqlbroker.grammar."""
