"""Running one case's statements on a connection that may lose its server, and comparing answers.

A case is a list of steps run in one transaction under some planner settings. Its answer is the
list of what the capturing steps returned, or the error that ended it (SQLSTATE and message), or
a lost connection (the backend crashed, or the server restarted). The harness reconnects after a
lost connection and carries on.
"""
import time

import psycopg2
import psycopg2.extensions

# Settings of the reference run: no index of any kind.
REFERENCE_GUCS = (("enable_indexscan", "off"), ("enable_bitmapscan", "off"),
                  ("enable_indexonlyscan", "off"))

# SQLSTATEs that are a finding whichever side raises them: internal errors, data corruption.
ALWAYS_BAD = {"XX000", "XX001", "XX002"}


class Answer:
    """What a run produced: ok (results), error (sqlstate, message), or crash (message)."""

    def __init__(self, status, results=None, sqlstate=None, message=None, step=None, plan=None):
        self.status = status
        self.plan = plan
        self.results = results
        self.sqlstate = sqlstate
        self.message = message
        self.step = step

    def short(self, limit=12):
        if self.status == "crash":
            return "connection lost (backend crash?): %s" % (self.message or "").strip()
        if self.status == "error":
            return "ERROR %s at step %s: %s" % (self.sqlstate, self.step, (self.message or "").strip())
        parts = []
        for res in self.results:
            if isinstance(res, list) and res and isinstance(res[0], list):
                parts.append("fetches " + " | ".join(fmt_rows(r, 4) for r in res[:6]) +
                             (" ..." if len(res) > 6 else ""))
            else:
                parts.append(fmt_rows(res, limit))
        return "; ".join(parts)


def fmt_rows(rows, limit):
    if rows is None:
        return "(no rows object)"
    shown = ", ".join(fmt_row(r) for r in rows[:limit])
    more = " ... (%d rows)" % len(rows) if len(rows) > limit else ""
    return "[%d rows] %s%s" % (len(rows), shown, more)


def fmt_row(row):
    if len(row) == 1:
        return "None" if row[0] is None else str(row[0])
    return "(" + ",".join("NULL" if v is None else str(v) for v in row) + ")"


def _int_or_text(value, cur):
    """simhash_distance and other types of the extension arrive as text; numbers become ints."""
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        return value


class Session:
    """One connection to the server under test, re-established after a crash."""

    def __init__(self, on_connect, statement_timeout_ms, log):
        self.on_connect = on_connect
        self.statement_timeout_ms = statement_timeout_ms
        self.log = log
        self.conn = None
        self.reconnects = 0
        self.ext_types_registered = False

    def connect(self, wait_seconds=180):
        """Connects and prepares the session, retrying while the server restarts after a crash
        (a connection made just before the postmaster kills every backend is lost too)."""
        deadline = time.monotonic() + wait_seconds
        while True:
            try:
                self._connect_once()
                return
            except (psycopg2.OperationalError, psycopg2.InterfaceError) as exc:
                if time.monotonic() > deadline:
                    raise RuntimeError("cannot reconnect to the server: %s" % exc)
                try:
                    if self.conn is not None:
                        self.conn.close()
                except psycopg2.Error:
                    pass
                time.sleep(0.3)

    def _connect_once(self):
        conn = psycopg2.connect("", application_name="simhash-differential")
        conn.autocommit = True
        self.conn = conn
        with conn.cursor() as cur:
            cur.execute("SET statement_timeout = %d" % self.statement_timeout_ms)
            cur.execute("SET lock_timeout = %d" % self.statement_timeout_ms)
            cur.execute("SET client_min_messages = warning")
            # The enable_* switches add a huge cost to disabled paths, which would send every forced
            # plan through JIT compilation (~0.1 s each); the cases that want JIT ask for it.
            cur.execute("SET jit = off")
            cur.execute("SELECT oid FROM pg_type WHERE typname IN ('simhash_distance')")
            oids = tuple(r[0] for r in cur.fetchall())
        if oids:
            caster = psycopg2.extensions.new_type(oids, "SIMHASH_DISTANCE", _int_or_text)
            psycopg2.extensions.register_type(caster, conn)
        self.on_connect(self)

    def alive(self):
        if self.conn is None or self.conn.closed:
            return False
        try:
            with self.conn.cursor() as cur:
                cur.execute("SELECT 1")
            return True
        except psycopg2.Error:
            return False

    def reconnect(self):
        try:
            if self.conn is not None:
                self.conn.close()
        except psycopg2.Error:
            pass
        self.reconnects += 1
        self.connect()

    def execute(self, sql):
        """A statement outside any case (setup, DML); errors propagate."""
        with self.conn.cursor() as cur:
            cur.execute(sql)
            if cur.description is not None:
                return cur.fetchall()
            return None

    def run(self, gucs, steps, rollback=False):
        """Runs steps in one transaction under gucs; returns an Answer. Never raises for SQL errors.

        A step is (op, sql, arg): op 'exec' (no result), 'query' (all rows), 'fetch' (a cursor
        fetched FETCH arg rows at a time until it returns fewer, one result: the chunks), 'fetchops'
        (arg a list of FETCH/MOVE statements run in order, one result: their row lists).
        """
        conn = self.conn
        results = []
        plan = None
        cur = conn.cursor()
        index = 0
        try:
            cur.execute("BEGIN")
            for name, value in gucs:
                cur.execute("SET LOCAL %s = %s" % (name, value))
            for index, (op, sql, arg) in enumerate(steps):
                if op == "exec":
                    cur.execute(sql)
                elif op == "plan":
                    cur.execute(sql)
                    plan = "\n".join(r[0] for r in cur.fetchall())
                elif op == "query":
                    cur.execute(sql)
                    results.append([tuple(r) for r in cur.fetchall()])
                elif op == "fetch":
                    chunks = []
                    sizes = arg
                    i = 0
                    while True:
                        n = sizes[i % len(sizes)]
                        i += 1
                        cur.execute("FETCH %d FROM %s" % (n, sql))
                        rows = [tuple(r) for r in cur.fetchall()]
                        chunks.append(rows)
                        if len(rows) < n or len(chunks) > 100000:
                            break
                    results.append(chunks)
                elif op == "fetchops":
                    chunks = []
                    for stmt in arg:
                        cur.execute(stmt)
                        chunks.append([tuple(r) for r in cur.fetchall()] if cur.description else [])
                    results.append(chunks)
                else:
                    raise ValueError(op)
            cur.execute("ROLLBACK" if rollback else "COMMIT")
            cur.close()
            return Answer("ok", results=results, plan=plan)
        except psycopg2.Error as exc:
            if conn.closed or (exc.pgcode or "").startswith("57P"):
                return Answer("crash", message=str(exc), step=index, plan=plan)
            try:
                cur.execute("ROLLBACK")
            except psycopg2.Error:
                if conn.closed or not self.alive():
                    return Answer("crash", message=str(exc), step=index)
            return Answer("error", sqlstate=exc.pgcode, message=str(exc).strip().split("\n")[0],
                          step=index, plan=plan)


# ----- comparing answers ----------------------------------------------------------------------

def _key(row):
    return tuple((True, 0) if v is None else (False, v) for v in row)


def bag(rows):
    return sorted(rows, key=_key)


def cmp_bag(a, b):
    if bag(a) != bag(b):
        return "different rows: index %d rows, seqscan %d rows%s" % (len(a), len(b), _bag_diff(a, b))
    return None


def _bag_diff(a, b):
    from collections import Counter
    ca, cb = Counter(a), Counter(b)
    extra = list((ca - cb).elements())
    missing = list((cb - ca).elements())
    out = ""
    if missing:
        out += "; missing from the index answer: %s" % fmt_rows(sorted(missing, key=_key), 8)
    if extra:
        out += "; only in the index answer: %s" % fmt_rows(sorted(extra, key=_key), 8)
    return out


def cmp_exact(a, b):
    if a != b:
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return "different at row %d: index %s, seqscan %s (index %d rows, seqscan %d)" % (
                    i + 1, fmt_row(x), fmt_row(y), len(a), len(b))
        return "index %d rows, seqscan %d rows" % (len(a), len(b))
    return None


def cmp_knn(a, b, limited, dcols=(-1,)):
    """Rows ordered by distance columns: the sequences of distances must be equal; the rows strictly
    before the last distance must be the same rows; without a limit, all rows must be the same."""
    da = [tuple(r[c] for c in dcols) for r in a]
    db = [tuple(r[c] for c in dcols) for r in b]
    first = [_key(d[:1]) for d in da]
    for i in range(1, len(first)):
        if first[i] < first[i - 1]:
            return "the index answer is not in nondecreasing distance: row %d has %s after %s" % (
                i + 1, da[i][0], da[i - 1][0])
    if da != db:
        for i, (x, y) in enumerate(zip(da, db)):
            if x != y:
                return "distance sequences differ at row %d: index %s, seqscan %s (index %d rows, seqscan %d)" % (
                    i + 1, fmt_row(x), fmt_row(y), len(a), len(b))
        return "distance sequences differ in length: index %d rows, seqscan %d rows" % (len(a), len(b))
    if not limited or not a:
        return cmp_bag(a, b)
    last = _key(da[-1])
    ia = [r for r, d in zip(a, da) if _key(d) < last]
    ib = [r for r, d in zip(b, db) if _key(d) < last]
    return cmp_bag(ia, ib)


def cmp_grouped_knn(a, b, limited):
    """(group, ..., distance) rows: per group as cmp_knn."""
    ga, gb = {}, {}
    for r in a:
        ga.setdefault(r[0], []).append(r)
    for r in b:
        gb.setdefault(r[0], []).append(r)
    if sorted(ga, key=lambda g: _key((g,))) != sorted(gb, key=lambda g: _key((g,))):
        return "different groups: index %s, seqscan %s" % (sorted(ga, key=lambda g: _key((g,))),
                                                           sorted(gb, key=lambda g: _key((g,))))
    for g in ga:
        d = cmp_knn(ga[g], gb[g], limited)
        if d:
            return "group %s: %s" % (g, d)
    return None
