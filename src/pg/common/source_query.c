#include "source_query.h"

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "nodes/parsenodes.h"
#include "utils/plancache.h"
#include "source_hint.h"

#define FETCH_ROWS 10000

/* True when q or any query inside it (subquery, CTE, sublink) locks rows with FOR UPDATE/SHARE. */
static bool
locks_rows_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		Query	   *q = (Query *) node;

		if (q->rowMarks != NIL)
			return true;
		return query_tree_walker(q, locks_rows_walker, context, 0);
	}
	return expression_tree_walker(node, locks_rows_walker, context);
}

/*
 * A source is read, never run for its effects: it must be one plain SELECT (or VALUES, TABLE, a
 * set operation of those). A statement that writes, locks rows or is not a query gets an error
 * that says so, before it runs.
 */
static void
check_read_only(SPIPlanPtr plan)
{
	List	   *sources = SPI_plan_get_plan_sources(plan);
	ListCell   *lc;

	if (list_length(sources) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_SYNTAX_ERROR),
				 errmsg("the source query must be one statement, not %d", list_length(sources))));
	foreach(lc, sources)
	{
		CachedPlanSource *ps = (CachedPlanSource *) lfirst(lc);
		ListCell   *lq;

		foreach(lq, ps->query_list)
		{
			Query	   *q = lfirst_node(Query, lq);

			if (q->commandType == CMD_INSERT || q->commandType == CMD_UPDATE ||
				q->commandType == CMD_DELETE || q->hasModifyingCTE)
				ereport(ERROR,
						(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
						 errmsg("the source query must only read, but it modifies data (%s)",
								q->hasModifyingCTE ? "in its WITH clause" : GetCommandTagName(ps->commandTag)),
						 errhint("Run the data-modifying statement first, then read its rows from a table.")));
			if (locks_rows_walker((Node *) q, NULL))
				ereport(ERROR,
						(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
						 errmsg("the source query must only read, but it locks rows (FOR UPDATE or FOR SHARE)"),
						 errhint("Remove the locking clause.")));
		}
		if (ps->commandTag != CMDTAG_SELECT)
			ereport(ERROR,
					(errcode(ERRCODE_WRONG_OBJECT_TYPE),
					 errmsg("the source query must be a SELECT, not %s", GetCommandTagName(ps->commandTag)),
					 errhint("Give the query that returns the rows to read, e.g. SELECT id, sh FROM public.pages.")));
	}
}

/* The plan of sql (inside SPI), once check_read_only has passed it. */
static SPIPlanPtr
prepare_read_only(const char *sql)
{
	SPIPlanPtr	plan = SPI_prepare(sql, 0, NULL);

	if (plan == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_SYNTAX_ERROR),
				 errmsg("could not prepare the source query: %s", SPI_result_code_string(SPI_result))));
	check_read_only(plan);
	return plan;
}

void
source_query_check(const char *source)
{
	SPI_connect();
	SPI_freeplan(prepare_read_only(source));
	SPI_finish();
}

void
source_query_open(SourceQuery *source, const char *query, const char *user_source)
{
	SPIPlanPtr	plan;

	/* Errors of the source under an empty search_path (pg_restore) get a hint: see source_hint.h. */
	source->hint.callback = sh_source_search_path_hint;
	source->hint.arg = NULL;
	source->hint.previous = error_context_stack;
	error_context_stack = &source->hint;
	SPI_connect();
	/* The user's text is checked alone, so its own error is reported, not the wrapper's. */
	if (user_source != query)
		SPI_freeplan(prepare_read_only(user_source));
	plan = prepare_read_only(query);
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

int64
integer_value(Datum d, Oid type)
{
	if (type == INT8OID)
		return DatumGetInt64(d);
	if (type == INT4OID)
		return DatumGetInt32(d);
	return DatumGetInt16(d);
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
