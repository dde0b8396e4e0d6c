#include "postgres.h"

#include <limits.h>

#include "utils/guc.h"

#include "settings.h"

int			sh_pairs_memory_limit_kb = 1024 * 1024;
int			sh_job_threads = 2;
int			sh_settle_delay_s = 30;

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
	DefineCustomIntVariable("simhash.settle_delay",
							"How long the writers of a simhash_mih index pause before its merge worker settles it.",
							"Settling merges the pending rows and the runs beside the base run; -1 never settles.",
							&sh_settle_delay_s, 30, -1, 24 * 3600, PGC_SIGHUP, GUC_UNIT_S, NULL, NULL, NULL);
	MarkGUCPrefixReserved("simhash");
}
