"""Stores made by the released version keep working (issue 15 moves the storage code).

``layout.json`` and ``fixtures/store_v0.sqlite`` were made by the released code (see
``layout.py``): the code under test must give a fresh store the same tables, columns and
PostgreSQL functions, and must read, change and RECEIVE from the old store as it is.
Tables and functions added since (:data:`ADDED`, :data:`ADDED_FUNCTIONS`) are in a fresh
store too, and an old store gets them when it is opened, its released tables unchanged."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.storage.layout import LAYOUT, STORE_V0, make_store, stored_layout
from tests.tsql_client import Client
from tsqlbroker.interpreter.instance import Instance

RELEASED: dict[str, Any] = json.loads(LAYOUT.read_text())
# Tables added after the release, in the home schema: name -> columns, per backend.
_WAITS = [["owner", "VARCHAR(64)"], ["txn_id", "INTEGER"],
          ["conversation_group_id", "VARCHAR(36)"], ["database_id", "INTEGER"],
          ["queue_id", "INTEGER"]]
ADDED: dict[str, dict[str, list[list[str]]]] = {
    # Waits for conversation groups across processes (engine/broker/claims.py).
    "sqlite": {"tsqlb_sb_group_waits": [*_WAITS, ["since", "FLOAT"]]},
    "postgresql": {"tsqlb_sb_group_waits": [*_WAITS, ["since", "DOUBLE PRECISION"]]},
}


# PostgreSQL functions added after the release.
ADDED_FUNCTIONS = [
    "tsqlb_json_query",     # JSON_QUERY in queries (storage/backends/postgres)
    # APPLY OPENJSON(t.col) (storage/backends/postgres/openjson_sql.py)
    "tsqlb_json_steps", "tsqlb_json_text", "tsqlb_json_type", "tsqlb_openjson",
    "tsqlb_openjson_column",
    "tsqlb_json_at",        # the value at a path, for JSON_VALUE, JSON_QUERY and OPENJSON
    # CONVERT's float and money styles, dates by style, rounding (postgres/convert_sql.py)
    "tsqlb_date_order", "tsqlb_date_value", "tsqlb_datetime_days", "tsqlb_float_text",
    "tsqlb_fit_number",
    "tsqlb_float_shortest",  # float styles 128 / 129: the shortest digits that read back
    # date functions as the values layer has them (postgres/dates_sql.py)
    "tsqlb_datepart_name", "tsqlb_ts", "tsqlb_offset", "tsqlb_offset_minutes",
    "tsqlb_date_units", "tsqlb_datediff_of", "tsqlb_datediff_big", "tsqlb_eomonth",
    "tsqlb_from_parts", "tsqlb_fraction_micro", "tsqlb_datefromparts",
    "tsqlb_datetimefromparts", "tsqlb_datetime2fromparts", "tsqlb_smalldatetimefromparts",
    "tsqlb_timefromparts",
    "tsqlb_tinyint",        # tinyint arithmetic's range (Msg 8115)
    "tsqlb_python_lookup",  # PARSE / TRY_PARSE read in Python (engine/udf_calls.py)
    # a sql_variant column's value and stored properties (engine/variantcols.py)
    "tsqlb_variant_value", "tsqlb_variant_field",
    "tsqlb_read_date",      # the engine's own date columns read as their T-SQL type
]


def _current(backend: str) -> dict[str, Any]:
    """The released layout with the tables and functions added since."""
    layout = copy.deepcopy(RELEASED[backend])
    layout["tables"][""].update(ADDED[backend])
    if "functions" in layout:
        layout["functions"] = sorted([*layout["functions"], *ADDED_FUNCTIONS])
    return layout


def test_a_fresh_store_has_the_released_layout(backend: str, backend_url: str,
                                               tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'fresh.sqlite'}" if backend == "sqlite" else backend_url
    make_store(url)
    assert stored_layout(url) == _current(backend)


@pytest.fixture
def old_store(tmp_path: Path) -> str:
    copy = tmp_path / "store_v0.sqlite"
    shutil.copyfile(STORE_V0, copy)
    return f"sqlite:///{copy}"


def test_a_store_made_by_the_released_code_still_works(old_store: str) -> None:
    inst = Instance(old_store)
    try:
        db = Client(inst, "LayoutDb")
        assert db.rows("SELECT id, customer, amount, note FROM dbo.Orders ORDER BY id") == [
            (1, "Ann", 12.5, "first"), (2, "Bob", 7.25, None), (3, "Cyd", None, "third")]
        assert db.scalar("EXEC dbo.OrderCount") == 3
        assert db.rows("SELECT name FROM sys.service_queues WHERE is_ms_shipped = 0 "
                       "ORDER BY name") == [("InitiatorQueue",), ("TargetQueue",)]
        assert db.rows("SELECT s.name, q.name FROM sys.services s JOIN sys.service_queues q "
                       "ON q.object_id = s.service_queue_id WHERE s.name LIKE '//Layout/%' "
                       "ORDER BY s.name") == [("//Layout/Initiator", "InitiatorQueue"),
                                              ("//Layout/Target", "TargetQueue")]
        assert db.rows("SELECT state, is_initiator FROM sys.conversation_endpoints "
                       "ORDER BY is_initiator, state") == [("CO", 0), ("CO", 1)]
        received = db.rows("RECEIVE CAST(message_body AS nvarchar(max)) AS body, "
                           "message_type_name FROM dbo.TargetQueue")
        assert received == [('<order id="1"/>', "//Layout/Request"),
                            ('<order id="2"/>', "//Layout/Request")]
        # The old store takes new work too: a row, a reply on the old conversation.
        db.run("INSERT dbo.Orders VALUES (4, N'Dee', 1.00, NULL, NULL)")
        db.run("DECLARE @h uniqueidentifier = (SELECT conversation_handle FROM "
               "sys.conversation_endpoints WHERE is_initiator = 0); "
               "SEND ON CONVERSATION @h MESSAGE TYPE [//Layout/Reply] (N'ok')")
        assert db.rows("RECEIVE CAST(message_body AS nvarchar(max)) FROM dbo.InitiatorQueue"
                       ) == [("ok",)]
        assert db.scalar("SELECT COUNT(*) FROM dbo.Orders") == 4
    finally:
        inst.close()
    # Using it changed nothing of what the released code stored, and added what is new.
    now = stored_layout(old_store)["tables"][""]
    for table, columns in RELEASED["sqlite"]["tables"][""].items():
        assert now.get(table) == columns, table
    for table, columns in ADDED["sqlite"].items():
        assert now.get(table) == columns, table
