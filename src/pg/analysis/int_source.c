#include "int_source.h"

#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "source_hint.h"
#include "utils/memutils.h"

#define FETCH_ROWS 10000

IntColumns
read_int_source(const char *source, int ncols, const char *order_by)
{
	MemoryContext target = CurrentMemoryContext;
	IntColumns	result = {{NULL}, 0, 0};
	size_t		capacity = 0;
	StringInfoData query;
	SPIPlanPtr	plan;
	Portal		portal;
	ErrorContextCallback hint_callback;

	Assert(ncols >= 1 && ncols <= 3);
	initStringInfo(&query);
	appendStringInfoString(&query, "SELECT ");
	for (int c = 1; c <= ncols; c++)
		appendStringInfo(&query, "%sc%d::bigint", c > 1 ? ", " : "", c);
	appendStringInfo(&query, " FROM (%s) s(", source);
	for (int c = 1; c <= ncols; c++)
		appendStringInfo(&query, "%sc%d", c > 1 ? ", " : "", c);
	appendStringInfoString(&query, ")");
	if (order_by)
		appendStringInfo(&query, " ORDER BY %s", order_by);

	/* Errors of the source under an empty search_path (pg_restore) get a hint: see source_hint.h. */
	hint_callback.callback = sh_source_search_path_hint;
	hint_callback.arg = NULL;
	hint_callback.previous = error_context_stack;
	error_context_stack = &hint_callback;
	SPI_connect();
	plan = SPI_prepare(query.data, 0, NULL);
	if (plan == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_SYNTAX_ERROR),
				 errmsg("could not prepare the source query: %s", SPI_result_code_string(SPI_result))));
	portal = SPI_cursor_open(NULL, plan, NULL, NULL, true);
	for (;;)
	{
		CHECK_FOR_INTERRUPTS();
		SPI_cursor_fetch(portal, true, FETCH_ROWS);
		if (SPI_processed == 0)
			break;
		if (result.n + SPI_processed > capacity)
		{
			capacity = Max(capacity * 2, result.n + SPI_processed);
			for (int c = 0; c < ncols; c++)
				result.values[c] = result.values[c]
					? repalloc_huge(result.values[c], capacity * sizeof(int64))
					: MemoryContextAllocHuge(target, capacity * sizeof(int64));
		}
		for (uint64 i = 0; i < SPI_processed; i++)
		{
			bool		any_null = false;
			int64		row[3];

			for (int c = 0; c < ncols; c++)
			{
				bool		isnull;

				row[c] = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, c + 1, &isnull));
				any_null |= isnull;
			}
			if (any_null)
			{
				result.skipped++;
				continue;
			}
			for (int c = 0; c < ncols; c++)
				result.values[c][result.n] = row[c];
			result.n++;
		}
		SPI_freetuptable(SPI_tuptable);
	}
	SPI_cursor_close(portal);
	SPI_finish();
	error_context_stack = hint_callback.previous;
	pfree(query.data);
	return result;
}
