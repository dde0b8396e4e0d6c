/* Array arguments of the crawl functions (array_args.h). */
#include "simhash_type.h"

#include "array_args.h"

#include "utils/lsyscache.h"

/* The elements of array (argname names it in errors), or an error for 2+ dimensions or a NULL. */
static Datum *
array_args_elements(ArrayType *array, const char *argname, int *n)
{
	int16		typlen;
	bool		typbyval;
	char		typalign;
	Datum	   *elems;
	bool	   *nulls;

	if (ARR_NDIM(array) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s must be a one-dimensional array", argname)));
	get_typlenbyvalalign(ARR_ELEMTYPE(array), &typlen, &typbyval, &typalign);
	deconstruct_array(array, ARR_ELEMTYPE(array), typlen, typbyval, typalign, &elems, &nulls, n);
	for (int i = 0; i < *n; i++)
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s must not contain NULL (element %d)", argname, i + 1)));
	return elems;
}

int
array_args_rows(ArrayType *ids, ArrayType *hashes, int64 **id_values, uint64 **hash_values)
{
	int			nids,
				nhashes;
	Datum	   *id_datums = array_args_elements(ids, "ids", &nids);
	Datum	   *hash_datums = array_args_elements(hashes, "hashes", &nhashes);

	if (nids != nhashes)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("ids and hashes differ in length (%d and %d)", nids, nhashes)));
	*id_values = palloc(sizeof(int64) * (nids + 1));
	*hash_values = palloc(sizeof(uint64) * (nids + 1));
	for (int i = 0; i < nids; i++)
	{
		(*id_values)[i] = DatumGetInt64(id_datums[i]);
		(*hash_values)[i] = DatumGetSimhash(hash_datums[i]);
	}
	pfree(id_datums);
	pfree(hash_datums);
	return nids;
}
