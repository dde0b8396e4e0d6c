#include "pairs_bridge.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "all_pairs.hpp"
#include "permuted_tables.hpp"
#include "resemblance_check.hpp"
#include "bridge_guard.hpp"

struct sh_pairs_job {
    sh_pairs_job(std::vector<int64_t> ids, std::vector<uint64_t> hashes, int k, int threads,
                 std::shared_ptr<const simhash::PairCheck> check)
        : job(std::move(ids), std::move(hashes), k, threads, 64, std::move(check))
    {
    }
    simhash::AllPairsJob job;
    std::vector<sh_pair> batch;
    std::vector<simhash::Pair> kept;
    std::vector<simhash::Pair> step_pairs;
    std::vector<sh_cluster_member> members;
};

using simhash::guarded;

extern "C" size_t sh_pairs_memory(size_t n, int threads) noexcept { return simhash::all_pairs_memory(n, threads); }

extern "C" sh_status sh_pairs_new(const int64_t *ids, const uint64_t *hashes, const uint8_t *sketches, size_t n,
                                  int k, double min_resemblance, int threads, sh_pairs_job **job,
                                  sh_error *err) noexcept
{
    *job = nullptr;
    return guarded(err, [&] {
        std::shared_ptr<const simhash::PairCheck> check;
        if (sketches)
            check = std::make_shared<simhash::ResemblanceCheck>(
                std::vector<uint8_t>(sketches, sketches + n * simhash::kResemblanceBytes), min_resemblance);
        std::vector<int64_t> id_copy(ids, ids + n);
        *job = new sh_pairs_job(std::move(id_copy), std::vector<uint64_t>(hashes, hashes + n), k, threads,
                                std::move(check));
    });
}

extern "C" sh_status sh_pairs_step(sh_pairs_job *job, int keep, const sh_pair **pairs, size_t *npairs,
                                   size_t *kept_bytes, int *more, sh_error *err) noexcept
{
    return guarded(err, [&] {
        job->step_pairs.clear();
        *more = job->job.step(job->step_pairs) ? 1 : 0;
        job->batch.clear();
        for (const auto &p : job->step_pairs) job->batch.push_back(sh_pair{p.id_a, p.id_b, p.distance, p.score});
        if (keep) job->kept.insert(job->kept.end(), job->step_pairs.begin(), job->step_pairs.end());
        *pairs = job->batch.data();
        *npairs = job->batch.size();
        *kept_bytes = job->kept.capacity() * sizeof(simhash::Pair);
    });
}

extern "C" sh_status sh_pairs_clusters(sh_pairs_job *job, int singletons, const sh_cluster_member **members,
                                       size_t *nmembers, sh_error *err) noexcept
{
    return guarded(err, [&] {
        auto components = simhash::connected_components(job->kept);
        job->members.clear();
        std::size_t c = 0;
        if (singletons) {
            std::vector<int64_t> all = job->job.ids();
            std::sort(all.begin(), all.end());
            for (int64_t id : all) {
                while (c < components.size() && components[c].first < id) ++c;
                const bool paired = c < components.size() && components[c].first == id;
                job->members.push_back(sh_cluster_member{id, paired ? components[c].second : id});
            }
        } else {
            for (const auto &m : components) job->members.push_back(sh_cluster_member{m.first, m.second});
        }
        *members = job->members.data();
        *nmembers = job->members.size();
    });
}

extern "C" void sh_pairs_free(sh_pairs_job *job) noexcept { delete job; }

extern "C" sh_status sh_band_keys(uint64_t hash, int k, int64_t *keys, size_t *nkeys, sh_error *err) noexcept
{
    return guarded(err, [&] {
        auto out = simhash::band_keys(hash, k);
        std::copy(out.begin(), out.end(), keys);
        *nkeys = out.size();
    });
}

namespace {

// A query calls these once a row with the same (k, blocks): keep the last tables.
const simhash::PermutedTables &tables_for(int k, int blocks)
{
    static std::unique_ptr<simhash::PermutedTables> last;
    if (!last || last->k() != k || last->blocks() != blocks)
        last = std::make_unique<simhash::PermutedTables>(k, blocks);
    return *last;
}

}  // namespace

static_assert(simhash::PermutedTables::kMaxTables == SH_MAX_PERMUTED_TABLES, "bridge and core disagree");

extern "C" sh_status sh_table_keys(uint64_t hash, int k, int blocks, int64_t *keys, size_t *nkeys,
                                   sh_error *err) noexcept
{
    return guarded(err, [&] {
        const auto &tables = tables_for(k, blocks);
        for (std::size_t t = 0; t < tables.tables(); ++t) keys[t] = tables.key(hash, t);
        *nkeys = tables.tables();
    });
}

extern "C" sh_status sh_table_count(int k, int blocks, size_t *ntables, sh_error *err) noexcept
{
    return guarded(err, [&] { *ntables = tables_for(k, blocks).tables(); });
}

extern "C" sh_status sh_pair_table(uint64_t a, uint64_t b, int k, int blocks, int *table, sh_error *err) noexcept
{
    return guarded(err, [&] { *table = tables_for(k, blocks).owner(a, b); });
}

struct sh_key_groups {
    sh_key_groups(int k, int blocks, const int64_t *ids, const uint64_t *hashes, size_t n)
        : tables(tables_for(k, blocks)), grouper(tables, ids, hashes, n)
    {
    }
    simhash::PermutedTables tables;  // its own: the grouper keeps a reference across steps
    simhash::KeyGrouper grouper;
};

extern "C" sh_status sh_key_groups_new(const int64_t *ids, const uint64_t *hashes, size_t n, int k, int blocks,
                                       sh_key_groups **groups, sh_error *err) noexcept
{
    *groups = nullptr;
    return guarded(err, [&] { *groups = new sh_key_groups(k, blocks, ids, hashes, n); });
}

extern "C" sh_status sh_key_groups_step(sh_key_groups *groups, int *more, sh_error *err) noexcept
{
    return guarded(err, [&] { *more = groups->grouper.step() ? 1 : 0; });
}

extern "C" size_t sh_key_groups_count(const sh_key_groups *groups) noexcept
{
    return groups->grouper.groups().keys.size();
}

static_assert(simhash::kPackedRowBytes == SH_PACKED_ROW_BYTES, "bridge and core disagree");

extern "C" void sh_key_groups_get(const sh_key_groups *groups, size_t g, int64_t *key, const unsigned char **rows,
                                  size_t *len) noexcept
{
    const simhash::KeyGroups &kg = groups->grouper.groups();
    *key = kg.keys[g];
    *rows = kg.packed.data() + kg.starts[g] * simhash::kPackedRowBytes;
    *len = (kg.starts[g + 1] - kg.starts[g]) * simhash::kPackedRowBytes;
}

extern "C" void sh_key_groups_free(sh_key_groups *groups) noexcept { delete groups; }

struct sh_group_job {
    sh_group_job(int64_t key, std::vector<int64_t> ids, std::vector<uint64_t> hashes, int k, int blocks)
        : job(tables_for(k, blocks), key, std::move(ids), std::move(hashes))
    {
    }
    simhash::GroupPairsJob job;
    std::vector<simhash::Pair> found;
    std::vector<sh_pair> batch;
};

extern "C" sh_status sh_group_job_new(int64_t key, const int64_t *ids, const uint64_t *hashes, size_t n, int k,
                                      int blocks, sh_group_job **job, sh_error *err) noexcept
{
    *job = nullptr;
    return guarded(err, [&] {
        *job = new sh_group_job(key, std::vector<int64_t>(ids, ids + n), std::vector<uint64_t>(hashes, hashes + n), k,
                                blocks);
    });
}

extern "C" sh_status sh_group_job_new_packed(int64_t key, const unsigned char *rows, size_t len, int k, int blocks,
                                             sh_group_job **job, sh_error *err) noexcept
{
    *job = nullptr;
    return guarded(err, [&] {
        std::vector<int64_t> ids;
        std::vector<uint64_t> hashes;
        simhash::unpack_rows(rows, len, ids, hashes);
        *job = new sh_group_job(key, std::move(ids), std::move(hashes), k, blocks);
    });
}

extern "C" sh_status sh_group_job_step(sh_group_job *job, const sh_pair **pairs, size_t *npairs, int *more,
                                       sh_error *err) noexcept
{
    return guarded(err, [&] {
        job->found.clear();
        *more = job->job.step(job->found) ? 1 : 0;
        job->batch.clear();
        for (const auto &p : job->found) job->batch.push_back(sh_pair{p.id_a, p.id_b, p.distance, p.score});
        *pairs = job->batch.data();
        *npairs = job->batch.size();
    });
}

extern "C" void sh_group_job_free(sh_group_job *job) noexcept { delete job; }
