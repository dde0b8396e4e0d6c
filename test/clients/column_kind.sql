-- What a result column of the type given as the one parameter (a type name or OID) holds, as both client checks classify it:
-- 'number' (the server's numeric category, the reg* OID aliases excluded), 'number[]' (an array of
-- those) or 'other'. A 'number' column must reach a client as one of its numeric types.
SELECT CASE
           WHEN t.typcategory = 'N' AND NOT (t.typnamespace = 'pg_catalog'::pg_catalog.regnamespace
                                             AND t.typname OPERATOR(pg_catalog.~~) 'reg%')
               THEN 'number'
           WHEN t.typcategory = 'A' AND e.typcategory = 'N'
                AND NOT (e.typnamespace = 'pg_catalog'::pg_catalog.regnamespace
                         AND e.typname OPERATOR(pg_catalog.~~) 'reg%')
               THEN 'number[]'
           ELSE 'other'
       END
FROM pg_catalog.pg_type t LEFT JOIN pg_catalog.pg_type e ON e.oid = t.typelem
WHERE t.oid = CAST(:type AS pg_catalog.regtype)
