#include "pairs_bridge.h"

#include <algorithm>
#include <vector>

#include "all_pairs.hpp"
#include "bridge_guard.hpp"

struct sh_pairs_job {
    sh_pairs_job(std::vector<int64_t> ids, std::vector<uint64_t> hashes, int k, int threads)
        : job(std::move(ids), std::move(hashes), k, threads)
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

extern "C" sh_status sh_pairs_new(const int64_t *ids, const uint64_t *hashes, size_t n, int k, int threads,
                                  sh_pairs_job **job, sh_error *err) noexcept
{
    *job = nullptr;
    return guarded(err, [&] {
        std::vector<int64_t> id_copy(ids, ids + n);
        *job = new sh_pairs_job(std::move(id_copy), std::vector<uint64_t>(hashes, hashes + n), k, threads);
    });
}

extern "C" sh_status sh_pairs_step(sh_pairs_job *job, int keep, const sh_pair **pairs, size_t *npairs,
                                   size_t *kept_bytes, int *more, sh_error *err) noexcept
{
    return guarded(err, [&] {
        job->step_pairs.clear();
        *more = job->job.step(job->step_pairs) ? 1 : 0;
        job->batch.clear();
        for (const auto &p : job->step_pairs) job->batch.push_back(sh_pair{p.id_a, p.id_b, p.distance});
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
