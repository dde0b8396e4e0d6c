/*
 * The background worker of a database (mih_am_worker.c), as other wings see it. Besides the merges
 * of the database's simhash_mih indexes it serves what those wings add when the library loads
 * (the duplicate clusters kept current: dedup/), within the same slots
 * (simhash.max_merge_workers_per_database), so that a crawl database never takes more of
 * max_worker_processes for the extension's background work.
 */
#ifndef MIH_WORKER_H
#define MIH_WORKER_H

typedef enum MihServiceState
{
	MIH_SERVICE_IDLE,			/* nothing to do: the worker may exit */
	MIH_SERVICE_STAY,			/* nothing now, but keep looking every second */
	MIH_SERVICE_MORE			/* more is waiting: look again without the pause */
} MihServiceState;

typedef struct MihWorkerService
{
	/* Whether work is waiting. Called outside a transaction. */
	bool		(*due) (void);
	/* Does some of the work (a second or so at most). Called outside a transaction, leaves none. */
	MihServiceState (*serve) (void);
} MihWorkerService;

/* Adds a service (at load time: the worker process loads the library too). At most a few. */
extern void mih_worker_add_service(const MihWorkerService *service);

/*
 * Starts a worker for this backend's database unless every slot is taken (then a worker is there
 * and looks at every service each second, and once more when it lets go of its slot).
 */
extern void mih_worker_start(void);

#endif
