// The index benchmark's workload: a deterministic "crawl" of 64-bit simhashes, queries against it,
// and their exact answers. Output depends only on (N, SEED), and equals the reference workload the
// issue's figures were measured with (bench/check_workload.sh compares the two when given it).
//
//   workload rows     N SEED               id<TAB>h              h as signed int8, ids 1..N
//   workload queries  N SEED NQ            qid<TAB>q<TAB>kind<TAB>source_id
//   workload truth    N SEED NQ KMAX       qid<TAB>id<TAB>d      every row within KMAX of each query
//   workload knntruth N SEED NQ K          qid<TAB>dK<TAB>below  true K-th distance, rows closer
//
// Rows: about 70% uniform random values and 30% near-duplicate clusters (a random base; members =
// base with U{0..8} distinct random bits flipped; size 2 + Geometric(0.12), at most 50), shuffled.
// Queries: odd qid = a random row with U{0..3} bits flipped ("row"), even qid = uniform ("rand").
// Random numbers: xoshiro256** seeded through SplitMix64; queries use a second stream.
// With SIMHASH_WORKLOAD=uniform in the environment, every row and every query is a uniform random
// value instead (the setting of multi-index hashing papers and libraries).
#include <algorithm>
#include <array>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

class Xoshiro256ss {
public:
    explicit Xoshiro256ss(uint64_t seed)
    {
        for (auto &word : s_) {
            seed += UINT64_C(0x9e3779b97f4a7c15);
            uint64_t z = seed;
            z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
            z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
            word = z ^ (z >> 31);
        }
    }
    uint64_t next()
    {
        const uint64_t result = rotl(s_[1] * 5, 7) * 9;
        const uint64_t t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return result;
    }
    // Uniform in [0, n) by the multiply-high method (no modulo bias worth mentioning at 64 bits).
    uint64_t below(uint64_t n) { return uint64_t((unsigned __int128)next() * n >> 64); }
    double unit() { return double(next() >> 11) * 0x1.0p-53; }

private:
    static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    std::array<uint64_t, 4> s_{};
};

constexpr double kGeometricP = 0.12;
constexpr int kMinCluster = 2, kMaxCluster = 50, kMaxFlips = 8;
constexpr double kClusteredFraction = 0.30;
constexpr uint64_t kQueryStream = UINT64_C(0x5155455259);  // "QUERY"

uint64_t flip_distinct_bits(Xoshiro256ss &rng, uint64_t value, int count)
{
    uint64_t mask = 0;
    while (__builtin_popcountll(mask) < count) mask |= UINT64_C(1) << (rng.next() & 63);
    return value ^ mask;
}

double mean_cluster_size()
{
    double mean = 0, reach = 1;
    for (int s = kMinCluster; s < kMaxCluster; ++s) {
        mean += s * reach * kGeometricP;
        reach *= 1 - kGeometricP;
    }
    return mean + kMaxCluster * reach;
}

std::vector<uint64_t> make_rows(long n, uint64_t seed, bool uniform)
{
    std::vector<uint64_t> rows;
    rows.reserve(n);
    Xoshiro256ss rng(seed);
    if (uniform) {
        while (long(rows.size()) < n) rows.push_back(rng.next());
        return rows;
    }
    // The chance that the next draw starts a cluster, so that clusters hold 30% of the rows.
    const double p_cluster =
        kClusteredFraction / (mean_cluster_size() * (1 - kClusteredFraction) + kClusteredFraction);
    while (long(rows.size()) < n) {
        if (rng.unit() < p_cluster) {
            int size = kMinCluster;
            while (size < kMaxCluster && rng.unit() >= kGeometricP) ++size;
            const uint64_t base = rng.next();
            size = int(std::min<long>(size, n - long(rows.size())));
            for (int j = 0; j < size; ++j)
                rows.push_back(flip_distinct_bits(rng, base, int(rng.below(kMaxFlips + 1))));
        } else {
            rows.push_back(rng.next());
        }
    }
    for (long k = n - 1; k > 0; --k) std::swap(rows[k], rows[rng.below(uint64_t(k) + 1)]);
    return rows;
}

struct Query {
    uint64_t value;
    bool near_row;
    long source_id;  // 1-based id of the row it was made from, 0 for a random query
};

std::vector<Query> make_queries(const std::vector<uint64_t> &rows, uint64_t seed, int nq, bool uniform)
{
    std::vector<Query> queries;
    Xoshiro256ss rng(seed ^ kQueryStream);
    for (int qid = 1; qid <= nq; ++qid) {
        if (qid % 2 == 1 && !uniform) {
            const long index = long(rng.below(rows.size()));
            const int flips = int(rng.below(4));
            queries.push_back({flip_distinct_bits(rng, rows[index], flips), true, index + 1});
        } else {
            queries.push_back({rng.next(), false, 0});
        }
    }
    return queries;
}

// Runs body(query index) for every query on all cores, then prints the per-query outputs in order.
template <typename Body>
void for_each_query(std::size_t nq, Body body)
{
    std::vector<std::string> out(nq);
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            for (std::size_t i = t; i < nq; i += threads) out[i] = body(i);
        });
    for (auto &th : pool) th.join();
    for (const auto &s : out) std::fputs(s.c_str(), stdout);
}

int usage()
{
    std::fprintf(stderr, "usage: workload rows N SEED | queries N SEED NQ | truth N SEED NQ KMAX | "
                         "knntruth N SEED NQ K\n");
    return 2;
}

}  // namespace

int main(int argc, char **argv)
{
    if (argc < 4) return usage();
    const std::string mode = argv[1];
    const long n = std::atol(argv[2]);
    const uint64_t seed = std::strtoull(argv[3], nullptr, 10);
    if (n < 1) return usage();
    static char buffer[1 << 20];
    std::setvbuf(stdout, buffer, _IOFBF, sizeof buffer);
    const char *workload = std::getenv("SIMHASH_WORKLOAD");
    const bool uniform = workload != nullptr && std::string(workload) == "uniform";
    const std::vector<uint64_t> rows = make_rows(n, seed, uniform);

    if (mode == "rows") {
        for (long i = 0; i < n; ++i) std::printf("%ld\t%" PRId64 "\n", i + 1, int64_t(rows[i]));
        return 0;
    }
    if (argc < 5) return usage();
    const int nq = std::atoi(argv[4]);
    const std::vector<Query> queries = make_queries(rows, seed, nq, uniform);
    if (mode == "queries") {
        for (int i = 0; i < nq; ++i)
            std::printf("%d\t%" PRId64 "\t%s\t%ld\n", i + 1, int64_t(queries[i].value),
                        queries[i].near_row ? "row" : "rand", queries[i].source_id);
        return 0;
    }
    if (argc < 6) return usage();
    const int k = std::atoi(argv[5]);
    if (mode == "truth") {
        for_each_query(queries.size(), [&](std::size_t i) {
            std::string s;
            char line[64];
            for (long j = 0; j < n; ++j) {
                const int d = __builtin_popcountll(rows[j] ^ queries[i].value);
                if (d <= k) {
                    std::snprintf(line, sizeof line, "%zu\t%ld\t%d\n", i + 1, j + 1, d);
                    s += line;
                }
            }
            return s;
        });
        return 0;
    }
    if (mode == "knntruth") {
        for_each_query(queries.size(), [&](std::size_t i) {
            std::array<long, 65> histogram{};
            for (long j = 0; j < n; ++j) ++histogram[__builtin_popcountll(rows[j] ^ queries[i].value)];
            long below = 0;
            int d = 0;
            while (d < 64 && below + histogram[d] < k) below += histogram[d++];
            char line[64];
            std::snprintf(line, sizeof line, "%zu\t%d\t%ld\n", i + 1, d, below);
            return std::string(line);
        });
        return 0;
    }
    return usage();
}
