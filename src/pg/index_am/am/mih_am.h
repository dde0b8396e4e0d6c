/*
 * The access method layer of simhash_mih: what PostgreSQL calls (the handler's callbacks: build,
 * insert, scan, VACUUM), the SQL functions over an index (check, runs) and the background merge
 * worker's process. Only this layer includes lsm/ headers.
 */
#ifndef SIMHASH_MIH_AM_H
#define SIMHASH_MIH_AM_H

#include "lsm/mih_lsm.h"

#include "access/amapi.h"
#include "nodes/execnodes.h"

#include "module_init.h"			/* mih_init_reloptions, which mih_am_options.c defines */

/* mih_am_options.c */
extern bytea *mih_options(Datum reloptions, bool validate);
extern bool mih_is_ours(Relation index);

/* mih_am_build.c: the phases CREATE INDEX reports in pg_stat_progress_create_index */
#define MIH_PHASE_SCAN		2		/* reading the table (blocks_done / blocks_total) */
#define MIH_PHASE_WRITE		3		/* sorting and writing the tables (tuples_done / tuples_total) */
extern char *mih_buildphasename(int64 phase);
extern IndexBuildResult *mih_build(Relation heap, Relation index, IndexInfo *info);
extern void mih_buildempty(Relation index);

/* mih_am_cost.c: the shape the planner's cost estimate sees */
typedef struct MihShape
{
	int			ntables;
	uint32		nruns;
	double		rows;			/* in runs and pending */
	double		table_pages[MIH_MAX_TABLES];	/* of every run; table 0's with the pending pages */
} MihShape;

extern void mih_shape_for_planner(Relation index, double tuples, MihShape *shape);

/* mih_am_worker.c */
extern void mih_merge_in_background(Relation index);

/* mih_am_insert.c */
extern bool mih_insert(Relation index, Datum *values, bool *isnull, ItemPointer tid, Relation heap,
					   IndexUniqueCheck check, bool indexUnchanged, IndexInfo *info);

/* mih_am_scan.c */
extern IndexScanDesc mih_beginscan(Relation index, int nkeys, int norderbys);
extern void mih_rescan(IndexScanDesc scan, ScanKey keys, int nkeys, ScanKey orderbys, int norderbys);
extern bool mih_gettuple(IndexScanDesc scan, ScanDirection dir);
extern int64 mih_getbitmap(IndexScanDesc scan, TIDBitmap *tbm);
extern void mih_endscan(IndexScanDesc scan);

/* mih_am_vacuum.c */
extern IndexBulkDeleteResult *mih_bulkdelete(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
											 IndexBulkDeleteCallback callback, void *callback_state);
extern IndexBulkDeleteResult *mih_vacuumcleanup(IndexVacuumInfo *info, IndexBulkDeleteResult *stats);

/* mih_am_check.c */
extern Relation mih_open_checked(Oid indexoid, LOCKMODE lockmode, Relation *heap);

#endif
