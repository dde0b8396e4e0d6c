-- simhash_mih_check follows least privilege (as amcheck does): EXECUTE is not PUBLIC's, a role it
-- is granted to must be able to read the table, and the refusal comes before any lock. A name
-- that is not a simhash_mih index, a missing OID and a partitioned index each get a clear error.
\i sql/include/try.sql
CREATE TABLE private_pages (id int, sh simhash);
INSERT INTO private_pages SELECT i, simhash(i::bigint * 2654435761) FROM generate_series(1, 500) i;
CREATE INDEX private_pages_mih ON private_pages USING simhash_mih (sh);
CREATE INDEX private_pages_btree ON private_pages (id);
CREATE ROLE regress_simhash_nobody;
GRANT EXECUTE ON FUNCTION pg_temp.try(text) TO regress_simhash_nobody;

SET ROLE regress_simhash_nobody;
SELECT pg_temp.try($$SELECT * FROM simhash_mih_check('private_pages_mih')$$) AS without_execute;
RESET ROLE;
GRANT EXECUTE ON FUNCTION simhash_mih_check(regclass, boolean) TO regress_simhash_nobody;
SET ROLE regress_simhash_nobody;
SELECT pg_temp.try($$SELECT * FROM simhash_mih_check('private_pages_mih')$$) AS without_select;
RESET ROLE;
GRANT SELECT ON private_pages TO regress_simhash_nobody;
SET ROLE regress_simhash_nobody;
SELECT blocks, sorted_rows, live_sorted_rows, pending_rows FROM simhash_mih_check('private_pages_mih');
RESET ROLE;

SELECT pg_temp.try($$SELECT * FROM simhash_mih_check('private_pages_btree')$$) AS btree_index;
SELECT pg_temp.try($$SELECT * FROM simhash_mih_check('private_pages')$$) AS a_table;
SELECT pg_temp.try($$SELECT * FROM simhash_mih_check(4000000000::oid::regclass)$$) AS missing_oid;
CREATE TABLE parted (id int, sh simhash) PARTITION BY RANGE (id);
CREATE TABLE parted_1 PARTITION OF parted FOR VALUES FROM (0) TO (1000);
CREATE INDEX parted_mih ON parted USING simhash_mih (sh);
SELECT pg_temp.try($$SELECT * FROM simhash_mih_check('parted_mih')$$) AS partitioned;
SELECT * FROM simhash_mih_check('parted_mih');
SELECT count(*) AS partitions_checked FROM pg_partition_tree('parted_mih') t, simhash_mih_check(t.relid) s WHERE t.isleaf;

REVOKE ALL ON private_pages FROM regress_simhash_nobody;
REVOKE EXECUTE ON FUNCTION simhash_mih_check(regclass, boolean) FROM regress_simhash_nobody;
REVOKE EXECUTE ON FUNCTION pg_temp.try(text) FROM regress_simhash_nobody;
DROP ROLE regress_simhash_nobody;
DROP TABLE private_pages, parted;
