/* C API of the crawl-scale jobs (src/core/all_pairs.hpp). */
#ifndef SIMHASH_PAIRS_BRIDGE_H
#define SIMHASH_PAIRS_BRIDGE_H

#include <stddef.h>
#include <stdint.h>

#include "bridge_common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sh_pair
{
	int64_t		id_a;
	int64_t		id_b;
	int32_t		distance;
	float		resemblance;	/* the confirming estimate; -1 when the job confirms nothing */
} sh_pair;

typedef struct sh_cluster_member
{
	int64_t		id;
	int64_t		cluster_id;
} sh_cluster_member;

typedef struct sh_pairs_job sh_pairs_job;	/* opaque: C++ memory */

/* Bytes the job needs for n rows on threads threads, besides the pairs it keeps. */
size_t		sh_pairs_memory(size_t n, int threads) SH_NOEXCEPT;

/*
 * Copies the rows (ids must be distinct) and starts the job on threads worker threads. With
 * sketches (64 bytes a row, see sh_resemblance) the job is confirmed: only pairs whose
 * resemblance estimate is at least min_resemblance (0..1) come out, with the estimate.
 */
sh_status	sh_pairs_new(const int64_t *ids, const uint64_t *hashes, const uint8_t *sketches, size_t n, int k,
						 double min_resemblance, int threads, sh_pairs_job **job, sh_error *err) SH_NOEXCEPT;
/*
 * Waits at most about 100 ms for pairs. They are in *pairs[0..*npairs) until the next call;
 * *more is false once the job is done. With keep != 0 the pairs are also kept for
 * sh_pairs_clusters, and *kept_bytes tells how much memory they hold.
 */
sh_status	sh_pairs_step(sh_pairs_job *job, int keep, const sh_pair **pairs, size_t *npairs,
						  size_t *kept_bytes, int *more, sh_error *err) SH_NOEXCEPT;
/*
 * Connected components of the kept pairs: (id, smallest id of its component), by id; with
 * singletons, every input row is listed (alone: its own id). Valid until sh_pairs_free.
 */
sh_status	sh_pairs_clusters(sh_pairs_job *job, int singletons, const sh_cluster_member **members,
							  size_t *nmembers, sh_error *err) SH_NOEXCEPT;
void		sh_pairs_free(sh_pairs_job *job) SH_NOEXCEPT;

/* Writes the band keys of hash for radius k into keys (room for 65); returns their number. */
sh_status	sh_band_keys(uint64_t hash, int k, int64_t *keys, size_t *nkeys, sh_error *err) SH_NOEXCEPT;

/* Permuted tables (src/core/permuted_tables.hpp): at most this many tables, so keys a row. */
#define SH_MAX_PERMUTED_TABLES 4096

/* The key of hash in each permuted table of radius k over blocks blocks; keys has room for
 * SH_MAX_PERMUTED_TABLES. */
sh_status	sh_table_keys(uint64_t hash, int k, int blocks, int64_t *keys, size_t *nkeys,
						  sh_error *err) SH_NOEXCEPT;
/* How many permuted tables (keys a row) radius k over blocks blocks makes; errors as sh_table_keys. */
sh_status	sh_table_count(int k, int blocks, size_t *ntables, sh_error *err) SH_NOEXCEPT;
/* The table owning the pair (a, b), or -1 when they agree on too few blocks to be within k. */
sh_status	sh_pair_table(uint64_t a, uint64_t b, int k, int blocks, int *table, sh_error *err) SH_NOEXCEPT;

typedef struct sh_key_groups sh_key_groups;	/* opaque: C++ memory */

/*
 * The key groups of n rows, each group's rows packed (src/core/permuted_tables.hpp KeyGrouper):
 * sh_key_groups_step groups one table a call, *more false after the last; the rows must stay
 * valid until then, and the getters below are valid after it.
 */
#define SH_PACKED_ROW_BYTES 16
sh_status	sh_key_groups_new(const int64_t *ids, const uint64_t *hashes, size_t n, int k, int blocks,
							  sh_key_groups **groups, sh_error *err) SH_NOEXCEPT;
sh_status	sh_key_groups_step(sh_key_groups *groups, int *more, sh_error *err) SH_NOEXCEPT;
size_t		sh_key_groups_count(const sh_key_groups *groups) SH_NOEXCEPT;
/* Group g's key and its rows' bytes (*len of them), valid until freed. */
void		sh_key_groups_get(const sh_key_groups *groups, size_t g, int64_t *key, const unsigned char **rows,
							  size_t *len) SH_NOEXCEPT;
void		sh_key_groups_free(sh_key_groups *groups) SH_NOEXCEPT;

typedef struct sh_group_job sh_group_job;	/* opaque: C++ memory */

/* Starts the job over one key group: the pairs within k that key's table owns. */
sh_status	sh_group_job_new(int64_t key, const int64_t *ids, const uint64_t *hashes, size_t n, int k,
							 int blocks, sh_group_job **job, sh_error *err) SH_NOEXCEPT;
/* The same over a group's rows packed as sh_key_groups_pack writes them. */
sh_status	sh_group_job_new_packed(int64_t key, const unsigned char *rows, size_t len, int k, int blocks,
									sh_group_job **job, sh_error *err) SH_NOEXCEPT;
/* Waits at most about 100 ms; the pairs are in *pairs[0..*npairs) until the next call; *more is
 * false once the group is done. */
sh_status	sh_group_job_step(sh_group_job *job, const sh_pair **pairs, size_t *npairs, int *more,
							  sh_error *err) SH_NOEXCEPT;
void		sh_group_job_free(sh_group_job *job) SH_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif
