/*
 * The simhash_mih index access method: its handler, operator class validation and cost estimate.
 * The options live in mih_am_options.c; the build, insert, scan and vacuum in mih_am_*.c, over the
 * lsm/, store/ and format/ layers.
 */
#include "am/mih_am.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_amop.h"
#include "catalog/pg_amproc.h"
#include "catalog/pg_opclass.h"
#include "commands/vacuum.h"
#include "optimizer/optimizer.h"
#include "utils/catcache.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"

#include "mih_blocks.h"

#define STRATEGY_IN_BALL	1
#define STRATEGY_DISTANCE	2

PG_FUNCTION_INFO_V1(simhash_mih_handler);

/*
 * An operator class of this method has <@ as strategy 1 (search) and may have <-> as strategy 2
 * (ORDER BY), and no support functions.
 */
static bool
mih_validate(Oid opclassoid)
{
	HeapTuple	classtup = SearchSysCache1(CLAOID, ObjectIdGetDatum(opclassoid));
	Oid			opfamily;
	CatCList   *oprlist,
			   *proclist;
	bool		ok = true;

	if (!HeapTupleIsValid(classtup))
		elog(ERROR, "cache lookup failed for operator class %u", opclassoid);
	opfamily = ((Form_pg_opclass) GETSTRUCT(classtup))->opcfamily;
	ReleaseSysCache(classtup);

	oprlist = SearchSysCacheList1(AMOPSTRATEGY, ObjectIdGetDatum(opfamily));
	for (int i = 0; i < oprlist->n_members; i++)
	{
		Form_pg_amop op = (Form_pg_amop) GETSTRUCT(&oprlist->members[i]->tuple);

		if (!(op->amopstrategy == STRATEGY_IN_BALL && op->amoppurpose == AMOP_SEARCH) &&
			!(op->amopstrategy == STRATEGY_DISTANCE && op->amoppurpose == AMOP_ORDER))
		{
			ereport(INFO,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("simhash_mih operator family %u has operator %u with unsupported strategy %d",
							opfamily, op->amopopr, op->amopstrategy)));
			ok = false;
		}
	}
	ReleaseSysCacheList(oprlist);

	proclist = SearchSysCacheList1(AMPROCNUM, ObjectIdGetDatum(opfamily));
	if (proclist->n_members > 0)
	{
		ereport(INFO,
				(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
				 errmsg("simhash_mih operator family %u has support functions; it takes none", opfamily)));
		ok = false;
	}
	ReleaseSysCacheList(proclist);
	return ok;
}

/*
 * The index's real shape (mih_am_cost.c): its table count and the pages of each table, so the
 * rows a page holds, from its meta page.
 */
static void
mih_costestimate(PlannerInfo *root, IndexPath *path, double loop_count, Cost *startup_cost,
				 Cost *total_cost, Selectivity *selectivity, double *correlation, double *pages)
{
	GenericCosts costs;
	MihShape	shape;
	Relation	index = index_open(path->indexinfo->indexoid, AccessShareLock);
	double		searches = 0;

	mih_shape_for_planner(index, path->indexinfo->tuples, &shape);
	index_close(index, AccessShareLock);
	MemSet(&costs, 0, sizeof(costs));
	genericcostestimate(root, path, loop_count, &costs);
	/* A search of a value: a binary search in each table's directory and in one of its pages. */
	for (int j = 0; j < shape.ntables; j++)
		searches += log2(shape.table_pages[j] + 1) +
			log2(Max(shape.rows / Max(shape.table_pages[j], 1.0), 2.0));
	if (path->indexorderbys != NIL && path->indexclauses == NIL)
	{
		/*
		 * Nearest neighbours (mih_am_knn.c). Startup: the first level, a search in each table,
		 * which is all a query with near neighbours pays (others pay up to two reads of table 0,
		 * still far below a sort of the table). Total: reading table 0 and handing out every
		 * row; a LIMIT takes its share of that.
		 */
		costs.indexStartupCost = searches * cpu_operator_cost;
		costs.indexTotalCost = costs.indexStartupCost + shape.table_pages[0] * seq_page_cost +
			shape.rows * (cpu_operator_cost + cpu_index_tuple_cost);
		costs.numIndexPages = shape.table_pages[0];
	}
	else
	{
		/* A radius search first searches each table of each run for the query's block values. */
		costs.indexStartupCost += Max(shape.nruns, 1) * searches * cpu_operator_cost;
		costs.indexTotalCost += Max(shape.nruns, 1) * searches * cpu_operator_cost;
	}
	*startup_cost = costs.indexStartupCost;
	*total_cost = costs.indexTotalCost;
	*selectivity = costs.indexSelectivity;
	*correlation = costs.indexCorrelation;
	*pages = costs.numIndexPages;
}

Datum
simhash_mih_handler(PG_FUNCTION_ARGS)
{
	IndexAmRoutine *am = makeNode(IndexAmRoutine);

	am->amstrategies = 2;
	am->amsupport = 0;
	am->amoptsprocnum = 0;
	am->amcanorder = false;
	am->amcanorderbyop = true;
	am->amcanbackward = false;
	am->amcanunique = false;
	am->amcanmulticol = false;
	/* An ORDER BY sh <-> q scan has no search key; NULL hashes are indexed for it. */
	am->amoptionalkey = true;
	am->amsearcharray = false;
	am->amsearchnulls = false;
	am->amstorage = false;
	am->amclusterable = false;
	am->ampredlocks = false;
	am->amcanparallel = false;
	am->amcaninclude = false;
	am->amusemaintenanceworkmem = false;
	/* The cleanup may merge, which extends the index: it stays in the leader. */
	am->amparallelvacuumoptions = VACUUM_OPTION_PARALLEL_BULKDEL;
	am->amkeytype = InvalidOid;

	am->ambuild = mih_build;
	am->ambuildempty = mih_buildempty;
	am->aminsert = mih_insert;
	am->ambulkdelete = mih_bulkdelete;
	am->amvacuumcleanup = mih_vacuumcleanup;
	am->amcanreturn = NULL;
	am->amcostestimate = mih_costestimate;
	am->amoptions = mih_options;
	am->amproperty = NULL;
	am->ambuildphasename = mih_buildphasename;
	am->amvalidate = mih_validate;
	am->amadjustmembers = NULL;
	am->ambeginscan = mih_beginscan;
	am->amrescan = mih_rescan;
	am->amgettuple = mih_gettuple;
	am->amgetbitmap = mih_getbitmap;
	am->amendscan = mih_endscan;
	am->ammarkpos = NULL;
	am->amrestrpos = NULL;
	am->amestimateparallelscan = NULL;
	am->aminitparallelscan = NULL;
	am->amparallelrescan = NULL;

	PG_RETURN_POINTER(am);
}
