# Copyright (c) 2026, kafkaops.listeners contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

"""Read ``brokers`` and ``probes`` records (JSON lines or Parquet) into frames of the audit's schemas.

Bad input is refused with :class:`InputError`, whose message names the input, how many records are unusable and
where (file and, for JSON lines, line) and why the first one is: a line that is not JSON or has a field of the
wrong type (a JSON object, array, number or boolean where a string is required included), a missing required
field, a timestamp that does not parse, or a ``schema_version`` newer than this audit.
"""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple
from urllib.parse import urlparse

from pyspark.errors import AnalysisException
from pyspark.sql import DataFrame, SparkSession, Window
from pyspark.sql import functions as F
from pyspark.sql import types as T

from kafka_listeners_audit import keeping
from kafka_listeners_audit.inputs import FORMATS as FORMATS
from kafka_listeners_audit.inputs import InputError, detect_format
from kafka_listeners_audit.schema import BROKERS_SCHEMA, PROBES_SCHEMA, SCHEMA_VERSION
from kafka_listeners_audit.sql_text import sql_name, sql_string

_CORRUPT = "_corrupt_record"


class Records(NamedTuple):
    """Checked records: the frame, how many there are, the newest ``observed_at`` and, when the read was asked to
    group them, the groups computed by the checking pass (``groups``: the group columns, the check's own
    ``records``, ``newest``, ``bad`` and the asked-for aggregates; kept, see :meth:`unpersist`)."""

    frame: DataFrame
    count: int
    newest: datetime
    groups: DataFrame | None = None
    kept: DataFrame | None = None

    def unpersist(self) -> None:
        """Drop the kept ``groups`` and parsed records, if any."""
        for frame in (self.groups, self.kept):
            if frame is not None:
                keeping.release(frame)


def _json_read_schema(schema: T.StructType, variants: bool = True) -> T.StructType:
    # Spark's JSON reader takes any JSON value as a string (an object as its text): with ``variants``, text fields
    # are read as variants, whose kind is checked (:func:`_record_check`), else as text, screened for a value that
    # may have been another kind. observed_at too: it is parsed below, so a bad timestamp is reported instead of
    # silently nulled
    fields = [T.StructField(f.name, T.VariantType() if variants and (_is_text(f.dataType) or f.name == "observed_at")
                            else T.StringType() if f.name == "observed_at" else f.dataType, True)
              for f in schema.fields]
    return T.StructType([*fields, T.StructField(_CORRUPT, T.StringType(), True)])


def _is_text(kind: T.DataType) -> bool:
    return isinstance(kind, T.StringType) or (isinstance(kind, T.ArrayType) and
                                              isinstance(kind.elementType, T.StringType))


# What Spark's reader makes of a JSON value that is not a string, read as a string: its text as the line spells it
# (an object or array, a number, a boolean, NaN or an infinity); other readers of Spark quote NaN and the infinities
_LOOKS_OTHER_KIND = r'^([{\["]|true$|false$|[-+]?(NaN|INF|Infinity)$|-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$)'
_OTHER_WORDS = ("true", "false", "NaN", "INF", "Infinity")


def _looks_other_kind(texts: list, arrays: list) -> str:
    """SQL text: whether a value of the text fields ``texts`` or an element of the arrays of text ``arrays`` (SQL
    names) may have been another JSON kind: matches :data:`_LOOKS_OTHER_KIND`, but for a value ending in a line
    terminator, which Java's ``$`` lets the expression match and Spark's reader never makes of another kind.

    One lambda over every value, not an expression per field: with this gate per field, the code Spark generates
    for the checking pass grew over the 8,000 bytes of one method that HotSpot compiles, and ran 2-3x slower. The
    regular expression, which copies the value into a Java string, runs only where the first character leaves a
    match open: a value starting at or above ``:`` matches only by its first character (``{``, ``[``) or as one of
    the words; one starting with a digit is no number when it holds a ``:`` (a timestamp) or two dots (an IPv4
    address). The checking pass of 10M probe records (docs/audit.md): the ``RLIKE`` per field cost some 11 s over
    the pass without a screen, this 4.6-6.5 s."""
    values = "array(%s)" % ", ".join(texts) if texts else None
    for array in arrays:
        array = "coalesce(%s, CAST(array() AS ARRAY<STRING>))" % array
        values = array if values is None else "concat(%s, %s)" % (values, array)
    return ("exists(%s, x -> CASE WHEN x >= ':' THEN startswith(x, '{') OR startswith(x, '[') OR x IN (%s) "
            "WHEN x >= '0' AND (contains(x, ':') OR locate('.', x, locate('.', x) + 1) > 0) THEN false "
            "ELSE x RLIKE %s END)" % (values, ", ".join(map(sql_string, _OTHER_WORDS)), sql_string(_LOOKS_OTHER_KIND)))


def _read_json(spark: SparkSession, path: str, schema: T.StructType, variants: bool = True) -> DataFrame:
    return (spark.read.schema(_json_read_schema(schema, variants)).option("mode", "PERMISSIVE")
            .option("columnNameOfCorruptRecord", _CORRUPT).json(path))


def _read_parquet(spark: SparkSession, path: str, schema: T.StructType, what: str) -> DataFrame:
    raw = spark.read.parquet(path)
    present = {field.name: field.dataType for field in raw.schema.fields}
    columns = []
    for field in schema.fields:
        if field.name not in present:
            if not field.nullable:
                raise InputError("%s %s: required column %s is missing (columns: %s)"
                                 % (what, path, field.name, ", ".join(sorted(present))))
            columns.append(F.lit(None).cast(field.dataType).alias(field.name))
        elif field.name == "observed_at" and isinstance(present[field.name], T.StringType):
            columns.append(F.col(field.name))
        else:
            columns.append(F.col(field.name).cast(field.dataType).alias(field.name))
    return raw.select(*columns, F.lit(None).cast("string").alias(_CORRUPT))


def read_records(spark: SparkSession, path: str, schema: T.StructType, what: str, fmt: str = "auto",
                 group_by: tuple = (), aggregates: tuple = (), keep_json: bool = False,
                 columns: tuple | None = None, screen_kinds: bool = False) -> Records:
    """Read the ``what`` records (``"brokers"`` or ``"probes"``) at ``path`` into a frame of ``schema``.

    Every record is checked in one pass (which also counts them); InputError when any is unusable or there are
    none. With ``group_by`` (columns), that pass also computes ``aggregates`` (columns over the schema's columns)
    per group, so a job that needs them does not read the input again for them: ``Records.groups``. With
    ``keep_json``, JSON lines are parsed once: the frame is the records that pass parsed and kept
    (:func:`~kafka_listeners_audit.keeping.keep`; :meth:`Records.unpersist`), where parsing the text again for every
    later pass would cost more than keeping them.
    With ``columns``, the frame holds only those columns of the schema (every column is still checked), and only
    they are kept.

    The JSON kind of every text field is checked exactly by reading it as a variant, which made the checking pass of
    10M probe records take 1.76x the CPU. With ``screen_kinds``, JSON lines are read with text fields as text and
    screened instead: a value that may have been an object, array, number or boolean (``_LOOKS_OTHER_KIND``: text
    starting with ``{``, ``[`` or ``"``, ``true``, ``false``, a number, NaN or an infinity) sends the whole input
    through the exact check, and so does any unusable record (so that the count and the first one are the exact
    check's). For inputs whose text fields are plain names and messages (probes); a brokers record holds JSON text
    in strings, which would always send it there.
    """
    try:
        fmt = detect_format(path, fmt)
        if screen_kinds and fmt == "json":
            records = _read_checked(spark, path, schema, what, fmt, group_by, aggregates, keep_json, columns,
                                    screen=True)
            if records is not None:
                return records
        return _read_checked(spark, path, schema, what, fmt, group_by, aggregates, keep_json, columns)
    except AnalysisException as exc:  # unreadable file, or a Parquet column of an unusable type
        raise InputError("%s input %s cannot be read: %s" % (what, path, str(exc).split("\n")[0])) from exc


def _record_check(schema: T.StructType, raw: DataFrame, screen: bool = False) -> tuple:
    """(typed columns of ``schema``, by name, as ``expression AS name``; the reason a record is unusable or null;
    the record as text; with ``screen``, whether a text field's value may have been another JSON kind), each SQL
    text over ``raw``, the frame a reader made: JSON lines read with :func:`_json_read_schema`, or Parquet."""
    # SQL text, not column functions: built from these, the checks of the probes and brokers took some 2,800 round
    # trips to the JVM (one or more per function, operator and literal)
    value, wrong_kind, texts, arrays = {}, [], [], []
    for field in schema.fields:
        column = sql_name(field.name)
        if not isinstance(raw.schema[field.name].dataType, T.VariantType):
            value[field.name] = column
            if screen and (_is_text(field.dataType) or field.name == "observed_at"):
                (arrays if isinstance(field.dataType, T.ArrayType) else texts).append(column)
            continue
        kind = "schema_of_variant(%s)" % column
        if isinstance(field.dataType, T.ArrayType):
            value[field.name], wanted = "variant_get(%s, '$', 'array<string>')" % column, "an array of strings"
            accepted = "%s RLIKE '^ARRAY<(STRING|VOID)>$'" % kind
        else:
            value[field.name], wanted = "variant_get(%s, '$', 'string')" % column, "a string"
            accepted = "%s = 'STRING'" % kind
        wrong_kind.append(("%s IS NOT NULL AND NOT is_variant_null(%s) AND NOT (%s)" % (column, column, accepted),
                           "format_string('field %%s must be %%s, not %%s', %s, %s, %s)"
                           % (sql_string(field.name), sql_string(wanted), kind)))
    given = value["observed_at"]  # as read: text to parse, or already a timestamp
    as_text = isinstance(raw.schema["observed_at"].dataType, (T.StringType, T.VariantType))
    observed = ("try_cast(%s AS TIMESTAMP)" if as_text else "CAST(%s AS TIMESTAMP)") % given
    version = sql_name("schema_version")
    cases = [("%s IS NOT NULL" % sql_name(_CORRUPT), sql_string("not a JSON object with fields of the documented "
                                                                  "types")), *wrong_kind]
    cases += [("%s IS NULL" % value[field.name], sql_string("required field %s is missing" % field.name))
              for field in schema.fields if not field.nullable and field.name != "observed_at"]
    # the timestamp is only turned into text for the message of a bad record, never for every good one
    cases += [("%s IS NULL" % given, sql_string("required field observed_at is missing")),
              ("%s IS NULL" % observed, "format_string('observed_at %%s is not an ISO 8601 timestamp', "
                                         "CAST(%s AS STRING))" % given),
              ("%s < 1 OR %s > %d" % (version, version, SCHEMA_VERSION),
               "format_string('schema_version %%d is not one this audit reads (1 to %%d)', %s, %d)"
               % (version, SCHEMA_VERSION))]
    reason = "CASE %s END" % " ".join("WHEN %s THEN %s" % case for case in cases)
    record = "coalesce(%s, to_json(struct(%s)))" % (sql_name(_CORRUPT), ", ".join(
        sql_name(f.name) for f in schema.fields))
    typed = {field.name: "CAST(%s AS %s) AS %s" % (observed if field.name == "observed_at" else value[field.name],
                                                   field.dataType.simpleString(), sql_name(field.name))
             for field in schema.fields}
    return typed, reason, record, _looks_other_kind(texts, arrays) if texts or arrays else None


def _example(reason: str, record: str) -> str:
    """SQL text of the struct (file, text) that shows a record found unusable: its file, the reason and the record
    (its first 300 characters)."""
    return ("named_struct('file', input_file_name(), 'text', concat_ws(': ', %s, substring(%s, 1, 300)))"
            % (reason, record))


def _first_bad_line(spark: SparkSession, file: str, schema: T.StructType) -> tuple | None:
    """(line number, reason and record) of the first unusable record of the JSON-lines ``file``, checked as the
    reader checks it; None when there is none (the file changed since). Only run for a file known to hold one."""
    lines = (spark.read.text(file)
             .select(F.row_number().over(Window.orderBy(F.monotonically_increasing_id())).alias("_line"), "value")
             .where(F.trim("value") != ""))  # the JSON reader skips blank lines, but they count
    parsed = lines.select("_line", "value", F.from_json("value", _json_read_schema(schema), {
        "mode": "PERMISSIVE", "columnNameOfCorruptRecord": _CORRUPT}).alias("_r")).select("_line", "value", "_r.*")
    _typed, reason, record, _looks = _record_check(schema, parsed)
    # the text reader keeps a line's bytes as they are; the JSON reader refuses a line that is not UTF-8, which
    # from_json, reading the text, may parse: say so, and show the line with U+FFFD where its bytes are not UTF-8
    reason = "CASE WHEN NOT is_valid_utf8(value) THEN %s ELSE %s END" % (
        sql_string("not UTF-8 text (JSON lines are UTF-8; \ufffd marks the bytes that are not)"), reason)
    record = "CASE WHEN NOT is_valid_utf8(value) THEN make_valid_utf8(value) ELSE %s END" % record
    row = (parsed.where("(%s) IS NOT NULL" % reason).orderBy("_line")
           .selectExpr("_line", "concat_ws(': ', %s, substring(%s, 1, 300))" % (reason, record)).first())
    return None if row is None else (row[0], row[1])


def _where(file: str) -> str:
    return urlparse(file).path if file.startswith("file:") else file


def _read_checked(spark: SparkSession, path: str, schema: T.StructType, what: str, fmt: str, group_by: tuple = (),
                  group_aggregates: tuple = (), keep_json: bool = False, columns: tuple | None = None,
                  screen: bool = False) -> Records | None:
    """:func:`read_records`' work; with ``screen`` (JSON lines only), None when a record is unusable or a text
    field's value may have been another JSON kind: the caller reads again without."""
    keep = keep_json and fmt == "json"
    names = [name for name in schema.names if columns is None or name in columns]
    raw = (_read_json(spark, path, schema, variants=not screen) if fmt == "json"
           else _read_parquet(spark, path, schema, what))
    typed, reason, record, looks = _record_check(schema, raw, screen)
    checks = ["%s AS _reason" % reason]
    aggregates = [F.count(F.lit(1)).alias("records"), F.max("observed_at").alias("newest"),
                  F.count("_reason").alias("bad")]
    if looks:
        checks.append("(%s) AS _looks" % looks)
        aggregates.append(F.expr("count_if(_looks) AS looks"))
    if fmt == "json":
        # the example's record names every field, so every field of every line is parsed: Spark's reader parses
        # only the fields a query names, and a wrongly typed field it does not parse leaves its record uncorrupted
        checks.append("CASE WHEN (%s) IS NOT NULL THEN %s END AS _example" % (reason, _example(reason, record)))
        aggregates.append(F.first("_example", ignorenulls=True).alias("example"))
    # Parquet: the pass reads only the columns it uses; the example is looked up when there is a bad record.
    # Kept, the checking pass keeps what it parsed (memory, spilling to disk): later passes read that, not the text;
    # only the columns asked for, and what the check's aggregates read (every column is still checked)
    wanted = set(names) | set(group_by) | {"observed_at"}
    checked = raw.selectExpr(*[typed[name] for name in schema.names if not keep or name in wanted], *checks)
    if keep:
        checked = keeping.keep(checked)
    groups = None

    def release() -> None:
        for frame in (groups, checked if keep else None):
            if frame is not None:
                keeping.release(frame)

    try:
        if group_by:
            groups = keeping.keep(checked.groupBy(*group_by).agg(*aggregates, *group_aggregates))
            totals = [F.sum("records").alias("records"), F.max("newest").alias("newest"), F.sum("bad").alias("bad")]
            if looks:
                totals.append(F.sum("looks").alias("looks"))
            if fmt == "json":
                totals.append(F.first("example", ignorenulls=True).alias("example"))
            summary = groups.agg(*totals).first()
        else:
            summary = checked.agg(*aggregates).first()
    except BaseException:  # the job failed or was cancelled: nothing it kept stays
        release()
        raise
    if looks and summary["records"] and (summary["bad"] or summary["looks"]):
        release()
        return None
    if not summary["records"] or summary["bad"]:
        release()
        if not summary["records"]:
            raise InputError("%s input %s holds no records" % (what, path))
        first = summary["example"] if fmt == "json" else (
            raw.where("(%s) IS NOT NULL" % reason).selectExpr(_example(reason, record)).first()[0])
        where = _where(first["file"])
        line = _first_bad_line(spark, first["file"], schema) if fmt == "json" else None
        raise InputError("%s input %s: %d of %d records are unusable; first at %s: %s"
                         % (what, path, summary["bad"], summary["records"],
                            where if line is None else "%s:%d" % (where, line[0]), first["text"] if line is None
                            else line[1]))
    # SQL text: a column chosen by name costs some four round trips to the JVM, its text one or two
    frame = (checked.selectExpr(*[sql_name(name) for name in names]) if keep
             else raw.selectExpr(*[typed[name] for name in names]))
    return Records(frame, summary["records"], summary["newest"], groups, checked if keep else None)


def read_brokers(spark: SparkSession, path: str, fmt: str = "auto", keep_json: bool = False) -> Records:
    """The ``brokers`` records at ``path`` (see ``docs/records.md``); ``keep_json`` as for :func:`read_records`."""
    return read_records(spark, path, BROKERS_SCHEMA, "brokers", fmt, keep_json=keep_json)


def read_probes(spark: SparkSession, path: str, fmt: str = "auto", group_by: tuple = (),
                aggregates: tuple = (), keep_json: bool = False, columns: tuple | None = None) -> Records:
    """The ``probes`` records at ``path`` (see ``docs/records.md``); ``group_by``, ``aggregates``, ``keep_json``
    and ``columns`` as for :func:`read_records`, JSON kinds screened (``screen_kinds``)."""
    return read_records(spark, path, PROBES_SCHEMA, "probes", fmt, group_by, aggregates, keep_json, columns,
                        screen_kinds=True)
