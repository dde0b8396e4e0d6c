/*
 * The scan of a simhash_mih index ordered by sh <-> q (mih_am_knn.c), which mih_am_scan.c's
 * callbacks hand a scan with an ORDER BY to.
 */
#ifndef SIMHASH_MIH_KNN_H
#define SIMHASH_MIH_KNN_H

#include "am/mih_scan.h"

/* mih_am_knn.c */
extern MihKnnState *mih_knn_begin(void);
extern void mih_knn_rescan(IndexScanDesc scan);
extern bool mih_knn_gettuple(IndexScanDesc scan);
extern void mih_knn_end(IndexScanDesc scan);

#endif
