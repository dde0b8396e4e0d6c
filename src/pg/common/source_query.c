#include "source_query.h"

#include "miscadmin.h"
#include "source_hint.h"

#define FETCH_ROWS 10000

void
source_query_open(SourceQuery *source, const char *query)
{
	SPIPlanPtr	plan;

	/* Errors of the source under an empty search_path (pg_restore) get a hint: see source_hint.h. */
	source->hint.callback = sh_source_search_path_hint;
	source->hint.arg = NULL;
	source->hint.previous = error_context_stack;
	error_context_stack = &source->hint;
	SPI_connect();
	plan = SPI_prepare(query, 0, NULL);
	if (plan == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_SYNTAX_ERROR),
				 errmsg("could not prepare the source query: %s", SPI_result_code_string(SPI_result))));
	if (!SPI_is_cursor_plan(plan))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("the source query must be a SELECT (or another statement returning rows)")));
	source->portal = SPI_cursor_open(NULL, plan, NULL, NULL, true);
	source->batch = false;
}

TupleDesc
source_query_columns(const SourceQuery *source)
{
	return source->portal->tupDesc;
}

bool
source_query_fetch(SourceQuery *source)
{
	if (source->batch)
		SPI_freetuptable(SPI_tuptable);
	CHECK_FOR_INTERRUPTS();
	SPI_cursor_fetch(source->portal, true, FETCH_ROWS);
	source->batch = true;
	return SPI_processed > 0;
}

void
source_query_close(SourceQuery *source)
{
	SPI_cursor_close(source->portal);
	SPI_finish();
	error_context_stack = source->hint.previous;
}

#define ST_SORT sort_int64
#define ST_ELEMENT_TYPE int64
#define ST_COMPARE(a, b) (*(a) < *(b) ? -1 : *(a) > *(b) ? 1 : 0)
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

void
sort_unique_ids(int64 *ids, size_t n)
{
	sort_int64(ids, n);
	for (size_t i = 1; i < n; i++)
		if (ids[i] == ids[i - 1])
			ereport(ERROR,
					(errcode(ERRCODE_UNIQUE_VIOLATION),
					 errmsg("the source query returns the id %lld more than once", (long long) ids[i]),
					 errhint("Each page must have one id; deduplicate the source first.")));
}
