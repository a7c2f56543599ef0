"""A SparkSession as tsqlbroker starts one: quiet, the ``servicebroker`` format registered,
and on loopback when the cluster is this machine.

``local[n]`` and a standalone master on 127.0.0.1 keep the driver on loopback
(``SPARK_LOCAL_IP``, ``spark.driver.host``); a real cluster's executors must reach the driver,
so there the network is left to Spark's own settings (``--conf spark.driver.host=…``).
Executors run the same Python as the driver unless ``PYSPARK_PYTHON`` says otherwise.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pyspark.sql import SparkSession

from .source import register

LOG_CONFIG = Path(__file__).with_name("log4j2.properties")
LOOPBACK = "127.0.0.1"


def is_loopback_master(master: str) -> bool:
    """Whether ``master`` runs everything on this machine."""
    m = master.lower()
    return m.startswith("local") or any(
        m.startswith(f"spark://{host}") for host in (LOOPBACK, "localhost"))


def spark_session(master: str = "local[2]", app_name: str = "tsqlbroker",
                  conf: Mapping[str, str] | None = None) -> SparkSession:
    """Start (or join) the process's SparkSession on ``master``."""
    loopback = is_loopback_master(master)
    if loopback:
        os.environ.setdefault("SPARK_LOCAL_IP", LOOPBACK)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    java_log = f"-Dlog4j2.configurationFile=file:{LOG_CONFIG}"
    settings: dict[str, Any] = {
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": "4",
        "spark.driver.extraJavaOptions": java_log,
        "spark.executor.extraJavaOptions": java_log,
        # The store is the source of truth: a speculative copy of a task would only wait
        # for the first one's group locks.
        "spark.speculation": "false",
    }
    if loopback:
        settings["spark.driver.host"] = LOOPBACK
        settings["spark.driver.bindAddress"] = LOOPBACK
    settings.update(conf or {})
    builder = SparkSession.builder.master(master).appName(app_name)
    for key, value in settings.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    register(spark)
    return spark
