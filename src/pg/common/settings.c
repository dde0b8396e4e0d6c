#include "postgres.h"

#include <limits.h>

#include "utils/guc.h"

#include "settings.h"

int			sh_pairs_memory_limit_kb = 1024 * 1024;
int			sh_job_threads = 2;

void
sh_define_settings(void)
{
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
}
