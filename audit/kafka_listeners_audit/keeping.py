# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Frames the audit reads more than once: computed once and kept, then released.

On a local master (``local``, ``local[N]``, ``local[*]``) a kept frame is a local checkpoint: its rows are kept by
the only executor, which is this process, and a frame built on it starts from those rows instead of from the plan
that computed them. The audit is composed of some hundred steps, and Spark analyses each step's whole plan as it is
built: from a checkpoint that plan is a few nodes, not the records' reading and checking and every step before it.
Measured on the generator's default fleet (docs/audit.md, "Where the time goes"): the audit's work after its
session started took 9.2-10.7 s with persisted frames and 5.1-8.0 s with local checkpoints, once the JVM was warm.

A local checkpoint keeps its rows serialized (``MEMORY_AND_DISK`` as PySpark spells it: bytes in memory, spilling
to disk), not as the Java objects a local checkpoint keeps by default, which the collector traverses in every full
collection: with the 10M probe records of the benchmark's fleet kept as objects the JVM stood paused 15.6-20.3 s of
a 124-134 s audit (``spark.driver.memory=4g``), kept as bytes 1.9-2.3 s of 96-104 s (three alternating pairs,
2026-12-02; docs/audit.md).

On any other master the frame is persisted, as before: a lost executor's cached blocks are computed again from the
plan, which a local checkpoint cannot do (Spark then fails the job with CHECKPOINT_RDD_BLOCK_ID_NOT_FOUND). On a
local master a lost executor is a lost driver, so the checkpoint loses nothing a cache would have kept.
"""

from __future__ import annotations

from pyspark import StorageLevel
from pyspark.sql import DataFrame

KEPT_LEVEL = StorageLevel.MEMORY_AND_DISK
"""How a local checkpoint keeps its rows: serialized in memory, spilling to disk (PySpark's ``MEMORY_AND_DISK``;
the JVM's default for a local checkpoint is its deserialized kin)."""


def is_local_master(master: str) -> bool:
    """Whether the executor of ``master`` is this process: ``local``, ``local[N]``, ``local[N, F]``, ``local[*]``
    (not ``local-cluster[...]``, whose executors are processes of their own)."""
    return master == "local" or master.startswith("local[")


def keep(frame: DataFrame, eager: bool = False) -> DataFrame:
    """``frame``, computed once by the first action that reads it and kept for the reads that follow (on a local
    master with ``eager``, computed now: the audit's frames that are composed on at once); :func:`release` drops
    what it keeps."""
    if is_local_master(frame.sparkSession.sparkContext.master):
        return frame.localCheckpoint(eager=eager, storageLevel=KEPT_LEVEL)
    return frame.persist()


def release(frame: DataFrame) -> None:
    """Drop the rows a :func:`keep` kept (for a frame that keeps nothing, nothing happens).

    ``DataFrame.unpersist`` does nothing for a local checkpoint: its rows are the blocks of the checkpointed RDD,
    which the frame's plan (a ``LogicalRDD``) holds; they are dropped here. Without this they would stay until the
    JVM collected the plan's last reference (Spark's ContextCleaner), which in a session running several audits can
    be much later."""
    plan = frame._jdf.queryExecution().analyzed()
    if plan.getClass().getSimpleName() == "LogicalRDD":
        plan.rdd().unpersist(False)
    else:
        frame.unpersist()
