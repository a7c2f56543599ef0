"""The ``servicebroker`` PySpark data source (``pyspark.sql.datasource``).

    spark.dataSource.register(ServiceBrokerDataSource)      # or tsqlbroker.spark.register
    spark.read.format("servicebroker").option("url", url).option("database", "Trader1")
        .option("queue", "tradeAckQueue").load()                          # observe
    df.write.format("servicebroker").option(...).mode("append").save()    # send
    spark.readStream.format("servicebroker").option(...).load()           # drain (stream)
    stream.writeStream.format("servicebroker").option(...).start()        # drain's sink

Every path goes through the project's engine (no JDBC): planning runs in a Python worker on
the driver's machine, reads and writes in the executors' Python workers, each opening the
store from ``url``. The options are in :mod:`.options`; docs/spark.md describes them.
"""

from __future__ import annotations

from pyspark.sql.datasource import (
    DataSource,
    DataSourceReader,
    DataSourceStreamReader,
    DataSourceStreamWriter,
    DataSourceWriter,
)
from pyspark.sql.types import StructType

from .observe import ObserveReader, Shape
from .options import OptionError, SourceOptions
from .send import SendWriter
from .stream import DrainSink, DrainStreamReader


class ServiceBrokerDataSource(DataSource):
    """Queues, broker catalog views and dialogs of a tsqlbroker store as a Spark source and
    sink."""

    @classmethod
    def name(cls) -> str:
        """The format name: ``servicebroker``."""
        return "servicebroker"

    def _opts(self) -> SourceOptions:
        return SourceOptions.parse(self.options)

    def schema(self) -> str:
        """The columns of the queue or view the options name, typed as the store types them
        (a write's schema is the DataFrame's own)."""
        return Shape.describe(self._opts()).spark_schema()

    def reader(self, schema: StructType) -> DataSourceReader:
        """Batch read: observe (nothing dequeued)."""
        opts = self._opts()
        return ObserveReader(opts, Shape.describe(opts))

    def writer(self, schema: StructType, overwrite: bool) -> DataSourceWriter:
        """Batch write: every row SENT as a message on a dialog."""
        if overwrite:
            raise OptionError("servicebroker writes append messages: use mode('append')")
        return SendWriter(self._opts(), schema)

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:
        """Streaming read of a queue's ready messages (the drain)."""
        opts = self._opts()
        shape = Shape.describe(opts)
        if opts.view is not None:
            raise OptionError("a stream reads a queue (option queue), not a view")
        return DrainStreamReader(opts, shape)

    def streamWriter(self, schema: StructType, overwrite: bool
                     ) -> DataSourceStreamWriter:
        """The drain's sink: results committed with the removal of their messages."""
        return DrainSink(self._opts(), schema)


def register(spark: object) -> None:
    """Register the ``servicebroker`` format with a SparkSession (and let Spark push filters
    into Python sources: the batch read evaluates group, conversation, message type and
    queuing-order filters in the store)."""
    spark.conf.set("spark.sql.python.filterPushdown.enabled", "true")  # type: ignore[attr-defined]
    spark.dataSource.register(ServiceBrokerDataSource)  # type: ignore[attr-defined]


__all__ = ["ServiceBrokerDataSource", "register"]
