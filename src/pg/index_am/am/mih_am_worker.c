/*
 * The background merge of simhash_mih indexes' big runs, or of their runs into their base run
 * (mih_am_merge.c). Such a merge rewrites millions of rows, seconds of work that no inserter should
 * wait for and that cannot wait for the next VACUUM either (autovacuum comes to an insert-only
 * table after a fifth of its rows were inserted: hours on a big table). So the inserter that
 * flushes and finds one due starts a dynamic background worker, as parallel queries start theirs:
 * no shared_preload_libraries needed. One worker serves every simhash_mih index of its database
 * (simhash.max_merge_workers_per_database allows more): a crawl table of many partitions, each
 * with its index, leaves the other users of max_worker_processes (parallel query, logical
 * replication) their slots. The worker merges while any such merge is due; flushes, inserts, scans
 * and small merges go on meanwhile. Then it stays while the writers write, looking at its indexes
 * every second (and merging the runs beside the base into it when it has the time: see
 * MIH_SPARE_RATIO), and once no row was inserted into an index for simhash.settle_delay it settles it
 * (mih_settle: the pending rows and the runs beside the biggest merged); once no index of the
 * database has work left, it exits: a crawl database rests between crawls, and nothing else would
 * merge what the last flushes left (an insert that does not flush starts no merge, and autovacuum
 * comes late). While it stays, it leaves at once when DROP DATABASE, ALTER DATABASE ... RENAME TO
 * or ... SET TABLESPACE needs the database alone (mih_am_leave.c).
 *
 * Two kinds of session locks (advisory, in objsubids the pg_advisory_* functions never use) keep
 * the count and make sure no flush's work is missed. A worker holds one of the database's
 * simhash.max_merge_workers_per_database slot locks while it runs (one that finds none free exits
 * at once), and the lock of each index it serves (claims), taken without waiting: another worker
 * serving the index leaves it to that one. An inserter that flushed starts a worker unless the
 * index is claimed or no slot is free; a worker that lets go of an index's claim looks once more
 * at its work, and one that lets go of its slot looks once more at every index of the database, so
 * the work of a flush that saw either lock taken is seen (no shared memory is needed, so the
 * worker finds its indexes in pg_class). When no worker slot is free (max_worker_processes),
 * VACUUM does the merges due; a temporary index's inserter does them itself.
 * pg_stat_progress_vacuum shows the worker's merges as the cleanup of the table's indexes, and
 * simhash_mih_merge_progress their phases and rows; pg_stat_activity shows the worker idle while
 * it waits.
 *
 * Other wings add services to the worker (mih_worker.h: the duplicate clusters kept current), which
 * it serves on each look within the same slots, and stays for while any has work.
 */
#include "am/mih_am.h"
#include "am/mih_worker.h"
#include "settings.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "catalog/pg_class.h"
#include "commands/defrem.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "tcop/tcopprot.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

/* How often the worker looks while it waits. */
#define LOOK_MS				1000
/*
 * The locks' objsubids (pg_locks shows them): the pg_advisory_* functions take 1 and 2 only, so no
 * user can hold them. An index's claim has the index in classid; a slot its number.
 */
#define CLAIM_LOCK_KIND		0x5348
#define SLOT_LOCK_KIND		0x5357

PGDLLEXPORT void simhash_mih_merge_worker(Datum arg);

/* An index the worker serves: it holds its claim. */
typedef struct Served
{
	Oid			index;
	uint64		seen;			/* the rows appended when it last looked */
	TimestampTz changed;		/* when they changed last; 0 before its first look */
	TimestampTz spare_at;		/* when it may merge into the base with time to spare again */
} Served;

/* The indexes the worker serves, in TopMemoryContext. */
static Served *served = NULL;
static int	nserved = 0;
static int	maxserved = 0;

/* The services other wings added (mih_worker_add_service). */
#define MAX_SERVICES		4
static const MihWorkerService *services[MAX_SERVICES];
static int	nservices = 0;

void
mih_worker_add_service(const MihWorkerService *service)
{
	if (nservices == MAX_SERVICES)
		elog(ERROR, "simhash: too many background worker services");
	services[nservices++] = service;
}

static void
claim_tag(LOCKTAG *tag, Oid indexoid)
{
	SET_LOCKTAG_ADVISORY(*tag, MyDatabaseId, indexoid, 0, CLAIM_LOCK_KIND);
}

static void
slot_tag(LOCKTAG *tag, int slot)
{
	SET_LOCKTAG_ADVISORY(*tag, MyDatabaseId, (uint32) slot, 0, SLOT_LOCK_KIND);
}

/* Takes the session lock without waiting; false if another process holds it. */
static bool
try_lock(const LOCKTAG *tag)
{
	return LockAcquire(tag, ExclusiveLock, true, true) != LOCKACQUIRE_NOT_AVAIL;
}

static void
unlock(const LOCKTAG *tag)
{
	LockRelease(tag, ExclusiveLock, true);
}

/* Whether the lock is held (by another process: this one never tests its own). */
static bool
held(const LOCKTAG *tag)
{
	if (!try_lock(tag))
		return true;
	unlock(tag);
	return false;
}

/* Whether the worker settles an index once its writers pause: simhash.settle_delay is not -1. */
static bool
settling(Relation index)
{
	return sh_settle_delay_s >= 0 && mih_settles(index);
}

/* Takes a free worker slot of the database; -1 if none is free. */
static int
take_slot(void)
{
	LOCKTAG		tag;

	for (int slot = 0; slot < sh_max_merge_workers_per_db; slot++)
	{
		slot_tag(&tag, slot);
		if (try_lock(&tag))
			return slot;
	}
	return -1;
}

/* Whether a worker slot of the database is free. */
static bool
slot_free(void)
{
	LOCKTAG		tag;

	for (int slot = 0; slot < sh_max_merge_workers_per_db; slot++)
	{
		slot_tag(&tag, slot);
		if (!held(&tag))
			return true;
	}
	return false;
}

/* Registers a worker for this backend's database (it exits at once if it finds no slot free). */
static void
start_worker(void)
{
	BackgroundWorker worker;

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
	snprintf(worker.bgw_name, BGW_MAXLEN, "simhash_mih merge of database %u", MyDatabaseId);
	snprintf(worker.bgw_type, BGW_MAXLEN, "simhash_mih merge");
	worker.bgw_main_arg = ObjectIdGetDatum(MyDatabaseId);
	(void) RegisterDynamicBackgroundWorker(&worker, NULL);
}

/*
 * Starts a worker for the index's database if a merge is due or the index is to be settled once
 * its writers pause, unless a worker serves the index or the database has no worker slot free
 * (then a worker is there, which looks at every index of the database every second, and once more
 * when it lets go of its slot): called by an insert that flushed.
 */
void
mih_merge_in_background(Relation index)
{
	LOCKTAG		tag;

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
	if (!settling(index) && !mih_big_merge_due(index, false))
		return;
	claim_tag(&tag, RelationGetRelid(index));
	if (held(&tag) || !slot_free())
		return;
	start_worker();
}

void
mih_worker_start(void)
{
	if (slot_free())
		start_worker();
}

typedef enum Opened
{
	OPENED,
	GONE,						/* or no longer a simhash_mih index of its table, or not yet built */
	BUSY						/* the table or the index locked by another command */
} Opened;

/*
 * Opens an index and its table in a transaction of their own; unless OPENED, the transaction is
 * over. The locks are taken without waiting: one table's long ALTER or CREATE INDEX does not stall
 * the merges of the database's other indexes (the worker looks again in a second). Not an index
 * that CREATE INDEX CONCURRENTLY has not built yet. The table first, as every writer locks them.
 */
static Opened
open_index(Oid indexoid, Relation *heap, Relation *index)
{
	Oid			heapoid;
	Opened		opened = GONE;

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	*heap = *index = NULL;
	heapoid = IndexGetRelation(indexoid, true);
	if (OidIsValid(heapoid))
	{
		if (!ConditionalLockRelationOid(heapoid, RowExclusiveLock))
			opened = BUSY;
		else if ((*heap = try_relation_open(heapoid, NoLock)) != NULL &&
				 !ConditionalLockRelationOid(indexoid, RowExclusiveLock))
			opened = BUSY;
		else if (*heap != NULL)
			*index = try_relation_open(indexoid, NoLock);
	}
	if (*index != NULL && (*index)->rd_rel->relkind == RELKIND_INDEX && (*index)->rd_index->indisready &&
		IndexGetRelation(indexoid, true) == heapoid && mih_is_ours(*index))
		return OPENED;
	if (*index != NULL)
		relation_close(*index, NoLock);
	if (*heap != NULL)
		relation_close(*heap, NoLock);
	/* The locks taken go with the transaction. */
	CommitTransactionCommand();
	return opened;
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
 * The simhash_mih indexes of the database, from pg_class (not temporary ones: their pages live in
 * their backend's own buffers). Allocated in the caller's memory context.
 */
static Oid *
database_indexes(int *n)
{
	MemoryContext caller = CurrentMemoryContext;
	Oid		   *oids = NULL;
	int			max = 0;
	Oid			amoid;

	*n = 0;
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	amoid = get_index_am_oid("simhash_mih", true);
	if (OidIsValid(amoid))
	{
		Relation	pg_class = table_open(RelationRelationId, AccessShareLock);
		ScanKeyData key;
		SysScanDesc scan;
		HeapTuple	tuple;

		ScanKeyInit(&key, Anum_pg_class_relam, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(amoid));
		scan = systable_beginscan(pg_class, InvalidOid, false, NULL, 1, &key);
		while (HeapTupleIsValid(tuple = systable_getnext(scan)))
		{
			Form_pg_class form = (Form_pg_class) GETSTRUCT(tuple);

			CHECK_FOR_INTERRUPTS();
			if (form->relkind != RELKIND_INDEX || form->relpersistence == RELPERSISTENCE_TEMP)
				continue;
			if (*n == max)
			{
				max = Max(16, 2 * max);
				oids = oids == NULL ? MemoryContextAlloc(caller, max * sizeof(Oid)) : repalloc(oids, max * sizeof(Oid));
			}
			oids[(*n)++] = form->oid;
		}
		systable_endscan(scan);
		table_close(pg_class, AccessShareLock);
	}
	CommitTransactionCommand();
	return oids;
}

/*
 * Whether the index has a merge due or is to be settled; a locked one may have (an inserter that
 * flushed may have seen its claim).
 */
static bool
work_due(Oid indexoid)
{
	Relation	heap;
	Relation	index;
	bool		due;

	switch (open_index(indexoid, &heap, &index))
	{
		case OPENED:
			break;
		case BUSY:
			return true;
		case GONE:
			return false;
	}
	due = mih_big_merge_due(index, true) || (settling(index) && mih_settle_due(index));
	close_index(heap, index);
	return due;
}

static Served *
find_served(Oid indexoid)
{
	for (int i = 0; i < nserved; i++)
		if (served[i].index == indexoid)
			return &served[i];
	return NULL;
}

/*
 * Claims the index if no worker serves it and it has work; true if it does. A claim let go of
 * since keeps the time the worker may merge with time to spare.
 */
static bool
claim(Oid indexoid, TimestampTz spare_at)
{
	LOCKTAG		tag;

	claim_tag(&tag, indexoid);
	if (!try_lock(&tag))
		return false;
	if (!work_due(indexoid))
	{
		unlock(&tag);
		return false;
	}
	if (nserved == maxserved)
	{
		maxserved = Max(16, 2 * maxserved);
		served = served == NULL ? MemoryContextAlloc(TopMemoryContext, maxserved * sizeof(Served)) :
			repalloc(served, maxserved * sizeof(Served));
	}
	served[nserved].index = indexoid;
	served[nserved].seen = 0;
	served[nserved].changed = 0;
	served[nserved].spare_at = spare_at;
	nserved++;
	return true;
}

/* Lets go of the claim of served[i]; true if the worker claimed the index again (work came). */
static bool
let_go(int i)
{
	LOCKTAG		tag;
	Served		s = served[i];

	claim_tag(&tag, s.index);
	unlock(&tag);
	served[i] = served[--nserved];
	return claim(s.index, s.spare_at);
}

/* Claims every index of the database that has work and no worker. */
static void
claim_all(void)
{
	int			n;
	Oid		   *oids = database_indexes(&n);

	for (int i = 0; i < n; i++)
		if (find_served(oids[i]) == NULL)
			(void) claim(oids[i], 0);
	if (oids != NULL)
		pfree(oids);
}

/* Whether an index of the database that no worker serves has work (the worker serves none). */
static bool
work_left(void)
{
	int			n;
	Oid		   *oids = database_indexes(&n);
	bool		left = false;

	for (int i = 0; i < n && !left; i++)
	{
		LOCKTAG		tag;

		claim_tag(&tag, oids[i]);
		if (!try_lock(&tag))
			continue;
		left = work_due(oids[i]);
		unlock(&tag);
	}
	if (oids != NULL)
		pfree(oids);
	for (int i = 0; i < nservices && !left; i++)
		left = services[i]->due();
	return left;
}

/* Waits LOOK_MS (or for SIGTERM, or the postmaster's death); rereads the settings on SIGHUP. */
static void
wait_a_look(void)
{
	pgstat_report_activity(STATE_IDLE, NULL);
	(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, LOOK_MS, PG_WAIT_EXTENSION);
	ResetLatch(MyLatch);
	CHECK_FOR_INTERRUPTS();
	if (ConfigReloadPending)
	{
		ConfigReloadPending = false;
		ProcessConfigFile(PGC_SIGHUP);
	}
}

/*
 * Exits if a command needs the database alone (mih_am_leave.c): called between looks, where no
 * transaction is open; the session locks go with the process.
 */
static void
leave_if_wanted(void)
{
	if (!mih_database_wanted())
		return;
	ereport(LOG,
			(errmsg("simhash_mih merge worker leaves database %u: a command needs the database alone",
					MyDatabaseId)));
	proc_exit(0);
}

/* The time after MIH_SPARE_RATIO times what since took. */
static TimestampTz
rested(TimestampTz since)
{
	TimestampTz now = GetCurrentTimestamp();

	return now + MIH_SPARE_RATIO * (now - since);
}

/*
 * One look at a served index: merges while merges are due; while rows are inserted, merges into
 * the base with time to spare (MIH_SPARE_RATIO); once no row was inserted for simhash.settle_delay,
 * settles the index if it is due. False once the index is done with: settled, or not to be settled
 * (simhash.settle_delay = -1, base_share = 0) and merged, or gone. A locked index waits for the
 * next look.
 */
static bool
look_at(Served *s)
{
	Relation	heap;
	Relation	index;
	bool		more = false;
	bool		merged = false;
	TimestampTz start;
	char		activity[64];

	switch (open_index(s->index, &heap, &index))
	{
		case OPENED:
			break;
		case BUSY:
			return true;
		case GONE:
			return false;
	}
	snprintf(activity, sizeof(activity), "simhash_mih merge of index %u", s->index);
	pgstat_report_activity(STATE_RUNNING, activity);
	start = GetCurrentTimestamp();
	while (mih_big_merge_due(index, true) && mih_merge_reported(index, MIH_MERGE_BIG) > 0)
		merged = true;
	if (merged)
		s->spare_at = Max(s->spare_at, rested(start));
	if (settling(index))
	{
		uint64		appended = mih_rows_appended(index);

		if (s->changed == 0 || appended != s->seen)
		{
			s->seen = appended;
			s->changed = GetCurrentTimestamp();
			more = true;
			if (s->changed >= s->spare_at && mih_settle_into_base_due(index))
			{
				(void) mih_merge_reported(index, MIH_MERGE_SETTLE);
				s->spare_at = rested(s->changed);
			}
		}
		else if (!TimestampDifferenceExceeds(s->changed, GetCurrentTimestamp(), sh_settle_delay_s * 1000))
			more = true;
		else if (mih_settle_due(index))
			mih_settle(index);
	}
	close_index(heap, index);
	return more;
}

/*
 * Serves the indexes of the database with work, and the services, until neither has work left:
 * every LOOK_MS (at once while a service has more waiting), claims the indexes that came to have
 * work and looks at each it serves, then at each service; lets go of the indexes done with, after
 * one more look at their work (an inserter that flushed meanwhile saw the claim and started no
 * worker).
 */
static void
serve(void)
{
	for (;;)
	{
		MihServiceState state = MIH_SERVICE_IDLE;

		leave_if_wanted();
		claim_all();
		for (int i = 0; i < nserved;)
		{
			if (look_at(&served[i]) || let_go(i))
				i++;
		}
		for (int i = 0; i < nservices; i++)
			state = Max(state, services[i]->serve());
		if (nserved == 0 && state == MIH_SERVICE_IDLE)
			return;
		if (state != MIH_SERVICE_MORE)
			wait_a_look();
		else
			CHECK_FOR_INTERRUPTS();
	}
}

/*
 * The worker of a database. It connects without a role, as autovacuum does: its merges run no
 * user code (a merge reads stored hashes and writes index pages), an index's owner may be a role
 * that cannot log in, and what its services run of a table's own code runs as the table's owner
 * (simhash_dedup_as_owner). Its locks are session locks, released when it exits, also on an error
 * (ShutdownPostgres).
 */
void
simhash_mih_merge_worker(Datum arg)
{
	Oid			dboid = DatumGetObjectId(arg);
	LOCKTAG		tag;
	int			slot;

	pqsignal(SIGTERM, die);
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnectionByOid(dboid, InvalidOid, 0);
	mih_leave_when_wanted();
	slot = take_slot();
	while (slot >= 0)
	{
		serve();

		/*
		 * Let go first, then look: a flush meanwhile either saw the slot free (and started a
		 * worker) or is seen here; if another worker took the slot meanwhile, it looks again once
		 * it lets go. Not at once: a merge that stays due but cannot start (a VACUUM merging) is
		 * no spin.
		 */
		slot_tag(&tag, slot);
		unlock(&tag);
		if (!work_left())
			break;
		slot = take_slot();
		if (slot >= 0)
			wait_a_look();
	}
	proc_exit(0);
}
