"""tsqlbroker.engine."""
