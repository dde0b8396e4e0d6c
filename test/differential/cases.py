"""Generation of the cases: one query shape each, drawn from its own random stream (seed, case
number), so a case is the same whatever ran before it, and `run.py --case N` replays it alone.

Kinds of case:
  filter    SELECT ... WHERE 0 to hundreds of ANDed conditions, every documented radius spelling,
            mixed with conditions no index answers, optionally ORDER BY sh <-> q [, id] [LIMIT n]
  knn       ORDER BY sh <-> q with or without LIMIT/OFFSET, a few conditions, NULL queries
  keyless   count(*) and other scans with no index condition at all
  join      nested loops with the index on the inner side (rescans with new keys), semi-joins,
            LATERAL nearest neighbours, the self-join of the README
  cursor    DECLARE/FETCH in chunks (rescans under a cursor), SCROLL cursors moved both ways, two
            cursors on one index read in turns
  prepared  PREPARE with parameters, EXECUTE 6 to 9 times with new values (NULLs too) under
            plan_cache_mode auto / force_generic_plan / force_custom_plan
Each case runs under one planner mode: the planner's own choice, or a scan type forced with the
enable_* settings. The reference answer is the same SQL with every index scan disabled.
"""
import random

from dataset import MASK64, flip, hexh
import engine

INT_MIN, INT_MAX = -2 ** 31, 2 ** 31 - 1

MODES = {
    "auto": (),
    "index": (("enable_seqscan", "off"), ("enable_bitmapscan", "off"), ("enable_indexonlyscan", "off")),
    "indexonly": (("enable_seqscan", "off"), ("enable_bitmapscan", "off")),
    "bitmap": (("enable_seqscan", "off"), ("enable_indexscan", "off"), ("enable_indexonlyscan", "off")),
    "noseq": (("enable_seqscan", "off"),),
    "nosort": (("enable_seqscan", "off"), ("enable_sort", "off")),
    # Parallel plans: bitmap heap scans shared by workers, index scans inside workers' nested loops.
    "parallel": (("enable_seqscan", "off"), ("parallel_setup_cost", "0"), ("parallel_tuple_cost", "0"),
                 ("min_parallel_table_scan_size", "0"), ("min_parallel_index_scan_size", "0"),
                 ("max_parallel_workers_per_gather", "2")),
}
MODE_WEIGHTS = {"auto": 33, "index": 15, "indexonly": 10, "bitmap": 15, "noseq": 13, "nosort": 8, "parallel": 6}
JOIN_FORCE = (("enable_hashjoin", "off"), ("enable_mergejoin", "off"))

# Radius spellings. {c} the hash column, {q} the query (may be an untyped literal), {qt} the query
# typed, {k} the radius. True: an index condition (as documented in README "Querying").
SPELLINGS = {
    "ball": ("{c} <@ hamming_ball({qt}, {k})", True),
    "ball_rev": ("hamming_ball({qt}, {k}) @> {c}", True),
    "le": ("hamming({c}, {q}) <= {k}", True),
    "le_swap": ("hamming({q}, {c}) <= {k}", True),
    "ge_rev": ("{k} >= hamming({c}, {q})", True),
    "lt": ("hamming({c}, {q}) < {k}", True),
    "gt_rev": ("{k} > hamming({c}, {q})", True),
    "between": ("hamming({c}, {q}) BETWEEN {lo} AND {k}", True),
    "dist_le": ("{c} <-> {q} <= {k}", True),
    "dist_lt": ("{c} <-> {q} < {k}", True),
    "dist_ge_rev": ("{k} >= {c} <-> {q}", True),
    "within": ("hamming_within({c}, {qt}, {k})", True),
    "eq": ("{c} = {qt}", False),
    "ham_ge": ("hamming({c}, {q}) >= {k}", False),
    "ham_eq": ("hamming({c}, {q}) = {k}", False),
    "le_bigint": ("hamming({c}, {q}) <= ({k})::bigint", False),
    "le_smallint": ("hamming({c}, {q}) <= ({k})::smallint", True),
    # bounds of other types resolve to other operators (evaluated row by row)
    "le_numeric": ("hamming({c}, {q}) <= {k}.5", False),
    "le_huge": ("hamming({c}, {q}) <= 3000000000", False),
    "gt_huge_neg": ("hamming({c}, {q}) > -3000000000", False),
}
INDEX_SPELLINGS = [s for s, (_, idx) in SPELLINGS.items() if idx]
OTHER_SPELLINGS = ["eq", "ham_ge", "ham_eq", "le_bigint", "eq", "ham_ge", "ham_eq", "le_bigint",
                   "le_numeric", "le_huge", "gt_huge_neg"]


# How conditions are written: as generated (the spellings above, which the planner rewrites and
# hands to an index), or plainly, as the reference writes them: the distance cast to integer and
# compared with integer operators, which no support function rewrites and no index answers. A
# rewrite that changed the meaning of a condition would then differ from the reference too.
PLAIN = {
    "ball": "hamming({c}, {qt})::int <= {k}", "ball_rev": "hamming({c}, {qt})::int <= {k}",
    "le": "hamming({c}, {qt})::int <= {k}", "le_swap": "hamming({c}, {qt})::int <= {k}",
    "ge_rev": "hamming({c}, {qt})::int <= {k}", "dist_le": "hamming({c}, {qt})::int <= {k}",
    "dist_ge_rev": "hamming({c}, {qt})::int <= {k}", "within": "hamming({c}, {qt})::int <= {k}",
    "lt": "hamming({c}, {qt})::int < {k}", "gt_rev": "hamming({c}, {qt})::int < {k}",
    "dist_lt": "hamming({c}, {qt})::int < {k}",
    "between": "hamming({c}, {qt})::int BETWEEN {lo} AND {k}",
    "le_smallint": "hamming({c}, {qt})::int <= ({k})::smallint",
    "eq": "{c} = {qt}",
    "ham_ge": "hamming({c}, {qt})::int >= {k}", "ham_eq": "hamming({c}, {qt})::int = {k}",
    "le_bigint": "hamming({c}, {qt})::int <= ({k})::bigint",
    "le_numeric": "hamming({c}, {qt})::int <= {k}.5",
    "le_huge": "hamming({c}, {qt})::int <= 3000000000",
    "gt_huge_neg": "hamming({c}, {qt})::int > -3000000000",
}
_plain = [False]


class plain_rendering:
    """Within it, conditions are written plainly (see PLAIN)."""

    def __enter__(self):
        self.was = _plain[0]
        _plain[0] = True

    def __exit__(self, *exc):
        _plain[0] = self.was


def lit_q(q, typed):
    if q is None:
        return "NULL::simhash"
    return "'%s'::simhash" % hexh(q) if typed else "'%s'" % hexh(q)


def lit_k(k):
    if k is None:
        return "NULL::int"
    if k == INT_MIN:
        return "(-2147483648)::int"
    if k < 0:
        return "(%d)" % k
    return str(k)


class Cond:
    """One radius condition: a spelling, a query hash and a radius (None: NULL)."""

    def __init__(self, spelling, q, k, lo=0, typed=False):
        self.spelling = spelling
        self.q = q
        self.k = k
        self.lo = lo
        self.typed = typed

    def index_cond(self):
        return SPELLINGS[self.spelling][1]

    def render(self, col="t.sh", qtext=None, ktext=None):
        tmpl = PLAIN[self.spelling] if _plain[0] else SPELLINGS[self.spelling][0]
        q = qtext if qtext is not None else lit_q(self.q, self.typed)
        qt = qtext if qtext is not None else lit_q(self.q, True)
        k = ktext if ktext is not None else lit_k(self.k)
        if self.spelling == "le_numeric":
            k = str(self.k if self.k is not None and 0 <= self.k < 1000 else 3)
        if self.spelling == "le_smallint" and ktext is None and self.k is not None and not (-32768 <= self.k <= 32767):
            k = "0"
        return tmpl.format(c=col, q=q, qt=qt, k=k, lo=self.lo)


class Case:
    def __init__(self, no, kind, table, mode):
        self.no = no
        self.kind = kind
        self.table = table
        self.mode = mode
        self.gucs = list(MODES[mode])
        self.ref_gucs = list(engine.REFERENCE_GUCS)
        self.steps = []
        self.ref_steps = []
        self.compare = None          # (index results, reference results) -> None or a difference
        self.sql = ""                # what to show
        self.nidx = 0                # index conditions (for grouping findings)
        self.shrink = None           # (conds, rebuild) for filter cases
        self.rollback = False        # end the transaction with ROLLBACK (cases that change rows)
        self.after = None            # statement to run outside the transaction afterwards
        self.ref_sql = None          # the reference's SQL, where it is written differently

    def signature(self):
        n = self.nidx
        bucket = ("0" if n == 0 else "1" if n == 1 else "2-3" if n <= 3 else "4-16" if n <= 16 else
                  "17-32" if n <= 32 else "33-64" if n <= 64 else "65+")
        return (self.table.am, self.kind, bucket)


class Generator:
    def __init__(self, seed, dataset):
        self.seed = seed
        self.ds = dataset

    # ----- values ------------------------------------------------------------------------------
    def qval(self, rng, family, nulls=0.03):
        pool = self.ds.pools[family]
        r = rng.random()
        if r < nulls:
            return None
        if r < 0.45:
            return rng.choice(pool)
        if r < 0.72:
            return flip(rng, rng.choice(pool), rng.randint(1, 8))
        if r < 0.85:
            return rng.getrandbits(64)
        if r < 0.90:
            return rng.choice((0, MASK64))
        other = rng.choice([f for f in self.ds.pools if self.ds.pools[f]])
        return rng.choice(self.ds.pools[other])

    @staticmethod
    def kval(rng, nulls=0.03):
        r = rng.random()
        if r < nulls:
            return None
        r = rng.random()
        if r < 0.40:
            return rng.randint(0, 6)
        if r < 0.55:
            return rng.randint(7, 16)
        if r < 0.63:
            return rng.randint(17, 54)
        if r < 0.80:
            return rng.randint(55, 64)
        if r < 0.86:
            return rng.choice((65, 66, 100, 1000))
        if r < 0.92:
            return rng.choice((-1, -1, -2, -64))
        return rng.choice((INT_MIN, INT_MAX, 1000000, -1000000, 64))

    def cond(self, rng, family, spelling=None, q=None, k=None, qnull=0.03):
        spelling = spelling or rng.choice(INDEX_SPELLINGS)
        q = q if q is not None else self.qval(rng, family, nulls=qnull)
        k = k if k is not None else self.kval(rng)
        lo = 0 if rng.random() < 0.8 else rng.randint(-2, 3)
        return Cond(spelling, q, k, lo=lo, typed=rng.random() < 0.3)

    def many_conds(self, rng, family, n):
        """n ANDed index conditions, most of them wide so that rows still qualify."""
        centers = [self.qval(rng, family, nulls=0) for _ in range(rng.randint(1, 3))]
        conds = []
        for _ in range(n):
            r = rng.random()
            if r < 0.65:
                k = rng.choice((64, 64, 64, 65, 100, INT_MAX))
            elif r < 0.9:
                k = rng.randint(40, 63)
            else:
                k = rng.randint(3, 12)
            q = centers[0] if k < 40 else rng.choice(centers)
            conds.append(self.cond(rng, family, q=q, k=k, qnull=0))
        return conds

    def n_index_conds(self, rng):
        r = rng.random()
        if r < 0.08:
            return 0
        if r < 0.42:
            return 1
        if r < 0.67:
            return rng.randint(2, 3)
        if r < 0.88:
            return rng.randint(4, 32)
        if r < 0.95:
            return rng.randint(33, 64)
        return rng.randint(65, 300)

    def extra_conds(self, rng, family):
        out = []
        for _ in range(rng.choice((0, 0, 0, 1, 1, 2))):
            r = rng.random()
            if r < 0.5:
                c = self.cond(rng, family, spelling=rng.choice(OTHER_SPELLINGS))
                if c.spelling in ("ham_ge", "ham_eq"):
                    c.k = rng.randint(0, 40)
                out.append(c.render())
            elif r < 0.65:
                out.append("t.sh IS NOT NULL")
            elif r < 0.72:
                out.append("t.sh IS NULL")
            elif r < 0.78:
                out.append("t.id %% %d <> %d" % (rng.randint(2, 9), rng.randint(0, 1)))
            elif r < 0.85:
                out.append("t.id % 2 = 0")     # implies the predicate of the partial indexes
            elif r < 0.92:
                out.append(self.any_cond(rng, family))
            else:
                a, b = self.cond(rng, family), self.cond(rng, family)
                out.append("(%s OR %s)" % (a.render(), b.render()))
        return out

    def any_cond(self, rng, family):
        """sh <@ ANY (ARRAY[balls]): simhash_mih and GiST have no amsearcharray, so a bitmap index
        scan runs one rescan per element (NULL elements included)."""
        balls = []
        for _ in range(rng.randint(1, 6)):
            q = self.qval(rng, family, nulls=0.1)
            balls.append("hamming_ball(%s, %s)" % (lit_q(q, True), lit_k(self.kval(rng))) if rng.random() < 0.95
                         else "NULL::hamming_ball")
        return "t.sh <@ ANY (ARRAY[%s])" % ", ".join(balls)

    def pick_mode(self, rng, allowed=None):
        modes = allowed or list(MODE_WEIGHTS)
        return rng.choices(modes, [MODE_WEIGHTS[m] for m in modes])[0]

    # ----- the cases -----------------------------------------------------------------------------
    def case(self, no):
        return self.paired(lambda: self._case(no))

    @staticmethod
    def paired(make):
        """make() twice, the second time with plain conditions: the first gives the case, the
        second its reference statements (make must draw the same values each time)."""
        case = make()
        with plain_rendering():
            ref = make()
        if getattr(case, "check", None) != getattr(ref, "check", None):
            raise RuntimeError("case %d: the plain rendering drew other random values (a harness bug)" % case.no)
        case.ref_steps = ref.ref_steps
        if ref.sql != case.sql:
            case.ref_sql = ref.sql
        return case

    def _case(self, no):
        rng = random.Random("%s/case/%d" % (self.seed, no))
        table = rng.choices(self.ds.tables, [0.5 if t.family == "empty" else 2 for t in self.ds.tables])[0]
        kind = rng.choices(("filter", "knn", "keyless", "join", "cursor", "prepared", "txn"),
                           (30, 12, 8, 16, 13, 14, 7))[0]
        case = getattr(self, "gen_" + kind)(rng, no, table)
        if rng.random() < 0.1:
            # the least work_mem: lossy bitmaps (heap pages rechecked), simhash_mih's nearest-neighbour
            # scans in several passes
            case.gucs.append(("work_mem", "'64kB'"))
        if rng.random() < 0.01:
            # expressions compiled by LLVM, the extension's functions inlined from its bitcode
            case.gucs += [("jit", "on"), ("jit_above_cost", "0"), ("jit_inline_above_cost", "0"),
                          ("jit_optimize_above_cost", "0")]
        case.check = rng.random()     # equal in both renderings, else they drew differently
        return case

    def _simple(self, case, sql, compare, explain=True, join=False):
        if join and case.mode != "auto":
            case.gucs += JOIN_FORCE
        case.sql = sql
        case.steps = ([("plan", "EXPLAIN (COSTS OFF) " + sql, None)] if explain else []) + [("query", sql, None)]
        case.ref_steps = [("query", sql, None)]
        case.compare = lambda a, b: compare(a[0], b[0])
        return case

    # filter ------------------------------------------------------------------------------------
    def gen_filter(self, rng, no, table):
        fam = table.family
        n = self.n_index_conds(rng)
        conds = self.many_conds(rng, fam, n) if n >= 4 else [self.cond(rng, fam) for _ in range(n)]
        extra = self.extra_conds(rng, fam)
        proj = rng.choice(("t.id", "t.id", "t.id, t.sh", "t.sh", "count(*)", "1",
                           "t.id, length(t.html)" if fam == "wide" else "t.id"))
        order = None
        if proj != "count(*)" and rng.random() < 0.3:
            q = conds[0].q if conds and rng.random() < 0.6 else self.qval(rng, fam)
            order = (q, rng.random() < 0.25, rng.choice((None, 1, 3, 10, 50)))
        mode = self.pick_mode(rng)

        def build(conds_):
            case = Case(no, "filter", table, mode)
            where = [c if isinstance(c, str) else c.render() for c in conds_]
            sel = proj
            tail = ""
            if order is not None:
                q, with_id, limit = order
                sel = proj + ", hamming(t.sh, %s) AS d" % lit_q(q, True)
                tail = " ORDER BY t.sh <-> %s%s" % (lit_q(q, True), ", t.id" if with_id else "")
                if limit:
                    tail += " LIMIT %d" % limit
            sql = "SELECT %s FROM %s t%s%s" % (sel, table.name,
                                                " WHERE " + " AND ".join(where) if where else "", tail)
            if order is None:
                cmp = engine.cmp_bag
            elif order[1]:
                cmp = engine.cmp_exact
            else:
                limited = order[2] is not None
                cmp = lambda a, b: engine.cmp_knn(a, b, limited)
            case.nidx = sum(1 for c in conds_ if not isinstance(c, str) and c.index_cond())
            self._simple(case, sql, cmp)
            if not _plain[0]:
                # (for the shrinker, which calls build alone)
                with plain_rendering():
                    ref = build(conds_)
                case.ref_steps = ref.ref_steps
                case.ref_sql = ref.sql if ref.sql != sql else None
            return case

        conds = conds + extra           # the shrinker may drop any of them
        case = build(conds)
        case.shrink = (conds, build)
        return case

    # knn ---------------------------------------------------------------------------------------
    def gen_knn(self, rng, no, table):
        fam = table.family
        case = Case(no, "knn", table, self.pick_mode(rng))
        q = self.qval(rng, fam, nulls=0.08)
        conds = [self.cond(rng, fam) for _ in range(rng.choice((0, 0, 0, 1, 1, 2, 3)))]
        case.nidx = len(conds)
        where = [c.render() for c in conds] + self.extra_conds(rng, fam)
        proj = rng.choice(("t.id", "t.id", "t.sh", "t.id, t.sh"))
        limit = rng.choice((None, 1, 2, 5, 10, 10, 50, 500))
        offset = rng.choice((None, None, None, 3, 20))
        commuted = rng.random() < 0.1
        order = ("%s <-> t.sh" if commuted else "t.sh <-> %s") % lit_q(q, True)
        dist = "hamming(t.sh, %s) AS d" % lit_q(q, True)
        dcols = (-1,)
        if rng.random() < 0.25:
            # a second distance: simhash_mih orders by the first only and hands the executor 0 as
            # a lower bound of the others (its reorder queue sorts them); GiST orders by both
            q2 = self.qval(rng, fam, nulls=0.1)
            desc = rng.random() < 0.2
            order += ", t.sh <-> %s%s" % (lit_q(q2, True), " DESC" if desc else "")
            dist = "hamming(t.sh, %s) AS d, hamming(t.sh, %s) AS d2" % (lit_q(q, True), lit_q(q2, True))
            dcols = (-2, -1)
        nulls_first = rng.random() < 0.05
        if nulls_first:
            order += " NULLS FIRST"          # not the index's order: sorted above it
        exact = rng.random() < 0.15 or nulls_first
        if exact:
            order += ", t.id"
            proj = "t.id" if "t.id" in proj else "t.id, " + proj
        sql = "SELECT %s, %s FROM %s t%s ORDER BY %s%s%s" % (
            proj, dist, table.name, " WHERE " + " AND ".join(where) if where else "", order,
            " LIMIT %d" % limit if limit else "", " OFFSET %d" % offset if offset else "")
        limited = limit is not None or offset is not None
        if exact:
            return self._simple(case, sql, engine.cmp_exact)
        if offset:
            # With OFFSET the rows skipped may tie with the first ones: compare distances only.
            return self._simple(case, sql, lambda a, b: _distances_only(a, b, dcols))
        return self._simple(case, sql, lambda a, b: engine.cmp_knn(a, b, limited, dcols))

    # keyless -----------------------------------------------------------------------------------
    def gen_keyless(self, rng, no, table):
        mode = rng.choice(("auto", "auto", "indexonly", "index", "noseq"))
        case = Case(no, "keyless", table, mode)
        n = rng.randint(1, 40)
        sql = rng.choice((
            "SELECT count(*) FROM {t} t",
            "SELECT count(*) FROM {t} t",
            "SELECT count(*), count(t.sh) FROM {t} t",
            "SELECT count(*) FROM {t} t WHERE t.sh IS NOT NULL",
            "SELECT count(*) FROM {t} t WHERE t.sh IS NULL",
            "SELECT 1 FROM {t} t LIMIT %d" % n,
            "SELECT t.sh FROM {t} t",
            "SELECT count(*) FROM (SELECT 1 FROM {t} t OFFSET 0) x",
            "SELECT EXISTS (SELECT 1 FROM {t} t)",
            "SELECT count(DISTINCT t.sh) FROM {t} t",
            "SELECT count(*) FROM {t} t WHERE t.id > %d" % rng.randint(0, 500),
            "SELECT t.id FROM {t} t",
            # a keyless scan rescanned for every outer row (the condition on s is a parameter)
            "SELECT s.qid, (SELECT count(*) FROM (SELECT 1 FROM {t} t WHERE s.qid > 0 LIMIT %d) y) FROM qs s"
            % rng.randint(1, 30),
        )).format(t=table.name)
        return self._simple(case, sql, engine.cmp_bag)

    # join --------------------------------------------------------------------------------------
    def _join_cond(self, rng, family, qcol="s.q", kcol="s.k"):
        if rng.random() < 0.1:
            spelled = rng.choice(("t.sh <@ s.b", "s.b @> t.sh"))   # drawn in both renderings
            return "hamming(t.sh, s.q)::int <= s.k" if _plain[0] else spelled
        c = self.cond(rng, family)
        ktext = kcol if rng.random() < 0.7 else lit_k(c.k)
        return c.render(qtext=qcol, ktext=ktext)

    def gen_join(self, rng, no, table):
        fam = table.family
        case = Case(no, "join", table, self.pick_mode(rng, ["auto", "index", "bitmap", "noseq", "indexonly"]))
        nq = len(self.ds.qs_rows)
        a = rng.randint(1, nq)
        b = min(nq, a + rng.choice((0, 2, 5, 10, 40)))
        rangecond = "s.qid BETWEEN %d AND %d" % (a, b)
        variant = rng.choice(("inner", "inner", "semi", "anti", "lateral_knn", "lateral_one", "self", "subplan"))
        case.nidx = 1
        if variant == "inner":
            conds = [self._join_cond(rng, fam) for _ in range(rng.choice((1, 1, 1, 2, 3)))]
            case.nidx = len(conds)
            sql = "SELECT s.qid, t.id FROM qs s JOIN %s t ON %s WHERE %s" % (table.name, " AND ".join(conds), rangecond)
            return self._simple(case, sql, engine.cmp_bag, join=True)
        if variant in ("semi", "anti"):
            sql = "SELECT s.qid FROM qs s WHERE %sEXISTS (SELECT 1 FROM %s t WHERE %s) AND %s" % (
                "NOT " if variant == "anti" else "", table.name, self._join_cond(rng, fam), rangecond)
            return self._simple(case, sql, engine.cmp_bag, join=True)
        if variant == "lateral_knn":
            limit = rng.choice((1, 3, 10, 30))
            where = " WHERE " + self._join_cond(rng, fam) if rng.random() < 0.3 else ""
            sql = ("SELECT s.qid, x.id, x.d FROM qs s CROSS JOIN LATERAL (SELECT t.id, hamming(t.sh, s.q) AS d "
                   "FROM %s t%s ORDER BY t.sh <-> s.q LIMIT %d) x WHERE %s" % (table.name, where, limit, rangecond))
            case.nidx = 1 if where else 0
            return self._simple(case, sql, lambda x, y: engine.cmp_grouped_knn(x, y, True), join=True)
        if variant == "lateral_one":
            sql = ("SELECT s.qid, (SELECT t.id FROM %s t WHERE %s ORDER BY t.sh <-> s.q, t.id LIMIT 1) "
                   "FROM qs s WHERE %s" % (table.name, self._join_cond(rng, fam), rangecond))
            return self._simple(case, sql, engine.cmp_bag, join=True)
        if variant == "subplan":
            # a correlated subquery: a second scan of the same index, rescanned for every row that a
            # first scan of it returns
            c = self.cond(rng, fam, k=rng.randint(0, 8), qnull=0)
            k = rng.choice((0, 1, 2, 4, 10))
            sql = ("SELECT t.id, (SELECT count(*) FROM %s x WHERE hamming(x.sh, t.sh) <= %d) FROM %s t "
                   "WHERE %s AND t.id %% 20 = %d" % (table.name, k, table.name, c.render(), rng.randint(0, 19)))
            return self._simple(case, sql, engine.cmp_bag, join=True)
        # the README's near-duplicate self-join, over a slice of the outer side
        k = rng.choice((0, 1, 2, 3, 5))
        m = rng.choice((50, 100, 200))
        sql = ("SELECT a.id, b.id FROM %s a JOIN %s b ON hamming(a.sh, b.sh) <= %d AND a.id < b.id "
               "WHERE a.id %% %d = %d" % (table.name, table.name, k, m, rng.randint(0, m - 1)))
        return self._simple(case, sql, engine.cmp_bag, join=True)

    # cursor ------------------------------------------------------------------------------------
    def gen_cursor(self, rng, no, table):
        fam = table.family
        mode = self.pick_mode(rng)
        case = Case(no, "cursor", table, mode)
        name = "c%d" % no
        variant = rng.choice(("forward", "forward", "scroll", "two"))
        if variant == "two":
            qa, qb = self.qval(rng, fam, 0), self.qval(rng, fam, 0)
            ka, kb = rng.randint(0, 12), rng.randint(0, 12)
            qa_sql = ("SELECT t.id, hamming(t.sh, %s) AS d FROM %s t WHERE hamming(t.sh, %s) <= %d "
                      "ORDER BY t.sh <-> %s, t.id" % (lit_q(qa, True), table.name, lit_q(qa, True), ka, lit_q(qa, True)))
            qb_sql = ("SELECT t.id FROM %s t WHERE t.sh <@ hamming_ball(%s, %d)" % (table.name, lit_q(qb, True), kb))
            ops, owners = [], []
            for _ in range(rng.randint(2, 8)):
                who = rng.choice(("a", "b"))
                ops.append("FETCH %d FROM %s_%s" % (rng.randint(1, 7), name, who))
                owners.append(who)
            ops += ["FETCH ALL FROM %s_a" % name, "FETCH ALL FROM %s_b" % name]
            owners += ["a", "b"]
            steps = [("exec", "DECLARE %s_a CURSOR FOR %s" % (name, qa_sql), None),
                     ("exec", "DECLARE %s_b CURSOR FOR %s" % (name, qb_sql), None),
                     ("fetchops", None, ops)]
            case.sql = "DECLARE %s_a CURSOR FOR %s;\nDECLARE %s_b CURSOR FOR %s;\n%s" % (
                name, qa_sql, name, qb_sql, ";\n".join(ops))
            case.nidx = 1
            case.steps = [("plan", "EXPLAIN (COSTS OFF) " + qa_sql, None)] + steps
            case.ref_steps = steps

            def cmp(a, b):
                pa = {"a": [], "b": []}
                pb = {"a": [], "b": []}
                for who, ra, rb in zip(owners, a[0], b[0]):
                    pa[who] += ra
                    pb[who] += rb
                return engine.cmp_exact(pa["a"], pb["a"]) or engine.cmp_bag(pa["b"], pb["b"])
            case.compare = cmp
            return case
        if variant == "scroll":
            q = self.qval(rng, fam, 0)
            conds = [self.cond(rng, fam) for _ in range(rng.choice((0, 1, 1, 2)))]
            case.nidx = len(conds)
            where = " WHERE " + " AND ".join(c.render() for c in conds) if conds else ""
            query = ("SELECT t.id, hamming(t.sh, %s) AS d FROM %s t%s ORDER BY t.sh <-> %s, t.id LIMIT %d" % (
                lit_q(q, True), table.name, where, lit_q(q, True), rng.choice((20, 100, 1000))))
            ops = []
            for _ in range(rng.randint(3, 10)):
                ops.append(rng.choice(("FETCH %d FROM {c}" % rng.randint(1, 20),
                                       "FETCH BACKWARD %d FROM {c}" % rng.randint(1, 10),
                                       "MOVE %d IN {c}" % rng.randint(1, 10),
                                       "FETCH ABSOLUTE %d FROM {c}" % rng.randint(-5, 30),
                                       "FETCH RELATIVE %d FROM {c}" % rng.randint(-5, 5),
                                       "FETCH PRIOR FROM {c}", "FETCH FIRST FROM {c}", "FETCH LAST FROM {c}",
                                       "FETCH ALL FROM {c}")).format(c=name))
            steps = [("exec", "DECLARE %s SCROLL CURSOR FOR %s" % (name, query), None), ("fetchops", None, ops)]
            case.sql = "DECLARE %s SCROLL CURSOR FOR %s;\n%s" % (name, query, ";\n".join(ops))
            case.steps = [("plan", "EXPLAIN (COSTS OFF) " + query, None)] + steps
            case.ref_steps = steps

            def cmp(a, b):
                for i, (ra, rb) in enumerate(zip(a[0], b[0])):
                    d = engine.cmp_exact(ra, rb)
                    if d:
                        return "%s: %s" % (ops[i], d)
                return None
            case.compare = cmp
            return case
        # forward: any filter, knn or join query, fetched in chunks
        inner = self.gen_filter(rng, no, table) if rng.random() < 0.4 else (
            self.gen_knn(rng, no, table) if rng.random() < 0.5 else self.gen_join(rng, no, table))
        sizes = [rng.choice((1, 2, 3, 7, 16, 50, 200)) for _ in range(rng.randint(1, 3))]
        query = inner.sql
        case.mode = inner.mode
        case.nidx = inner.nidx
        case.gucs = inner.gucs
        steps = [("exec", "DECLARE %s CURSOR FOR %s" % (name, query), None), ("fetch", name, sizes),
                 ("exec", "CLOSE %s" % name, None)]
        case.sql = "DECLARE %s CURSOR FOR %s;\nFETCH %s FROM %s ... (chunks of %s until fewer rows)" % (
            name, query, sizes[0], name, sizes)
        case.steps = [("plan", "EXPLAIN (COSTS OFF) " + query, None)] + steps
        case.ref_steps = steps
        inner_cmp = inner.compare
        case.compare = lambda a, b: inner_cmp([sum(a[0], [])], [sum(b[0], [])])
        return case

    # prepared ----------------------------------------------------------------------------------
    def gen_prepared(self, rng, no, table):
        fam = table.family
        mode = self.pick_mode(rng)
        case = Case(no, "prepared", table, mode)
        cache = rng.choices(("force_generic_plan", "auto", "force_custom_plan"), (6, 3, 1))[0]
        case.gucs.append(("plan_cache_mode", cache))
        name = "p%d" % no
        types = []
        slots = []   # per parameter: 'q' or 'k'

        def param(kind):
            types.append("simhash" if kind == "q" else "int")
            slots.append(kind)
            return "$%d" % len(types)

        variant = rng.choice(("filter", "filter", "knn", "join"))
        n = rng.choice((1, 1, 2, 3, 5)) if rng.random() < 0.85 else rng.randint(30, 80)
        conds = [self.cond(rng, fam) for _ in range(n)]
        case.nidx = n
        where_p, where_l = [], []   # parameterized rendering; per condition how to render literally
        for c in conds:
            qp = param("q") if rng.random() < 0.8 else None
            # (a smallint radius stays a literal: most parameter values would not fit)
            kp = param("k") if rng.random() < 0.7 and c.spelling != "le_smallint" else None
            where_p.append(c.render(qtext=qp, ktext=kp))
            where_l.append((c, qp, kp))
        if variant == "knn":
            oq = param("q")
            limit = rng.choice((1, 5, 20))
            tmpl_p = "SELECT t.id, hamming(t.sh, %s) AS d FROM %s t%s ORDER BY t.sh <-> %s LIMIT %d"
            cmp = lambda a, b: engine.cmp_knn(a, b, True)
        elif variant == "join":
            oq = None
            jk = param("k")
            case.gucs += JOIN_FORCE if mode != "auto" else ()
            cmp = engine.cmp_bag
        else:
            oq = None
            cmp = engine.cmp_bag
        nexec = rng.randint(6, 9)
        values = []
        for _ in range(nexec):
            values.append([self.qval(rng, fam, nulls=0.08) if s == "q" else self.kval(rng, nulls=0.08)
                           for s in slots])

        def render(vals):
            """(parameterized SQL when vals is None, else the SQL with the values written in)"""
            def sub(text):
                if vals is None or text is None:
                    return text
                i = int(text[1:]) - 1
                return lit_q(vals[i], True) if slots[i] == "q" else lit_k(vals[i])
            where = []
            for j, (c, qp, kp) in enumerate(where_l):
                if vals is None:
                    where.append(where_p[j])
                else:
                    where.append(c.render(qtext=sub(qp), ktext=sub(kp)))
            w = " AND ".join(where)
            if variant == "knn":
                return tmpl_p % (sub(oq) if vals else oq, table.name, " WHERE " + w if w else "",
                                 sub(oq) if vals else oq, limit)
            if variant == "join":
                # the outer row's own query joins too: each rescan gets new keys besides the parameters
                return ("SELECT s.qid, t.id FROM qs s JOIN %s t ON %s AND hamming(t.sh, s.q) <= %s "
                        "WHERE s.qid %% 4 = %d" % (table.name, w, sub(jk) if vals else jk, no % 4))
            return "SELECT t.id FROM %s t WHERE %s" % (table.name, w)

        def args(vals):
            return ", ".join(lit_q(v, True) if s == "q" else lit_k(v) for s, v in zip(slots, vals))

        psql = render(None)
        prep = "PREPARE %s%s AS %s" % (name, "(%s)" % ", ".join(types) if types else "", psql)
        execs = ["EXECUTE %s%s" % (name, "(%s)" % args(v) if types else "") for v in values]
        case.steps = [("exec", prep, None)] + [("query", e, None) for e in execs] + [
            ("plan", "EXPLAIN (COSTS OFF) " + execs[-1], None), ("exec", "DEALLOCATE " + name, None)]
        case.ref_steps = [("query", render(v), None) for v in values]
        case.sql = prep + ";\n" + ";\n".join(execs) + ";\n-- plan_cache_mode = " + cache
        case.after = "DEALLOCATE ALL"

        def compare(a, b):
            for i, (ra, rb) in enumerate(zip(a, b)):
                d = cmp(ra, rb)
                if d:
                    return "EXECUTE #%d (%s): %s" % (i + 1, execs[i], d)
            return None
        case.compare = compare
        return case


    # txn ---------------------------------------------------------------------------------------
    def gen_txn(self, rng, no, table):
        """Rows changed inside the transaction (pending index entries, dead and updated rows, an
        UPDATE or DELETE driven by an index scan of the index it changes), then queries that must
        see the transaction's own changes; ROLLBACK at the end keeps the tables as they were."""
        fam = table.family
        mode = self.pick_mode(rng, ["auto", "index", "bitmap", "noseq", "indexonly"])
        case = Case(no, "txn", table, mode)
        case.rollback = True
        steps = []
        shown = []
        q = self.qval(rng, fam, 0)
        base = 1000000 + no * 1000
        for _ in range(rng.randint(1, 4)):
            what = rng.choice(("insert", "insert", "delete", "update", "update_idx", "delete_idx"))
            if what == "insert":
                vals = []
                for i in range(rng.randint(1, 60)):
                    h = None if rng.random() < 0.05 else flip(rng, q, rng.randint(0, 6))
                    vals.append("(%d, %s)" % (base + len(steps) * 100 + i, lit_q(h, True)))
                sql = "INSERT INTO %s (id, sh) VALUES %s" % (table.name, ", ".join(vals))
                steps.append(("exec", sql, None))
            elif what == "delete":
                sql = "DELETE FROM %s WHERE id %% %d = %d" % (table.name, rng.randint(3, 40), rng.randint(0, 2))
                steps.append(("exec", sql, None))
            elif what == "update":
                sql = "UPDATE %s SET sh = sh # '%s' WHERE id %% %d = %d" % (
                    table.name, hexh(flip(rng, 0, rng.randint(1, 3))), rng.randint(10, 60), rng.randint(0, 2))
                steps.append(("exec", sql, None))
            elif what == "update_idx":
                c = self.cond(rng, fam, q=q, k=rng.randint(0, 8))
                sql = "UPDATE %s t SET sh = t.sh # '%s' WHERE %s RETURNING t.id" % (
                    table.name, hexh(flip(rng, 0, rng.randint(0, 2))), c.render())
                steps.append(("query", sql, None))
            else:
                c = self.cond(rng, fam, q=q, k=rng.randint(0, 6))
                sql = "DELETE FROM %s t WHERE %s RETURNING t.id" % (table.name, c.render())
                steps.append(("query", sql, None))
            shown.append(sql)
        inner = rng.choice((self.gen_filter, self.gen_knn, self.gen_keyless))(rng, no, table)
        query = inner.sql
        case.nidx = inner.nidx
        steps.append(("query", query, None))
        shown.append(query)
        case.steps = steps[:-1] + [("plan", "EXPLAIN (COSTS OFF) " + query, None), steps[-1]]
        case.ref_steps = steps
        case.sql = ";\n".join(shown) + ";\nROLLBACK"
        inner_cmp = inner.compare

        def compare(a, b):
            for i in range(len(a) - 1):
                d = engine.cmp_bag(a[i], b[i])
                if d:
                    return "RETURNING of statement %d: %s" % (i + 1, d)
            return inner_cmp(a[-1:], b[-1:])
        case.compare = compare
        return case


def _distances_only(a, b, dcols=(-1,)):
    da = [tuple(r[c] for c in dcols) for r in a]
    db = [tuple(r[c] for c in dcols) for r in b]
    if da != db:
        return "distance sequences differ: index %s, seqscan %s" % (da[:20], db[:20])
    return None
