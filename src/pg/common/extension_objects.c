#include "extension_objects.h"

#include "catalog/pg_operator.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

static Oid
type_in(Oid nsp, const char *name)
{
	return GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid, CStringGetDatum(name), ObjectIdGetDatum(nsp));
}

static Oid
func_in(Oid nsp, const char *name, int nargs, const Oid *argtypes)
{
	oidvector  *args = buildoidvector(argtypes, nargs);

	return GetSysCacheOid3(PROCNAMEARGSNSP, Anum_pg_proc_oid, CStringGetDatum(name),
						   PointerGetDatum(args), ObjectIdGetDatum(nsp));
}

bool
simhash_objects_for(Oid known_func, SimhashObjects *objs)
{
	Oid			nsp = get_func_namespace(known_func);
	Oid			pair[2];
	Oid			triple[3];

	if (!OidIsValid(nsp))
		return false;
	objs->namespace_oid = nsp;
	objs->simhash_type = type_in(nsp, "simhash");
	objs->ball_type = type_in(nsp, "hamming_ball");
	objs->resemblance_type = type_in(nsp, "resemblance_sketch");
	if (!OidIsValid(objs->simhash_type) || !OidIsValid(objs->ball_type))
		return false;

	pair[0] = pair[1] = objs->simhash_type;
	objs->hamming_func = func_in(nsp, "hamming", 2, pair);
	objs->distance_func = func_in(nsp, "simhash_distance", 2, pair);
	triple[0] = triple[1] = objs->simhash_type;
	triple[2] = INT4OID;
	objs->within_func = func_in(nsp, "hamming_within", 3, triple);
	pair[1] = INT4OID;
	objs->ball_func = func_in(nsp, "hamming_ball", 2, pair);
	objs->in_ball_op = GetSysCacheOid4(OPERNAMENSP, Anum_pg_operator_oid, CStringGetDatum("<@"),
									   ObjectIdGetDatum(objs->simhash_type),
									   ObjectIdGetDatum(objs->ball_type), ObjectIdGetDatum(nsp));
	return OidIsValid(objs->hamming_func) && OidIsValid(objs->distance_func) && OidIsValid(objs->within_func) &&
		OidIsValid(objs->ball_func) && OidIsValid(objs->in_ball_op);
}
