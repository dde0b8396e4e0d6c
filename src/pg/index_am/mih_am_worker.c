/*
 * The background merge of a simhash_mih index's big runs, or of its runs into its base run
 * (mih_am_merge.c). Such a merge rewrites millions of rows, seconds of work that no inserter should
 * wait for and that cannot wait for the next VACUUM either (autovacuum comes to an insert-only
 * table after a fifth of its rows were inserted: hours on a big table). So the inserter that
 * flushes and finds one due starts a dynamic background worker for it, as parallel queries start
 * theirs: no shared_preload_libraries needed. The worker merges while any such merge is due;
 * flushes, inserts, scans and small merges go on meanwhile. Then it stays while the writers write,
 * looking every second (and merging the runs beside the base into it when it has the time: see
 * SPARE_RATIO), and once no row was inserted for simhash.settle_delay it settles the index
 * (mih_settle: the pending rows and the runs beside the biggest merged) and exits: a crawl database
 * rests between crawls, and nothing else would merge what the last flushes left (an insert that
 * does not flush starts no merge, and autovacuum comes late). So every flush starts a worker if
 * none is there, and an index being written holds one worker slot. (Rows inserted after a settle
 * that never fill the pending chain wait for the next flush: at most the limit's rows, each read by
 * every scan; a worker for every such insert would hold a connection to the database for a
 * settle_delay after a single row, which a DROP DATABASE then waits for.) One worker an index: it
 * holds a session lock while it works, and a worker that finds the lock taken exits at once. When
 * no worker slot is free (max_worker_processes), VACUUM does the merges due; a temporary index's
 * inserter does them itself. pg_stat_progress_vacuum shows the worker's merges as the cleanup of
 * the table's indexes, and simhash_mih_merge_progress their phases and rows; pg_stat_activity shows
 * the worker idle while it waits.
 */
#include "mih_am.h"
#include "settings.h"

#include "access/relation.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lock.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/rel.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

/* How often the worker looks while it waits. */
#define LOOK_MS				1000
/*
 * While the writers write, the worker merges the runs beside the base into it as a settle would
 * (mih_settle_into_base_due), but only after resting SPARE_RATIO times as long as its last merges
 * took: at a crawler's rate it has the time, and the rows beside the base cost every query a share
 * of their filters' probes; at full speed the due merges keep it busy and this waits.
 */
#define SPARE_RATIO			4
/*
 * The worker's lock is advisory, shown in pg_locks with this objsubid: the pg_advisory_*
 * functions take 1 and 2 only, so no user can hold it.
 */
#define WORKER_LOCK_KIND	0x5348

PGDLLEXPORT void simhash_mih_merge_worker(Datum arg);

static void
worker_tag(LOCKTAG *tag, Oid dboid, Oid indexoid)
{
	SET_LOCKTAG_ADVISORY(*tag, dboid, indexoid, 0, WORKER_LOCK_KIND);
}

/* Whether the worker settles the index once its writers pause: simhash.settle_delay is not -1. */
static bool
settling(Relation index)
{
	return sh_settle_delay_s >= 0 && mih_settles(index);
}

/* Whether the index has a worker: it holds the lock. */
static bool
worker_running(Relation index)
{
	LOCKTAG		tag;

	worker_tag(&tag, MyDatabaseId, RelationGetRelid(index));
	if (LockAcquire(&tag, ExclusiveLock, false, true) == LOCKACQUIRE_NOT_AVAIL)
		return true;
	LockRelease(&tag, ExclusiveLock, false);
	return false;
}

/*
 * Starts the index's worker unless one is there (it looks at the index every second), if a merge
 * is due or the index is to be settled once its writers pause: called by an insert that flushed.
 */
void
mih_merge_in_background(Relation index)
{
	BackgroundWorker worker;

	/*
	 * A temporary index's pages live in this backend's own buffers, which no other process can
	 * read, and autovacuum never comes to it: its inserter merges.
	 */
	if (RelationUsesLocalBuffers(index))
	{
		if (mih_big_merge_due(index, false))
			mih_merge(index, MIH_MERGE_BIG);
		return;
	}
	/* A worker would not see an index this transaction created: the first insert after it does. */
	if (index->rd_createSubid != InvalidSubTransactionId)
		return;
	if ((!settling(index) && !mih_big_merge_due(index, false)) || worker_running(index))
		return;
	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
#ifdef BGWORKER_INTERRUPTIBLE
	/* 19 terminates it for DROP DATABASE and the like; before, it leaves itself (mih_am_leave.c). */
	worker.bgw_flags |= BGWORKER_INTERRUPTIBLE;
#endif
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
 * Opens the worker's index and its table in a transaction of their own; false (and the
 * transaction over) if either is gone or the index is no longer a simhash_mih index of that table.
 * The table first, as every writer locks them.
 */
static bool
open_index(Oid indexoid, Relation *heap, Relation *index)
{
	Oid			heapoid;

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	*heap = *index = NULL;
	heapoid = IndexGetRelation(indexoid, true);
	if (OidIsValid(heapoid))
		*heap = try_relation_open(heapoid, RowExclusiveLock);
	if (*heap != NULL)
		*index = try_relation_open(indexoid, RowExclusiveLock);
	if (*index != NULL && (*index)->rd_rel->relkind == RELKIND_INDEX &&
		IndexGetRelation(indexoid, true) == heapoid && (*index)->rd_indam->aminsert == mih_insert)
		return true;
	if (*index != NULL)
		relation_close(*index, RowExclusiveLock);
	if (*heap != NULL)
		relation_close(*heap, RowExclusiveLock);
	CommitTransactionCommand();
	return false;
}

/*
 * Closes them and ends the transaction: no lock or snapshot is held between two looks. The
 * statistics go out now, not once the worker exits.
 */
static void
close_index(Relation heap, Relation index)
{
	relation_close(index, RowExclusiveLock);
	relation_close(heap, RowExclusiveLock);
	CommitTransactionCommand();
	(void) pgstat_report_stat(false);
}

/*
 * Waits LOOK_MS (or for SIGTERM, or the postmaster's death); rereads the settings on SIGHUP. Exits
 * if a command needs the database alone (mih_am_leave.c): no transaction is open here, and the
 * session locks go with the process.
 */
static void
wait_a_look(void)
{
	(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, LOOK_MS, PG_WAIT_EXTENSION);
	ResetLatch(MyLatch);
	CHECK_FOR_INTERRUPTS();
	if (mih_database_wanted())
	{
		ereport(LOG,
				(errmsg("simhash_mih merge worker leaves database %u: a command needs the database alone",
						MyDatabaseId)));
		proc_exit(0);
	}
	if (ConfigReloadPending)
	{
		ConfigReloadPending = false;
		ProcessConfigFile(PGC_SIGHUP);
	}
}

/* When the worker may merge with time to spare again (kept while it serves the index again). */
static TimestampTz spare_at = 0;

/* The time after SPARE_RATIO times what since took. */
static TimestampTz
rested(TimestampTz since)
{
	TimestampTz now = GetCurrentTimestamp();

	return now + SPARE_RATIO * (now - since);
}

/*
 * Merges while merges are due, then looks every LOOK_MS for another due merge, while rows are
 * inserted, and merges into the base with time to spare (SPARE_RATIO); once no row was inserted
 * for simhash.settle_delay, settles the index if it is due and returns. Returns at once after the
 * merges if it does not settle, or if the index is gone.
 */
static void
serve(Oid indexoid)
{
	uint64		seen = 0;
	TimestampTz changed = 0;

	for (;;)
	{
		Relation	heap;
		Relation	index;
		bool		done = true;
		bool		merged = false;
		TimestampTz start;

		if (!open_index(indexoid, &heap, &index))
			return;
		pgstat_report_activity(STATE_RUNNING, MyBgworkerEntry->bgw_name);
		start = GetCurrentTimestamp();
		while (mih_big_merge_due(index, true) && mih_merge_reported(index, MIH_MERGE_BIG) > 0)
			merged = true;
		if (merged)
			spare_at = Max(spare_at, rested(start));
		if (settling(index))
		{
			uint64		appended = mih_rows_appended(index);

			if (changed == 0 || appended != seen)
			{
				seen = appended;
				changed = GetCurrentTimestamp();
				done = false;
				if (changed >= spare_at && mih_settle_into_base_due(index))
				{
					(void) mih_merge_reported(index, MIH_MERGE_SETTLE);
					spare_at = rested(changed);
				}
			}
			else if (!TimestampDifferenceExceeds(changed, GetCurrentTimestamp(), sh_settle_delay_s * 1000))
				done = false;
			else if (mih_settle_due(index))
				mih_settle(index);
		}
		close_index(heap, index);
		if (done)
			return;
		pgstat_report_activity(STATE_IDLE, NULL);
		wait_a_look();
	}
}

/*
 * Whether a merge or a settle is due: an inserter may have flushed while the lock was held (it
 * then started no worker), or inserted since the settle.
 */
static bool
work_left(Oid indexoid)
{
	Relation	heap;
	Relation	index;
	bool		due;

	if (!open_index(indexoid, &heap, &index))
		return false;
	due = mih_big_merge_due(index, true) || (settling(index) && mih_settle_due(index));
	close_index(heap, index);
	return due;
}

/*
 * The worker. It connects without a role, as autovacuum does: it runs no user code (a merge reads
 * stored hashes and writes index pages), and an index's owner may be a role that cannot log in.
 * Its lock is a session lock, released when it exits, also on an error (ShutdownPostgres).
 */
void
simhash_mih_merge_worker(Datum arg)
{
	Oid			indexoid = DatumGetObjectId(arg);
	Oid			dboid;
	LOCKTAG		tag;

	memcpy(&dboid, MyBgworkerEntry->bgw_extra, sizeof(Oid));
	pqsignal(SIGTERM, die);
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnectionByOid(dboid, InvalidOid, 0);
	mih_leave_when_wanted();
	worker_tag(&tag, dboid, indexoid);
	if (LockAcquire(&tag, ExclusiveLock, true, true) == LOCKACQUIRE_NOT_AVAIL)
		proc_exit(0);
	for (;;)
	{
		serve(indexoid);
		/* Let go first, then look: an insert meanwhile either saw the lock free or is seen here. */
		LockRelease(&tag, ExclusiveLock, true);
		if (!work_left(indexoid) || LockAcquire(&tag, ExclusiveLock, true, true) == LOCKACQUIRE_NOT_AVAIL)
			break;
		/* Not at once: a merge that stays due but cannot start (a VACUUM merging) is no spin. */
		pgstat_report_activity(STATE_IDLE, NULL);
		wait_a_look();
	}
	proc_exit(0);
}
