"""tsqlbroker.repl."""
