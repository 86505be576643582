# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Frames kept for several reads: a local checkpoint on a local master, a cache on any other; both released."""

import pytest

from kafka_listeners_audit import keeping


def kept_rdds(spark) -> set:
    return set(spark.sparkContext._jsc.getPersistentRDDs().keySet())


def plan_node(frame) -> str:
    return frame._jdf.queryExecution().analyzed().getClass().getSimpleName()


@pytest.mark.parametrize(("master", "local"), [
    ("local", True), ("local[2]", True), ("local[*]", True), ("local[4, 2]", True),
    ("local-cluster[2, 1, 1024]", False), ("spark://127.0.0.1:7077", False), ("yarn", False)])
def test_only_a_master_whose_executor_is_this_process_is_local(master, local):
    assert keeping.is_local_master(master) is local


@pytest.mark.parametrize("eager", [True, False])
def test_on_a_local_master_the_frame_starts_from_its_kept_rows_until_released(spark, eager):
    before = kept_rdds(spark)
    source = spark.range(100).selectExpr("id", "id % 7 AS bucket").where("bucket < 5").groupBy("bucket").count()
    frame = keeping.keep(source, eager=eager)
    # the plan later steps are analysed with is the kept rows, not the aggregate over the range
    assert plan_node(frame) == "LogicalRDD"
    assert sorted(tuple(row) for row in frame.collect()) == sorted(tuple(row) for row in source.collect())
    added = kept_rdds(spark) - before
    assert len(added) == 1
    # kept as bytes that may spill to disk, not as Java objects the collector traverses
    level = spark.sparkContext._jsc.getPersistentRDDs().get(next(iter(added))).getStorageLevel()
    assert (level.useMemory(), level.useDisk(), level.deserialized()) == (True, True, False)
    keeping.release(frame)
    assert not added & kept_rdds(spark)


def test_on_another_master_the_frame_is_cached_and_uncached(spark, monkeypatch):
    monkeypatch.setattr(keeping, "is_local_master", lambda master: False)
    frame = keeping.keep(spark.range(10).selectExpr("id * 2 AS twice"), eager=True)
    assert frame.is_cached and plan_node(frame) != "LogicalRDD"
    assert sorted(row.twice for row in frame.collect()) == list(range(0, 20, 2))
    keeping.release(frame)
    assert not frame.is_cached


def test_releasing_a_frame_that_keeps_nothing_changes_nothing(spark):
    kept = keeping.keep(spark.range(3), eager=True)
    try:
        before = kept_rdds(spark)
        keeping.release(spark.range(5))
        keeping.release(spark.createDataFrame(spark.sparkContext.parallelize([(1,)]), "x INT"))
        assert kept_rdds(spark) == before
        assert kept.count() == 3
    finally:
        keeping.release(kept)
