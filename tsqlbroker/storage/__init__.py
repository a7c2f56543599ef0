"""Storage: the store, its transactions, and the backends (SQLite, PostgreSQL) as strategies.

The engine asks a store's :class:`~tsqlbroker.storage.backends.base.Backend` what differs
between backends (flags) and calls its hooks; it never compares a backend's name.
"""
