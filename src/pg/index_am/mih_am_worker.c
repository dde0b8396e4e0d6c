/*
 * The background merge of a simhash_mih index's big runs, or of its runs into its base run
 * (mih_am_merge.c). Such a merge rewrites millions of rows, seconds of work that no inserter should
 * wait for and that cannot wait for the next VACUUM either (autovacuum comes to an insert-only
 * table after a fifth of its rows were inserted: hours on a big table). So the inserter that
 * flushes and finds one due starts a dynamic background worker for it, as parallel queries start
 * theirs: no shared_preload_libraries needed. The worker merges while any such merge is due, then
 * exits; flushes, inserts, scans and small merges go on meanwhile. A worker that finds another one
 * merging exits at once. When no worker slot is free
 * (max_worker_processes), VACUUM does the merge; a temporary index's inserter does it itself.
 * pg_stat_progress_vacuum shows the worker as the cleanup of the table's indexes, and
 * simhash_mih_merge_progress the merge's phases and rows.
 */
#include "mih_am.h"

#include "access/relation.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/ipc.h"
#include "tcop/tcopprot.h"
#include "utils/rel.h"

PGDLLEXPORT void simhash_mih_merge_worker(Datum arg);

void
mih_merge_in_background(Relation index)
{
	BackgroundWorker worker;

	if (!mih_big_merge_due(index, false))
		return;
	/*
	 * A temporary index's pages live in this backend's own buffers, which no other process can
	 * read, and autovacuum never comes to it: its inserter merges.
	 */
	if (RelationUsesLocalBuffers(index))
	{
		mih_merge(index, MIH_MERGE_BIG);
		return;
	}
	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = BGW_NEVER_RESTART;
	/* MODULE_big in the Makefile: the worker process loads this library by that name. */
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "simhash");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "simhash_mih_merge_worker");
	snprintf(worker.bgw_name, BGW_MAXLEN, "simhash_mih merge of index %u", RelationGetRelid(index));
	snprintf(worker.bgw_type, BGW_MAXLEN, "simhash_mih merge");
	worker.bgw_main_arg = ObjectIdGetDatum(RelationGetRelid(index));
	memcpy(worker.bgw_extra, &MyDatabaseId, sizeof(Oid));
	(void) RegisterDynamicBackgroundWorker(&worker, NULL);
}

/*
 * The worker. It connects without a role, as autovacuum does: it runs no user code (a merge reads
 * stored hashes and writes index pages), and an index's owner may be a role that cannot log in.
 */
void
simhash_mih_merge_worker(Datum arg)
{
	Oid			indexoid = DatumGetObjectId(arg);
	Oid			dboid;
	Oid			heapoid;
	Relation	heap = NULL;
	Relation	index = NULL;

	memcpy(&dboid, MyBgworkerEntry->bgw_extra, sizeof(Oid));
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnectionByOid(dboid, InvalidOid, 0);

	StartTransactionCommand();
	pgstat_report_activity(STATE_RUNNING, MyBgworkerEntry->bgw_name);
	/* The table first, as every writer locks them; the index may be gone by now. */
	heapoid = IndexGetRelation(indexoid, true);
	if (OidIsValid(heapoid))
		heap = try_relation_open(heapoid, RowExclusiveLock);
	if (heap != NULL)
		index = try_relation_open(indexoid, RowExclusiveLock);
	/*
	 * Once it lets go of the worker's lock, it looks again: an inserter whose flush made a merge
	 * due while this worker still held the lock started no other worker, nor merged the smallest
	 * tier it filled if the worker held LOCK_RUNS then.
	 */
	if (index != NULL && index->rd_rel->relkind == RELKIND_INDEX &&
		IndexGetRelation(indexoid, true) == heapoid && index->rd_indam->aminsert == mih_insert)
		while (mih_merge_reported(index, MIH_MERGE_BIG) > 0 && mih_big_merge_due(index, true))
			;
	if (index != NULL)
		relation_close(index, RowExclusiveLock);
	if (heap != NULL)
		relation_close(heap, RowExclusiveLock);
	CommitTransactionCommand();
	pgstat_report_activity(STATE_IDLE, NULL);
	proc_exit(0);
}
