/*
 * Planner support for hamming_within(x, y, k): offers the index clause x <@ hamming_ball(y, k)
 * (or y <@ hamming_ball(x, k)) to any index whose operator family has <@, and estimates the
 * selectivity with the same estimator as <@.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "nodes/makefuncs.h"
#include "nodes/supportnodes.h"
#include "optimizer/optimizer.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"

#include "extension_objects.h"
#include "radius_selectivity.h"

PG_FUNCTION_INFO_V1(hamming_within_support);

static List *
index_condition(SupportRequestIndexCondition *req)
{
	FuncExpr   *call = (FuncExpr *) req->node;
	SimhashObjects objs;
	Node	   *indexed,
			   *other,
			   *radius;
	FuncExpr   *ball;

	if (!IsA(call, FuncExpr) || list_length(call->args) != 3 || req->indexarg > 1)
		return NIL;
	if (!simhash_objects_for(req->funcid, &objs) || !op_in_opfamily(objs.in_ball_op, req->opfamily))
		return NIL;
	indexed = list_nth(call->args, req->indexarg);
	other = list_nth(call->args, 1 - req->indexarg);
	radius = lthird(call->args);
	if (!is_pseudo_constant_for_index(req->root, other, req->index) ||
		!is_pseudo_constant_for_index(req->root, radius, req->index))
		return NIL;

	ball = makeFuncExpr(objs.ball_func, objs.ball_type, list_make2(other, radius),
						InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
	req->lossy = false;
	return list_make1(make_opclause(objs.in_ball_op, BOOLOID, false, (Expr *) indexed,
									(Expr *) ball, InvalidOid, InvalidOid));
}

static void
selectivity(SupportRequestSelectivity *req)
{
	VariableStatData vardata;
	Node	   *other;
	bool		varonleft;
	Node	   *radius;

	if (req->is_join || list_length(req->args) != 3)
	{
		req->selectivity = RADIUS_DEFAULT_SELECTIVITY;
		return;
	}
	radius = estimate_expression_value(req->root, lthird(req->args));
	if (!get_restriction_variable(req->root, list_make2(linitial(req->args), lsecond(req->args)),
								  req->varRelid, &vardata, &other, &varonleft))
	{
		req->selectivity = RADIUS_DEFAULT_SELECTIVITY;
		return;
	}
	if (IsA(other, Const) && !((Const *) other)->constisnull &&
		IsA(radius, Const) && !((Const *) radius)->constisnull)
		req->selectivity = radius_selectivity(&vardata, DatumGetUInt64(((Const *) other)->constvalue),
											  DatumGetInt32(((Const *) radius)->constvalue));
	else
		req->selectivity = RADIUS_DEFAULT_SELECTIVITY;
	ReleaseVariableStats(vardata);
	/* The planner refuses a function selectivity outside [0, 1] with an internal error. */
	CLAMP_PROBABILITY(req->selectivity);
}

Datum
hamming_within_support(PG_FUNCTION_ARGS)
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);

	if (IsA(rawreq, SupportRequestIndexCondition))
		PG_RETURN_POINTER(index_condition((SupportRequestIndexCondition *) rawreq));
	if (IsA(rawreq, SupportRequestSelectivity))
	{
		selectivity((SupportRequestSelectivity *) rawreq);
		PG_RETURN_POINTER(rawreq);
	}
	PG_RETURN_POINTER(NULL);
}
