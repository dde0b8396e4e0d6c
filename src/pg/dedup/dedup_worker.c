/*
 * The duplicate clusters kept current (src/install/70_dedup.sql), applied in the background with no
 * shared_preload_libraries. A registered table's capture trigger calls simhash_dedup_wake(), which
 * asks for the database's background worker (index_am/am/mih_worker.h: the simhash_mih merge
 * worker, which serves this too, within the same slots) as the writing transaction commits. On each
 * look the worker applies, for every registered table with changes queued, one batch in a
 * transaction of its own (simhash_dedup_run), so each batch shows as soon as it is applied; while
 * batches keep coming it looks again at once. It stays STAY_MS after the last change it applied:
 * a wake at a commit finds it there, or finds its slot free and starts a worker, which sees the
 * committed changes (a worker started just before a commit stays long enough to see it).
 * A table whose run fails (its keep expression, say) is logged and tried again after RETRY_MS; the
 * others go on. simhash.dedup_in_background = off leaves the queue to simhash_dedup_run, called by
 * a scheduler such as pg_cron.
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "utils/builtins.h"
#include "utils/elog.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "am/mih_worker.h"
#include "module_init.h"
#include "settings.h"

/* One batch of simhash_dedup_run_table: a transaction of the worker applies at most this many. */
#define BATCH_CHANGES		5000
#define STAY_MS				5000
#define RETRY_MS			30000
#define MAX_FAILED			32

PG_FUNCTION_INFO_V1(simhash_dedup_wake);

/* A table whose run failed, and when the worker tries it again. */
typedef struct Failed
{
	Oid			tbl;
	TimestampTz retry_at;
} Failed;

static Failed failed[MAX_FAILED];
static int	nfailed = 0;
static TimestampTz last_applied = 0;	/* 0: before the first look */
static bool wake_pending = false;

/*
 * The extension's schema, quoted, if this database has the state tables (version 1.4 on); else
 * NULL. Between SPI_connect and SPI_finish; the name is allocated in cxt.
 */
static const char *
state_schema(MemoryContext cxt)
{
	if (SPI_execute("SELECT pg_catalog.quote_ident(n.nspname) FROM pg_catalog.pg_extension e"
					" JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace"
					" WHERE e.extname OPERATOR(pg_catalog.=) 'simhash' AND EXISTS (SELECT FROM pg_catalog.pg_class c"
					"  WHERE c.relnamespace OPERATOR(pg_catalog.=) n.oid"
					"  AND c.relname OPERATOR(pg_catalog.=) 'simhash_dedup_queue')", true, 1) != SPI_OK_SELECT)
		elog(ERROR, "simhash_dedup: could not read pg_extension");
	if (SPI_processed == 0)
		return NULL;
	return MemoryContextStrdup(cxt, SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1));
}

static bool
waiting(Oid tbl, TimestampTz now)
{
	for (int i = 0; i < nfailed; i++)
		if (failed[i].tbl == tbl)
			return failed[i].retry_at > now;
	return false;
}

static void
note_failure(Oid tbl)
{
	TimestampTz retry_at = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), RETRY_MS);

	for (int i = 0; i < nfailed; i++)
		if (failed[i].tbl == tbl)
		{
			failed[i].retry_at = retry_at;
			return;
		}
	if (nfailed == MAX_FAILED)
		failed[0] = failed[--nfailed];	/* forget one: it is tried at once */
	failed[nfailed].tbl = tbl;
	failed[nfailed].retry_at = retry_at;
	nfailed++;
}

/* Forgets the failures of tables that no longer have changes queued (stopped, dropped, mended). */
static void
forget_failures_but(const Oid *tables, int n)
{
	for (int i = 0; i < nfailed;)
	{
		bool		queued = false;

		for (int j = 0; j < n && !queued; j++)
			queued = tables[j] == failed[i].tbl;
		if (queued)
			i++;
		else
			failed[i] = failed[--nfailed];
	}
}

/* Whether any registered table of the database has changes queued. */
static bool
dedup_due(void)
{
	const char *schema;
	bool		due = false;

	if (!sh_dedup_in_background)
		return false;
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	SPI_connect();
	schema = state_schema(CurTransactionContext);
	if (schema != NULL)
	{
		bool		isnull;

		if (SPI_execute(psprintf("SELECT EXISTS (SELECT FROM %s.simhash_dedup_queue)", schema), true, 1) !=
			SPI_OK_SELECT)
			elog(ERROR, "simhash_dedup: could not read the queue");
		due = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	}
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	return due;
}

/*
 * The registered tables with changes queued, in oid order; *n of them, of *registered tables.
 * Allocated in cxt.
 */
static Oid *
tables_with_changes(MemoryContext cxt, int *n, uint64 *registered, const char **schema_out)
{
	Oid		   *tables = NULL;
	const char *schema;

	*n = 0;
	*registered = 0;
	*schema_out = NULL;
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	SPI_connect();
	schema = state_schema(cxt);
	if (schema != NULL)
	{
		if (SPI_execute(psprintf("SELECT g.tbl::oid, EXISTS (SELECT FROM %1$s.simhash_dedup_queue q"
								 " WHERE q.tbl = g.tbl) FROM %1$s.simhash_dedup_tables g ORDER BY 1",
								 schema), true, 0) != SPI_OK_SELECT)
			elog(ERROR, "simhash_dedup: could not read the registered tables");
		*registered = SPI_processed;
		tables = MemoryContextAlloc(cxt, Max(1, SPI_processed) * sizeof(Oid));
		for (uint64 i = 0; i < SPI_processed; i++)
		{
			bool		isnull;

			if (DatumGetBool(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2, &isnull)))
				tables[(*n)++] = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1,
																  &isnull));
		}
		*schema_out = schema;
	}
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	return tables;
}

/*
 * Applies one batch of the table's changes in a transaction of its own; how many (-1: it failed,
 * logged). A table dropped meanwhile is no failure.
 */
static int64
apply_batch(const char *schema, Oid tbl)
{
	MemoryContext cxt = CurrentMemoryContext;
	int64		done = 0;
	char		activity[96];

	snprintf(activity, sizeof(activity), "simhash_dedup_run of table %u", tbl);
	pgstat_report_activity(STATE_RUNNING, activity);
	PG_TRY();
	{
		Oid			argtypes[1] = {REGCLASSOID};
		Datum		args[1] = {ObjectIdGetDatum(tbl)};
		bool		isnull;

		StartTransactionCommand();
		PushActiveSnapshot(GetTransactionSnapshot());
		SPI_connect();
		if (SPI_execute_with_args(psprintf("SELECT %s.simhash_dedup_run($1, %d)", schema, BATCH_CHANGES), 1,
								  argtypes, args, NULL, false, 1) != SPI_OK_SELECT)
			elog(ERROR, "simhash_dedup: could not run");
		done = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
		SPI_finish();
		PopActiveSnapshot();
		CommitTransactionCommand();
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		AbortCurrentTransaction();
		done = -1;
		if (edata->sqlerrcode != ERRCODE_UNDEFINED_OBJECT && edata->sqlerrcode != ERRCODE_UNDEFINED_TABLE)
		{
			ereport(WARNING,
					(errcode(edata->sqlerrcode),
					 errmsg("simhash_dedup: the background run of table %u failed, tried again in %d s: %s",
							tbl, RETRY_MS / 1000, edata->message)));
			note_failure(tbl);
		}
		FreeErrorData(edata);
	}
	PG_END_TRY();
	return done;
}

/* One look: a batch of each table with changes queued (but those waiting after a failure). */
static MihServiceState
dedup_serve(void)
{
	static MemoryContext cxt = NULL;
	const char *schema;
	Oid		   *tables;
	int			n;
	uint64		registered;
	bool		more = false;
	TimestampTz now = GetCurrentTimestamp();

	if (!sh_dedup_in_background)
		return MIH_SERVICE_IDLE;
	if (cxt == NULL)
		cxt = AllocSetContextCreate(TopMemoryContext, "simhash_dedup worker", ALLOCSET_SMALL_SIZES);
	MemoryContextReset(cxt);
	tables = tables_with_changes(cxt, &n, &registered, &schema);
	/* no table registered: nothing to stay for (a merge worker leaves as soon as its merges are done) */
	if (registered == 0)
		return MIH_SERVICE_IDLE;
	/* a worker started by a wake stays STAY_MS for the commit that woke it */
	if (last_applied == 0)
		last_applied = now;
	for (int i = 0; i < n; i++)
	{
		int64		done;

		if (waiting(tables[i], now))
			continue;
		done = apply_batch(schema, tables[i]);
		if (done > 0)
			last_applied = GetCurrentTimestamp();
		if (done >= BATCH_CHANGES)
			more = true;
	}
	forget_failures_but(tables, n);
	if (more)
		return MIH_SERVICE_MORE;
	if (nfailed > 0 || !TimestampDifferenceExceeds(last_applied, GetCurrentTimestamp(), STAY_MS))
		return MIH_SERVICE_STAY;
	return MIH_SERVICE_IDLE;
}

static const MihWorkerService dedup_service = {dedup_due, dedup_serve};

/* At the commit of a transaction whose statements queued changes: a worker, unless one is there. */
static void
wake_at_commit(XactEvent event, void *arg)
{
	if (!wake_pending)
		return;
	if (event == XACT_EVENT_PRE_COMMIT)
	{
		wake_pending = false;
		mih_worker_start();
	}
	else if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PREPARE || event == XACT_EVENT_COMMIT ||
			 event == XACT_EVENT_PARALLEL_ABORT || event == XACT_EVENT_PARALLEL_COMMIT)
		wake_pending = false;
}

/* simhash_dedup_wake(): called by the capture trigger, statement by statement. */
Datum
simhash_dedup_wake(PG_FUNCTION_ARGS)
{
	static bool registered = false;

	if (sh_dedup_in_background)
	{
		if (!registered)
		{
			RegisterXactCallback(wake_at_commit, NULL);
			registered = true;
		}
		wake_pending = true;
	}
	PG_RETURN_VOID();
}

void
simhash_dedup_init(void)
{
	mih_worker_add_service(&dedup_service);
}
