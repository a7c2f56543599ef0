"""Transformer methods for statements: DML, DDL, procedural T-SQL and Service Broker.

Statement methods return nodes without positions; :mod:`transformer` wraps every method
listed in :data:`STATEMENT_RULES` so that the node gets its ``span`` and its ``sql``/``source``
text from the rule's position in the batch.
"""

from __future__ import annotations

from typing import Any

from lark import Token

from tsqlbroker.grammar import ast
from tsqlbroker.grammar.build_expr import name_of, object_name

CATCH = object()  # marks where the CATCH statements start in try_catch's children


def _onoff(b: bool) -> str:
    return "on" if b else "off"


def options(items: Any) -> list[Any]:
    """The options given in a list of optional clauses (the absent ones are None)."""
    return [i for i in items if i is not None]


def ident_value(e: Any) -> Any:
    """A bare identifier given as an option value (``CONTRACT_NAME = c``) becomes its name."""
    if isinstance(e, ast.Column) and len(e.parts) == 1:
        name = e.parts[0]
        return ast.Literal("string", name, "'" + name.replace("'", "''") + "'")
    if isinstance(e, ast.DefaultValue):
        return None
    return e


class StmtBuilder:
    """Mixin: every statement rule."""

    # ---- queries and DML ----------------------------------------------------------------
    def select_stmt(self, with_: Any, q: Any, option: Any) -> ast.SelectStmt:
        if option is not None and isinstance(q, ast.Select):
            q = ast.Select(q.items, q.distinct, q.top, q.into, q.from_, q.where, q.group_by,
                           q.having, q.order_by, q.offset, q.fetch, option, q.for_clause)
        ctes, ns = with_ or ((), ())
        return ast.SelectStmt(q, ctes, ns)

    cursor_query = select_stmt

    def select_stmt_paren(self, with_: Any, q: Any, order: Any, offset: Any, option: Any
                          ) -> ast.SelectStmt:
        return self.select_stmt(with_, self.query(q, order, offset, None), option)

    def view_body(self, with_: Any, q: Any, _check: Any) -> ast.SelectStmt:
        return StmtBuilder.select_stmt(self, with_, q, None)

    def view_body_paren(self, q: Any, _check: Any) -> ast.SelectStmt:
        return StmtBuilder.select_stmt(self, None, q, None)

    def view_body_with(self, with_: Any, q: Any, _check: Any) -> ast.SelectStmt:
        return StmtBuilder.select_stmt(self, with_, q, None)

    def view_check(self) -> bool:
        return True

    def insert_stmt(self, with_: Any, top: Any, target: Any, cols: Any, output: Any,
                    source: Any, _option: Any) -> ast.Insert:
        ctes = with_[0] if with_ else ()
        return ast.Insert(target, cols or (), source, output, top, ctes)

    def insert_paren(self, with_: Any, top: Any, target: Any, cols: Any, output: Any,
                     source: Any, order: Any, offset: Any, option: Any) -> ast.Insert:
        source = self.query(source, order, offset, None)
        return StmtBuilder.insert_stmt(self, with_, top, target, cols, output, source, option)

    def values_source(self, rows: Any) -> ast.ValuesSource:
        return ast.ValuesSource(rows)

    def default_values(self) -> ast.DefaultValuesSource:
        return ast.DefaultValuesSource()

    def dml_top(self, e: ast.Expr, pct: Any) -> ast.Top:
        return ast.Top(e, bool(pct))

    def dml_table(self, name: ast.ObjectName, _hints: Any) -> ast.ObjectName:
        return name

    def dml_var(self, tok: Token) -> str:
        return str(tok)

    var_name = dml_var

    def output_clause(self, items: Any, into: Any, cols: Any) -> ast.OutputClause:
        return ast.OutputClause(items, into, cols or ())

    def update_stmt(self, with_: Any, top: Any, target: Any, assigns: Any, output: Any,
                    from_: Any, where: Any, _option: Any) -> ast.Update:
        ctes = with_[0] if with_ else ()
        return ast.Update(target, assigns, from_ or (), where, top, output, ctes)

    def assignments(self, *items: ast.Assignment) -> tuple[ast.Assignment, ...]:
        return items

    def assign_column(self, path: tuple[str, ...], op: Token, e: ast.Expr) -> ast.Assignment:
        return ast.Assignment(ast.Column(path), e, str(op))

    def assign_var(self, var: Token, op: Token, e: ast.Expr) -> ast.Assignment:
        return ast.Assignment(ast.Variable(str(var)), e, str(op))

    def assign_var_column(self, var: Token, path: tuple[str, ...], e: ast.Expr) -> ast.Assignment:
        return ast.Assignment(ast.Column(path), e, "=", also_variable=str(var))

    def assign_method(self, path: tuple[str, ...], args: Any) -> ast.Assignment:
        """``SET col.modify('…')`` in UPDATE: op ``modify``, expr the MethodCall."""
        target = ast.Column(path[:-1])
        call = ast.MethodCall(target, path[-1].lower(), args or ())
        return ast.Assignment(target, call, path[-1].lower())

    def delete_stmt(self, with_: Any, top: Any, target: Any, output: Any, from_: Any,
                    where: Any, _option: Any) -> ast.Delete:
        ctes = with_[0] if with_ else ()
        return ast.Delete(target, from_ or (), where, top, output, ctes)

    def merge_stmt(self, *args: Any) -> ast.Merge:
        with_, _top, target, alias, source, on = args[:6]
        output = args[-2]
        whens = tuple(args[6:-2])
        ctes = with_[0] if with_ else ()
        return ast.Merge(target, alias, source, on, whens, output, ctes)

    def when_matched(self, cond: Any, action: Any) -> ast.MergeWhen:
        return ast.MergeWhen(True, False, cond, *action)

    def when_not_matched(self, cond: Any, action: Any) -> ast.MergeWhen:
        return ast.MergeWhen(False, False, cond, *action)

    def when_not_matched_source(self, cond: Any, action: Any) -> ast.MergeWhen:
        return ast.MergeWhen(False, True, cond, *action)

    def merge_update(self, assigns: Any) -> tuple[Any, ...]:
        return ("update", assigns, (), ())

    def merge_delete(self) -> tuple[Any, ...]:
        return ("delete", (), (), ())

    def merge_insert(self, cols: Any, row: Any) -> tuple[Any, ...]:
        return ("insert", (), cols or (), row)

    def merge_insert_default(self, cols: Any) -> tuple[Any, ...]:
        return ("insert", (), cols or (), ())

    def truncate_stmt(self, name: ast.ObjectName) -> ast.Truncate:
        return ast.Truncate(name)

    # ---- tables and indexes -------------------------------------------------------------
    def create_table(self, name: ast.ObjectName, *elements: Any) -> ast.CreateTable:
        cols = tuple(e for e in elements if isinstance(e, ast.ColumnDef))
        cons = tuple(e for e in elements if isinstance(e, ast.TableConstraint))
        return ast.CreateTable(name, cols, cons)

    def table_on(self, _name: Token) -> None:
        return None

    def textimage_on(self, _name: Token) -> None:
        return None

    def index_option(self, *_parts: Any) -> None:
        return None

    def index_option_value(self, *_parts: Any) -> None:
        return None

    def column_def(self, name: Token, dtype: ast.DataType, collate: Any,
                   *constraints: Any) -> ast.ColumnDef:
        return _column(name_of(name), dtype, None, collate, constraints)

    def computed_column(self, name: Token, e: ast.Expr, *constraints: Any) -> ast.ColumnDef:
        return _column(name_of(name), None, e, None, constraints)

    def column_collate(self, name: Token) -> str:
        return name_of(name)

    def c_null(self) -> tuple[Any, ...]:
        return ("null", True)

    def c_not_null(self) -> tuple[Any, ...]:
        return ("null", False)

    def c_identity(self, seed: Any, inc: Any) -> tuple[Any, ...]:
        return ("identity", (1 if seed is None else seed, 1 if inc is None else inc))

    def signed_int(self, minus: Any, tok: Token) -> int:
        return -int(tok) if minus else int(tok)

    def c_default(self, e: ast.Expr) -> tuple[Any, ...]:
        return ("default", e)

    def c_name(self, name: Token) -> tuple[Any, ...]:
        return ("name", name_of(name))

    def c_primary_key(self, clustered: Any) -> tuple[Any, ...]:
        return ("pk", clustered)

    def c_table_primary_key(self, clustered: Any, _cols: Any, _with: Any) -> tuple[Any, ...]:
        """``b int NOT NULL PRIMARY KEY (a, b)``: the table's key, written after a column
        without a comma (the storage reads it from the statement's text)."""
        return ("table_pk", clustered)

    def table_index(self, *_parts: Any) -> None:
        """An inline ``INDEX ix (a)`` of CREATE TABLE (the storage reads it from the text)."""
        return

    def c_unique(self, clustered: Any) -> tuple[Any, ...]:
        return ("unique", clustered)

    def c_references(self, table: ast.ObjectName, cols: Any, *actions: Any) -> tuple[Any, ...]:
        return ("references", _fk(table, cols, actions))

    def c_check(self, cond: ast.Expr) -> tuple[Any, ...]:
        return ("check", cond)

    def c_rowguidcol(self) -> tuple[Any, ...]:
        return ("ignored", None)

    c_persisted = c_rowguidcol

    def clustered(self) -> bool:
        return True

    def nonclustered(self) -> bool:
        return False

    def fk_on_delete(self, rule: str) -> tuple[str, str]:
        return ("delete", rule)

    def fk_on_update(self, rule: str) -> tuple[str, str]:
        return ("update", rule)

    def fk_rule(self, *toks: Token) -> str:
        return " ".join(str(t).upper() for t in toks)

    def table_constraint(self, name: Any, body: ast.TableConstraint) -> ast.TableConstraint:
        if name is None:
            return body
        return ast.TableConstraint(body.kind, name_of(name), body.columns, body.references,
                                   body.check, body.clustered)

    def tc_primary_key(self, clustered: Any, cols: Any, _with: Any = None,
                       _on: Any = None) -> ast.TableConstraint:
        return ast.TableConstraint("primary key", None, _col_names(cols), clustered=clustered)

    def tc_unique(self, clustered: Any, cols: Any, _with: Any = None,
                  _on: Any = None) -> ast.TableConstraint:
        return ast.TableConstraint("unique", None, _col_names(cols), clustered=clustered)

    def tc_foreign_key(self, cols: Any, table: ast.ObjectName, refcols: Any,
                       *actions: Any) -> ast.TableConstraint:
        return ast.TableConstraint("foreign key", None, cols, _fk(table, refcols, actions))

    def tc_check(self, cond: ast.Expr) -> ast.TableConstraint:
        return ast.TableConstraint("check", None, check=cond)

    def alter_table(self, name: ast.ObjectName, action: tuple[Any, ...]) -> ast.AlterTable:
        kind, payload = action
        if kind in ("add_column", "alter_column"):
            return ast.AlterTable(name, kind, column=payload)
        if kind == "add_constraint":
            return ast.AlterTable(name, kind, constraint=payload)
        return ast.AlterTable(name, kind, target=payload)

    def at_add_column(self, col: ast.ColumnDef, *_more: ast.ColumnDef) -> tuple[Any, ...]:
        return ("add_column", col)

    def at_alter_column(self, col: ast.ColumnDef) -> tuple[Any, ...]:
        return ("alter_column", col)

    def at_add_constraint(self, _check: Any, con: ast.TableConstraint,
                          *_more: ast.TableConstraint) -> tuple[Any, ...]:
        return ("add_constraint", con)

    def at_add_default(self, name: Any, value: ast.Expr, column: Token) -> tuple[Any, ...]:
        return ("add_default", name_of(column))

    def at_drop_column(self, name: Token, *_more: Token) -> tuple[Any, ...]:
        return ("drop_column", name_of(name))

    def at_with_check(self, mode: str) -> str:
        return mode

    def at_check(self, tok: Token) -> str:
        return str(tok).lower()

    def at_check_constraint(self, mode: str, name: Any = None) -> tuple[Any, ...]:
        """CHECK | NOCHECK CONSTRAINT name | ALL: ``target`` "check name" / "nocheck" (ALL)."""
        return ("check_constraint", mode + (" " + name_of(name) if name is not None else ""))

    def at_drop_constraint(self, name: Token) -> tuple[Any, ...]:
        return ("drop_constraint", name_of(name))

    def if_exists(self) -> bool:
        return True

    def drop_table(self, if_exists: Any, *names: ast.ObjectName) -> ast.DropTable:
        return ast.DropTable(names, bool(if_exists))

    def drop_view(self, if_exists: Any, *names: ast.ObjectName) -> ast.DropView:
        return ast.DropView(names, bool(if_exists))

    def drop_procedure(self, if_exists: Any, *names: ast.ObjectName) -> ast.DropProcedure:
        return ast.DropProcedure(names, bool(if_exists))

    def drop_function(self, if_exists: Any, *names: ast.ObjectName) -> ast.DropFunction:
        return ast.DropFunction(names, bool(if_exists))

    def create_table_type(self, name: ast.ObjectName, *elements: Any) -> ast.CreateTableType:
        cols = tuple(e for e in elements if isinstance(e, ast.ColumnDef))
        cons = tuple(e for e in elements if isinstance(e, ast.TableConstraint))
        return ast.CreateTableType(name, cols, cons)

    def drop_type(self, if_exists: Any, name: ast.ObjectName) -> ast.DropType:
        return ast.DropType(name, bool(if_exists))

    def create_alias_type(self, name: ast.ObjectName, base: ast.DataType, nullable: Any
                          ) -> ast.CreateAliasType:
        return ast.CreateAliasType(name, base, nullable)

    def alias_null(self) -> bool:
        return True

    def alias_not_null(self) -> bool:
        return False

    def trigger_def(self, head: str, name: ast.ObjectName, table: ast.ObjectName,
                    options: Any, instead_of: bool, *rest: Any) -> ast.CreateTrigger:
        body = rest[-1]
        events = tuple(dict.fromkeys(str(e).upper() for e in rest[:-1]
                                     if isinstance(e, str) and e))
        execute_as, _opts = _proc_options(options)
        return ast.CreateTrigger(name, table, instead_of, events, body, head == "or_alter",
                                 head == "alter", execute_as=execute_as)

    def trigger_after(self) -> bool:
        return False

    def trigger_instead_of(self) -> bool:
        return True

    def trigger_event(self, tok: Token) -> str:
        return str(tok).upper()

    def trigger_append(self) -> None:
        return None

    def drop_trigger(self, if_exists: Any, *names: ast.ObjectName) -> ast.DropTrigger:
        return ast.DropTrigger(names, bool(if_exists))

    def trigger_names(self, *names: ast.ObjectName) -> tuple[ast.ObjectName, ...]:
        return names

    def trigger_all(self) -> tuple[ast.ObjectName, ...]:
        return ()

    def enable_trigger(self, names: Any, table: ast.ObjectName) -> ast.EnableTrigger:
        return ast.EnableTrigger(True, tuple(names), table)

    def disable_trigger(self, names: Any, table: ast.ObjectName) -> ast.EnableTrigger:
        return ast.EnableTrigger(False, tuple(names), table)

    def alter_table_enable(self, table: ast.ObjectName, names: Any) -> ast.EnableTrigger:
        return ast.EnableTrigger(True, tuple(names), table)

    def alter_table_disable(self, table: ast.ObjectName, names: Any) -> ast.EnableTrigger:
        return ast.EnableTrigger(False, tuple(names), table)

    def create_synonym(self, name: ast.ObjectName, target: ast.ObjectName
                       ) -> ast.CreateSynonym:
        return ast.CreateSynonym(name, target)

    def drop_synonym(self, if_exists: Any, name: ast.ObjectName) -> ast.DropSynonym:
        return ast.DropSynonym(name, bool(if_exists))

    def create_sequence(self, name: ast.ObjectName, *options: tuple[str, Any]
                        ) -> ast.CreateSequence:
        return ast.CreateSequence(name, options)

    def alter_sequence(self, name: ast.ObjectName, *options: tuple[str, Any]
                       ) -> ast.CreateSequence:
        return ast.CreateSequence(name, options, alter=True)

    def drop_sequence(self, if_exists: Any, *names: ast.ObjectName) -> ast.DropSequence:
        return ast.DropSequence(names, bool(if_exists))

    def seq_as(self, dt: ast.DataType) -> tuple[str, Any]:
        return ("as", dt)

    def seq_start(self, n: int) -> tuple[str, Any]:
        return ("start", n)

    def seq_restart(self, n: Any) -> tuple[str, Any]:
        return ("restart", n)

    def seq_increment(self, n: int) -> tuple[str, Any]:
        return ("increment", n)

    def seq_minvalue(self, n: int) -> tuple[str, Any]:
        return ("minvalue", n)

    def seq_maxvalue(self, n: int) -> tuple[str, Any]:
        return ("maxvalue", n)

    def seq_cache(self, n: Any) -> tuple[str, Any]:
        return ("cache", None if n is None else int(n))

    def seq_no_minvalue(self) -> tuple[str, Any]:
        return ("no_minvalue", None)

    def seq_no_maxvalue(self) -> tuple[str, Any]:
        return ("no_maxvalue", None)

    def seq_cycle(self) -> tuple[str, Any]:
        return ("cycle", None)

    def seq_no_cycle(self) -> tuple[str, Any]:
        return ("no_cycle", None)

    def seq_no_cache(self) -> tuple[str, Any]:
        return ("no_cache", None)

    def create_schema(self, name: Token, owner: Any, *elements: ast.Stmt) -> ast.CreateSchema:
        return ast.CreateSchema(name_of(name), name_of(owner) if owner is not None else None,
                                elements)

    def alter_schema(self, schema: Token, klass: Any, name: ast.ObjectName
                     ) -> ast.AlterSchemaTransfer:
        return ast.AlterSchemaTransfer(name_of(schema), name, klass)

    def drop_schema(self, if_exists: Any, name: Token) -> ast.DropSchema:
        return ast.DropSchema(name_of(name), bool(if_exists))

    def create_index(self, unique: Any, clustered: Any, name: Token, table: ast.ObjectName,
                     cols: Any, include: Any, where: Any, _with: Any,
                     _on: Any = None) -> ast.CreateIndex:
        return ast.CreateIndex(name_of(name), table, cols, bool(unique), clustered,
                               include or (), where)

    def index_unique(self) -> bool:
        return True

    def index_include(self, names: tuple[str, ...]) -> tuple[str, ...]:
        return names

    def index_with(self, *_items: Any) -> None:
        return None

    def drop_index_on(self, if_exists: Any, name: Token, table: ast.ObjectName) -> ast.DropIndex:
        return ast.DropIndex(name_of(name), table, bool(if_exists))

    def drop_index_dotted(self, if_exists: Any, name: ast.ObjectName) -> ast.DropIndex:
        parts = [p for p in name.parts() if p is not None]
        table = None
        if len(parts) > 1:
            table = object_name(parts[:-1])
        return ast.DropIndex(parts[-1], table, bool(if_exists))

    # ---- views, procedures, functions, databases ----------------------------------------
    def create_head(self) -> str:
        return "create"

    def alter_head(self) -> str:
        return "alter"

    def create_or_alter_head(self) -> str:
        return "or_alter"

    def view_def(self, head: str, name: ast.ObjectName, cols: Any, options: Any,
                 body: ast.SelectStmt) -> ast.CreateView:
        return ast.CreateView(name, cols or (), body, head == "or_alter", head == "alter")

    def view_options(self, *_names: Token) -> None:
        return None

    def proc_def(self, head: str, name: ast.ObjectName, params: Any, options: Any,
                 body: tuple[ast.Stmt, ...]) -> ast.CreateProcedure:
        execute_as, opts = _proc_options(options)
        return ast.CreateProcedure(name, params or (), body, head == "or_alter", head == "alter",
                                   execute_as, opts)

    def proc_params(self, *params: Any) -> tuple[ast.ParamDef, ...]:
        return tuple(p for p in params if p is not None)

    def param(self, var: Token, dtype: ast.DataType, default: Any, output: Any,
              readonly: Any) -> ast.ParamDef:
        return ast.ParamDef(str(var), dtype, default, bool(output), bool(readonly))

    def param_default(self, e: ast.Expr) -> ast.Expr:
        return e

    def param_output(self) -> bool:
        return True

    param_readonly = param_output
    exec_output = param_output

    def proc_options(self, *opts: Any) -> tuple[Any, ...]:
        return opts

    def opt_execute_as(self, who: str) -> tuple[str, str]:
        return ("execute_as", who)

    def opt_word(self, name: Token) -> tuple[str, str]:
        return ("option", name_of(name).lower())

    def execute_as(self, who: Any) -> str:
        return who.value if isinstance(who, ast.Literal) else str(who).upper()

    def body(self, stmts: Any) -> tuple[ast.Stmt, ...]:
        return tuple(stmts or ())

    func_body = body

    def func_def(self, head: str, name: ast.ObjectName, *rest: Any) -> ast.CreateFunction:
        body, options, returns = rest[-1], rest[-2], rest[-3]
        params = tuple(p for p in rest[:-3] if p is not None)
        execute_as, opts = _proc_options(options)
        return ast.CreateFunction(name, params, returns, body, head == "or_alter",
                                  head == "alter", opts, execute_as=execute_as)

    def inline_func_def(self, head: str, name: ast.ObjectName, *rest: Any) -> ast.CreateFunction:
        query, options = rest[-1], rest[-2]
        params = tuple(p for p in rest[:-2] if p is not None)
        _execute_as, opts = _proc_options(options)
        return ast.CreateFunction(name, params, ast.DataType("table"), (), head == "or_alter",
                                  head == "alter", opts, inline=query)

    def table_func_def(self, head: str, name: ast.ObjectName, *rest: Any) -> ast.CreateFunction:
        body, options = rest[-1], rest[-2]
        var_at = next(i for i, r in enumerate(rest) if isinstance(r, Token)
                      and r.type == "VARIABLE")
        params = tuple(p for p in rest[:var_at] if p is not None)
        elements = rest[var_at + 1:-2]
        cols = tuple(e for e in elements if isinstance(e, ast.ColumnDef))
        cons = tuple(e for e in elements if isinstance(e, ast.TableConstraint))
        execute_as, opts = _proc_options(options)
        return ast.CreateFunction(name, params, ast.DataType("table"), body,
                                  head == "or_alter", head == "alter", opts,
                                  table_var=str(rest[var_at]), table_columns=cols,
                                  table_constraints=cons, execute_as=execute_as)

    def use_stmt(self, name: Token) -> ast.Use:
        return ast.Use(name_of(name))

    def create_database(self, name: Token) -> ast.CreateDatabase:
        return ast.CreateDatabase(name_of(name))

    def drop_database(self, if_exists: Any, *names: Token) -> ast.DropDatabase:
        return ast.DropDatabase(tuple(name_of(n) for n in names), bool(if_exists))

    def alter_database(self, db: Any, option: Token, value: Any, term: Any) -> ast.AlterDatabase:
        if isinstance(value, bool):
            value = _onoff(value)
        elif value is not None:
            value = name_of(value).lower()
        database = None if db is _CURRENT else name_of(db)
        return ast.AlterDatabase(database, name_of(option).lower(), value, term)

    def alter_database_files(self, db: Any, change: tuple[str, str | None]
                             ) -> ast.AlterDatabaseFiles:
        database = None if db is _CURRENT else name_of(db)
        return ast.AlterDatabaseFiles(database, *change)

    def db_add_file(self, *items: Any) -> tuple[str, str | None]:
        group = items[-1]
        return ("add file", name_of(group) if isinstance(group, Token) else None)

    def db_add_log_file(self, *_specs: Any) -> tuple[str, str | None]:
        return ("add log file", None)

    def db_add_filegroup(self, name: Token, _contains: Any) -> tuple[str, str | None]:
        return ("add filegroup", name_of(name))

    def db_remove_file(self, name: Token) -> tuple[str, str | None]:
        return ("remove file", name_of(name))

    def db_remove_filegroup(self, name: Token) -> tuple[str, str | None]:
        return ("remove filegroup", name_of(name))

    def db_modify_file(self, _spec: Any) -> tuple[str, str | None]:
        return ("modify file", None)

    def db_modify_filegroup(self, name: Token, *_change: Any) -> tuple[str, str | None]:
        return ("modify filegroup", name_of(name))

    def filespec(self, *_items: Any) -> None:
        return None

    def filespec_item(self, *_parts: Any) -> None:
        return None

    def current_db(self) -> object:
        return _CURRENT

    def term_rollback_immediate(self) -> str:
        return "rollback immediate"

    def term_rollback_after(self, n: Token) -> str:
        return f"rollback after {int(n)}"

    def term_no_wait(self) -> str:
        return "no_wait"

    # ---- procedural ---------------------------------------------------------------------
    def start(self, item: Any, rest: Any = None) -> tuple[ast.Stmt, ...]:
        if item is None:
            return ()
        if isinstance(item, list):
            return tuple(item)
        # a CREATE PROCEDURE / FUNCTION / VIEW batch, or a leading EXEC-less call
        return (item, *(rest or ()))

    def bare_exec(self, proc: ast.ObjectName, *args: Any) -> ast.ExecProc:
        return ast.ExecProc(proc, tuple(a for a in args if a is not None))

    def stmts(self, first: Any, second: Any = None) -> list[ast.Stmt]:
        if second is None:
            return [first]
        first.append(second)  # the list is private to the parse: append in place
        return first

    def if_stmt(self, cond: ast.Expr, then: ast.Stmt, else_: Any = None) -> ast.If:
        return ast.If(cond, then, else_)

    def while_stmt(self, cond: ast.Expr, body: ast.Stmt) -> ast.While:
        return ast.While(cond, body)

    def block(self, stmts: Any) -> ast.Block:
        return ast.Block(tuple(stmts or ()))

    def catch_start(self) -> object:
        return CATCH

    def try_catch(self, try_body: Any, _catch: object, catch_body: Any) -> ast.TryCatch:
        return ast.TryCatch(tuple(try_body or ()), tuple(catch_body or ()))

    def break_stmt(self) -> ast.Break:
        return ast.Break()

    def continue_stmt(self) -> ast.Continue:
        return ast.Continue()

    def return_stmt(self, e: Any) -> ast.Return:
        return ast.Return(e)

    def goto_stmt(self, name: Token) -> ast.Goto:
        return ast.Goto(name_of(name))

    def label_stmt(self, tok: Token) -> ast.Label:
        return ast.Label(str(tok)[:-1])

    def declare_stmt(self, *items: ast.VarDecl) -> ast.Declare:
        return ast.Declare(items)

    def var_decl(self, var: Token, dtype: ast.DataType, default: Any) -> ast.VarDecl:
        return ast.VarDecl(str(var), dtype, default)

    def var_decl_cursor(self, var: Token) -> ast.VarDecl:
        return ast.VarDecl(str(var), ast.DataType("cursor"))

    def declare_table(self, var: Token, *elements: Any) -> ast.DeclareTable:
        cols = tuple(e for e in elements if isinstance(e, ast.ColumnDef))
        cons = tuple(e for e in elements if isinstance(e, ast.TableConstraint))
        return ast.DeclareTable(str(var), cols, cons)

    def declare_cursor(self, name: Token, *rest: Any) -> ast.DeclareCursor:
        options = tuple(r for r in rest[:-2])
        return ast.DeclareCursor(name_of(name), rest[-2], options, rest[-1])

    def cursor_option(self, tok: Token) -> str:
        return str(tok).lower()

    def cursor_for_update(self, cols: Any) -> tuple[str, ...]:
        return cols or ()

    def cursor_update_cols(self, *names: ast.ObjectName) -> tuple[str, ...]:
        return tuple(n.name for n in names)

    def set_var(self, var: Token, op: Token, e: ast.Expr) -> ast.SetVariable:
        return ast.SetVariable(str(var), e, str(op))

    def set_method(self, var: Token, method: Token, args: Any) -> ast.SetVariable:
        """``SET @x.modify('…')``: op ``modify``, expr the MethodCall on the variable."""
        name = name_of(method).lower()
        return ast.SetVariable(str(var), ast.MethodCall(ast.Variable(str(var)), name, args or ()),
                               name)

    def set_cursor(self, var: Token, *rest: Any) -> ast.SetCursorVariable:
        return ast.SetCursorVariable(str(var), rest[-1], tuple(rest[:-1]))

    def set_option(self, names: tuple[str, ...], value: Any) -> ast.Stmt:
        if isinstance(value, bool):
            text = _onoff(value)
        elif isinstance(value, ast.Literal):
            text = str(value.value)
        elif isinstance(value, Token):
            text = name_of(value).lower() if value.type != "VARIABLE" else str(value)
        else:
            text = str(value)
        if len(names) == 1:
            return ast.SetOption(names[0].lower(), text)
        # SET ANSI_NULLS, QUOTED_IDENTIFIER ON: one statement setting several options.
        return ast.Block(tuple(ast.SetOption(n.lower(), text) for n in names))

    def set_statistics(self, what: Token, on: bool) -> ast.SetOption:
        """``SET STATISTICS IO ON``: option ``statistics io``."""
        return ast.SetOption(f"statistics {name_of(what).lower()}", _onoff(on))

    def set_value_var(self, tok: Token) -> Token:
        return tok

    def set_isolation(self, level: str) -> ast.SetOption:
        return ast.SetOption("transaction isolation level", level)

    def iso_level(self, *toks: Token) -> str:
        return " ".join(str(t).lower() for t in toks)

    def set_rowcount(self, value: Any) -> ast.SetOption:
        return ast.SetOption("rowcount", str(value))

    def set_identity_insert(self, table: ast.ObjectName, on: bool) -> ast.SetOption:
        return ast.SetOption("identity_insert", _onoff(on), table)

    def begin_tran(self, name: Any, _mark: Any) -> ast.BeginTran:
        return ast.BeginTran(_tran_name(name))

    def begin_distributed(self, name: Any) -> ast.BeginTran:
        return ast.BeginTran(_tran_name(name), True)

    def commit_tran(self, name: Any) -> ast.CommitTran:
        return ast.CommitTran(_tran_name(name))

    def rollback_tran(self, name: Any) -> ast.RollbackTran:
        return ast.RollbackTran(_tran_name(name))

    def save_tran(self, name: Any) -> ast.SaveTran:
        return ast.SaveTran(_tran_name(name))  # type: ignore[arg-type]

    def throw_stmt(self, number: Any, message: Any, state: Any) -> ast.Throw:
        return ast.Throw(number, message, state)

    def raiserror_stmt(self, msg: Any, sev: Any, state: Any, *rest: Any) -> ast.Raiserror:
        args = tuple(r for r in rest if isinstance(r, ast.Expr))
        options = tuple(name_of(r).upper() for r in rest if isinstance(r, Token))
        return ast.Raiserror(msg, sev, state, args, options)

    def print_stmt(self, e: ast.Expr) -> ast.Print:
        return ast.Print(e)

    def kill_stmt(self, target: Any, status_only: bool | None) -> ast.Kill:
        """``KILL 53`` / ``KILL 'uow'`` [``WITH STATUSONLY``]."""
        value = target.value if isinstance(target, ast.Literal) else int(str(target))
        return ast.Kill(value, bool(status_only))

    def statusonly(self) -> bool:
        return True

    def exec_stmt(self, ret: Any, target: Any, *rest: Any) -> ast.ExecProc:
        args = tuple(a for a in rest[:-1] if a is not None)
        return ast.ExecProc(target, args, str(ret) if ret is not None else None)

    def exec_arg(self, name: Any, value: Any, output: Any) -> ast.ExecArg:
        if isinstance(value, ast.DefaultValue):
            value = None
        return ast.ExecArg(value, str(name) if name is not None else None, bool(output))

    def exec_with(self) -> str:
        return "recompile"

    def exec_dynamic(self, e: ast.Expr, *_as: Any) -> ast.ExecDynamic:
        parts: list[ast.Expr] = []
        stack = [e]
        while stack:  # flatten a + b + c left to right without recursion
            x = stack.pop()
            if isinstance(x, ast.Binary) and x.op == "+":
                stack.append(x.right)
                stack.append(x.left)
            else:
                parts.append(x)
        return ast.ExecDynamic(tuple(parts))

    def waitfor_delay(self, e: ast.Expr) -> ast.WaitforDelay:
        return ast.WaitforDelay("delay", e)

    def waitfor_time(self, e: ast.Expr) -> ast.WaitforDelay:
        return ast.WaitforDelay("time", e)

    def open_cursor(self, name: Token) -> ast.OpenCursor:
        return ast.OpenCursor(name_of(name))

    def close_cursor(self, name: Token) -> ast.CloseCursor:
        return ast.CloseCursor(name_of(name))

    def deallocate_cursor(self, name: Token) -> ast.DeallocateCursor:
        return ast.DeallocateCursor(name_of(name))

    def fetch_cursor(self, direction: Any, name: Token, into: Any) -> ast.FetchCursor:
        kind, offset = direction or ("next", None)
        return ast.FetchCursor(name_of(name), kind, offset, into or ())

    def fetch_plain(self, name: Token, into: Any) -> ast.FetchCursor:
        return ast.FetchCursor(name_of(name), "next", None, into or ())

    def fd_next(self) -> tuple[str, None]:
        return ("next", None)

    def fd_prior(self) -> tuple[str, None]:
        return ("prior", None)

    def fd_first(self) -> tuple[str, None]:
        return ("first", None)

    def fd_last(self) -> tuple[str, None]:
        return ("last", None)

    def fd_absolute(self, e: ast.Expr) -> tuple[str, ast.Expr]:
        return ("absolute", e)

    def fd_relative(self, e: ast.Expr) -> tuple[str, ast.Expr]:
        return ("relative", e)

    def fetch_into(self, *vars_: Token) -> tuple[str, ...]:
        return tuple(str(v) for v in vars_)


_CURRENT = object()


def _tran_name(name: Any) -> str | ast.Variable | None:
    if name is None or isinstance(name, ast.Variable):
        return name
    return name_of(name)


def _col_names(items: tuple[ast.OrderItem, ...]) -> tuple[str, ...]:
    return tuple(i.expr.parts[-1] if isinstance(i.expr, ast.Column) else "" for i in items)


def _fk(table: ast.ObjectName, cols: Any, actions: Any) -> ast.ForeignKeyRef:
    acts = dict(actions)
    return ast.ForeignKeyRef(table, cols or (), acts.get("delete"), acts.get("update"))


def _proc_options(options: Any) -> tuple[str | None, tuple[str, ...]]:
    execute_as = None
    opts: list[str] = []
    for kind, value in options or ():
        if kind == "execute_as":
            execute_as = value
        else:
            opts.append(value)
    return execute_as, tuple(opts)


def _column(name: str, dtype: Any, computed: Any, collate: Any,
            constraints: Any) -> ast.ColumnDef:
    kw: dict[str, Any] = {}
    names: list[str] = []
    pending: str | None = None
    for kind, value in constraints:
        if kind == "name":
            names.append(value)
            pending = value
            continue
        if kind == "null":
            kw["nullable"] = value
        elif kind == "identity":
            kw["identity"] = value
        elif kind == "default":
            kw["default"] = value
            if pending:
                kw["default_name"] = pending
        elif kind == "pk":
            kw["primary_key"] = True
        elif kind == "unique":
            kw["unique"] = True
        elif kind == "references":
            kw["references"] = value
        elif kind == "check":
            kw["check"] = value
        pending = None
    return ast.ColumnDef(name, dtype, computed=computed, collation=collate,
                         constraint_names=tuple(names), **kw)
