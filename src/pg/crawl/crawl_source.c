#include "crawl_source.h"

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "page_bridge.h"
#include "source_query.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

static void
check_columns(TupleDesc desc, Oid simhash_type, Oid sketch_type)
{
	Oid			id_type,
				sh_type;

	if (OidIsValid(sketch_type) && desc->natts != 3)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the source query must return 3 columns (id, sh, sketch), it returns %d", desc->natts)));
	if (!OidIsValid(sketch_type) && desc->natts != 2)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the source query must return 2 columns (id, sh), it returns %d", desc->natts)));
	if (OidIsValid(sketch_type) && getBaseType(TupleDescAttr(desc, 2)->atttypid) != sketch_type)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the third column of the source query must be resemblance_sketch, not %s",
						format_type_be(TupleDescAttr(desc, 2)->atttypid))));
	/* A domain over bigint (or simhash) is as good as its base type. */
	id_type = getBaseType(TupleDescAttr(desc, 0)->atttypid);
	sh_type = getBaseType(TupleDescAttr(desc, 1)->atttypid);
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

void
check_pairs_memory(const char *what, size_t rows, size_t bytes)
{
	if (bytes > (size_t) sh_pairs_memory_limit_kb * 1024)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s has more rows than simhash.pairs_memory_limit (%d kB) allows",
						what, sh_pairs_memory_limit_kb),
				 errdetail("%zu rows need about %zu kB.", rows, bytes / 1024),
				 errhint("Raise simhash.pairs_memory_limit, or process the crawl in parts.")));
}

CrawlRows
read_crawl_source(const char *source, Oid simhash_type, Oid sketch_type, size_t bytes_per_row)
{
	bool		with_sketch = OidIsValid(sketch_type);
	size_t		row_bytes = 2 * sizeof(int64) + (with_sketch ? SH_RESEMBLANCE_BYTES : 0) + bytes_per_row;
	MemoryContext target = CurrentMemoryContext;
	CrawlRows	rows = {0};
	size_t		capacity = 0;
	int64		skipped = 0;
	size_t		limit_bytes = (size_t) sh_pairs_memory_limit_kb * 1024;
	SourceQuery query;
	Oid			id_type;
	int64	   *sorted;

	source_query_open(&query, source, source);
	check_columns(source_query_columns(&query), simhash_type, sketch_type);
	id_type = getBaseType(TupleDescAttr(source_query_columns(&query), 0)->atttypid);

	while (source_query_fetch(&query))
	{
		if (rows.n + SPI_processed > capacity)
		{
			size_t		grown = Max(capacity * 2, rows.n + SPI_processed);

			if (grown * row_bytes > limit_bytes)
				grown = rows.n + SPI_processed;
			check_pairs_memory("the source", grown, grown * row_bytes);
			rows.ids = rows.ids ? repalloc_huge(rows.ids, grown * sizeof(int64))
				: MemoryContextAllocHuge(target, grown * sizeof(int64));
			rows.hashes = rows.hashes ? repalloc_huge(rows.hashes, grown * sizeof(uint64))
				: MemoryContextAllocHuge(target, grown * sizeof(uint64));
			if (with_sketch)
				rows.sketches = rows.sketches ? repalloc_huge(rows.sketches, grown * SH_RESEMBLANCE_BYTES)
					: MemoryContextAllocHuge(target, grown * SH_RESEMBLANCE_BYTES);
			capacity = grown;
		}
		for (uint64 i = 0; i < SPI_processed; i++)
		{
			HeapTuple	tuple = SPI_tuptable->vals[i];
			bool		id_null,
						sh_null,
						sketch_null = false;
			Datum		id = SPI_getbinval(tuple, SPI_tuptable->tupdesc, 1, &id_null);
			Datum		sh = SPI_getbinval(tuple, SPI_tuptable->tupdesc, 2, &sh_null);
			Datum		sketch = with_sketch ? SPI_getbinval(tuple, SPI_tuptable->tupdesc, 3, &sketch_null) : 0;

			if (id_null || sh_null || sketch_null)
			{
				skipped++;
				continue;
			}
			rows.ids[rows.n] = integer_value(id, id_type);
			rows.hashes[rows.n] = (uint64) DatumGetInt64(sh);
			if (with_sketch)
				memcpy(rows.sketches + rows.n * SH_RESEMBLANCE_BYTES, DatumGetPointer(sketch), SH_RESEMBLANCE_BYTES);
			rows.n++;
		}
	}
	source_query_close(&query);

	if (skipped > 0)
		ereport(NOTICE,
				(errmsg_plural(with_sketch ? "skipped %lld source row with a NULL id, hash or sketch"
							   : "skipped %lld source row with a NULL id or hash",
							   with_sketch ? "skipped %lld source rows with a NULL id, hash or sketch"
							   : "skipped %lld source rows with a NULL id or hash",
							   skipped, (long long) skipped)));

	if (rows.ids == NULL)
	{
		/* An empty source still returns arrays the caller can free. */
		rows.ids = MemoryContextAlloc(target, sizeof(int64));
		rows.hashes = MemoryContextAlloc(target, sizeof(uint64));
		if (with_sketch)
			rows.sketches = MemoryContextAlloc(target, SH_RESEMBLANCE_BYTES);
	}
	sorted = palloc_extended(Max(rows.n, 1) * sizeof(int64), MCXT_ALLOC_HUGE);
	memcpy(sorted, rows.ids, rows.n * sizeof(int64));
	sort_unique_ids(sorted, rows.n);
	pfree(sorted);
	return rows;
}
