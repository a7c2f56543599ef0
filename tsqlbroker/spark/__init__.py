"""tsqlbroker.spark."""
