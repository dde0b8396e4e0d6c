-- Per simhash threshold k: pairs flagged, how many of them the fingerprints call different, and the
-- fingerprint duplicates missed; the recommended k is the largest with none flagged wrongly.
SELECT k, flagged, flagged_fp_different, fp_flagged_missed, recommended FROM crawl_report.threshold_sweep ORDER BY k
