"""tsqlbroker.interpreter."""
