/*
 * What other wings set up when the library loads, called by _PG_init (simhash_module.c). Each is
 * declared here and defined by its wing, so that common includes no other wing's header.
 */
#ifndef SIMHASH_MODULE_INIT_H
#define SIMHASH_MODULE_INIT_H

/* index_am/am/mih_am_options.c: the reloptions of simhash_mih indexes (blocks, compact). */
extern void mih_init_reloptions(void);

/* dedup/dedup_worker.c: the duplicate clusters kept current, a service of the background worker. */
extern void simhash_dedup_init(void);

#endif
