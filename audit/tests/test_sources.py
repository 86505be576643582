# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Reading records: JSON lines and Parquet in, schema-shaped frames out, and clear errors for bad input."""

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from frame_assertions import rows, utc
from pyspark.sql import functions as F

from kafka_listeners_audit import sources
from kafka_listeners_audit.schema import BROKERS_SCHEMA, PROBES_SCHEMA
from kafka_listeners_audit.sources import InputError, detect_format, read_brokers, read_probes
from kafka_listeners_audit.sql_text import sql_string

PROBE = {"schema_version": 1, "run_id": "run-1", "observed_at": "2026-01-05T00:00:01.250Z", "cluster": "kafka-a",
         "client": "laptop", "client_network": "internet", "listener": "EXTERNAL", "broker": "b1", "node_id": 1,
         "advertised_host": "b1.example.com", "advertised_port": 9092, "bootstrap_ok": True, "resolvable": False,
         "addresses": [], "connectable": False, "error": "Failed to resolve", "elapsed_ms": 3.5}


def _write_lines(path, records):
    path.write_text("".join((item if isinstance(item, str) else json.dumps(item)) + "\n" for item in records))
    return str(path)


def test_json_lines_are_read_into_the_probe_schema(spark, tmp_path):
    records = read_probes(spark, _write_lines(tmp_path / "probes.jsonl", [PROBE, {**PROBE, "observed_at":
                                                                              "2026-01-05T01:00:00+01:00"}]))
    assert records.count == 2
    assert records.newest.astimezone(utc("2026-01-05 00:00:00").tzinfo) == utc("2026-01-05 00:00:01").replace(
        microsecond=250000)
    assert [(f.name, f.dataType) for f in records.frame.schema.fields] == [
        (f.name, f.dataType) for f in PROBES_SCHEMA.fields]
    assert [row["observed_at"] for row in rows(records.frame.select("observed_at"), ["observed_at"])] == [
        utc("2026-01-05 00:00:00"), utc("2026-01-05 00:00:01").replace(microsecond=250000)]


@pytest.mark.parametrize(("bad", "reason"), [
    ('{"schema_version": 1, "run_id": ', "not a JSON object with fields of the documented types"),
    (json.dumps({**PROBE, "advertised_port": "ninety"}), "not a JSON object with fields of the documented types"),
    (json.dumps({k: v for k, v in PROBE.items() if k != "cluster"}), "required field cluster is missing"),
    (json.dumps({**PROBE, "observed_at": "yesterday"}), "observed_at yesterday is not an ISO 8601 timestamp"),
    (json.dumps({**PROBE, "schema_version": 2}), "schema_version 2 is not one this audit reads (1 to 1)"),
    (json.dumps({**PROBE, "run_id": None}), "required field run_id is missing"),
    # Spark's reader takes any JSON value as a string; the audit does not
    (json.dumps({**PROBE, "cluster": {"name": "kafka-a"}}), "field cluster must be a string, not OBJECT<name: STRING>"),
    (json.dumps({**PROBE, "error": ["Failed", "to resolve"]}), "field error must be a string, not ARRAY<STRING>"),
    (json.dumps({**PROBE, "broker": 1}), "field broker must be a string, not BIGINT"),
    (json.dumps({**PROBE, "tls_outcome": True}), "field tls_outcome must be a string, not BOOLEAN"),
    (json.dumps({**PROBE, "observed_at": {"t": 1}}), "field observed_at must be a string, not OBJECT<t: BIGINT>"),
    (json.dumps({**PROBE, "addresses": [{"ip": "198.18.0.11"}]}),
     "field addresses must be an array of strings, not ARRAY<OBJECT<ip: STRING>>"),
    (json.dumps({**PROBE, "addresses": "198.18.0.11"}), "field addresses must be an array of strings, not STRING"),
    # every spelling of a key Spark's reader accepts, and of a value
    (json.dumps(PROBE).replace('"broker": "b1"', "'broker': 1"), "field broker must be a string, not BIGINT"),
    (json.dumps(PROBE).replace('"broker": "b1"', '"bro\\u006ber": 1'), "field broker must be a string, not BIGINT"),
    (json.dumps(PROBE).replace('"broker": "b1"', '"broker": "b1", "broker": 1'),
     "field broker must be a string, not BIGINT"),
    (json.dumps(PROBE).replace('"broker": "b1"', '"broker"\t:\tNaN'), "field broker must be a string, not DOUBLE"),
    (json.dumps(PROBE).replace('"error": "Failed to resolve"', '"error": "x\\\\", "broker": 7'),
     "field broker must be a string, not BIGINT"),
    (json.dumps({**PROBE, "addresses": ["198.18.0.11", 5]}),
     "field addresses must be an array of strings, not ARRAY<VARIANT>"),
    # every other kind, as the screen of the probes' text fields sees it (Spark's reader makes text of each)
    (json.dumps({**PROBE, "client": -1.5e-3}), "field client must be a string, not DECIMAL(4,4)"),
    (json.dumps(PROBE).replace('"listener": "EXTERNAL"', '"listener": 1E400'),
     "field listener must be a string, not DOUBLE"),
    (json.dumps({**PROBE, "client_network": 12345678901234567890123}),
     "field client_network must be a string, not DECIMAL(23,0)"),
    (json.dumps({**PROBE, "tls_outcome": False}), "field tls_outcome must be a string, not BOOLEAN"),
    (json.dumps(PROBE).replace('"error": "Failed to resolve"', '"error": +INF'),
     "field error must be a string, not DOUBLE"),
    (json.dumps({**PROBE, "run_id": float("-inf")}), "field run_id must be a string, not DOUBLE"),
    (json.dumps({**PROBE, "client": []}), "field client must be a string, not ARRAY<VOID>"),
    (json.dumps({**PROBE, "addresses": [True]}), "field addresses must be an array of strings, not ARRAY<BOOLEAN>"),
    (json.dumps({**PROBE, "addresses": [["198.18.0.11"]]}),
     "field addresses must be an array of strings, not ARRAY<ARRAY<STRING>>"),
    (json.dumps({**PROBE, "addresses": [float("nan")]}),
     "field addresses must be an array of strings, not ARRAY<DOUBLE>"),
])
def test_unusable_records_are_refused_with_the_reason_the_file_and_line_and_the_record(spark, tmp_path, bad, reason):
    path = _write_lines(tmp_path / "probes.jsonl", [PROBE, "", bad, PROBE])
    with pytest.raises(InputError) as error:
        read_probes(spark, path)
    message = str(error.value)
    # line 3: the blank line counts, as in an editor
    assert message.startswith("probes input %s: 1 of 3 records are unusable; first at %s:3: %s: " % (
        path, path, reason)), message


def test_a_record_that_only_looks_wrongly_typed_is_read(spark, tmp_path):
    # a key and a number inside a string, a string in single quotes, null in an array: all fine
    looks = [{**PROBE, "error": 'timeout "broker": 5, \'listener\': {}'}, {**PROBE, "addresses": [None, "198.18.0.1"]},
             json.dumps(PROBE).replace('"client": "laptop"', "\"client\": 'laptop'")]
    records = read_probes(spark, _write_lines(tmp_path / "probes.jsonl", looks))
    assert records.count == 3
    assert sorted(((row["client"], row["error"], row["addresses"]) for row in rows(
        records.frame.select("client", "error", "addresses"))), key=repr) == sorted([
        ("laptop", "Failed to resolve", [None, "198.18.0.1"]), ("laptop", "Failed to resolve", []),
        ("laptop", 'timeout "broker": 5, \'listener\': {}', [])], key=repr)


def _reads_variants(records):
    return "variant" in records.frame._jdf.queryExecution().optimizedPlan().toString().lower()


def test_probes_text_fields_are_read_as_text_unless_one_looks_like_another_kind(spark, tmp_path):
    plain = read_probes(spark, _write_lines(tmp_path / "plain.jsonl", [PROBE, {**PROBE, "error": None}]))
    assert plain.count == 2 and not _reads_variants(plain)
    # text that a number, object, array or boolean would be made into: read again with the exact check, and fine
    looks = [("error", "404"), ("client", "[laptop]"), ("tls_outcome", "true"), ("run_id", '"NaN"'),
             ("listener", "Infinity")]
    for field, text in looks:
        exact = read_probes(spark, _write_lines(tmp_path / "looks.jsonl", [PROBE, {**PROBE, field: text}]))
        assert exact.count == 2 and _reads_variants(exact), field
        assert exact.frame.where(F.col(field) == text).count() == 1, field
    exact = read_probes(spark, _write_lines(tmp_path / "looks.jsonl", [PROBE, {**PROBE, "addresses": ["{x}"]}]))
    assert _reads_variants(exact) and exact.frame.where("array_contains(addresses, '{x}')").count() == 1


# text fields' values as the screen may meet them: names, addresses, timestamps, messages, and the text Spark's
# reader makes of every other JSON kind in each spelling (numbers, words, objects, arrays, quoted text)
SCREENED = ["", "a", "INTERNAL", "EXTERNAL", "INF", "Infinity", "-Infinity", "+INF", "-NaN", "NaN", "nan", "true",
            "True", "false", "tls", "fal", "truex", "Infinityx", "NaNa", "tru", "{", "{}", '{"a":1}', "[1]", "[laptop]",
            '"x"', '"', "0", "-0", "1.5", "1.5e10", "1e-3", "-1.5E+3", "1E400", "12345678901234567890123", "1.", ".5",
            "+1", "-", "+", "-.5", "0x10", "1,5", " 1", "1 ", "9092", "198.18.0.1", "10.0", "10.0.", "1.2.3", "1.5:",
            "2026", "2026-01-05", "2026-01-05T00:00:01Z", "2026-01-05 00:00:01.250+01:00", "::1", "fe80::1", "1:2",
            "b1.c000.vpc.internal", "ip-10-0-0-1", "run-0000", "Failed to resolve", "caf\u00e9", "\u00e9t\u00e9",
            "~", "|x", ":", "Z", "\\", "]", "}", "\u0000", None]


def test_the_screen_of_text_fields_flags_what_its_regular_expression_flags(spark):
    # the screen's shortcuts (by the first character, a ':' or two dots) decide as the expression it stands for;
    # line terminators are left out: Java's '$' also matches before a last one, and the reader never makes one
    regex = "v RLIKE %s AS regex" % sql_string(sources._LOOKS_OTHER_KIND)
    frame = spark.createDataFrame([(value,) for value in SCREENED], "v string").selectExpr(
        "v", "%s AS screen" % sources._looks_other_kind(["v"], []), regex)
    differ = [(row["v"], row["screen"], row["regex"]) for row in frame.collect() if row["screen"] != row["regex"]]
    assert not differ
    assert frame.where("screen").count() == 26  # the test sees both kinds of value
    # arrays too, null ones and null elements included, with and without text fields beside them
    arrays = spark.createDataFrame([(None, None), ("a", None), ("a", ["198.18.0.1", None]), ("a", ["1"]),
                                    ("a", ["x", "[y]"]), ("true", []), (None, ["2026", None])],
                                   "v string, a array<string>")
    assert [row[0] for row in arrays.selectExpr(sources._looks_other_kind(["v"], ["a"])).collect()] == [
        None, False, None, True, True, True, True]
    assert [row[0] for row in arrays.selectExpr(sources._looks_other_kind([], ["a"])).collect()] == [
        False, False, None, True, True, False, True]


def test_a_line_that_is_not_utf8_is_named_with_its_line_and_why(spark, tmp_path):
    # Latin-1 where UTF-8 belongs: the JSON reader refuses the record; the message says which line and why
    path = tmp_path / "probes.jsonl"
    path.write_bytes((json.dumps(PROBE) + "\n").encode() + json.dumps({**PROBE, "client": "caf\u00e9"},
                                                                      ensure_ascii=False).encode("latin-1") + b"\n")
    with pytest.raises(InputError) as error:
        read_probes(spark, str(path))
    assert str(error.value).startswith("probes input %s: 1 of 2 records are unusable; first at %s:2: not UTF-8 text "
                                       "(JSON lines are UTF-8; \ufffd marks the bytes that are not): " % (
                                           path, path)), str(error.value)
    assert '"client": "caf\ufffd"' in str(error.value), str(error.value)


def test_a_bad_line_among_many_names_its_file_and_line_in_a_folder(spark, tmp_path):
    folder = tmp_path / "probes"
    folder.mkdir()
    _write_lines(folder / "probes-1.jsonl", [PROBE] * 3000)
    bad = _write_lines(folder / "probes-2.jsonl", [PROBE] * 2500 + [json.dumps({**PROBE, "listener": {}})] +
                       [PROBE] * 500)
    with pytest.raises(InputError) as error:
        read_probes(spark, str(folder), keep_json=True)
    assert str(error.value).startswith("probes input %s: 1 of 6001 records are unusable; first at %s:2501: field "
                                       "listener must be a string, not OBJECT<>" % (folder, bad)), str(error.value)


def test_the_checking_pass_can_aggregate_the_records_per_group(spark, tmp_path):
    later = {**PROBE, "run_id": "run-2", "observed_at": "2026-01-05T00:05:00Z"}
    path = _write_lines(tmp_path / "probes.jsonl", [PROBE, later, {**later, "observed_at": "2026-01-05T00:06:00Z"}])
    records = read_probes(spark, path, group_by=("cluster", "run_id"),
                          aggregates=(F.min("observed_at").alias("first_seen"),))
    try:
        assert records.count == 3
        assert records.newest.astimezone(utc("2026-01-05 00:00:00").tzinfo) == utc("2026-01-05 00:06:00")
        assert rows(records.groups.select("cluster", "run_id", "records", "first_seen"), ["run_id"]) == [
            {"cluster": "kafka-a", "run_id": "run-1", "records": 1,
             "first_seen": utc("2026-01-05 00:00:01").replace(microsecond=250000)},
            {"cluster": "kafka-a", "run_id": "run-2", "records": 2, "first_seen": utc("2026-01-05 00:05:00")}]
    finally:
        records.unpersist()


def test_json_lines_kept_by_the_checking_pass_are_read_from_the_kept_rows_afterwards(spark, tmp_path):
    path = _write_lines(tmp_path / "probes.jsonl", [PROBE, {**PROBE, "client": "other"}])
    before = set(spark.sparkContext._jsc.getPersistentRDDs().keySet())
    records = read_probes(spark, path, keep_json=True, group_by=("run_id",))
    kept = set(spark.sparkContext._jsc.getPersistentRDDs().keySet()) - before
    try:
        # the frame reads the rows the checking pass kept (a local checkpoint on this local master), not the file
        assert records.kept is not None
        assert "JSON" not in records.frame._jdf.queryExecution().analyzed().toString()
        assert len(kept) == 2  # the parsed records and the groups
        assert [(f.name, f.dataType) for f in records.frame.schema.fields] == [
            (f.name, f.dataType) for f in PROBES_SCHEMA.fields]
        assert sorted(row["client"] for row in rows(records.frame.select("client"))) == ["laptop", "other"]
    finally:
        records.unpersist()
    assert not kept & set(spark.sparkContext._jsc.getPersistentRDDs().keySet())


def test_a_read_of_some_columns_checks_every_column_and_keeps_only_those(spark, tmp_path):
    columns = ("cluster", "client", "observed_at")
    path = _write_lines(tmp_path / "probes.jsonl", [PROBE, {**PROBE, "client": "other"}])
    for keep in (True, False):
        records = read_probes(spark, path, keep_json=keep, columns=columns)
        try:
            assert records.frame.columns == [name for name in PROBES_SCHEMA.names if name in columns]
            if keep:  # the kept copy holds those columns (and the check's own), not the others
                assert not {"addresses", "elapsed_ms", "advertised_host"} & set(records.kept.columns)
            assert sorted(row["client"] for row in rows(records.frame.select("client"))) == ["laptop", "other"]
        finally:
            records.unpersist()
    # a column left out of the frame is still checked: Spark's JSON reader parses only the fields a query names,
    # and a wrongly typed field it does not parse leaves its record uncorrupted
    not_json = "not a JSON object with fields of the documented types"
    for field, value, reason in (("addresses", "not-a-list", "field addresses must be an array of strings, not STRING"),
                                 ("elapsed_ms", "slow", not_json), ("node_id", "one", not_json)):
        bad = _write_lines(tmp_path / ("bad-%s.jsonl" % field), [PROBE, json.dumps({**PROBE, field: value})])
        for keep in (True, False):
            with pytest.raises(InputError, match="1 of 2 records are unusable; first at .*bad-%s.jsonl:2: %s: "
                                                 % (field, reason)):
                read_probes(spark, bad, keep_json=keep, columns=columns)


def test_a_grouping_read_refuses_unusable_records_too(spark, tmp_path):
    path = _write_lines(tmp_path / "probes.jsonl", [PROBE, json.dumps({**PROBE, "observed_at": "yesterday"})])
    with pytest.raises(InputError, match="1 of 2 records are unusable; first at .*probes.jsonl:2: observed_at "
                                         "yesterday is not"):
        read_probes(spark, path, group_by=("cluster", "client", "run_id"))


def test_an_empty_input_is_refused(spark, tmp_path):
    path = _write_lines(tmp_path / "brokers.jsonl", [])
    with pytest.raises(InputError, match="brokers input .* holds no records"):
        read_brokers(spark, path)


def test_a_missing_path_is_refused(spark, tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        read_brokers(spark, str(tmp_path / "nowhere.jsonl"))


def test_parquet_with_extra_and_missing_optional_columns(spark, tmp_path):
    table = pa.table({
        "schema_version": [1], "run_id": ["run-1"], "observed_at": pa.array([0], pa.timestamp("s", tz="UTC")),
        "cluster": ["kafka-a"], "broker": ["b1"], "node_id": pa.array([1], pa.int32()), "site": ["eu-1"],
    })
    folder = tmp_path / "brokers"
    folder.mkdir()
    pq.write_table(table, folder / "part-0.parquet")
    assert detect_format(str(folder)) == "parquet"
    records = read_brokers(spark, str(folder))
    assert [f.name for f in records.frame.schema.fields] == [f.name for f in BROKERS_SCHEMA.fields]
    row = rows(records.frame)[0]
    assert (row["node_id"], row["listeners"], row["observed_at"]) == (1, None, utc("1970-01-01 00:00:00"))


def test_parquet_without_a_required_column_is_refused(spark, tmp_path):
    path = tmp_path / "brokers.parquet"
    pq.write_table(pa.table({"schema_version": [1], "run_id": ["run-1"]}), path)
    with pytest.raises(InputError, match="brokers .*brokers.parquet: required column observed_at is missing"):
        read_brokers(spark, str(path))


def test_a_glob_pattern_picks_one_kind_of_records_out_of_a_shared_folder(spark, tmp_path):
    # the verify role writes brokers-<run>.jsonl and probes-<run>-<client>.jsonl side by side in one folder
    broker = {"schema_version": 1, "run_id": "run-1", "observed_at": "2026-01-05T00:00:00Z", "cluster": "kafka-a",
              "broker": "b1", "node_id": 1}
    _write_lines(tmp_path / "brokers-run-1.jsonl", [broker])
    _write_lines(tmp_path / "probes-run-1-laptop.jsonl", [PROBE])
    _write_lines(tmp_path / "probes-run-1-client.jsonl", [{**PROBE, "client": "client", "client_network": "vpc"}])
    probes = read_probes(spark, str(tmp_path / "probes-*.jsonl"))
    assert probes.count == 2
    assert sorted(row["client"] for row in rows(probes.frame.select("client"), ["client"])) == ["client", "laptop"]
    brokers = read_brokers(spark, str(tmp_path / "brokers-*.jsonl"))
    assert (brokers.count, rows(brokers.frame)[0]["broker"]) == (1, "b1")


def test_a_glob_pattern_that_matches_nothing_is_refused(spark, tmp_path):
    pattern = str(tmp_path / "brokers-*.jsonl")
    with pytest.raises(InputError, match="brokers-\\*.jsonl matches no file"):
        read_brokers(spark, pattern)


def test_probes_written_before_endpoint_networks_read_them_as_null(spark, tmp_path):
    newer = {**PROBE, "endpoint_network": "internet-nlb", "route": "load_balancer"}
    records = read_probes(spark, _write_lines(tmp_path / "probes.jsonl", [PROBE, newer]))
    assert rows(records.frame.select("endpoint_network", "route"), ["endpoint_network"]) == [
        {"endpoint_network": None, "route": None}, {"endpoint_network": "internet-nlb", "route": "load_balancer"}]
    folder = tmp_path / "probes"
    folder.mkdir()
    old = {**PROBE, "observed_at": utc("2026-01-05 00:00:01")}
    pq.write_table(pa.Table.from_pylist([old]), folder / "part-0.parquet")  # no endpoint_network, no route columns
    records = read_probes(spark, str(folder))
    assert rows(records.frame.select("listener", "endpoint_network", "route"), ["listener"]) == [
        {"listener": "EXTERNAL", "endpoint_network": None, "route": None}]
