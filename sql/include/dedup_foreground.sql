-- The background worker applies queued changes of tables whose duplicate clusters are kept current
-- at its own time; a test that shows backlogs applies them itself with simhash_dedup_run. Off for
-- this session's writes and for every worker that connects from now on; a worker already here is
-- ended (the merges it may be doing survive that).
SET simhash.dedup_in_background = off;
SELECT current_database() AS dedup_fg_db \gset
ALTER DATABASE :"dedup_fg_db" SET simhash.dedup_in_background = off;
DO $$
BEGIN
    PERFORM pg_terminate_backend(pid) FROM pg_stat_activity
    WHERE backend_type = 'simhash_mih merge' AND datname = current_database();
    FOR i IN 1 .. 600 LOOP
        EXIT WHEN NOT EXISTS (SELECT FROM pg_stat_activity
                              WHERE backend_type = 'simhash_mih merge' AND datname = current_database());
        PERFORM pg_sleep(0.05);
    END LOOP;
END $$;
