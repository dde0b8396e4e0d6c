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

/* Registers the settings with PostgreSQL (from _PG_init). */
extern void sh_define_settings(void);

#endif
