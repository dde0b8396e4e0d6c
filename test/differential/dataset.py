"""The tables the differential test queries, made from the seed, and the DML between query epochs.

Every family of data lives in two tables with identical rows: one indexed `USING simhash_mih`, one
`USING gist` (simhash_gist_ops). The tables are shaped so that the planner *prefers* an index:

  wide  rows of ~3 kB kept in the heap page (STORAGE PLAIN) plus a large TOASTed html column, like
        the demo's crawl table: two rows per heap page, so any index is cheaper to read than the heap
  dup   duplicate-heavy hashes: a few dozen bases repeated, clusters of near duplicates, NULLs, 0 and
        all-ones, and a run of hashes sharing their 48 leading bits (one block value over many pages)
        (dup_mg has both indexes, so plans may choose between them or combine their bitmaps)
  dml   random hashes and clusters, changed between query epochs by INSERT (pending rows), DELETE,
        UPDATE, VACUUM (which writes the pending rows of simhash_mih as a run and merges due runs),
        simhash_mih_merge (every run into one), ANALYZE, REINDEX; dml_m's small pending_limit makes
        its inserts write runs themselves
  tmp   a TEMP table that is never analyzed (so no statistics and reltuples = -1); its simhash_mih
        index is created empty and filled by inserts (pending rows only)
  empty no rows, never analyzed (rows appear only inside the transactions of 'txn' cases)

Autovacuum is off on every table so that the state at each case is a function of the seed alone.
"""
import io
import random

MASK64 = (1 << 64) - 1


def hexh(h):
    return "%016x" % h


def flip(rng, h, nbits):
    for pos in rng.sample(range(64), nbits):
        h ^= 1 << pos
    return h


class Table:
    def __init__(self, name, family, am, temp=False, with_opts=""):
        self.name = name
        self.family = family
        self.am = am              # 'simhash_mih' or 'gist'
        self.temp = temp
        self.with_opts = with_opts
        self.index = name + "_idx"
        # every index of the table, with its access method
        self.indexes = ([(self.index, "simhash_mih"), (name + "_gidx", "gist")] if am == "mih+gist"
                        else [(self.index, am)])

    def __repr__(self):
        return self.name


FAMILIES = ("wide", "dup", "dml", "tmp", "empty")


def make_tables():
    t = []
    t.append(Table("wide_m", "wide", "simhash_mih"))
    t.append(Table("wide_g", "wide", "gist"))
    t.append(Table("dup_m", "dup", "simhash_mih", with_opts=" WITH (blocks = 4)"))
    # the most tables: nearest neighbours go up one table at a time over six short blocks
    t.append(Table("dup_m6", "dup", "simhash_mih", with_opts=" WITH (blocks = 6)"))
    t.append(Table("dup_g", "dup", "gist"))
    # both indexes on one table: the planner chooses between them, or ANDs and ORs their bitmaps
    t.append(Table("dup_mg", "dup", "mih+gist"))
    # inserts past 64 kB of pending rows write runs, which merge by size tiers
    t.append(Table("dml_m", "dml", "simhash_mih", with_opts=" WITH (blocks = 2, pending_limit = 64)"))
    # key tables: answers confirmed in table 0, rewritten by the merges the DML epochs cause
    t.append(Table("dml_c", "dml", "simhash_mih", with_opts=" WITH (compact = on)"))
    t.append(Table("dup_c", "dup", "simhash_mih", with_opts=" WITH (blocks = 5, compact = on)"))
    t.append(Table("dml_g", "dml", "gist"))
    t.append(Table("tmp_m", "tmp", "simhash_mih", temp=True, with_opts=" WITH (blocks = 3)"))
    t.append(Table("tmp_g", "tmp", "gist", temp=True))
    t.append(Table("empty_m", "empty", "simhash_mih"))
    t.append(Table("empty_g", "empty", "gist"))
    return t


class Dataset:
    def __init__(self, seed, scale, log):
        self.seed = seed
        self.scale = scale
        self.log = log
        self.tables = make_tables()
        self.by_family = {f: [t for t in self.tables if t.family == f] for f in FAMILIES}
        self.pools = {f: [] for f in FAMILIES}     # every non-NULL hash ever stored, per family
        self.next_id = {f: 1 for f in FAMILIES}
        self.rows = {}                             # initial rows per family
        self.merges = 0
        self.epoch_log = []
        rng = random.Random("%s/data" % seed)
        n = lambda base: max(50, int(base * scale))
        self.rows["wide"] = self._gen_mixed(rng, "wide", n(1200), near=0.2, nulls=0.03)
        self.rows["dup"] = self._gen_dup(rng, n(4000))
        self.rows["dml"] = self._gen_mixed(rng, "dml", n(3000), near=0.4, nulls=0.02)
        self.rows["tmp"] = self._gen_dup(rng, n(1500), family="tmp")
        self.rows["empty"] = []
        self.pools["empty"] = list(self.pools["dup"][:200])   # queries for the empty tables
        self.qs_rows = self._gen_qs(rng)

    # ----- generation ---------------------------------------------------------------------
    def _take_ids(self, family, count):
        first = self.next_id[family]
        self.next_id[family] += count
        return range(first, first + count)

    def _remember(self, family, hashes):
        self.pools[family].extend(h for h in hashes if h is not None)

    def _gen_mixed(self, rng, family, count, near, nulls):
        hashes = []
        for _ in range(count):
            r = rng.random()
            if r < nulls:
                hashes.append(None)
            elif r < nulls + near and hashes:
                base = rng.choice(hashes)
                base = base if base is not None else rng.getrandbits(64)
                hashes.append(flip(rng, base, rng.choice((0, 1, 1, 2, 3, 4, 6))))
            else:
                hashes.append(rng.getrandbits(64))
        self._remember(family, hashes)
        return list(zip(self._take_ids(family, count), hashes))

    def _gen_dup(self, rng, count, family="dup"):
        bases = [rng.getrandbits(64) for _ in range(30)]
        high = rng.getrandbits(64) & ~0xFFFF
        specials = [0, MASK64, 0x00000000FFFFFFFF, 0xFFFFFFFF00000000, 0x8000000000000000, 1]
        hashes = []
        for i in range(count):
            r = rng.random()
            if r < 0.2:
                hashes.append(bases[0])      # one hash repeated over several index pages
            elif r < 0.35:
                hashes.append(rng.choice(bases[:8]) if rng.random() < 0.6 else rng.choice(bases))
            elif r < 0.70:
                hashes.append(flip(rng, rng.choice(bases), rng.choice((1, 1, 2, 3))))
            elif r < 0.80:
                hashes.append(rng.getrandbits(64))
            elif r < 0.85:
                hashes.append(None)
            elif r < 0.90:
                hashes.append(rng.choice(specials))
            else:
                hashes.append(high | rng.getrandbits(rng.choice((4, 8, 16))))
        self._remember(family, hashes)
        return list(zip(self._take_ids(family, count), hashes))

    def _gen_qs(self, rng):
        """The outer table of the joins: (qid, q, k), some q and k NULL."""
        rows = []
        qid = 1
        for family in FAMILIES:
            for _ in range(8):
                q = rng.choice(self.pools[family])
                if rng.random() < 0.4:
                    q = flip(rng, q, rng.randint(1, 5))
                k = rng.choice((0, 1, 2, 3, 3, 4, 5, 6, 8, 10, 12, 20, 33, 64, -1, 70, None))
                rows.append((qid, q, k))
                qid += 1
        rows.append((qid, None, 3))
        rows.append((qid + 1, rng.getrandbits(64), None))
        rows.append((qid + 2, None, None))
        rows.append((qid + 3, rng.getrandbits(64), 5))
        return rows

    # ----- loading --------------------------------------------------------------------------
    @staticmethod
    def _copy(session, table, rows, cols="id, sh"):
        """COPY rows whose second column is a hash (an int, or None for NULL)."""
        buf = io.StringIO()
        for r in rows:
            fields = []
            for j, v in enumerate(r):
                if v is None:
                    fields.append("\\N")
                elif j == 1:
                    fields.append(hexh(v))
                else:
                    fields.append(str(v))
            buf.write("\t".join(fields) + "\n")
        buf.seek(0)
        with session.conn.cursor() as cur:
            cur.copy_expert("COPY %s (%s) FROM STDIN" % (table, cols), buf)

    def _fill(self, session, table, family, stage):
        if family == "wide":
            session.execute(
                "INSERT INTO %s (id, package, url, body, html, sh) SELECT id, 'pkg' || (id %% 97), "
                "'https://example.org/' || (id %% 97) || '/page/' || id || '.html', "
                "repeat(md5(id::text), 94), "
                "repeat('<div class=\"c' || (id %% 13) || '\"><p>' || md5(id::text || 'h') || '</p></div>', 400), "
                "sh FROM %s ORDER BY id" % (table, stage))
        else:
            session.execute("INSERT INTO %s (id, sh, pad) SELECT id, sh, repeat(md5(id::text), 6) "
                            "FROM %s ORDER BY id" % (table, stage))

    def _create(self, session, t):
        temp = "TEMP " if t.temp else ""
        storage = "" if t.temp else " WITH (autovacuum_enabled = off)"
        if t.family == "wide":
            session.execute("CREATE %sTABLE %s (id int, package text, url text, body text, html text, "
                            "sh simhash)%s" % (temp, t.name, storage))
            session.execute("ALTER TABLE %s ALTER body SET STORAGE PLAIN" % t.name)
        else:
            session.execute("CREATE %sTABLE %s (id int, sh simhash, pad text)%s" % (temp, t.name, storage))

    def _create_index(self, session, t):
        for name, am in t.indexes:
            session.execute("CREATE INDEX %s ON %s USING %s (sh)%s" % (
                name, t.name, am, t.with_opts if am == t.am else ""))
        if t.family == "dml":
            # a partial index beside the full one: queries implying id % 2 = 0 may use either
            session.execute("CREATE INDEX %s_part ON %s USING %s (sh) WHERE id %% 2 = 0" % (t.name, t.name, t.am))

    def _stage(self, session, rows):
        session.execute("DROP TABLE IF EXISTS pg_temp.stage")
        session.execute("CREATE TEMP TABLE stage (id int, sh simhash)")
        self._copy(session, "pg_temp.stage", rows)

    def create(self, session):
        """The permanent tables, in the database the session is connected to."""
        for family in ("wide", "dup", "dml"):
            self._stage(session, self.rows[family])
            for t in self.by_family[family]:
                self._create(session, t)
                self._fill(session, t.name, family, "pg_temp.stage")
                self._create_index(session, t)
                session.execute("VACUUM ANALYZE %s" % t.name)
        for t in self.by_family["empty"]:     # empty, never analyzed: estimates with reltuples = -1
            self._create(session, t)
            self._create_index(session, t)
        session.execute("CREATE TABLE qs (qid int, q simhash, k int) WITH (autovacuum_enabled = off)")
        self._copy(session, "qs", self.qs_rows, cols="qid, q, k")
        # the ball as a value of its own (a column joined with sh <@ s.b); NULL where q or k is
        session.execute("ALTER TABLE qs ADD COLUMN b hamming_ball")
        session.execute("UPDATE qs SET b = hamming_ball(q, k)")
        session.execute("ANALYZE qs")
        session.execute("DROP TABLE pg_temp.stage")

    def create_temp(self, session):
        """The never-analyzed temp tables (again after every reconnect)."""
        self._stage(session, self.rows["tmp"])
        for t in self.by_family["tmp"]:
            self._create(session, t)
            if t.am == "simhash_mih":
                self._create_index(session, t)      # built empty: every row goes to the pending pages
                self._fill(session, t.name, "tmp", "pg_temp.stage")
            else:
                self._fill(session, t.name, "tmp", "pg_temp.stage")
                self._create_index(session, t)
        session.execute("DROP TABLE pg_temp.stage")

    # ----- the DML between epochs -------------------------------------------------------------
    def mih_shape(self, session, t):
        rows = session.execute("SELECT sorted_rows, live_sorted_rows, pending_rows, pages, free_pages "
                               "FROM simhash_mih_check('%s')" % t.index)
        return rows[0]

    def epoch(self, session, e):
        """Applies epoch e's changes (e >= 1) to both tables of the chosen families; returns a
        description. The same statements run on the simhash_mih and the GiST table."""
        rng = random.Random("%s/epoch/%d" % (self.seed, e))
        actions = []
        if e == 1:
            # enough pending rows (a page, 1/32 of the sorted rows) for the VACUUM of epoch 3 to merge
            actions = [("dml", "insert", 700), ("dup", "insert", 700), ("wide", "insert", 650)]
        elif e == 2:
            actions = [("dml", "delete", None), ("dml", "update", None), ("dup", "update_null", None),
                       ("wide", "delete", None)]
        elif e == 3:
            actions = [("dml", "vacuum", None), ("dup", "vacuum", None), ("wide", "vacuum", None)]
        else:
            for _ in range(rng.randint(1, 3)):
                family = rng.choices(("dml", "dup", "wide"), (6, 3, 1))[0]
                what = rng.choices(("insert", "insert_big", "delete", "update", "update_null", "vacuum",
                                    "analyze", "vacuum_analyze", "reindex", "vacuum_full", "insert_merge",
                                    "reindex_concurrently", "merge"),
                                   (4, 2, 3, 3, 1, 4, 1, 2, 0.5, 0.5, 2, 1, 2))[0]
                if what == "insert_merge":
                    actions += [(family, "insert_big", None), (family, "vacuum", None)]
                else:
                    actions.append((family, what, None))
        done = []
        for family, what, arg in actions:
            done.append("%s: %s" % (family, self._apply(session, rng, family, what, arg)))
        text = "epoch %d: %s" % (e, "; ".join(done))
        self.epoch_log.append(text)
        return text

    def _new_rows(self, rng, family, count):
        pool = self.pools[family]
        hashes = []
        for _ in range(count):
            r = rng.random()
            if r < 0.03:
                hashes.append(None)
            elif r < 0.5:
                hashes.append(flip(rng, rng.choice(pool), rng.choice((0, 1, 2, 3))))
            else:
                hashes.append(rng.getrandbits(64))
        self._remember(family, hashes)
        return list(zip(self._take_ids(family, count), hashes))

    def _apply(self, session, rng, family, what, arg):
        tables = self.by_family[family]
        if what in ("insert", "insert_big"):
            count = arg or (rng.randint(600, 1100) if what == "insert_big" else rng.randint(20, 250))
            if family == "wide" and what == "insert" and arg is None:
                count = min(count, 80)
            rows = self._new_rows(rng, family, count)
            self._stage(session, rows)
            for t in tables:
                self._fill(session, t.name, family, "pg_temp.stage")
            session.execute("DROP TABLE pg_temp.stage")
            return "INSERT %d rows" % count
        if what == "delete":
            m, r = rng.randint(5, 13), rng.randint(0, 4)
            for t in tables:
                session.execute("DELETE FROM %s WHERE id %% %d = %d" % (t.name, m, r))
            return "DELETE id %% %d = %d" % (m, r)
        if what == "update":
            m, r = rng.randint(6, 17), rng.randint(0, 5)
            mask = flip(rng, 0, rng.randint(1, 3))
            for t in tables:
                session.execute("UPDATE %s SET sh = sh # '%s' WHERE id %% %d = %d" % (t.name, hexh(mask), m, r))
            self._remember(family, [])  # the flipped hashes are near pool members already
            return "UPDATE sh # %s WHERE id %% %d = %d" % (hexh(mask), m, r)
        if what == "update_null":
            m, r = rng.randint(15, 40), rng.randint(0, 5)
            h = rng.choice(self.pools[family])
            for t in tables:
                session.execute("UPDATE %s SET sh = CASE WHEN sh IS NULL THEN '%s'::simhash END "
                                "WHERE id %% %d = %d" % (t.name, hexh(h), m, r))
            return "UPDATE sh NULL <-> %s WHERE id %% %d = %d" % (hexh(h), m, r)
        if what in ("vacuum", "vacuum_analyze"):
            notes = []
            for t in tables:
                before = self.mih_shape(session, t) if t.am == "simhash_mih" else None
                session.execute("VACUUM %s%s" % ("ANALYZE " if what == "vacuum_analyze" else "", t.name))
                if before is not None:
                    after = self.mih_shape(session, t)
                    if before[2] > 0 and after[2] == 0:
                        self.merges += 1
                        notes.append("merged %d pending rows" % before[2])
                    else:
                        notes.append("%d rows pending" % after[2])
            return what.upper().replace("_", " ") + (" (" + ", ".join(notes) + ")" if notes else "")
        if what == "merge":
            notes = []
            for t in tables:
                if t.am == "simhash_mih":
                    written = session.execute("SELECT simhash_mih_merge('%s')" % t.index)[0][0]
                    self.merges += written > 0
                    notes.append("%d rows written" % written)
            return "simhash_mih_merge (%s)" % ", ".join(notes)
        if what == "analyze":
            for t in tables:
                session.execute("ANALYZE %s" % t.name)
            return "ANALYZE"
        if what == "reindex":
            for t in tables:
                session.execute("REINDEX INDEX %s" % t.index)
            return "REINDEX"
        if what == "reindex_concurrently":
            # the validation phase asks ambulkdelete for every tid the new index holds, and inserts
            # the rows it did not report: a row it forgets is indexed twice
            for t in tables:
                session.execute("REINDEX INDEX CONCURRENTLY %s" % t.index)
            return "REINDEX CONCURRENTLY"
        if what == "vacuum_full":
            for t in tables:
                session.execute("VACUUM FULL %s" % t.name)
            return "VACUUM FULL"
        raise ValueError(what)
