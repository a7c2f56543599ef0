"""Pass 5 of the transpiler: backend SQL. The rewritten tree is generated in the backend's
dialect (``execsql.generate``), names folded where the backend stores them lower-case, and
the result cached per statement text and everything else it depends on (:func:`signature`):
a hit only binds the statement's variables anew."""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from typing import Any

from sqlglot import exp

from ...storage.function_registry import functions_version
from ...storage.stored_values import backend_value, to_storage
from ...values.variant_props import variant_spec_key
from .. import recursion
from ..datecalls import restore_datename_parts
from ..execsql import generate
from ..metafuncs import prepare as prepare_session_calls
from ..parsing import clear_parse_cache, stats
from .interface import BoundStatement
from .scope import Compiled

__all__ = ["binds_used", "clear_caches", "compile_tree", "signature"]

_COMPILE_CACHE_SIZE = 1024
_compile_lock = threading.Lock()
_compile_cache: OrderedDict[Any, Compiled] = OrderedDict()


def compile_tree(binder: BoundStatement, tree: exp.Expression, cache_key: Any,
                 keep_tree: bool) -> Compiled:
    """Bind and generate ``tree`` (a private copy) with ``binder``, cached per key and
    resolution (see ``Binder.compile``)."""
    binder.collect(tree)
    binder.ctes.update(recursion.bound_recursive_ctes(
        tree, binder.ctx.max_recursion, lambda select: binder.describe(select)[0]))
    # Values decided before the statement runs (session functions, UDF calls) are bound
    # parameters, so they are prepared on cache hits too.
    text = cache_key[0] if isinstance(cache_key, tuple) and isinstance(cache_key[0], str) \
        else ""
    restore_datename_parts(tree, text)
    prepare_session_calls(binder, tree, text)
    binder.udf_calls.prepare(tree)
    key = (cache_key, signature(binder))
    with _compile_lock:
        hit = _compile_cache.get(key)
    if hit is not None:
        stats["compile_hits"] += 1
        # Parameters still need binding for this execution.
        _bind_only(binder, hit)
        return hit
    stats["compile_misses"] += 1
    names, types = binder.describe(tree)
    out = binder.rewrite(tree)
    if binder.backend.folds_names:
        # Backend names are lower-case there (naming.column_name): fold every name.
        for ident in out.find_all(exp.Identifier):
            ident.set("this", ident.name.lower())
            ident.set("quoted", True)
    compiled = Compiled(generate(out, binder.backend), names, types,
                        tuple(sorted(binds_used(binder, out))), out if keep_tree else None)
    with _compile_lock:
        _compile_cache[key] = compiled
        while len(_compile_cache) > _COMPILE_CACHE_SIZE:
            _compile_cache.popitem(last=False)
    return compiled


def signature(binder: BoundStatement) -> tuple[Any, ...]:
    """What the generated SQL depends on besides the text."""
    spec_sig = tuple(sorted((k, variant_spec_key(v[1])) for k, v in binder.params.items()))
    tables = tuple(sorted((repr(k), s.signature) for k, s in binder.resolved.items()))
    return (binder.conn.store.url, binder.ctx.db_id, tables, spec_sig,
            functions_version(binder.conn.store), binder.ctx.max_recursion,
            tuple(binder.dependencies))


def _bind_only(binder: BoundStatement, compiled: Compiled) -> None:
    for key, name in compiled.param_keys:
        value, spec = binder.params[name]
        binder.binds[key] = backend_value(to_storage(value, spec,
                                                         binder.conn.backend.native_decimal))


def binds_used(binder: BoundStatement, tree: exp.Expression) -> list[tuple[str, str]]:
    """The (parameter, variable name) pairs of the variables ``tree`` binds."""
    out: list[tuple[str, str]] = []
    reverse = {("v_" + re.sub(r"\W", "_", n.lstrip("@")) + ("_s" if n.startswith("@@")
                                                             else "")): n
               for n in binder.params}
    for ph in tree.find_all(exp.Placeholder):
        if ph.name in reverse:
            out.append((ph.name, reverse[ph.name]))
    return list(dict.fromkeys(out))


def clear_caches() -> None:
    """Forget parsed and generated statements (tests)."""
    clear_parse_cache()
    with _compile_lock:
        _compile_cache.clear()
