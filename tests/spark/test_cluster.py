"""The drain on an existing cluster: a Spark standalone master and worker on loopback (run
from the pyspark package), the store on PostgreSQL, the tsqlbroker package and the handler
shipped to the executors."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from spark_env import HERE, ROOT, SCRIPTS, require_spark, trade_store

require_spark()

from tsql_client import Client

from tsqlbroker.interpreter.instance import Instance
from tsqlbroker.spark.cli import package_zip
from tsqlbroker.spark.standalone import StandaloneCluster

if TYPE_CHECKING:
    from conftest import FreshPostgres


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if os.environ.get("TSQLBROKER_SKIP_POSTGRES", "") not in ("", "0"):
        pytest.skip("TSQLBROKER_SKIP_POSTGRES=1: the cluster test's store is PostgreSQL")
    # The executors get no PYTHONPATH to this tree: what they run is what the drain ships.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    with StandaloneCluster(tmp_path_factory.mktemp("spark-cluster"), cores=2,
                           env=env) as c:
        yield c.url


def test_a_drain_on_a_standalone_cluster_with_the_store_on_postgresql(
        cluster: str, fresh_postgres: FreshPostgres, tmp_path: Path) -> None:
    # The first group's handler kills its executor (the JVM, and its Python worker) before
    # committing; the master starts another executor and Spark runs the lost tasks again.
    url = fresh_postgres.url()
    trade_store(url, dialogs=8, trades=3)
    marker = tmp_path / "killed"
    done = subprocess.run(
        [sys.executable, "-m", "tsqlbroker", "spark", "drain", "--url", url,
         "--database", "DMBrokerage", "--queue", "tradeEntryQueue",
         "--handler", "handlers:kill_executor_once", "--master", cluster, "--partitions", "4",
         "--ship", "--py-files", f"{SCRIPTS / 'trades.py'},{HERE / 'handlers.py'}",
         "--conf", "spark.executor.cores=1", "--conf", "spark.executor.memory=512m",
         "--conf", f"spark.executorEnv.TSQLB_KILL_MARKER={marker}"],
        env=dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="120"), capture_output=True,
        text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "spark drain of dbo.tradeEntryQueue" in done.stdout
    killed = int(marker.read_text())
    assert not Path(f"/proc/{killed}").exists()         # the executor JVM was killed
    inst = Instance(url, background=False)
    try:
        client = Client(inst, "DMBrokerage")
        assert sorted(r[0] for r in client.rows("SELECT orderId FROM tradeLog")) == list(
            range(1, 25))
        assert client.scalar("SELECT COUNT(*) FROM tradeEntryQueue") == 0
        assert client.scalar("SELECT COUNT(*) FROM Trader1.dbo.tradeAckQueue WHERE "
                             "message_type_name LIKE '%TradeAck'") == 24
    finally:
        inst.close()


def test_the_package_zip_holds_the_package_and_its_data(tmp_path: Path) -> None:
    names = zipfile.ZipFile(package_zip(tmp_path)).namelist()
    assert "tsqlbroker/spark/groups.py" in names
    assert "tsqlbroker/spark/log4j2.properties" in names
    assert any(n.startswith("tsqlbroker/grammar/") and n.endswith(".lark") for n in names)
    assert not any("__pycache__" in n for n in names)
