#include "crawl_source.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "source_hint.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#define FETCH_ROWS 10000

int			sh_pairs_memory_limit_kb = 1024 * 1024;
int			sh_job_threads = 2;

static int
compare_int64(const void *a, const void *b)
{
	int64		x = *(const int64 *) a;
	int64		y = *(const int64 *) b;

	return x < y ? -1 : (x > y ? 1 : 0);
}

static void
check_columns(TupleDesc desc, Oid simhash_type)
{
	Oid			id_type,
				sh_type;

	if (desc->natts != 2)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the source query must return 2 columns (id, sh), it returns %d", desc->natts)));
	id_type = TupleDescAttr(desc, 0)->atttypid;
	sh_type = TupleDescAttr(desc, 1)->atttypid;
	if (id_type != INT8OID && id_type != INT4OID && id_type != INT2OID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the first column of the source query (the id) must be bigint, integer or smallint, not %s",
						format_type_be(id_type))));
	if (sh_type != simhash_type && sh_type != INT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the second column of the source query must be simhash or bigint, not %s",
						format_type_be(sh_type))));
}

static int64
id_value(Datum d, Oid type)
{
	if (type == INT8OID)
		return DatumGetInt64(d);
	if (type == INT4OID)
		return DatumGetInt32(d);
	return DatumGetInt16(d);
}

CrawlRows
read_crawl_source(const char *source, Oid simhash_type, size_t bytes_per_row)
{
	MemoryContext target = CurrentMemoryContext;
	CrawlRows	rows = {0};
	size_t		capacity = 0;
	int64		skipped = 0;
	size_t		limit_bytes = (size_t) sh_pairs_memory_limit_kb * 1024;
	SPIPlanPtr	plan;
	Portal		portal;
	ErrorContextCallback hint_callback;
	Oid			id_type;
	int64	   *sorted;

	/* Errors of the source under an empty search_path (pg_restore) get a hint: see source_hint.h. */
	hint_callback.callback = sh_source_search_path_hint;
	hint_callback.arg = NULL;
	hint_callback.previous = error_context_stack;
	error_context_stack = &hint_callback;
	SPI_connect();
	plan = SPI_prepare(source, 0, NULL);
	if (plan == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_SYNTAX_ERROR),
				 errmsg("could not prepare the source query: %s", SPI_result_code_string(SPI_result))));
	if (!SPI_is_cursor_plan(plan))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("the source query must be a SELECT (or another statement returning rows)")));
	portal = SPI_cursor_open(NULL, plan, NULL, NULL, true);
	check_columns(portal->tupDesc, simhash_type);
	id_type = TupleDescAttr(portal->tupDesc, 0)->atttypid;

	for (;;)
	{
		CHECK_FOR_INTERRUPTS();
		SPI_cursor_fetch(portal, true, FETCH_ROWS);
		if (SPI_processed == 0)
			break;
		if (rows.n + SPI_processed > capacity)
		{
			size_t		grown = Max(capacity * 2, rows.n + SPI_processed);

			if (grown * (2 * sizeof(int64) + bytes_per_row) > limit_bytes)
				grown = rows.n + SPI_processed;
			if (grown * (2 * sizeof(int64) + bytes_per_row) > limit_bytes)
				ereport(ERROR,
						(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						 errmsg("the source has more rows than simhash.pairs_memory_limit (%d kB) allows",
								sh_pairs_memory_limit_kb),
						 errdetail("%zu rows need about %zu kB.", grown,
								   grown * (2 * sizeof(int64) + bytes_per_row) / 1024),
						 errhint("Raise simhash.pairs_memory_limit, or process the crawl in parts.")));
			rows.ids = rows.ids ? repalloc_huge(rows.ids, grown * sizeof(int64))
				: MemoryContextAllocHuge(target, grown * sizeof(int64));
			rows.hashes = rows.hashes ? repalloc_huge(rows.hashes, grown * sizeof(uint64))
				: MemoryContextAllocHuge(target, grown * sizeof(uint64));
			capacity = grown;
		}
		for (uint64 i = 0; i < SPI_processed; i++)
		{
			HeapTuple	tuple = SPI_tuptable->vals[i];
			bool		id_null,
						sh_null;
			Datum		id = SPI_getbinval(tuple, SPI_tuptable->tupdesc, 1, &id_null);
			Datum		sh = SPI_getbinval(tuple, SPI_tuptable->tupdesc, 2, &sh_null);

			if (id_null || sh_null)
			{
				skipped++;
				continue;
			}
			rows.ids[rows.n] = id_value(id, id_type);
			rows.hashes[rows.n] = (uint64) DatumGetInt64(sh);
			rows.n++;
		}
		SPI_freetuptable(SPI_tuptable);
	}
	SPI_cursor_close(portal);
	SPI_finish();
	error_context_stack = hint_callback.previous;

	if (skipped > 0)
		ereport(NOTICE,
				(errmsg_plural("skipped %lld source row with a NULL id or hash",
							   "skipped %lld source rows with a NULL id or hash",
							   skipped, (long long) skipped)));

	if (rows.ids == NULL)
	{
		/* An empty source still returns arrays the caller can free. */
		rows.ids = MemoryContextAlloc(target, sizeof(int64));
		rows.hashes = MemoryContextAlloc(target, sizeof(uint64));
	}
	sorted = palloc_extended(Max(rows.n, 1) * sizeof(int64), MCXT_ALLOC_HUGE);
	memcpy(sorted, rows.ids, rows.n * sizeof(int64));
	qsort(sorted, rows.n, sizeof(int64), compare_int64);
	for (size_t i = 1; i < rows.n; i++)
		if (sorted[i] == sorted[i - 1])
			ereport(ERROR,
					(errcode(ERRCODE_UNIQUE_VIOLATION),
					 errmsg("duplicate id %lld in the source query", (long long) sorted[i]),
					 errhint("Each page must have one id; deduplicate the source first.")));
	pfree(sorted);
	return rows;
}
