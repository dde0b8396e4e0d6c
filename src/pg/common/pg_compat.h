/*
 * The differences of the server API between the PostgreSQL major versions simhash builds against,
 * in one place, so that the rest of the glue is written once.
 */
#ifndef SIMHASH_PG_COMPAT_H
#define SIMHASH_PG_COMPAT_H

#include "postgres.h"

#if PG_VERSION_NUM >= 160000
/* 16 moved the varlena macros out of postgres.h and renamed RelFileNode to RelFileLocator. */
#include "varatt.h"
#define sh_rel_locator(rel)				((rel)->rd_locator)
#define sh_smgr_locator(smgr)			(&(smgr)->smgr_rlocator.locator)
#define sh_class_ownercheck(relid, role) object_ownercheck(RelationRelationId, (relid), (role))
#else
#define sh_rel_locator(rel)				((rel)->rd_node)
#define sh_smgr_locator(smgr)			(&(smgr)->smgr_rnode.node)
#define sh_class_ownercheck(relid, role) pg_class_ownercheck((relid), (role))
#endif

#if PG_VERSION_NUM >= 180000
/* 18 tells vacuum_delay_point whether ANALYZE calls it. */
#define sh_vacuum_delay_point()			vacuum_delay_point(false)
#else
#define sh_vacuum_delay_point()			vacuum_delay_point()
#endif

#if PG_VERSION_NUM >= 190000
/* 19 renamed PageSetChecksumInplace. */
#define sh_page_set_checksum(page, blkno)	PageSetChecksum((page), (blkno))
#else
#define sh_page_set_checksum(page, blkno)	PageSetChecksumInplace((page), (blkno))
#endif

#endif

