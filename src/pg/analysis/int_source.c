#include "int_source.h"

#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "source_query.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

/*
 * The base type of column c, which must be an integer type, numeric, or a domain over one of them
 * (a dashboard's sum() is numeric): a fraction is refused rather than rounded.
 */
static Oid
integer_column(TupleDesc desc, int c)
{
	Oid			type = getBaseType(TupleDescAttr(desc, c)->atttypid);

	if (type != INT8OID && type != INT4OID && type != INT2OID && type != NUMERICOID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column %d of the source query must be bigint, integer, smallint or numeric, not %s",
						c + 1, format_type_be(TupleDescAttr(desc, c)->atttypid)),
				 errhint("Cast it to bigint in the source if its values are whole numbers.")));
	return type;
}

/* Value d of column c (of type type, as integer_column returned) as int64. */
static int64
column_value(Datum d, Oid type, int c)
{
	Datum		whole;

	if (type != NUMERICOID)
		return integer_value(d, type);
	whole = DirectFunctionCall2(numeric_trunc, d, Int32GetDatum(0));
	if (!DatumGetBool(DirectFunctionCall2(numeric_eq, d, whole)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("column %d of the source query has the value %s, which is not a whole number",
						c + 1, DatumGetCString(DirectFunctionCall1(numeric_out, d)))));
	/* Out of bigint's range is numeric_int8's own error (22003). */
	return DatumGetInt64(DirectFunctionCall1(numeric_int8, d));
}

IntColumns
read_int_source(const char *source, int ncols, const char *order_by)
{
	MemoryContext target = CurrentMemoryContext;
	IntColumns	result = {{NULL}, 0, 0};
	size_t		capacity = 0;
	StringInfoData query;
	SourceQuery rows;
	Oid			types[3];

	Assert(ncols >= 1 && ncols <= 3);
	initStringInfo(&query);
	appendStringInfoString(&query, "SELECT ");
	for (int c = 1; c <= ncols; c++)
		appendStringInfo(&query, "%sc%d", c > 1 ? ", " : "", c);
	appendStringInfo(&query, " FROM (%s) s(", source);
	for (int c = 1; c <= ncols; c++)
		appendStringInfo(&query, "%sc%d", c > 1 ? ", " : "", c);
	appendStringInfoString(&query, ")");
	if (order_by)
		appendStringInfo(&query, " ORDER BY %s", order_by);

	source_query_open(&rows, query.data, source);
	for (int c = 0; c < ncols; c++)
		types[c] = integer_column(source_query_columns(&rows), c);
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

				Datum		d = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, c + 1, &isnull);

				row[c] = isnull ? 0 : column_value(d, types[c], c);
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
