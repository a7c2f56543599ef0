"""``python -m tsqlbroker`` is the ``tsqlbroker`` command."""

from tsqlbroker.repl.cli import main

raise SystemExit(main())
