"""The row writer: every row a statement inserts, updates or deletes goes through it.

Rows are written by Python rather than by backend ``INSERT … SELECT`` so that the engine
decides what SQL Server decides: IDENTITY values (any column, any backend), defaults, type
conversion and truncation (8152), NOT NULL (515), PRIMARY KEY / UNIQUE (2627 / 2601, NULLs
compare equal as in SQL Server), FOREIGN KEY and CHECK (547, with ON DELETE CASCADE) — with
SQL Server's texts. Rows are addressed by the backend's row id (SQLite ``rowid``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

import sqlglot
from sqlalchemy import select, update
from sqlglot import exp

from ..errors import BindError, TSqlError, tsql_error
from ..storage.stored_values import (
    backend_value,
    check_length,
    from_storage,
    pad_fixed,
    to_storage,
    variant_to_storage,
)
from ..values.convert import assignment_converter
from ..values.types import parse_spec, parse_type_spec
from .catalog import Catalog
from .context import ExecContext
from .execsql import BackendSql, Marks, run_sql
from .parsing import parse_statement
from .tableinfo import ColumnInfo, ConstraintInfo, TableInfo, load_table, referencing_constraints
from .transpiler.binder import Binder
from .transpiler.scope import PHYSICAL_MARK
from .triggers import TriggerEvent, wants

KIND_TEXT = {"PK": "PRIMARY KEY", "UQ": "UNIQUE KEY"}
# The key of the compiled query of a table's computed columns among the writer's defaults.
_COMPUTED = "\x00computed"


class _DefaultMarker:
    """The keyword ``DEFAULT`` as a VALUES item: the column's default (or NULL)."""

    def __repr__(self) -> str:
        return "DEFAULT"


DEFAULT = _DefaultMarker()


def _table_text(info: TableInfo) -> str:
    """The table as Msg 515 names it."""
    if info.local_name and info.local_name.startswith("@"):
        return info.local_name
    return info.three_part_name


def format_key(values: Sequence[Any]) -> str:
    """``(1, abc)`` as SQL Server shows duplicate key values."""
    parts = []
    for v in values:
        if v is None:
            parts.append("<NULL>")
        elif isinstance(v, float) and v.is_integer():
            parts.append(str(int(v)))
        else:
            parts.append(str(v))
    return "(" + ", ".join(parts) + ")"


class RowWriter:
    """Writes rows of one statement into one table, enforcing its constraints."""

    def __init__(self, ctx: ExecContext, info: TableInfo, statement: str, *,
                 defaults: dict[str, BackendSql] | None = None,
                 checks: dict[int, BackendSql] | None = None) -> None:
        """``defaults`` / ``checks``: compiled DEFAULT and CHECK queries to reuse and fill
        (a compiled plan shares them between executions of one statement)."""
        self.ctx = ctx
        self.info = info
        self.statement = statement  # 'INSERT' / 'UPDATE' / 'DELETE'
        self.conn = ctx.conn
        self.native_decimal = ctx.conn.backend.native_decimal
        self.backend = ctx.conn.backend
        self.rowid = self.backend.rowid_column
        self.last_identity: int | None = None
        self._defaults: dict[str, BackendSql] = {} if defaults is None else defaults
        self._checks: dict[int, BackendSql] = {} if checks is None else checks

    # -- values ---------------------------------------------------------------------------
    def convert(self, col: ColumnInfo, value: Any, source: str | None = None) -> Any:
        """Convert to the column's type; 8152 on truncation, 515 on NULL into NOT NULL.
        ``source``: the value's type spec when known (it converts as CAST does)."""
        if col.spec is not None and _is_variant(col.spec):
            stored = variant_to_storage(value, source)  # the value with its base type
        else:
            if source is not None and value is not None and col.spec is not None:
                conv = _assignment(source, col.spec)
                if conv is not None:
                    value = conv(value)
            stored = to_storage(value, col.spec, self.native_decimal)
        if stored is None:
            if not col.nullable:
                raise tsql_error(515, col.name, _table_text(self.info), self.statement)
            return None
        if not check_length(stored, col.spec):
            raise tsql_error(8152)
        return backend_value(pad_fixed(stored, col.spec))

    def default_value(self, col: ColumnInfo) -> Any:
        if col.default_sql is None or col.computed:
            return None
        sql = self._defaults.get(col.name)
        if sql is None:
            binder = Binder(self.ctx, {})
            sql = binder.compile_text(f"SELECT {col.default_sql}", tag="default").sql
            self._defaults[col.name] = sql
        return run_sql(self.conn, sql).scalar()

    # -- INSERT ---------------------------------------------------------------------------
    def insert(self, columns: list[str] | None, rows: Sequence[Sequence[Any]],
               *, from_values: bool = False,
               sources: Sequence[Sequence[str | None]] | None = None) -> list[Any]:
        """Insert ``rows`` (Python or backend values) for ``columns`` (None: every
        non-identity column in order); ``sources``: each row's value type specs where known.
        Returns the backend row ids."""
        info = self.info
        ident = info.identity_column
        explicit = ident is not None and info.object_id in self.ctx.identity_insert
        if columns is None:
            if explicit:
                raise tsql_error(8101, info.display_name)
            targets = [c for c in info.columns if c.identity is None and not c.computed]
        else:
            targets = []
            for name in columns:
                col = info.column(name)
                if col is None:
                    raise tsql_error(207, name, cls=BindError)
                if col.computed:
                    raise computed_column_error(col.name)
                if col.identity is not None and not explicit:
                    raise tsql_error(544, info.display_name)
                targets.append(col)
            if explicit and ident not in targets:
                raise tsql_error(545, info.display_name)
        for row in rows:
            if len(row) != len(targets):
                if columns is None:
                    raise tsql_error(213)
                if from_values:
                    raise tsql_error(109 if len(row) < len(targets) else 110)
                raise tsql_error(120 if len(row) < len(targets) else 121)
        self.ctx.txn.write()
        if self._instead("INSERT"):
            return self._insert_instead(targets, rows)
        next_id = self._identity_start(ident) if ident is not None else None
        rowids: list[Any] = []
        given = {c.name.lower() for c in targets}
        names = [c.name for c in info.columns]
        mark = Marks(self.backend.numbered_placeholders)
        sql = mark.sql(f"INSERT INTO {info.sql_name} ("
                       + ", ".join(self.backend.quote_column(n) for n in names) + ") VALUES ("
                       + ", ".join(mark(f"c{i}") for i in range(len(names))) + ")")
        for number, row in enumerate(rows):
            self.conn.check_cancelled()  # a long INSERT … SELECT stops between rows
            values: dict[str, Any] = {}
            by_name = {c.name.lower(): v for c, v in zip(targets, row, strict=True)}
            source = {} if sources is None else {
                c.name.lower(): s for c, s in zip(targets, sources[number], strict=True)}
            for col in info.columns:
                low = col.name.lower()
                if col.identity is not None and explicit:
                    # SET IDENTITY_INSERT ON: the given value, and the seed moves past it.
                    given_value = by_name[low]
                    if given_value is DEFAULT or given_value is None:
                        raise tsql_error(339)
                    value = self.convert(col, given_value, source.get(low))
                    values[low] = value
                    self.last_identity = value
                    assert next_id is not None and value is not None
                    step = col.identity[1]
                    if (value + step - next_id) * step > 0:
                        next_id = value + step
                elif col.identity is not None:
                    assert next_id is not None
                    values[low] = next_id
                    self.last_identity = next_id
                    next_id += col.identity[1]
                elif low in given and by_name[low] is not DEFAULT:
                    values[low] = self.convert(col, by_name[low], source.get(low))
                else:
                    values[low] = self.convert(col, self.default_value(col))
            self._check_unique(values, None)
            self._check_foreign_keys(values)
            params = {f"c{i}": values[n.lower()] for i, n in enumerate(names)}
            rid = self._execute_insert(sql, params)
            rid = self._compute(rid)
            self._check_checks(rid)
            rowids.append(rid)
        if ident is not None and next_id is not None:
            self._identity_save(ident, next_id)
        if self.info.triggers:
            self._record("INSERT", inserted=self._images(rowids),
                         columns=frozenset(c.name.lower() for c in info.columns))
        return rowids

    # -- triggers ---------------------------------------------------------------------------
    def _instead(self, action: str) -> bool:
        """Whether an INSTEAD OF trigger takes this write (not while it runs itself)."""
        return bool(self.info.triggers) and self.info.object_id not in \
            self.ctx.instead_active and wants(self.info, action, instead_of=True)

    def _record(self, action: str, *, inserted: list[tuple[Any, ...]] | None = None,
                deleted: list[tuple[Any, ...]] | None = None,
                columns: frozenset[str] = frozenset(), instead_of: bool = False) -> None:
        if not inserted and not deleted and self.statement != action:
            return  # a MERGE fires the triggers of the actions it took
        if instead_of or wants(self.info, action, instead_of=False):
            self.ctx.fired.append(TriggerEvent(self.info, action, inserted or [], deleted or [],
                                               columns, instead_of))

    def _images(self, rowids: Sequence[Any]) -> list[tuple[Any, ...]]:
        """The rows ``rowids`` as storage values in column order."""
        fetched = self.fetch(rowids)
        names = [c.name.lower() for c in self.info.columns]
        return [tuple(fetched[r][n] for n in names) for r in rowids if r in fetched]

    def _insert_instead(self, targets: list[ColumnInfo], rows: Sequence[Sequence[Any]]
                        ) -> list[Any]:
        """INSERT into a table with an INSTEAD OF INSERT trigger: the rows it would insert
        (converted, defaults filled, no IDENTITY value) go to the trigger instead."""
        images = []
        for row in rows:
            by_name = {c.name.lower(): v for c, v in zip(targets, row, strict=True)}
            image = []
            for col in self.info.columns:
                value = by_name.get(col.name.lower(), DEFAULT)
                if col.identity is not None or col.computed:
                    image.append(None)
                elif value is DEFAULT:
                    image.append(self.convert(col, self.default_value(col)))
                else:
                    image.append(self.convert(col, value))
            images.append(tuple(image))
        self._record("INSERT", inserted=images, instead_of=True,
                     columns=frozenset(c.name.lower() for c in self.info.columns))
        return [None] * len(images)

    def _returning(self) -> str:
        """What an UPDATE appends to learn the row's id after it (PostgreSQL's ctid moves;
        SQLite's rowid stays)."""
        return f" RETURNING {self.rowid}" if self.backend.rowid_changes_on_update else ""

    def recompute(self, rowids: Sequence[Any]) -> None:
        """Store the computed columns' values of existing rows ``rowids`` (a computed column
        added by ALTER TABLE)."""
        for rid in rowids:
            self.conn.check_cancelled()
            self._compute(rid)

    def _compute(self, rid: Any) -> Any:
        """Store the computed columns' values of row ``rid`` (computed from its other
        columns); returns the row's id afterwards (PostgreSQL's ctid moves)."""
        computed = [c for c in self.info.columns if c.computed]
        if not computed:
            return rid
        sql = self._defaults.get(_COMPUTED)
        if sql is None:
            parsed = parse_statement("SELECT " + ", ".join(
                f"({c.default_sql})" for c in computed)).tree
            assert isinstance(parsed, exp.Select)
            query = parsed.from_(physical_table_ref(self.info)).where(exp.EQ(
                this=exp.column(self.rowid), expression=exp.Placeholder(this="rid")))
            sql = Binder(self.ctx, {}).compile(query, ("computed", self.info.object_id)).sql
            self._defaults[_COMPUTED] = sql
        row = run_sql(self.conn, sql, {"rid": rid}).first()
        if row is None:
            return rid
        mark = Marks(self.backend.numbered_placeholders)
        sets = ", ".join(f"{self.backend.quote_column(c.name)} = {mark(f'v{i}')}"
                         for i, c in enumerate(computed))
        params = {f"v{i}": self.convert(c, v) for i, (c, v) in
                  enumerate(zip(computed, row, strict=True))}
        params["rid"] = rid
        returning = self._returning()
        result = run_sql(self.conn, mark.sql(
            f"UPDATE {self.info.sql_name} SET {sets} WHERE {self.rowid} = {mark('rid')}"
            f"{returning}"), params)
        return result.scalar() if returning else rid

    def _execute_insert(self, sql: BackendSql, params: dict[str, Any]) -> Any:
        if self.backend.insert_lastrowid:
            cur = self.conn.conn.connection.dbapi_connection.cursor()
            try:
                cur.execute(sql.text, params)
                return cur.lastrowid
            finally:
                cur.close()
        return run_sql(self.conn, sql.wrap("", f" RETURNING {self.rowid}"), params).scalar()

    def _identity_start(self, col: ColumnInfo) -> int:
        c = Catalog.get(self.conn.store).t.columns
        query = select(c.c.identity_next).where(
            c.c.object_id == self.info.object_id, c.c.column_id == col.column_id)
        if not self.backend.single_writer:
            # Concurrent inserters (other sessions, other processes) take turns on the
            # counter; SQLite's single writer serialises them already.
            query = query.with_for_update()
        value = self.conn.execute(query).scalar()
        assert col.identity is not None
        return int(value) if value is not None else col.identity[0]

    def _identity_save(self, col: ColumnInfo, next_id: int) -> None:
        c = Catalog.get(self.conn.store).t.columns
        self.conn.execute(update(c).where(
            c.c.object_id == self.info.object_id, c.c.column_id == col.column_id).values(
            identity_next=next_id))

    # -- constraint checks ------------------------------------------------------------------
    def _null_safe_eq(self, column: str, param: str) -> str:
        if self.backend.ci_collation_everywhere:
            # The column's TSQL_CI collation compares.
            return f"{self.backend.quote_column(column)} IS {param}"
        col = self.info.column(column)
        if col is not None and parse_spec(col.spec).is_string:
            # No case-insensitive collation on PostgreSQL: compare folded text.
            return (f"lower(rtrim({self.backend.quote_column(column)})) IS NOT DISTINCT FROM "
                    f"lower(rtrim(CAST({param} AS text)))")
        return f"{self.backend.quote_column(column)} IS NOT DISTINCT FROM {param}"

    def _check_unique(self, values: dict[str, Any], rowid: Any) -> None:
        """2627 / 2601 when another row has the same key (NULLs equal, as SQL Server)."""
        for k in self.info.constraints:
            if k.kind not in ("PK", "UQ") and not (k.kind == "IX" and k.unique):
                continue
            keyvals = [values[c.lower()] for c in k.columns]
            mark = Marks(self.backend.numbered_placeholders)
            conds = [self._null_safe_eq(c, mark(f"k{i}")) for i, c in enumerate(k.columns)]
            params: dict[str, Any] = {f"k{i}": v for i, v in enumerate(keyvals)}
            sql = f"SELECT 1 FROM {self.info.sql_name} WHERE " + " AND ".join(conds)
            if rowid is not None:
                sql += f" AND {self.rowid} <> {mark('rid')}"
                params["rid"] = rowid
            if run_sql(self.conn, mark.sql(sql + " LIMIT 1"), params).first() is not None:
                shown = [self._display(c, v) for c, v in zip(k.columns, keyvals, strict=True)]
                if k.kind == "IX":
                    raise tsql_error(2601, self.info.two_part_name, k.name, format_key(shown))
                raise tsql_error(2627, KIND_TEXT[k.kind], k.name, self.info.two_part_name,
                                 format_key(shown))

    def _display(self, column: str, value: Any) -> Any:
        col = self.info.column(column)
        return from_storage(value, col.spec) if col else value

    def _check_foreign_keys(self, values: dict[str, Any]) -> None:
        """547 when a referenced parent row is missing."""
        for k in self.info.constraints:
            if k.kind != "F" or k.disabled:
                continue
            keyvals = [values[c.lower()] for c in k.columns]
            if any(v is None for v in keyvals):
                continue
            parent = self._table(k.ref_object_id)
            if parent is None:
                continue
            mark, conds, params = self._key_condition(k.ref_columns, keyvals)
            sql = mark.sql(f"SELECT 1 FROM {parent.sql_name} WHERE {conds} LIMIT 1")
            if run_sql(self.conn, sql, params).first() is None:
                self._raise_547("FOREIGN KEY", k.name, parent, k.ref_columns)

    def _raise_547(self, kind: str, name: str, table: TableInfo,
                   columns: Sequence[str]) -> None:
        col_part = (", column '", columns[0], "'") if len(columns) == 1 else ("", "", "")
        raise tsql_error(547, self.statement, kind, name, table.db_name, table.two_part_name,
                         *col_part)

    def _table(self, object_id: int | None) -> TableInfo | None:
        if object_id is None:
            return None
        obj = Catalog.get(self.conn.store).object_by_id(self.conn, None, object_id)
        return None if obj is None else load_table(self.conn, obj)

    def _check_checks(self, rowid: Any) -> None:
        """547 when a CHECK constraint is FALSE for the written row (NULL passes)."""
        for k in self.info.constraints:
            if k.kind != "C" or not k.check_sql or k.disabled:
                continue
            sql = self._checks.get(k.object_id)
            if sql is None:
                condition = sqlglot.parse_one(k.check_sql, read="tsql")
                query = exp.select("1").from_(physical_table_ref(self.info)).where(
                    exp.and_(exp.not_(exp.paren(condition)), exp.EQ(
                        this=exp.column(self.rowid), expression=exp.Placeholder(this="rid"))))
                sql = Binder(self.ctx, {}).compile(query, ("check", k.object_id)).sql
                self._checks[k.object_id] = sql
            if run_sql(self.conn, sql, {"rid": rowid}).first() is not None:
                self._raise_547("CHECK", k.name, self.info, k.columns)

    # -- UPDATE -----------------------------------------------------------------------------
    def update(self, changes: list[tuple[Any, dict[str, Any]]],
               sources: dict[str, str | None] | None = None) -> list[Any]:
        """Apply ``(rowid, {column: new value})`` changes, then check constraints; ``sources``:
        the new values' type specs by column where known. Returns the rows' ids after the
        update (PostgreSQL's ctid moves when a row is updated)."""
        sources = sources or {}
        info = self.info
        touched = {name.lower() for _rid, vals in changes for name in vals}
        if info.triggers and self.statement in ("UPDATE", "MERGE", "DELETE"):
            before = self._images([rid for rid, _v in changes])
            if self._instead("UPDATE"):
                names = [c.name.lower() for c in info.columns]
                after = []
                for image, (_rid, vals) in zip(before, changes, strict=False):
                    row = dict(zip(names, image, strict=True))
                    for name, value in vals.items():
                        col = info.column(name)
                        if col is not None:
                            row[col.name.lower()] = self.convert(col, value,
                                                                 sources.get(name))
                    after.append(tuple(row[n] for n in names))
                self._record("UPDATE", inserted=after, deleted=before,
                             columns=frozenset(touched), instead_of=True)
                return [rid for rid, _v in changes]
            moved_ids = self._update_rows(changes, touched, sources)
            self._record("UPDATE", inserted=self._images(moved_ids), deleted=before,
                         columns=frozenset(touched))
            return moved_ids
        return self._update_rows(changes, touched, sources)

    def _update_rows(self, changes: list[tuple[Any, dict[str, Any]]], touched: set[str],
                     sources: dict[str, str | None]) -> list[Any]:
        if not changes:
            return []
        if not touched:
            return [rid for rid, _v in changes]  # UPDATE t SET @v = …: no column changes
        self.ctx.txn.write()
        info = self.info
        refs = referencing_constraints(self.conn, info) if any(
            k.kind in ("PK", "UQ") and touched & {c.lower() for c in k.columns}
            for k in info.constraints) else []
        old_rows = self.fetch([rid for rid, _v in changes]) if refs else {}
        moved: dict[Any, Any] = {}
        returning = self._returning()
        for rid, vals in changes:
            self.conn.check_cancelled()
            converted: dict[str, Any] = {}
            for name, value in vals.items():
                col = info.column(name)
                if col is None:
                    raise tsql_error(207, name, cls=BindError)
                if col.identity is not None:
                    raise tsql_error(8102, col.name)
                if col.computed:
                    raise computed_column_error(col.name)
                converted[col.name] = self.convert(col, value, sources.get(name))
            mark = Marks(self.backend.numbered_placeholders)
            sets = ", ".join(f"{self.backend.quote_column(n)} = {mark(f'u{i}')}"
                             for i, n in enumerate(converted))
            params = {f"u{i}": v for i, v in enumerate(converted.values())}
            params["rid"] = rid
            result = run_sql(
                self.conn, mark.sql(f"UPDATE {info.sql_name} SET {sets} "
                                    f"WHERE {self.rowid} = {mark('rid')}{returning}"), params)
            moved[rid] = self._compute(result.scalar() if returning else rid)
        current = self.fetch(list(moved.values()))
        for rid, _vals in changes:
            values = current.get(moved[rid])
            if values is None:
                continue
            self._check_unique(values, moved[rid])
            if any(k.kind == "F" and touched & {c.lower() for c in k.columns}
                   for k in info.constraints):
                self._check_foreign_keys(values)
            self._check_checks(moved[rid])
        for child, fk in refs:
            for rid, _vals in changes:
                old = old_rows.get(rid)
                new = current.get(moved[rid])
                if old is None or new is None:
                    continue
                if all(old[c.lower()] == new[c.lower()] for c in fk.ref_columns):
                    continue
                self._check_not_referenced(child, fk, [old[c.lower()] for c in fk.ref_columns])
        return [moved[rid] for rid, _vals in changes]

    def fetch(self, rowids: Sequence[Any]) -> dict[Any, dict[str, Any]]:
        """Current backend values of rows by row id (column names lower-cased)."""
        out: dict[Any, dict[str, Any]] = {}
        names = [c.name for c in self.info.columns]
        cols = ", ".join([self.rowid] + [self.backend.quote_column(n) for n in names])
        for start in range(0, len(rowids), 500):
            chunk = list(rowids[start:start + 500])
            mark = Marks(self.backend.numbered_placeholders)
            marks = ", ".join(mark(f"r{i}") for i in range(len(chunk)))
            rows = run_sql(
                self.conn, mark.sql(f"SELECT {cols} FROM {self.info.sql_name} "
                                    f"WHERE {self.rowid} IN ({marks})"),
                {f"r{i}": r for i, r in enumerate(chunk)})
            for row in rows:
                out[row[0]] = {n.lower(): v for n, v in zip(names, row[1:], strict=True)}
        return out

    # -- DELETE -----------------------------------------------------------------------------
    def delete(self, rowids: Sequence[Any]) -> None:
        """Delete rows by row id; 547 (REFERENCE) while child rows reference them."""
        if self.info.triggers:
            before = self._images(rowids)
            if self._instead("DELETE"):
                self._record("DELETE", deleted=before, instead_of=True)
                return
            self._delete_rows(rowids)
            self._record("DELETE", deleted=before)
            return
        self._delete_rows(rowids)

    def _delete_rows(self, rowids: Sequence[Any]) -> None:
        if not rowids:
            return
        self.ctx.txn.write()
        refs = referencing_constraints(self.conn, self.info)
        if refs:
            old_rows = self.fetch(rowids)
            for child, fk in refs:
                for rid in rowids:
                    old = old_rows.get(rid)
                    if old is None:
                        continue
                    keyvals = [old[c.lower()] for c in fk.ref_columns]
                    if fk.on_delete in ("CASCADE", "SET NULL") \
                            and child.object_id != self.info.object_id:
                        self._cascade(child, fk, keyvals)
                    elif child.object_id != self.info.object_id:
                        self._check_not_referenced(child, fk, keyvals)
        for start in range(0, len(rowids), 500):
            self.conn.check_cancelled()
            chunk = list(rowids[start:start + 500])
            mark = Marks(self.backend.numbered_placeholders)
            marks = ", ".join(mark(f"r{i}") for i in range(len(chunk)))
            run_sql(
                self.conn,
                mark.sql(f"DELETE FROM {self.info.sql_name} WHERE {self.rowid} IN ({marks})"),
                {f"r{i}": r for i, r in enumerate(chunk)})

    def _cascade(self, child: TableInfo, fk: ConstraintInfo, keyvals: list[Any]) -> None:
        """ON DELETE CASCADE deletes the referencing rows, ON DELETE SET NULL clears their
        foreign key columns (each through the child's own writer and checks)."""
        mark, conds, params = self._key_condition(fk.columns, keyvals)
        rids = [r[0] for r in run_sql(
            self.conn, mark.sql(f"SELECT {self.rowid} FROM {child.sql_name} WHERE {conds}"),
            params)]
        writer = RowWriter(self.ctx, child, self.statement)
        if fk.on_delete == "SET NULL":
            writer.update([(rid, dict.fromkeys(fk.columns)) for rid in rids])
        else:
            writer.delete(rids)

    def _check_not_referenced(self, child: TableInfo, fk: ConstraintInfo,
                              keyvals: list[Any]) -> None:
        if any(v is None for v in keyvals):
            return
        mark, conds, params = self._key_condition(fk.columns, keyvals)
        if run_sql(
                self.conn, mark.sql(f"SELECT 1 FROM {child.sql_name} WHERE {conds} LIMIT 1"),
                params).first() is not None:
            self._raise_547("REFERENCE", fk.name, child, fk.columns)

    def _key_condition(self, columns: Sequence[str], keyvals: Sequence[Any]
                       ) -> tuple[Marks, str, dict[str, Any]]:
        """``c1 = $1 AND c2 = $2 …`` over ``columns``: its marks, text and parameters."""
        mark = Marks(self.backend.numbered_placeholders)
        conds = " AND ".join(f"{self.backend.quote_column(c)} = {mark(f'k{i}')}"
                             for i, c in enumerate(columns))
        return mark, conds, {f"k{i}": v for i, v in enumerate(keyvals)}


@lru_cache(maxsize=256)
def _is_variant(spec: str) -> bool:
    try:
        return parse_spec(spec).name == "sql_variant"
    except TSqlError:  # an alias type's name
        return False


@lru_cache(maxsize=256)
def _assignment(source: str, target: str) -> Callable[[Any], Any] | None:
    """CAST's conversion of a value of type ``source`` for a column of type ``target`` where
    it differs from the store's (``values.convert.assignment_converter``)."""
    try:
        src, dst = parse_type_spec(source), parse_type_spec(target)
    except TSqlError:  # a spec the values layer does not know (an alias type): as stored
        return None
    return assignment_converter(src, dst)


def computed_column_error(column: str) -> TSqlError:
    """Msg 271 for a statement writing computed column ``column``: SQL Server finds it when
    it compiles the batch, so nothing more of the batch runs."""
    err = tsql_error(271, column, cls=BindError)
    err.batch_abort = True  # type: ignore[attr-defined]
    return err


def physical_table_ref(info: TableInfo, alias: str | None = None) -> exp.Table:
    """A table node the binder resolves straight to ``info`` (any kind of table)."""
    return exp.Table(this=exp.Identifier(this=PHYSICAL_MARK + info.physical, quoted=True),
                     alias=exp.TableAlias(this=exp.to_identifier(alias)) if alias else None)
