#!/usr/bin/env python3
"""Runs the documented statements through psycopg2 and checks what Python receives.

    check_psycopg2.py STATEMENTS DBNAME

STATEMENTS is the NUL-separated list of statements.py. Connection settings come from the libpq
environment (PGHOST, PGPORT, PGUSER). Every column the server calls a number (column_kind.sql)
must arrive as int, float or Decimal (a list of those for an array), never as str: a dashboard
sorts a str "10" before "9". Exits 1 on any failure.
"""
import decimal
import os
import sys

import psycopg2
import psycopg2.extensions

NUMBER_TYPES = (int, float, decimal.Decimal)
HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    statements_file, dbname = sys.argv[1], sys.argv[2]
    with open(statements_file, encoding="utf-8") as f:
        statements = [s for s in f.read().split("\0") if s]
    with open(os.path.join(HERE, "column_kind.sql"), encoding="utf-8") as f:
        kind_sql = f.read().replace("%", "%%").replace(":type", "%s")

    conn = psycopg2.connect(dbname=dbname)
    conn.autocommit = True
    cur, lookup = conn.cursor(), conn.cursor()
    kinds = {}

    def kind(oid):
        if oid not in kinds:
            lookup.execute(kind_sql, (str(oid),))
            kinds[oid] = lookup.fetchone()[0]
        return kinds[oid]

    failures, checked_columns, checked_values = [], 0, 0
    for number, sql in enumerate(statements, 1):
        label = f"statement {number}: " + " ".join(sql.split())[:100]
        cur.execute(sql)
        if cur.description is None:
            continue
        rows = cur.fetchall()
        for i, col in enumerate(cur.description):
            k = kind(col.type_code)
            if k == "other":
                continue
            checked_columns += 1
            caster = psycopg2.extensions.string_types.get(col.type_code)
            if caster is None:
                failures.append(f"{label}\n    column {col.name!r} (type OID {col.type_code}): "
                                "psycopg2 has no conversion for its type, values arrive as str")
            for row in rows:
                value = row[i]
                if value is None:
                    continue
                values = value if k == "number[]" and isinstance(value, list) else [value]
                bad = [v for v in values
                       if v is not None and (isinstance(v, bool) or not isinstance(v, NUMBER_TYPES))]
                if k == "number[]" and not isinstance(value, list):
                    bad = [value]
                checked_values += 1
                if bad:
                    failures.append(f"{label}\n    column {col.name!r} (type OID {col.type_code}): "
                                    f"{type(bad[0]).__name__} {bad[0]!r}, expected a number")
                    break
    conn.close()

    for f in failures:
        print("FAILED:", f)
    print(f"psycopg2 {psycopg2.__version__.split()[0]}: {len(statements)} statements, "
          f"{checked_columns} numeric result columns, {checked_values} values checked, "
          f"{len(failures)} failures")
    if checked_columns == 0:
        print("FAILED: no numeric column was checked (is the statement list empty?)")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
