-- Standing checks over every object of the extension (runs last, so it covers every feature).

-- Every function, operator, type, operator class, domain and view has a comment.
SELECT pg_describe_object(d.classid, d.objid, 0) AS without_comment
FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'simhash'
WHERE d.deptype = 'e'
  AND d.classid IN ('pg_proc'::regclass, 'pg_operator'::regclass, 'pg_type'::regclass,
                    'pg_opclass'::regclass, 'pg_class'::regclass)
  AND obj_description(d.objid, d.classid::regclass::text) IS NULL
  -- implicit array types, and a view's row type (an extension member from PostgreSQL 17 on),
  -- which the view's comment describes
  AND NOT (d.classid = 'pg_type'::regclass AND EXISTS (
        SELECT 1 FROM pg_type t WHERE t.oid = d.objid AND (t.typcategory = 'A' OR t.typrelid <> 0)))
ORDER BY 1;

-- Volatility, strictness and parallel safety of every function, to review at a glance: anything
-- that is not IMMUTABLE STRICT PARALLEL SAFE is listed here and must be so on purpose.
SELECT p.oid::regprocedure AS function, p.provolatile AS volatility, p.proisstrict AS strict,
       p.proparallel AS parallel
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'simhash'
WHERE d.deptype = 'e' AND NOT (p.provolatile = 'i' AND p.proisstrict AND p.proparallel = 's')
ORDER BY 1::text;

-- The operator classes pass PostgreSQL's own validation.
SELECT c.opcname, amvalidate(c.oid) FROM pg_opclass c
JOIN pg_depend d ON d.classid = 'pg_opclass'::regclass AND d.objid = c.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'simhash'
ORDER BY c.opcname;
