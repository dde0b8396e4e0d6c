/*
 * Library entry: module magic, the load-time CPU check, and the extension's settings.
 */
#include "postgres.h"

#include <limits.h>

#include "fmgr.h"
#include "utils/guc.h"

#include "crawl_source.h"
#include "mih_am.h"

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

	DefineCustomIntVariable("simhash.pairs_memory_limit",
							"Memory simhash_pairs and simhash_clusters may use for their input rows.",
							"A source with more rows than fit is an error, not a slow job.",
							&sh_pairs_memory_limit_kb, 1024 * 1024, 64, INT_MAX, PGC_USERSET,
							GUC_UNIT_KB, NULL, NULL, NULL);
	DefineCustomIntVariable("simhash.job_threads",
							"Threads simhash_pairs and simhash_clusters run their job on.",
							"The threads live inside the calling backend, for the length of the call.",
							&sh_job_threads, 2, 1, 64, PGC_USERSET, 0, NULL, NULL, NULL);
	MarkGUCPrefixReserved("simhash");
	mih_init_reloptions();
}
