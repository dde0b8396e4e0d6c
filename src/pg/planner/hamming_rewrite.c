/*
 * Planner support for the comparison operators of hamming_distance.
 *
 * PostgreSQL offers an index only clauses whose top-level operator or function has the indexed
 * column as a direct argument; "hamming(sh, q) <= 5" is int-comparison-of-a-call, not that shape.
 * On SupportRequestSimplify we rewrite
 *     hamming(x, y) <= k,  k >= hamming(x, y)            into  hamming_within(x, y, k)
 *     hamming(x, y) <  k,  k >  hamming(x, y)  (k const) into  hamming_within(x, y, k - 1)
 * hamming_within has its own support function that turns it into the index clause
 * "x <@ hamming_ball(y, k)". Other comparisons are left alone. x <-> y (function simhash_distance)
 * returns a plain integer, so "x <-> y <= k" is PostgreSQL's int4le and never reaches this function;
 * x <-> y is still recognised when it meets a hamming_distance ("x <-> y <= hamming(a, b)").
 */
#include "postgres.h"

#include <limits.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "utils/lsyscache.h"

#include "extension_objects.h"

PG_FUNCTION_INFO_V1(hamming_distance_support);

typedef enum
{
	BOUND_LE,					/* distance <= bound */
	BOUND_LT,					/* distance < bound */
	BOUND_OTHER
} BoundKind;

/* If node is hamming(x, y) or x <-> y (our function), returns true and its two arguments. */
static bool
is_hamming_call(Node *node, const SimhashObjects *objs, Node **x, Node **y)
{
	List	   *args;

	Oid			funcid;

	if (IsA(node, FuncExpr))
	{
		funcid = ((FuncExpr *) node)->funcid;
		args = ((FuncExpr *) node)->args;
	}
	else if (IsA(node, OpExpr))
	{
		set_opfuncid((OpExpr *) node);
		funcid = ((OpExpr *) node)->opfuncid;
		args = ((OpExpr *) node)->args;
	}
	else
		return false;
	if (funcid != objs->hamming_func && funcid != objs->distance_func)
		return false;
	*x = linitial(args);
	*y = lsecond(args);
	return true;
}

static bool
ends_with(const char *s, const char *suffix)
{
	size_t		n = strlen(s),
				m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/*
 * The comparison a function implements, seen with the distance on the left. The support function
 * is attached only to our *_distance_{le,lt,ge,gt} functions, so the suffix says which.
 */
static BoundKind
bound_kind(const char *funcname, bool distance_on_left)
{
	bool		le = ends_with(funcname, "_le");
	bool		lt = ends_with(funcname, "_lt");
	bool		ge = ends_with(funcname, "_ge");
	bool		gt = ends_with(funcname, "_gt");

	if (distance_on_left)
		return le ? BOUND_LE : (lt ? BOUND_LT : BOUND_OTHER);
	return ge ? BOUND_LE : (gt ? BOUND_LT : BOUND_OTHER);
}

Datum
hamming_distance_support(PG_FUNCTION_ARGS)
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);
	SupportRequestSimplify *req;
	FuncExpr   *call;
	SimhashObjects objs;
	Node	   *x,
			   *y,
			   *bound;
	BoundKind	kind;
	char	   *funcname;

	if (!IsA(rawreq, SupportRequestSimplify))
		PG_RETURN_POINTER(NULL);
	req = (SupportRequestSimplify *) rawreq;
	call = req->fcall;
	if (list_length(call->args) != 2 || !simhash_objects_for(call->funcid, &objs))
		PG_RETURN_POINTER(NULL);
	funcname = get_func_name(call->funcid);
	if (funcname == NULL)
		PG_RETURN_POINTER(NULL);

	if (is_hamming_call(linitial(call->args), &objs, &x, &y))
	{
		bound = lsecond(call->args);
		kind = bound_kind(funcname, true);
	}
	else if (is_hamming_call(lsecond(call->args), &objs, &x, &y))
	{
		bound = linitial(call->args);
		kind = bound_kind(funcname, false);
	}
	else
		PG_RETURN_POINTER(NULL);

	if (kind == BOUND_OTHER)
		PG_RETURN_POINTER(NULL);

	if (IsA(bound, Const) && !((Const *) bound)->constisnull)
	{
		/* Fold the bound ourselves (the result is not simplified again), clamped so k-1 cannot overflow. */
		int64		k = DatumGetInt32(((Const *) bound)->constvalue);

		if (kind == BOUND_LT)
			k -= 1;
		k = Max(-1, Min(64, k));
		bound = (Node *) makeConst(INT4OID, -1, InvalidOid, sizeof(int32), Int32GetDatum((int32) k),
								   false, true);
	}
	else if (kind == BOUND_LT)
		PG_RETURN_POINTER(NULL);	/* k - 1 of a non-constant could overflow; leave it be */
	else if (exprType(bound) != INT4OID)
		bound = (Node *) makeRelabelType((Expr *) bound, INT4OID, -1, InvalidOid, COERCE_IMPLICIT_CAST);

	PG_RETURN_POINTER(makeFuncExpr(objs.within_func, BOOLOID, list_make3(x, y, bound),
								   InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL));
}
