/*
 * The extension's settings (GUC variables): defined here, registered when the library loads, read
 * by the wings that use them.
 */
#ifndef SIMHASH_SETTINGS_H
#define SIMHASH_SETTINGS_H

/* simhash.pairs_memory_limit, in kB: the input rows simhash_pairs and simhash_clusters may hold. */
extern int	sh_pairs_memory_limit_kb;
/* simhash.job_threads: the threads simhash_pairs and simhash_clusters run their job on. */
extern int	sh_job_threads;

/*
 * simhash.settle_delay, in seconds: how long no row is inserted into a simhash_mih index before its
 * merge worker settles it (mih_am_worker.c); -1: never.
 */
extern int	sh_settle_delay_s;

/*
 * simhash.max_merge_workers_per_database: how many merge workers may serve the simhash_mih indexes
 * of one database at once (mih_am_worker.c); each holds a slot of max_worker_processes.
 */
extern int	sh_max_merge_workers_per_db;

/*
 * simhash.dedup_in_background: whether the background worker applies the changes of the tables whose
 * duplicate clusters are kept current (dedup/dedup_worker.c); off leaves them to simhash_dedup_run.
 */
extern bool sh_dedup_in_background;

/* Registers the settings with PostgreSQL (from _PG_init). */
extern void sh_define_settings(void);

#endif
