"""Query rewrites this backend needs (node type → rewrite; None: not handled).

Filled when the transpiler's backend checks move here (issue 15, P3).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

BEFORE: dict[type, Callable[[Any, Any], Any]] = {}
AFTER: dict[type, Callable[[Any, Any], Any]] = {}
