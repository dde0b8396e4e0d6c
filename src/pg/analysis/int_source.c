#include "int_source.h"

#include "lib/stringinfo.h"
#include "source_query.h"
#include "utils/memutils.h"

IntColumns
read_int_source(const char *source, int ncols, const char *order_by)
{
	MemoryContext target = CurrentMemoryContext;
	IntColumns	result = {{NULL}, 0, 0};
	size_t		capacity = 0;
	StringInfoData query;
	SourceQuery rows;

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

	source_query_open(&rows, query.data);
	while (source_query_fetch(&rows))
	{
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
	}
	source_query_close(&rows);
	pfree(query.data);
	return result;
}
