#include "all_pairs.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <pthread.h>
#include <signal.h>
#include <cmath>
#include <limits>
#include <string>

#include "bridge_guard.hpp"
#include "hamming.h"

namespace simhash {
namespace {

int block_len(int blocks, int b) { return 64 / blocks + (b < 64 % blocks ? 1 : 0); }

int block_start(int blocks, int b)
{
    int s = 0;
    for (int i = 0; i < b; ++i) s += block_len(blocks, i);
    return s;
}

double choose(int n, int r)
{
    double c = 1;
    for (int i = 0; i < r; ++i) c = c * (n - i) / (i + 1);
    return c;
}

// Key bits of a table whose t blocks are the shortest ones (the fewest, so the worst case).
int min_key_bits(int blocks, int t)
{
    int bits = 0;
    for (int i = 0; i < t; ++i) bits += block_len(blocks, blocks - 1 - i);
    return bits;
}

// Pairs a worker collects before handing them over, and how many may wait for the caller before
// the workers pause: bounds the job's memory whatever the caller's speed.
constexpr std::size_t kBatch = 1 << 14;
constexpr std::size_t kDeliveredCap = 1 << 20;

}  // namespace

AllPairsPlan plan_all_pairs(std::size_t n, int k)
{
    AllPairsPlan best;
    double best_cost = std::numeric_limits<double>::infinity();
    const double nn = double(std::max<std::size_t>(n, 2));
    for (int blocks = std::max(k, 1); blocks <= 64; ++blocks) {
        const int t = blocks - k;
        if (t < 0) continue;
        const double tables = choose(blocks, t);
        if (tables > 20000) break;
        const int bits = min_key_bits(blocks, t);
        const double sort = std::ceil(bits / 16.0) * (2.0 * nn + 65536.0);  // radix passes
        const double compare = nn * nn / 2.0 / std::ldexp(1.0, bits) + nn;   // within equal keys
        const double cost = tables * (sort + compare);
        if (cost < best_cost) {
            best_cost = cost;
            best.blocks = blocks;
            best.agree = t;
            best.tables = std::size_t(tables);
        }
    }
    return best;
}

std::size_t all_pairs_memory(std::size_t n, int threads)
{
    // ids and hashes once; per thread the (key, row) arrays and their radix scratch; and the
    // pairs waiting for the caller (bounded by kDeliveredCap plus one batch per thread).
    const std::size_t per_thread = 2 * (sizeof(uint64_t) + sizeof(uint32_t));
    const std::size_t waiting = (kDeliveredCap + std::size_t(threads) * kBatch) * sizeof(Pair);
    return n * (sizeof(int64_t) + sizeof(uint64_t) + std::size_t(threads) * per_thread) + waiting;
}

struct AllPairsJob::Scratch {
    std::vector<uint64_t> keys, tmp_keys;
    std::vector<uint32_t> rows, tmp_rows;
    std::vector<Pair> pairs;
};

AllPairsJob::AllPairsJob(std::vector<int64_t> ids, std::vector<uint64_t> hashes, int k, int threads)
    : ids_(std::move(ids)), hashes_(std::move(hashes)), k_(k)
{
    if (k < 0 || k > 64) throw InvalidArgument("radius must be between 0 and 64, got " + std::to_string(k));
    if (threads < 1 || threads > 64) throw InvalidArgument("threads must be between 1 and 64, got " + std::to_string(threads));
    if (ids_.size() != hashes_.size()) throw InvalidArgument("ids and hashes differ in length");
    if (ids_.size() > std::numeric_limits<uint32_t>::max()) throw LimitExceeded("too many rows");
    plan_ = plan_all_pairs(ids_.size(), k);
    for (int b = 0; b < plan_.blocks; ++b) {
        const int len = block_len(plan_.blocks, b);
        block_masks_.push_back((len == 64 ? ~0ULL : ((1ULL << len) - 1)) << block_start(plan_.blocks, b));
    }
    // Every t-subset of the B blocks, in lexicographic order (the order canonical() relies on).
    std::vector<int> choice(std::size_t(plan_.agree));
    for (int i = 0; i < plan_.agree; ++i) choice[std::size_t(i)] = i;
    for (;;) {
        choices_.push_back(choice);
        int i = plan_.agree - 1;
        while (i >= 0 && choice[std::size_t(i)] == plan_.blocks - plan_.agree + i) --i;
        if (i < 0) break;
        ++choice[std::size_t(i)];
        for (int j = i + 1; j < plan_.agree; ++j) choice[std::size_t(j)] = choice[std::size_t(j - 1)] + 1;
    }
    if (ids_.empty()) return;

    sigset_t all, caller;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &caller);  // inherited by the workers
    try {
        const int wanted = int(std::min<std::size_t>(std::size_t(threads), choices_.size()));
        for (int t = 0; t < wanted; ++t) {
            {
                std::lock_guard<std::mutex> lock(mutex_);
                ++running_;
            }
            try {
                workers_.emplace_back([this] { work(); });
            } catch (...) {
                std::lock_guard<std::mutex> lock(mutex_);
                --running_;
                throw;
            }
        }
    } catch (...) {
        pthread_sigmask(SIG_SETMASK, &caller, nullptr);
        stop_ = true;
        room_.notify_all();
        for (auto &w : workers_) w.join();
        throw;
    }
    pthread_sigmask(SIG_SETMASK, &caller, nullptr);
}

AllPairsJob::~AllPairsJob()
{
    stop_ = true;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        room_.notify_all();
    }
    for (auto &w : workers_) w.join();
}

void AllPairsJob::work()
{
    try {
        Scratch s;
        for (;;) {
            const std::size_t table = next_table_++;
            if (table >= choices_.size() || stop_) break;
            run_table(table, s);
        }
        deliver(s.pairs);
    } catch (...) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!failure_) failure_ = std::current_exception();
        stop_ = true;
        room_.notify_all();
    }
    std::lock_guard<std::mutex> lock(mutex_);
    --running_;
    ready_.notify_all();
}

void AllPairsJob::deliver(std::vector<Pair> &pairs)
{
    std::unique_lock<std::mutex> lock(mutex_);
    room_.wait(lock, [&] { return delivered_.size() < kDeliveredCap || stop_; });
    if (stop_) return;
    delivered_.insert(delivered_.end(), pairs.begin(), pairs.end());
    pairs.clear();
    ready_.notify_all();
}

bool AllPairsJob::step(std::vector<Pair> &out, int wait_ms)
{
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait_for(lock, std::chrono::milliseconds(wait_ms),
                    [&] { return !delivered_.empty() || running_ == 0; });
    if (failure_) std::rethrow_exception(failure_);
    const bool finished = running_ == 0;
    out.insert(out.end(), delivered_.begin(), delivered_.end());
    delivered_.clear();
    room_.notify_all();
    return !finished;
}

void AllPairsJob::run_table(std::size_t table, Scratch &s)
{
    const std::vector<int> &choice = choices_[table];
    const std::size_t n = ids_.size();

    // Key of every row: the bits of the chosen blocks, packed.
    s.keys.resize(n);
    s.rows.resize(n);
    int key_bits = 0;
    for (int b : choice) key_bits += block_len(plan_.blocks, b);
    for (std::size_t r = 0; r < n; ++r) {
        uint64_t key = 0;
        int shift = 0;
        for (int b : choice) {
            key |= ((hashes_[r] & block_masks_[std::size_t(b)]) >> block_start(plan_.blocks, b)) << shift;
            shift += block_len(plan_.blocks, b);
        }
        s.keys[r] = key;
        s.rows[r] = uint32_t(r);
    }

    // LSD radix sort of (key, row) by key, 16 bits a pass.
    s.tmp_keys.resize(n);
    s.tmp_rows.resize(n);
    std::vector<std::size_t> count(65537);
    for (int pass = 0; pass * 16 < key_bits && !stop_; ++pass) {
        std::fill(count.begin(), count.end(), 0);
        const int sh = pass * 16;
        for (std::size_t r = 0; r < n; ++r) ++count[((s.keys[r] >> sh) & 0xFFFF) + 1];
        for (std::size_t d = 1; d < count.size(); ++d) count[d] += count[d - 1];
        for (std::size_t r = 0; r < n; ++r) {
            const std::size_t to = count[(s.keys[r] >> sh) & 0xFFFF]++;
            s.tmp_keys[to] = s.keys[r];
            s.tmp_rows[to] = s.rows[r];
        }
        s.keys.swap(s.tmp_keys);
        s.rows.swap(s.tmp_rows);
    }

    // Compare within runs of equal keys; emit a pair only from its first agreeing block choice,
    // so each pair comes out once.
    for (std::size_t lo = 0; lo < n && !stop_;) {
        std::size_t hi = lo + 1;
        while (hi < n && s.keys[hi] == s.keys[lo]) ++hi;
        for (std::size_t i = lo; i < hi && !stop_; ++i) {
            const uint64_t mine = hashes_[s.rows[i]];
            for (std::size_t j = i + 1; j < hi; ++j) {
                const uint64_t other = hashes_[s.rows[j]];
                const int d = sh_hamming(mine, other);
                if (d > k_) continue;
                bool canonical = true;
                int seen = 0;
                const uint64_t diff = mine ^ other;
                for (int b = 0; b < plan_.blocks && seen < plan_.agree; ++b) {
                    if (diff & block_masks_[std::size_t(b)]) continue;
                    if (choice[std::size_t(seen)] != b) {
                        canonical = false;
                        break;
                    }
                    ++seen;
                }
                if (!canonical) continue;
                int64_t a = ids_[s.rows[i]], b = ids_[s.rows[j]];
                if (a > b) std::swap(a, b);
                s.pairs.push_back(Pair{a, b, d});
            }
            if (s.pairs.size() >= kBatch) deliver(s.pairs);
        }
        lo = hi;
    }
}

std::vector<std::pair<int64_t, int64_t>> connected_components(const std::vector<Pair> &pairs)
{
    std::vector<int64_t> ids;
    ids.reserve(pairs.size() * 2);
    for (const auto &p : pairs) {
        ids.push_back(p.id_a);
        ids.push_back(p.id_b);
    }
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    auto index = [&](int64_t id) { return std::size_t(std::lower_bound(ids.begin(), ids.end(), id) - ids.begin()); };

    std::vector<std::size_t> parent(ids.size());
    for (std::size_t i = 0; i < parent.size(); ++i) parent[i] = i;
    auto find = [&](std::size_t x) {
        while (parent[x] != x) {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        return x;
    };
    for (const auto &p : pairs) {
        std::size_t a = find(index(p.id_a)), b = find(index(p.id_b));
        if (a == b) continue;
        if (a < b) parent[b] = a;  // the root is the smallest index, i.e. the smallest id
        else parent[a] = b;
    }
    std::vector<std::pair<int64_t, int64_t>> out(ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i) out[i] = {ids[i], ids[find(i)]};
    return out;
}

std::vector<int64_t> band_keys(uint64_t hash, int k)
{
    if (k < 0 || k > 64) throw InvalidArgument("radius must be between 0 and 64, got " + std::to_string(k));
    if (k == 0) return {int64_t(hash)};
    if (k == 64) return {0};
    const int blocks = k + 1;
    std::vector<int64_t> keys;
    for (int b = 0; b < blocks; ++b) {
        const int len = block_len(blocks, b);
        const uint64_t value = (hash >> block_start(blocks, b)) & ((1ULL << len) - 1);
        keys.push_back(int64_t((uint64_t(b) << 56) | value));
    }
    return keys;
}

}  // namespace simhash
