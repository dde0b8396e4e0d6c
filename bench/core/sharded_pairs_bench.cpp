// The all-pairs job on one node against the same job split into permuted-table key groups, as a
// cluster runs it (src/core/permuted_tables.hpp): time on one thread and distance computations.
//
//   make bench-core-page && ./bench-core-page --benchmark_filter=Pairs
//
// Rows: 70% random hashes, 30% in groups of three within 2 bits (as scripts/citus_cluster.sh).
#include <benchmark/benchmark.h>

#include <map>
#include <random>
#include <vector>

#include "all_pairs.hpp"
#include "permuted_tables.hpp"

namespace {

struct Rows {
    std::vector<int64_t> ids;
    std::vector<uint64_t> hashes;
};

Rows crawl_rows(std::size_t n)
{
    std::mt19937_64 rng(20240613);
    Rows r;
    while (r.hashes.size() < n) {
        if (rng() % 10 < 7) {
            r.hashes.push_back(rng());
            continue;
        }
        const uint64_t base = rng();
        for (int m = 0; m < 3; ++m) r.hashes.push_back(base ^ (1ULL << (rng() % 64)));
    }
    r.hashes.resize(n);
    for (std::size_t i = 0; i < n; ++i) r.ids.push_back(int64_t(i + 1));
    return r;
}

void BM_InMemoryPairs(benchmark::State &state)
{
    const Rows r = crawl_rows(std::size_t(state.range(0)));
    std::size_t pairs = 0, compared = 0;
    for (auto _ : state) {
        simhash::AllPairsJob job(r.ids, r.hashes, 5, 1);
        std::vector<simhash::Pair> out;
        while (job.step(out, 1000)) {
        }
        pairs = out.size();
        compared = job.compared();
    }
    state.counters["pairs"] = double(pairs);
    state.counters["compared"] = double(compared);
}

// Grouping the rows by key is the cluster's shuffle; only the groups' own work is timed.
void BM_GroupedPairs(benchmark::State &state)
{
    const Rows r = crawl_rows(std::size_t(state.range(0)));
    const simhash::PermutedTables tables(5, int(state.range(1)));
    std::map<int64_t, Rows> groups;
    for (std::size_t i = 0; i < r.ids.size(); ++i)
        for (int64_t key : tables.keys(r.hashes[i])) {
            groups[key].ids.push_back(r.ids[i]);
            groups[key].hashes.push_back(r.hashes[i]);
        }
    std::size_t pairs = 0, compared = 0;
    for (auto _ : state) {
        pairs = compared = 0;
        for (const auto &[key, g] : groups) {
            std::size_t c = 0;
            pairs += simhash::group_pairs(tables, key, g.ids, g.hashes, &c).size();
            compared += c;
        }
    }
    state.counters["pairs"] = double(pairs);
    state.counters["compared"] = double(compared);
    state.counters["groups"] = double(groups.size());
    state.counters["rows_shuffled"] = double(r.ids.size() * tables.tables());
}

// One key group of a billion-page crawl: n rows sharing one 11-bit block, so 53 bits can differ
// (the cost model of doc/scaling.md).
void BM_OneLargeGroup(benchmark::State &state)
{
    Rows r = crawl_rows(std::size_t(state.range(0)));
    for (auto &h : r.hashes) h &= (1ULL << 53) - 1;
    std::size_t compared = 0;
    for (auto _ : state) {
        simhash::AllPairsJob job(r.ids, r.hashes, 5, 0, 53);
        std::vector<simhash::Pair> out;
        while (job.step(out, 1000)) {
        }
        compared = job.compared();
    }
    state.counters["compared_per_row"] = double(compared) / double(r.ids.size());
}

BENCHMARK(BM_OneLargeGroup)->Arg(500000)->Arg(1000000)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_InMemoryPairs)->Arg(1000000)->Arg(10000000)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_GroupedPairs)->Args({1000000, 6})->Args({1000000, 7})->Args({10000000, 6})
    ->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
