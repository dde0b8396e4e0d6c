/*
 * Reading integer columns of a user's source query (SQL text), for the analysis functions.
 */
#ifndef SIMHASH_INT_SOURCE_H
#define SIMHASH_INT_SOURCE_H

#include "postgres.h"

typedef struct IntColumns
{
	int64	   *values[3];		/* values[c][row], in CurrentMemoryContext */
	size_t		n;				/* rows read */
	int64		skipped;		/* rows with a NULL in one of the columns */
} IntColumns;

/*
 * Runs SELECT c1, ..., cN FROM (source) s(c1, ..., cN) ORDER BY order_by through SPI (order_by may
 * be NULL) and returns its rows as int64: each column an integer type or numeric with whole values. The source may return more columns than ncols; the
 * first ncols are read. Rows with a NULL are skipped and counted.
 */
extern IntColumns read_int_source(const char *source, int ncols, const char *order_by);

#endif
