/*
 * A user's source query (SQL text the crawl jobs and the analysis functions read rows from): run
 * as a cursor, read in batches so a cancel stops it between them, with the source-error hint of
 * source_hint.h. Also the id rule every job shares: each row has its own id.
 */
#ifndef SIMHASH_SOURCE_QUERY_H
#define SIMHASH_SOURCE_QUERY_H

#include "postgres.h"

#include "executor/spi.h"

typedef struct SourceQuery
{
	Portal		portal;
	bool		batch;			/* SPI_tuptable holds a batch of ours, freed by the next fetch */
	ErrorContextCallback hint;
} SourceQuery;

/*
 * Connects to SPI and opens query as a read-only cursor. query may wrap the user's source text
 * (e.g. in a subquery that names its columns): user_source is that text, which must be one plain
 * SELECT; it is query itself when nothing wraps it.
 */
extern void source_query_open(SourceQuery *source, const char *query, const char *user_source);
/*
 * Raises the errors source_query_open would for a source that is not one plain SELECT or that
 * writes or locks rows, without running it (for the PL/pgSQL functions that run sources).
 */
extern void source_query_check(const char *source);
/* The columns the query returns. */
extern TupleDesc source_query_columns(const SourceQuery *source);
/* The next batch in SPI_tuptable (SPI_processed rows); false once every row has been read. */
extern bool source_query_fetch(SourceQuery *source);
/* Closes the cursor and SPI. */
extern void source_query_close(SourceQuery *source);

/* A value of type type (INT8OID, INT4OID or INT2OID) as int64. */
extern int64 integer_value(Datum d, Oid type);

/* Sorts ids in place and raises unique_violation if one is repeated. */
extern void sort_unique_ids(int64 *ids, size_t n);

#endif
