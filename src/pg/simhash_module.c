/*
 * Library entry: module magic and the load-time CPU check.
 */
#include "postgres.h"

#include "fmgr.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

void
_PG_init(void)
{
#if defined(__x86_64__) && defined(__POPCNT__)
	/* Built with -mpopcnt: refuse to load where the instruction would fault. */
	__builtin_cpu_init();
	if (!__builtin_cpu_supports("popcnt"))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("simhash requires a CPU with the POPCNT instruction")));
#endif
}
