/*
 * simhash_dedup_as_owner(tbl, max_changes): one table's part of simhash_dedup_run
 * (src/install/70_dedup.sql), done as the table's owner in a security-restricted operation, as
 * VACUUM, ANALYZE and REFRESH MATERIALIZED VIEW run a table's own code. The table's keep expression,
 * and whatever it calls, runs with the owner's rights only and cannot SET ROLE back to the caller's:
 * a superuser's run (a pg_cron job's, the background worker's) would otherwise lend its rights to
 * every table owner. Settings changed inside are undone.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/value.h"
#include "parser/parse_func.h"
#include "utils/acl.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

PG_FUNCTION_INFO_V1(simhash_dedup_as_owner);

/* simhash_dedup_run_table(regclass, integer) of the schema the calling function lives in. */
static Oid
run_table_function(Oid caller)
{
	Oid			argtypes[2] = {REGCLASSOID, INT4OID};
	char	   *schema = get_namespace_name(get_func_namespace(caller));

	return LookupFuncName(list_make2(makeString(schema), makeString("simhash_dedup_run_table")), 2, argtypes,
						  false);
}

Datum
simhash_dedup_as_owner(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	int32		max_changes = PG_GETARG_INT32(1);
	HeapTuple	tuple;
	Oid			owner;
	Oid			run_table;
	Oid			save_userid;
	int			save_sec_context;
	int			save_nestlevel;
	Datum		done;

	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tuple))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	owner = ((Form_pg_class) GETSTRUCT(tuple))->relowner;
	ReleaseSysCache(tuple);
	/* as simhash_dedup_run: the owner, or a member of the owner's role */
	if (!is_member_of_role(GetUserId(), owner))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of table %s", get_rel_name(relid))));
	run_table = run_table_function(fcinfo->flinfo->fn_oid);

	/* An error on the way restores both, as the transaction's abort does for VACUUM. */
	GetUserIdAndSecContext(&save_userid, &save_sec_context);
	SetUserIdAndSecContext(owner, save_sec_context | SECURITY_LOCAL_USERID_CHANGE | SECURITY_RESTRICTED_OPERATION);
	save_nestlevel = NewGUCNestLevel();
	done = OidFunctionCall2(run_table, ObjectIdGetDatum(relid), Int32GetDatum(max_changes));
	AtEOXact_GUC(false, save_nestlevel);
	SetUserIdAndSecContext(save_userid, save_sec_context);
	PG_RETURN_DATUM(done);
}
