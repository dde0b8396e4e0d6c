/*
 * Reading the (id, simhash) rows of a crawl from a source query, for the crawl-scale jobs.
 */
#ifndef SIMHASH_CRAWL_SOURCE_H
#define SIMHASH_CRAWL_SOURCE_H

#include "postgres.h"

#include "settings.h"

typedef struct CrawlRows
{
	int64	   *ids;
	uint64	   *hashes;
	uint8	   *sketches;		/* 64 bytes a row, when the source has a resemblance_sketch */
	size_t		n;
} CrawlRows;

/*
 * An error (54000) when rows needing bytes in all are more than simhash.pairs_memory_limit; what
 * names them ("the source", "the part", "the group").
 */
extern void check_pairs_memory(const char *what, size_t rows, size_t bytes);

/*
 * Runs source (SQL returning id bigint|integer, sh simhash|bigint and, when sketch_type is valid,
 * a third column of that type) through SPI and returns its rows in CurrentMemoryContext. Rows
 * with a NULL id, hash or sketch are skipped and counted in a NOTICE; a duplicate id, wrong
 * columns, or more rows than the memory limit allows are errors. bytes_per_row is what the job
 * will need per row, for the limit.
 */
extern CrawlRows read_crawl_source(const char *source, Oid simhash_type, Oid sketch_type, size_t bytes_per_row);

#endif
