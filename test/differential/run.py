#!/usr/bin/python3
"""Differential test of the simhash indexes: every answer through simhash_mih or GiST against the
same query with every index scan disabled.

    test/differential/run.py [--seed S] [--queries N] [--scale F]      # a run; exit 1 on findings
    test/differential/run.py --seed S --queries N --case C             # replay one case, verbosely

Connects with the libpq environment (PGHOST, PGPORT, PGUSER; PGDATABASE is only used to create and
drop the test's own database, --db). The server must have the simhash extension installed. A
backend crash is a finding: the harness waits for the server to come back, reconnects and goes on,
so run it on a server of its own (scripts/pgtmp.sh). See doc/testing.md.
"""
import argparse
import math
import os
import random
import re
import sys
import time
from collections import Counter, defaultdict

sys.dont_write_bytecode = True      # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import psycopg2  # noqa: E402

import engine  # noqa: E402
from cases import Generator  # noqa: E402
from dataset import Dataset  # noqa: E402

SCAN_RE = re.compile(r"(Index Only Scan|Index Scan|Bitmap Index Scan)(?: Backward)? (?:using|on) (\w+)")


def out(*a):
    print(*a, flush=True)


class Finding:
    def __init__(self, category, case, detail, ia, ra):
        self.category = category
        self.case = case
        self.detail = detail
        self.ia = ia
        self.ra = ra
        self.shrunk = None       # the finding of a smaller case, after shrinking

    def group(self):
        """Findings of one group likely share a cause: an internal error by its message (digits
        aside), a crash by access method and number of index conditions, a wrong answer by access
        method, kind of case and number of index conditions."""
        am, kind, bucket = self.case.signature()
        if self.category.startswith("internal error"):
            return (self.category, re.sub(r"[0-9.]+", "N", self.detail or ""))
        if "crash" in self.category:
            return (self.category, am, bucket + " index conditions")
        return (self.category, am, kind, bucket + " index conditions")


class Runner:
    def __init__(self, args, seed):
        self.args = args
        self.seed = seed
        self.ds = Dataset(seed, args.scale, out)
        self.gen = Generator(seed, self.ds)
        self.findings = []
        self.other_findings = []
        self.by_signature = defaultdict(int)
        self.crashes_by_signature = Counter()
        self.crashes = 0
        self.skipped = 0
        self.ran = 0
        self.coverage = Counter()
        self.slow = []
        self.kind_time = Counter()
        self.kind_count = Counter()
        self.errors_both = Counter()
        self.session = None

    # ----- setup ------------------------------------------------------------------------------
    def setup(self):
        admin_db = os.environ.get("PGDATABASE", "postgres")
        if admin_db == self.args.db:
            admin_db = "postgres"
        admin = psycopg2.connect("dbname=%s" % admin_db)
        admin.autocommit = True
        with admin.cursor() as cur:
            cur.execute("SET client_min_messages = warning")
            cur.execute("DROP DATABASE IF EXISTS %s" % self.args.db)
            cur.execute("CREATE DATABASE %s" % self.args.db)
        admin.close()
        os.environ["PGDATABASE"] = self.args.db
        t0 = time.monotonic()
        boot = engine.Session(lambda s: None, self.args.statement_timeout * 1000, out)
        boot.connect()
        boot.execute("CREATE EXTENSION simhash")
        self.ds.create(boot)
        boot.conn.close()
        self.session = engine.Session(self.ds.create_temp, self.args.statement_timeout * 1000, out)
        self.session.connect()
        out("differential: tables built in %.1f s (%s)" % (
            time.monotonic() - t0, ", ".join("%s %d rows" % (f, len(r)) for f, r in self.ds.rows.items())))

    def drop_db(self):
        try:
            self.session.conn.close()
        except Exception:
            pass
        for attempt in range(100):      # the server may still be recovering from a crash
            try:
                admin = psycopg2.connect("dbname=postgres")
                break
            except psycopg2.OperationalError:
                if attempt == 99:
                    raise
                time.sleep(0.5)
        admin.autocommit = True
        with admin.cursor() as cur:
            cur.execute("DROP DATABASE IF EXISTS %s" % self.args.db)
        admin.close()

    # ----- one case ------------------------------------------------------------------------------
    def execute(self, case):
        """Runs a case on both sides; returns (a Finding or None, the index run's answer)."""
        s = self.session
        t0 = time.monotonic()
        ia = s.run(case.gucs, case.steps, rollback=case.rollback)
        t1 = time.monotonic()
        if ia.status == "crash":
            self.crashes += 1
            s.reconnect()
        if case.after:
            try:
                s.execute(case.after)
            except psycopg2.Error:
                if not s.alive():
                    s.reconnect()
        t2 = time.monotonic()
        ra = s.run(case.ref_gucs, case.ref_steps, rollback=case.rollback)
        t3 = time.monotonic()
        # Not a test (no timed assertion): the planner's own choices that were much slower than the
        # sequential scan are listed in the summary, for whoever tunes the cost estimates.
        if (case.mode == "auto" and ("jit", "on") not in case.gucs and ia.status == "ok" and ia.plan
                and case.table.index in ia.plan):
            ratio = (t1 - t0) / max(t3 - t2, 0.0005)
            if t1 - t0 > 0.05 and ratio > 5:
                self.slow.append((ratio, t1 - t0, t3 - t2, case.no, case.table.name, case.kind))
        if ra.status == "crash":
            self.crashes += 1
            s.reconnect()
        return self.classify(case, ia, ra), ia

    def classify(self, case, ia, ra):
        bad = engine.ALWAYS_BAD
        if ia.status == "crash":
            return Finding("backend crash", case, "the index run lost its connection", ia, ra)
        if ra.status == "crash":
            return Finding("backend crash (reference run)", case, "the sequential scan lost its connection", ia, ra)
        if ia.status == "error" and ia.sqlstate in bad:
            return Finding("internal error %s" % ia.sqlstate, case, ia.message, ia, ra)
        if ra.status == "error" and ra.sqlstate in bad:
            return Finding("internal error %s (reference run)" % ra.sqlstate, case, ra.message, ia, ra)
        if ia.status == "error" and ia.sqlstate == "57014" and not (ra.status == "error" and ra.sqlstate == "57014"):
            return Finding("timeout", case, "the index run hit statement_timeout (%d s)" % self.args.statement_timeout, ia, ra)
        if ra.status == "error" and ra.sqlstate == "57014" and ia.status != "error":
            # the sequential scan, not the index, was too slow: nothing to compare
            self.errors_both["57014 (statement timeout) in the sequential scan only"] += 1
            return None
        if ia.status == "ok" and ra.status == "error" and (ra.sqlstate or "").startswith("22"):
            # A data error of an expression that the index made needless (a NULL or empty scan key
            # ends the scan before the other conditions are evaluated): SQL leaves the order of
            # evaluation open, so this is no finding, and no answer to compare.
            self.errors_both["%s in the sequential scan only" % ra.sqlstate] += 1
            return None
        if ia.status != ra.status or (ia.status == "error" and ia.sqlstate != ra.sqlstate):
            return Finding("error mismatch", case, "index: %s / seqscan: %s" % (ia.short(), ra.short()), ia, ra)
        if ia.status == "error":
            self.errors_both[ia.sqlstate] += 1
            return None
        try:
            d = case.compare(ia.results, ra.results)
        except Exception as exc:  # a comparator on unexpected shapes is a finding too, not a harness crash
            d = "could not compare: %r" % exc
        return Finding("wrong answer", case, d, ia, ra) if d else None

    def note_coverage(self, case, ia):
        if ia.plan is None:
            return
        forced = "auto" if case.mode == "auto" else "forced"
        used = False
        for scan, index in SCAN_RE.findall(ia.plan):
            for t in self.ds.tables:
                for name, am in t.indexes:
                    if name == index:
                        self.coverage[(am, scan, forced)] += 1
                        used = True
        if not used:
            self.coverage[(case.table.am, "no index", forced)] += 1

    def shrink(self, finding):
        """Fewer conditions, same failure (any failure): delta debugging over the ANDed list."""
        conds, build = finding.case.shrink
        budget = self.args.shrink_budget if "crash" not in finding.category else max(4, self.args.shrink_budget // 3)
        cur = list(conds)
        best = None
        chunk = max(1, len(cur) // 2)
        while budget > 0 and cur:
            i = 0
            while i < len(cur) and budget > 0:
                cand = cur[:i] + cur[i + chunk:]
                c2 = build(cand)
                f2, _ = self.execute(c2)
                budget -= 1
                if f2 is not None:
                    cur, best = cand, f2
                else:
                    i += chunk
            if chunk == 1:
                break
            chunk = max(1, chunk // 2)
        return best

    # ----- reporting ---------------------------------------------------------------------------------
    def replay_command(self, no):
        return "test/differential/run.py --seed %d --queries %d --scale %s --case %d" % (
            self.seed, self.args.queries, self.args.scale, no)

    def report(self, f, full=False):
        c = f.case
        n = len(self.findings)
        limit = None if full else self.args.sql_chars
        out("")
        out("FINDING %d: %s  [%s %s, %s index conditions]" % (n, f.category, c.table.am, c.kind, c.signature()[2]))
        out("  seed %d, case %d (epoch %d); replay: %s" % (self.seed, c.no, self.epoch_of(c.no), self.replay_command(c.no)))
        out("  table %s (USING %s), mode %s: %s" % (c.table.name, c.table.am, c.mode,
                                                   "; ".join("SET %s = %s" % g for g in c.gucs) or "planner's choice"))
        out("  SQL: " + clip(c.sql, limit))
        if c.ref_sql:
            out("  reference SQL (conditions written plainly): " + clip(c.ref_sql, limit))
        out("  index answer:   " + clip(f.ia.short(), 1500))
        out("  seqscan answer: " + clip(f.ra.short(), 1500))
        out("  difference: " + clip(f.detail or "", 1500))
        if f.ia.plan:
            out("  plan of the index run:\n    " + f.ia.plan.replace("\n", "\n    "))
        if f.shrunk is not None:
            s = f.shrunk
            out("  shrunk to %d index conditions (%s): %s" % (s.case.nidx, s.category, clip(s.case.sql, 6000)))
            out("    index answer:   " + clip(s.ia.short(), 800))
            out("    seqscan answer: " + clip(s.ra.short(), 800))
            if s.ia.plan:
                out("    plan:\n      " + s.ia.plan.replace("\n", "\n      "))

    def epoch_of(self, no):
        return no // self.per_epoch

    # ----- statistics ------------------------------------------------------------------------------
    def stats_check(self, when):
        """idx_scan and idx_tup_read of pg_stat_user_indexes grow with index scans, as for the
        built-in access methods (one idx_scan per scan; every tuple the index returns counted)."""
        s = self.session
        problems = []

        def flush_and_read(index):
            s.execute("SELECT pg_stat_force_next_flush()")
            s.execute("SELECT pg_stat_clear_snapshot()")
            r = s.execute("SELECT coalesce(idx_scan, 0), coalesce(idx_tup_read, 0) FROM pg_stat_user_indexes "
                          "WHERE indexrelid = '%s'::regclass" % index)
            return r[0] if r else (None, None)

        for t in self.ds.tables:
            if t.am not in ("simhash_mih", "gist"):
                continue
            q = "'%016x'::simhash" % self.ds.pools[t.family][0]
            scans = [
                (("enable_seqscan", "off"), ("enable_bitmapscan", "off"), ("enable_indexonlyscan", "off")),
                (("enable_seqscan", "off"), ("enable_indexscan", "off"), ("enable_indexonlyscan", "off")),
            ]
            queries = [
                (scans[0], "SELECT t.id FROM %s t WHERE hamming(t.sh, %s) <= 3" % (t.name, q)),
                (scans[1], "SELECT t.id FROM %s t WHERE hamming(t.sh, %s) <= 3" % (t.name, q)),
                (scans[0], "SELECT t.id FROM %s t ORDER BY t.sh <-> %s LIMIT 5" % (t.name, q)),
            ]
            before = flush_and_read(t.index)
            nscans, rows = 0, 0
            for gucs, sql in queries:
                a = s.run(list(gucs), [("plan", "EXPLAIN (COSTS OFF) " + sql, None), ("query", sql, None)])
                if a.status == "crash":
                    s.reconnect()
                    problems.append("%s: stats check query crashed: %s" % (t.index, sql))
                    break
                if a.status != "ok" or t.index not in (a.plan or ""):
                    continue
                nscans += 1
                rows += len(a.results[0])
            else:
                after = flush_and_read(t.index)
                if before[0] is None or after[0] is None:
                    problems.append("%s: not in pg_stat_user_indexes" % t.index)
                    continue
                dscan, dtup = after[0] - before[0], after[1] - before[1]
                if dscan < nscans:
                    problems.append("%s (USING %s): idx_scan grew by %d after %d index scans (%s)" % (
                        t.index, t.am, dscan, nscans, when))
                if dtup < rows:
                    problems.append("%s (USING %s): idx_tup_read grew by %d after index scans returning %d rows (%s)" % (
                        t.index, t.am, dtup, rows, when))
        for p in problems:
            self.other_findings.append("statistics: " + p)
            out("\nFINDING (statistics): %s" % p)

    def mih_checks(self, when):
        for t in self.ds.tables:
            if t.am != "simhash_mih":
                continue
            try:
                self.ds.mih_shape(self.session, t)
            except psycopg2.Error as exc:
                if not self.session.alive():
                    self.session.reconnect()
                msg = "simhash_mih_check('%s') failed %s: %s %s" % (t.index, when, exc.pgcode, str(exc).strip())
                self.other_findings.append(msg)
                out("\nFINDING (check): " + msg)

    # ----- merges and VACUUM under open cursors -----------------------------------------------------
    def concurrent_check(self, count):
        """A cursor reads part of an index scan; a second session then inserts enough rows for a
        merge, deletes some, and VACUUMs (merging the pending pages of simhash_mih, recycling the
        old pages and reusing them in the next merge) once or twice; the cursor then reads the rest.
        Its rows must be those of the sequential scan in the cursor's snapshot."""
        s = self.session
        other = engine.Session(lambda _: None, self.args.statement_timeout * 1000, out)
        other.connect()
        problems = upstream = 0
        for i in range(count):
            rng = random.Random("%s/concurrent/%d" % (self.seed, i))
            tables = [t for t in self.ds.tables if not t.temp and t.family != "empty"]
            table = rng.choice(tables)
            gen = rng.choice((self.gen.gen_filter, self.gen.gen_knn, self.gen.gen_keyless))
            case = self.gen.paired(lambda: gen(random.Random("%s/concurrent-case/%d" % (self.seed, i)),
                                               900000 + i, table))
            if case.nidx > 32:
                continue
            ref = s.run(case.ref_gucs, case.ref_steps)
            if ref.status != "ok":
                continue
            gucs = list(case.gucs)
            first = rng.choice((1, 2, 5, 20))
            log = []
            ia = None
            try:
                cur = s.conn.cursor()
                cur.execute("BEGIN")
                for name, value in gucs:
                    cur.execute("SET LOCAL %s = %s" % (name, value))
                cur.execute("EXPLAIN (COSTS OFF) " + case.sql)
                plan = "\n".join(r[0] for r in cur.fetchall())
                if any("Index Only Scan using %s " % name in plan for name, am in table.indexes if am == "gist"):
                    # PostgreSQL's own GiST index-only scans return rows that a concurrent VACUUM
                    # removed (the scan keeps no pin that VACUUM waits for, so the heap page turns
                    # all-visible under it; pgsql-hackers, "GIST: Fix visibility issues in IOS",
                    # unfixed in 15). Not this extension's code: such a cursor is not held open.
                    cur.execute("ROLLBACK")
                    upstream += 1
                    continue
                cur.execute("DECLARE cc CURSOR FOR " + case.sql)
                cur.execute("FETCH %d FROM cc" % first)
                rows = [tuple(r) for r in cur.fetchall()]
                for rnd in range(rng.randint(1, 2)):
                    n = rng.randint(700, 1200)
                    new = self.ds._new_rows(rng, table.family, n)
                    for t in self.ds.by_family[table.family]:
                        other.execute("DROP TABLE IF EXISTS pg_temp.stage")
                        other.execute("CREATE TEMP TABLE stage (id int, sh simhash)")
                        self.ds._copy(other, "pg_temp.stage", new)
                        self.ds._fill(other, t.name, table.family, "pg_temp.stage")
                        other.execute("DELETE FROM %s WHERE id %% 17 = %d" % (t.name, rng.randint(0, 16)))
                    before = self.ds.mih_shape(other, self.ds.by_family[table.family][0])
                    # VACUUM, or a merge of every run (simhash_mih_merge) then VACUUM
                    full = rng.random() < 0.5
                    for t in self.ds.by_family[table.family]:
                        if full and t.am == "simhash_mih":
                            other.execute("SELECT simhash_mih_merge('%s')" % t.index)
                        other.execute("VACUUM %s" % t.name)
                    after = self.ds.mih_shape(other, self.ds.by_family[table.family][0])
                    merged = before[2] > 0 and after[2] == 0
                    self.ds.merges += merged
                    log.append("INSERT %d rows, DELETE, %sVACUUM (%s)" % (n, "simhash_mih_merge, " if full else "",
                                                                        "merged" if merged else "no merge"))
                    cur.execute("FETCH %d FROM cc" % rng.choice((1, 10, 100)))
                    rows += [tuple(r) for r in cur.fetchall()]
                cur.execute("FETCH ALL FROM cc")
                rows += [tuple(r) for r in cur.fetchall()]
                cur.execute("COMMIT")
                ia = engine.Answer("ok", results=[rows], plan=plan)
            except psycopg2.Error as exc:
                lost = s.conn.closed or not s.alive()
                ia = engine.Answer("crash" if lost else "error", sqlstate=exc.pgcode, message=str(exc).strip())
                if lost:
                    s.reconnect()
                else:
                    try:
                        s.conn.cursor().execute("ROLLBACK")
                    except psycopg2.Error:
                        pass
                if other.conn.closed or not other.alive():
                    other.reconnect()
            case.sql = ("DECLARE cc CURSOR FOR %s; FETCH %d; then in another session: %s; FETCH ALL"
                        % (case.sql, first, "; ".join(log)))
            f = self.classify(case, ia, ref)
            if f is not None:
                f.category += " (cursor open across a merge)"
                self.findings.append(f)
                self.report(f)
                problems += 1
        other.conn.close()
        out("differential: %d cursors held open across concurrent inserts, deletes and VACUUM merges, %d findings"
            " (%d GiST index-only scans not held open: PostgreSQL's own race)" % (count - upstream, problems, upstream))

    # ----- the run --------------------------------------------------------------------------------------
    def run(self):
        a = self.args
        self.epochs = a.epochs if a.epochs is not None else min(12, max(3, a.queries // 300))
        self.per_epoch = max(1, math.ceil(a.queries / (self.epochs + 1)))
        self.setup()
        if a.case is not None:
            return self.replay(a.case)
        self.stats_check("after CREATE INDEX")
        t0 = time.monotonic()
        epoch = 0
        shrunk_signatures = Counter()
        next_progress = max(1, a.queries // 10)
        for no in range(a.queries):
            if self.epoch_of(no) > epoch:
                epoch = self.epoch_of(no)
                out("differential: %s" % self.ds.epoch(self.session, epoch))
                self.mih_checks("after epoch %d" % epoch)
            case = self.gen.case(no)
            sig = case.signature()
            if self.crashes_by_signature[sig] >= a.max_crashes_per_shape:
                self.skipped += 1
                continue
            t1 = time.monotonic()
            f, ia = self.execute(case)
            self.kind_time[case.kind] += time.monotonic() - t1
            self.kind_count[case.kind] += 1
            self.ran += 1
            self.note_coverage(case, ia)
            if f is not None:
                if "crash" in f.category:
                    self.crashes_by_signature[sig] += 1
                group = f.group()
                self.by_signature[group] += 1
                if case.shrink is not None and shrunk_signatures[group] < 2 and not a.no_shrink:
                    shrunk_signatures[group] += 1
                    f.shrunk = self.shrink(f)
                self.findings.append(f)
                if self.by_signature[group] <= a.show_per_group:
                    self.report(f)
                elif self.by_signature[group] == a.show_per_group + 1:
                    out("\n(further findings of the group %s are counted, not shown)" % (group,))
                if self.crashes_by_signature[sig] == a.max_crashes_per_shape:
                    out("(%d crashes with shape %s: further cases of that shape are skipped)" % (
                        a.max_crashes_per_shape, sig))
            if (no + 1) % next_progress == 0:
                out("differential: %d/%d cases, %d findings, %.0f s" % (
                    no + 1, a.queries, len(self.findings), time.monotonic() - t0))
        if not a.no_concurrent:
            self.concurrent_check(max(4, a.queries // 1000))
        self.mih_checks("at the end")
        self.stats_check("at the end")
        elapsed = time.monotonic() - t0
        self.summary(elapsed)
        return 1 if self.findings or self.other_findings else 0

    def replay(self, no):
        for e in range(1, self.epoch_of(no) + 1):
            out("differential: %s" % self.ds.epoch(self.session, e))
        case = self.gen.case(no)
        f, _ = self.execute(case)
        if f is None:
            ia = self.session.run(case.gucs, case.steps)
            out("case %d passes: %s %s on %s, mode %s" % (no, case.kind, case.signature(), case.table.name, case.mode))
            out("SQL: " + case.sql)
            out("answer: " + ia.short())
            if ia.plan:
                out("plan:\n  " + ia.plan.replace("\n", "\n  "))
            return 0
        if case.shrink is not None and not self.args.no_shrink:
            f.shrunk = self.shrink(f)
        self.findings.append(f)
        self.report(f, full=True)
        return 1

    def summary(self, elapsed):
        real = self.findings
        groups = Counter(f.group() for f in real)
        out("")
        out("differential: seed %d: %d cases run in %.0f s (%.0f per second), %d skipped after repeated crashes; "
            "%d backend crashes, %d reconnects; %d pending-list merges; %d epochs of DML" % (
                self.seed, self.ran, elapsed, self.ran / max(elapsed, 0.001), self.skipped, self.crashes,
                self.session.reconnects, self.ds.merges, self.epochs))
        out("differential: cases by kind (count, seconds): %s" % ", ".join(
            "%s %d %.0f s" % (k, self.kind_count[k], self.kind_time[k]) for k in sorted(self.kind_count)))
        if self.slow:
            self.slow.sort(reverse=True)
            out("differential: %d unforced index plans ran over 5x slower than the sequential scan (not a "
                "failure); slowest: %s" % (len(self.slow), "; ".join(
                    "case %d (%s %s) %.0f ms vs %.0f ms" % (no, tn, kind, ti * 1000, tr * 1000)
                    for _, ti, tr, no, tn, kind in self.slow[:5])))
        if self.errors_both:
            out("differential: both sides failed alike: %s" % ", ".join(
                "%s x%d" % kv for kv in sorted(self.errors_both.items())))
        cov = defaultdict(list)
        for (am, scan, forced), n in sorted(self.coverage.items()):
            cov[am].append("%s %s %d" % (scan, forced, n))
        for am in sorted(cov):
            out("differential: plans on %s tables: %s" % (am, ", ".join(cov[am])))
        if not self.findings and not self.other_findings:
            out("differential: no findings")
            return
        out("differential: %d findings" % (len(self.findings) + len(self.other_findings)))
        for key, n in sorted(groups.items(), key=lambda kv: -kv[1]):
            first = next(f for f in real if f.group() == key)
            out("  %4d x %s; first: case %d (%s)" % (
                n, " / ".join(str(k) for k in key), first.case.no, self.replay_command(first.case.no)))
        for p in self.other_findings:
            out("     1 x %s" % p)


def clip(text, limit):
    if limit is None or len(text) <= limit:
        return text
    return text[:limit] + " ... (%d characters; --case replays it in full)" % len(text)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seed", type=int, help="the seed (default: a random one, printed)")
    p.add_argument("--queries", type=int, default=3000, help="number of cases (default 3000)")
    p.add_argument("--scale", type=float, default=1.0, help="table size factor (default 1)")
    p.add_argument("--epochs", type=int, help="DML epochs (default from --queries)")
    p.add_argument("--case", type=int, help="replay one case (with the same --seed, --queries, --scale)")
    p.add_argument("--db", default="simhash_differential", help="database to create and drop")
    p.add_argument("--keep-db", action="store_true", help="leave the database for inspection")
    p.add_argument("--statement-timeout", type=int, default=30, help="seconds (default 30)")
    p.add_argument("--max-crashes-per-shape", type=int, default=2,
                   help="after this many crashes of one (access method, kind, condition count) shape, skip it")
    p.add_argument("--shrink-budget", type=int, default=80, help="runs spent shrinking one finding")
    p.add_argument("--no-shrink", action="store_true")
    p.add_argument("--no-concurrent", action="store_true", help="skip the cursors held open across merges")
    p.add_argument("--show-per-group", type=int, default=2, help="findings shown in full per group")
    p.add_argument("--sql-chars", type=int, default=3000, help="SQL shown per finding")
    args = p.parse_args()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 10 ** 9)
    out("differential: seed %d, %d cases, scale %s (replay any case: --seed %d --queries %d --scale %s --case N)" % (
        seed, args.queries, args.scale, seed, args.queries, args.scale))
    runner = Runner(args, seed)
    try:
        rc = runner.run()
    finally:
        if not args.keep_db and runner.session is not None:
            try:
                runner.drop_db()
            except psycopg2.Error as exc:
                out("differential: could not drop the database: %s" % exc)
    sys.exit(rc)


if __name__ == "__main__":
    main()
