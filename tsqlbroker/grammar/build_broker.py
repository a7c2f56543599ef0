"""Transformer methods for Service Broker statements (released and pre-release forms).

Both dialects build the same nodes: ``ENCODING`` maps onto ``validation``, ``GET SERVICE
INSTANCE`` is a GetConversationGroup, ``RELATED_SERVICE_INSTANCE`` fills ``related_group`` and
the RECEIVE column ``service_instance_id`` is normalised to ``conversation_group_id``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lark import Token, Tree

from tsqlbroker.grammar import ast
from tsqlbroker.grammar.build_expr import name_of
from tsqlbroker.grammar.build_stmt import ident_value, options

# Pre-release RECEIVE/queue column names and their released equivalents.
RECEIVE_COLUMN_ALIASES = {"service_instance_id": "conversation_group_id"}


def _keyword_or_string(children: list[Any]) -> str:
    """EXECUTE AS SELF | OWNER | 'user' | USER = 'user' → SELF / OWNER / the user name."""
    for c in children:
        if isinstance(c, ast.Literal):
            return str(c.value)
    return str(children[0]).upper()


MAX_QUEUE_READERS = 32767


class BrokerBuilder:
    """Mixin: Service Broker statements."""

    syntax_error: Callable[[Token], Exception]  # AstBuilder's

    def owner(self, name: Token) -> tuple[str, str]:
        return ("owner", name_of(name))

    # ---- message types ------------------------------------------------------------------
    def create_message_type(self, name: Token, *clauses: Any) -> ast.CreateMessageType:
        kw = _mt_clauses(clauses)
        return ast.CreateMessageType(name_of(name), kw.get("validation") or "NONE",
                                     kw.get("schema_collection"), kw.get("schema_namespace"),
                                     kw.get("owner"))

    def alter_message_type(self, name: Token, *clauses: Any) -> ast.AlterMessageType:
        kw = _mt_clauses(clauses)
        return ast.AlterMessageType(name_of(name), kw.get("validation"),
                                    kw.get("schema_collection"), kw.get("schema_namespace"),
                                    kw.get("owner"))

    def mt_validation(self, v: tuple[Any, ...]) -> tuple[Any, ...]:
        return ("validation", v)

    mt_encoding = mt_validation

    def v_none(self) -> tuple[Any, ...]:
        return ("NONE", None, None)

    def v_empty(self) -> tuple[Any, ...]:
        return ("EMPTY", None, None)

    def v_well_formed(self) -> tuple[Any, ...]:
        return ("WELL_FORMED_XML", None, None)

    def v_valid_xml(self, coll: ast.ObjectName) -> tuple[Any, ...]:
        return ("VALID_XML", coll, None)

    enc_empty = v_empty
    enc_varbinary = v_none

    def enc_xml(self, ns: Any) -> tuple[Any, ...]:
        if ns is None:
            return ("WELL_FORMED_XML", None, None)
        return ("VALID_XML", None, ns.value)

    def drop_message_type(self, *names: Token) -> ast.DropMessageType:
        return ast.DropMessageType(tuple(name_of(n) for n in names))

    def create_xml_schema(self, name: ast.ObjectName, e: ast.Expr) -> ast.CreateXmlSchemaCollection:
        return ast.CreateXmlSchemaCollection(name, e)

    def create_xmlschema_beta(self, e: ast.Expr) -> ast.CreateXmlSchemaCollection:
        return ast.CreateXmlSchemaCollection(None, e)

    def alter_xml_schema(self, name: ast.ObjectName, e: ast.Expr) -> ast.AlterXmlSchemaCollection:
        return ast.AlterXmlSchemaCollection(name, e)

    def drop_xml_schema(self, name: ast.ObjectName) -> ast.DropXmlSchemaCollection:
        return ast.DropXmlSchemaCollection(name)

    # ---- contracts ----------------------------------------------------------------------
    def create_contract(self, name: Token, *rest: Any) -> ast.CreateContract:
        owner = None
        usages = []
        for r in rest:
            if isinstance(r, ast.ContractUsage):
                usages.append(r)
            elif isinstance(r, tuple):
                owner = r[1]
        return ast.CreateContract(name_of(name), tuple(usages), owner)

    def usage(self, name: Token, sent_by: str) -> ast.ContractUsage:
        return ast.ContractUsage(name_of(name), sent_by)

    def sent_by(self, tok: Token) -> str:
        return str(tok).upper()

    def drop_contract(self, *names: Token) -> ast.DropContract:
        return ast.DropContract(tuple(name_of(n) for n in names))

    # ---- queues -------------------------------------------------------------------------
    def create_queue(self, name: ast.ObjectName, options: Any, on: Any) -> ast.CreateQueue:
        kw = dict(options or ())
        return ast.CreateQueue(name, kw.get("status"), kw.get("retention"), kw.get("activation"),
                               kw.get("poison"), on)

    def alter_queue(self, name: ast.ObjectName, options: Any) -> ast.AlterQueue:
        kw = dict(options or ())
        return ast.AlterQueue(name, kw.get("status"), kw.get("retention"), kw.get("activation"),
                              kw.get("poison"))

    def alter_queue_rebuild(self, name: ast.ObjectName, *_opt: Any) -> ast.AlterQueue:
        return ast.AlterQueue(name, action="rebuild")

    def alter_queue_reorganize(self, name: ast.ObjectName, *_opt: Any) -> ast.AlterQueue:
        return ast.AlterQueue(name, action="reorganize")

    def alter_queue_move(self, name: ast.ObjectName, _fg: Token) -> ast.AlterQueue:
        return ast.AlterQueue(name, action="move")

    def queue_options(self, *opts: Any) -> tuple[Any, ...]:
        return tuple(options(opts))

    def q_status(self, b: bool) -> tuple[str, bool]:
        return ("status", b)

    def q_retention(self, b: bool) -> tuple[str, bool]:
        return ("retention", b)

    def q_activation(self, act: ast.QueueActivation) -> tuple[str, Any]:
        return ("activation", act)

    def q_activation_drop(self) -> tuple[str, Any]:
        return ("activation", ast.QueueActivation(drop=True))

    def q_poison(self, b: Any) -> tuple[str, Any]:
        return ("poison", True if b is None else b)

    def activation_options(self, *opts: Any) -> ast.QueueActivation:
        return ast.QueueActivation(**dict(options(opts)))

    def a_status(self, b: bool) -> tuple[str, Any]:
        return ("status", b)

    def a_procedure(self, name: ast.ObjectName) -> tuple[str, Any]:
        return ("procedure", name)

    def a_max_readers(self, n: Token) -> tuple[str, Any]:
        if int(n) > MAX_QUEUE_READERS:  # a smallint in SQL Server
            raise self.syntax_error(n)
        return ("max_readers", int(n))

    def a_execute_as(self, who: str) -> tuple[str, Any]:
        return ("execute_as", who)

    def queue_execute_as(self, *children: Any) -> str:
        return _keyword_or_string(list(children))

    def queue_on(self, name: Token) -> str:
        return name_of(name)

    def drop_queue(self, name: ast.ObjectName) -> ast.DropQueue:
        return ast.DropQueue(name)

    # ---- services -----------------------------------------------------------------------
    def create_service(self, name: Token, owner: Any, queue: ast.ObjectName, contracts: Any,
                       *tails: Any) -> ast.CreateService:
        kw = dict(t for t in tails if t is not None)
        own = owner[1] if owner else kw.get("owner")
        return ast.CreateService(name_of(name), queue, contracts or (), own, kw.get("retention"))

    def s_retention(self, b: bool) -> tuple[str, bool]:
        return ("retention", b)

    def alter_service(self, name: Token, queue: Any, *changes: Any) -> ast.AlterService:
        ch = options(changes)
        return ast.AlterService(name_of(name), queue,
                                tuple(n for k, n in ch if k == "add"),
                                tuple(n for k, n in ch if k == "drop"))

    def add_contract(self, name: Token) -> tuple[str, str]:
        return ("add", name_of(name))

    def drop_contract_change(self, name: Token) -> tuple[str, str]:
        return ("drop", name_of(name))

    def drop_service(self, name: Token) -> ast.DropService:
        return ast.DropService(name_of(name))

    # ---- routes, bindings, endpoints, priorities, authorization --------------------------
    def create_route(self, name: Token, owner: Any, *opts: Any) -> ast.CreateRoute:
        return ast.CreateRoute(name_of(name), tuple(options(opts)), owner[1] if owner else None)

    def alter_route(self, name: Token, *opts: Any) -> ast.AlterRoute:
        return ast.AlterRoute(name_of(name), tuple(options(opts)))

    def route_option(self, key: Token, e: ast.Expr) -> tuple[str, ast.Expr]:
        return (name_of(key).lower(), e)

    def drop_route(self, name: Token) -> ast.DropRoute:
        return ast.DropRoute(name_of(name))

    def create_rsb(self, name: Token, owner: Any, service: ast.Literal,
                   *opts: Any) -> ast.CreateRemoteServiceBinding:
        kw = dict(options(opts))
        return ast.CreateRemoteServiceBinding(name_of(name), str(service.value), kw.get("user", ""),
                                              kw.get("anonymous"), owner[1] if owner else None)

    def alter_rsb(self, name: Token, *opts: Any) -> ast.AlterRemoteServiceBinding:
        kw = dict(options(opts))
        return ast.AlterRemoteServiceBinding(name_of(name), kw.get("user"), kw.get("anonymous"))

    def rsb_user(self, name: Token) -> tuple[str, str]:
        return ("user", name_of(name))

    def rsb_anonymous(self, b: bool) -> tuple[str, bool]:
        return ("anonymous", b)

    def drop_rsb(self, name: Token) -> ast.DropRemoteServiceBinding:
        return ast.DropRemoteServiceBinding(name_of(name))

    def create_endpoint(self, name: str, owner: Any, state: Any, tcp: Any,
                        broker: Any) -> ast.CreateEndpoint:
        return ast.CreateEndpoint(name, state, tcp or (), broker or (),
                                  owner[1] if owner else None)

    def alter_endpoint(self, name: str, state: Any, tcp: Any, broker: Any) -> ast.CreateEndpoint:
        return ast.CreateEndpoint(name, state, tcp or (), broker or (), alter=True)

    def endpoint_name(self, tok: Token) -> str:
        return name_of(tok)

    def endpoint_owner(self, name: str) -> tuple[str, str]:
        return ("owner", name)

    def neg_int(self, _minus: Token, tok: Token) -> ast.Literal:
        return ast.Literal("int", -int(tok), "-" + str(tok))

    def endpoint_state(self, tok: Token) -> str:
        return name_of(tok).upper()

    def ep_options(self, *opts: Any) -> tuple[Any, ...]:
        return tuple(options(opts))

    def ep_option(self, key: Any, *values: Any) -> tuple[str, str]:
        words = []
        for v in values:
            if isinstance(v, ast.Literal):
                words.append(str(v.value))
            elif isinstance(v, Token) and v.type in ("BRACKETED", "QUOTED"):
                words.append(name_of(v))
            else:
                words.append(str(v))
        return (str(key.children[0]).lower() if isinstance(key, Tree) else str(key).lower(),
                " ".join(words))

    def ep_all(self) -> str:
        return "ALL"

    def drop_endpoint(self, name: Token) -> ast.DropEndpoint:
        return ast.DropEndpoint(name_of(name))

    def create_priority(self, name: Token, opts: Any) -> ast.CreateBrokerPriority:
        return ast.CreateBrokerPriority(name_of(name), opts or ())

    def alter_priority(self, name: Token, opts: Any) -> ast.CreateBrokerPriority:
        return ast.CreateBrokerPriority(name_of(name), opts or (), alter=True)

    def priority_set(self, _set: Token, *opts: Any) -> tuple[Any, ...]:
        return tuple(options(opts))

    def priority_option(self, key: Token, value: Any) -> tuple[str, Any]:
        return (name_of(key).lower(), ident_value(value))

    def any_value(self) -> None:
        return None

    def drop_priority(self, name: Token) -> ast.DropBrokerPriority:
        return ast.DropBrokerPriority(name_of(name))

    def alter_authorization(self, cls: Any, name: ast.ObjectName, owner: str) -> ast.AlterAuthorization:
        text = ".".join(p for p in name.parts() if p is not None)
        # auth_class drops its DATABASE keyword (a reserved word, not a NAME): "" is DATABASE.
        return ast.AlterAuthorization("DATABASE" if cls == "" else cls, text, owner, name)

    def auth_class(self, *words: Token) -> str:
        return " ".join(name_of(w).upper() for w in words)

    def auth_owner(self, name: Token) -> str:
        return name_of(name)

    def schema_owner(self) -> str:
        return "SCHEMA OWNER"

    # ---- conversations ------------------------------------------------------------------
    def begin_dialog(self, handle: Token, from_service: Token, to_service: ast.Expr,
                     to_broker: Any, contract: Any, *opts: Any) -> ast.BeginDialog:
        kw = dict(options(opts))
        return ast.BeginDialog(str(handle), _sb_name(from_service), to_service, to_broker,
                               _sb_name(contract),
                               kw.get("related_conversation"), kw.get("related_group"),
                               kw.get("lifetime"), kw.get("encryption"))

    def d_related_conversation(self, e: ast.Expr) -> tuple[str, Any]:
        return ("related_conversation", e)

    def d_related_group(self, e: ast.Expr) -> tuple[str, Any]:
        return ("related_group", e)

    def d_lifetime(self, e: ast.Expr) -> tuple[str, Any]:
        return ("lifetime", e)

    def d_encryption(self, b: bool) -> tuple[str, Any]:
        return ("encryption", b)

    def send_stmt(self, handles: Any, mtype: Any, body: Any) -> ast.Send:
        if isinstance(handles, ast.Expr):
            handles = (handles,)
        return ast.Send(tuple(handles), _sb_name(mtype), body)

    def send_handles(self, items: tuple[ast.Expr, ...]) -> tuple[ast.Expr, ...]:
        return items

    def receive_stmt(self, top: Any, items: Any, queue: ast.ObjectName, into: Any,
                     where: Any) -> ast.Receive:
        column, value = where if where else (None, None)
        return ast.Receive(items, queue, top, into, column, value)

    def receive_top(self, e: Any) -> ast.Expr:
        if isinstance(e, Token):
            return ast.Literal("int", int(e), str(e))
        return e

    def receive_into(self, name: ast.ObjectName) -> ast.ObjectName:
        return name

    def receive_where(self, column: Token, value: ast.Expr) -> tuple[str, ast.Expr]:
        col = name_of(column).lower()
        return (RECEIVE_COLUMN_ALIASES.get(col, col), value)

    def get_group(self, var: Token, queue: ast.ObjectName) -> ast.GetConversationGroup:
        return ast.GetConversationGroup(str(var), queue)

    def waitfor_stmt(self, inner: Any, timeout: Any) -> ast.Waitfor:
        return ast.Waitfor(inner, timeout)

    def end_conversation(self, handle: ast.Expr, with_: Any) -> ast.EndConversation:
        if not with_:
            return ast.EndConversation(handle)
        if with_[0] == "cleanup":
            return ast.EndConversation(handle, cleanup=True)
        return ast.EndConversation(handle, with_[1], with_[2])

    def end_error(self, code: ast.Expr, desc: ast.Expr) -> tuple[Any, ...]:
        return ("error", code, desc)

    def end_cleanup(self) -> tuple[Any, ...]:
        return ("cleanup",)

    def begin_timer(self, handle: ast.Expr, timeout: ast.Expr) -> ast.BeginConversationTimer:
        return ast.BeginConversationTimer(handle, timeout)

    def move_conversation(self, handle: ast.Expr, group: ast.Expr) -> ast.MoveConversation:
        return ast.MoveConversation(handle, group)

    # ---- event notifications -------------------------------------------------------------
    def create_event_notification(self, name: Token, target: Any, *rest: Any
                                  ) -> ast.CreateEventNotification:
        *fan_in, events, service, broker = rest
        kind, queue = _target(target)
        return ast.CreateEventNotification(
            name_of(name), kind, queue, tuple(events), str(service.value), str(broker.value),
            bool(fan_in and fan_in[0]))

    def drop_event_notification(self, names: Any, target: Any) -> ast.DropEventNotification:
        kind, queue = _target(target)
        return ast.DropEventNotification(tuple(names), kind, queue)

    def en_fan_in(self) -> bool:
        return True

    def en_server(self) -> str:
        return "server"

    def en_database(self) -> str:
        return "database"

    def en_queue(self, name: ast.ObjectName) -> ast.ObjectName:
        return name


def _target(target: Any) -> tuple[str, ast.ObjectName | None]:
    return ("queue", target) if isinstance(target, ast.ObjectName) else (target, None)


def _sb_name(tok: Any) -> Any:
    """A service, contract or message type name as written (a variable stays a Variable)."""
    if tok is None or isinstance(tok, ast.Variable):
        return tok
    return name_of(tok)


def _mt_clauses(clauses: Any) -> dict[str, Any]:
    kw: dict[str, Any] = {}
    for kind, value in clauses:
        if kind == "owner":
            kw["owner"] = value
        else:
            kw["validation"], kw["schema_collection"], kw["schema_namespace"] = value
    return kw
