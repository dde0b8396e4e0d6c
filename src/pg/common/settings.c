#include "postgres.h"

#include <limits.h>

#include "utils/guc.h"

#include "settings.h"

int			sh_pairs_memory_limit_kb = 1024 * 1024;
int			sh_job_threads = 2;
int			sh_settle_delay_s = 30;
int			sh_max_merge_workers_per_db = 1;
bool		sh_dedup_in_background = true;

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
	/* SIGHUP: the inserters that start workers and the workers must count the same slots. */
	DefineCustomIntVariable("simhash.max_merge_workers_per_database",
							"How many merge workers may serve the simhash_mih indexes of one database at once.",
							"Each takes a slot of max_worker_processes, which parallel query and logical replication share.",
							&sh_max_merge_workers_per_db, 1, 1, 64, PGC_SIGHUP, 0, NULL, NULL, NULL);
	/* USERSET: ALTER DATABASE ... SET reaches the writers' sessions and the worker of the database. */
	DefineCustomBoolVariable("simhash.dedup_in_background",
							 "Whether the background worker keeps the duplicate clusters of registered tables current.",
							 "Off: the changes wait for simhash_dedup_run (a scheduler such as pg_cron calls it).",
							 &sh_dedup_in_background, true, PGC_USERSET, 0, NULL, NULL, NULL);
	MarkGUCPrefixReserved("simhash");
}
