"""Service Broker work on Apache Spark (the ``spark`` extra; docs/spark.md).

* ``tsqlbroker spark drain`` (:mod:`.cli`, :mod:`.drain`, :mod:`.groups`): a queue's backlog
  drained by Spark tasks, each conversation group in one task, through the queue's
  activation procedure or a Python handler;
* the ``servicebroker`` data source (:mod:`.source`): observe queues and broker views, send
  DataFrames as messages, drain a queue as a stream.

This package is the only one that imports pyspark; nothing imports it at start-up.
"""
