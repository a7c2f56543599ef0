"""tsqlbroker: an interpreter and REPL for T-SQL with SQL Server Service Broker."""

__version__ = "0.1.0"
