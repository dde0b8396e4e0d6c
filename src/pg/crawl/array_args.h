/* Array arguments of the crawl functions: one-dimensional, no NULLs, clear errors otherwise. */
#ifndef SIMHASH_ARRAY_ARGS_H
#define SIMHASH_ARRAY_ARGS_H

#include "postgres.h"

#include "utils/array.h"

/*
 * Rows given as two arrays, ids (bigint[]) and hashes (simhash[]), of equal length: their values
 * in two palloc'd arrays (room for one more), and how many.
 */
extern int	array_args_rows(ArrayType *ids, ArrayType *hashes, int64 **id_values, uint64 **hash_values);

#endif
