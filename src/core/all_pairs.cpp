#include "all_pairs.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <pthread.h>
#include <signal.h>
#include <cmath>
#include <limits>
#include <string>

#include "core_errors.hpp"
#include "hamming.h"
#include "mih_blocks.h"

namespace simhash {
namespace {

// The blocks split the low `width` bits as the indexes split 64 (mih_blocks.h): the first
// width % blocks blocks one bit longer.
int block_len(int width, int blocks, int b) { return width / blocks + (b < width % blocks ? 1 : 0); }
int block_start(int width, int blocks, int b)
{
    int start = 0;
    for (int i = 0; i < b; ++i) start += block_len(width, blocks, i);
    return start;
}

double choose(int n, int r)
{
    double c = 1;
    for (int i = 0; i < r; ++i) c = c * (n - i) / (i + 1);
    return c;
}

// Key bits of a table whose t blocks are the shortest ones (the fewest, so the worst case).
int min_key_bits(int width, int blocks, int t)
{
    int bits = 0;
    for (int i = 0; i < t; ++i) bits += block_len(width, blocks, blocks - 1 - i);
    return bits;
}

// Pairs a worker collects before handing them over, and how many may wait for the caller before
// the workers pause: bounds the job's memory whatever the caller's speed.
constexpr std::size_t kBatch = 1 << 14;
// Rows are first partitioned by up to this many leading bits of a table's first block, so that
// each partition's keys sort inside the cache; small jobs use fewer (about 64 rows a partition).
constexpr int kPartitionBits = 12;
int partition_bits_for(std::size_t n, int first_block_len)
{
    int bits = 0;
    while (bits < kPartitionBits && (std::size_t(64) << bits) < n) ++bits;
    return std::min(bits, first_block_len);
}
constexpr std::size_t kDeliveredCap = 1 << 20;

}  // namespace

AllPairsPlan plan_all_pairs(std::size_t n, int k, int width)
{
    // Estimated nanoseconds on one core (constants measured on random hashes): partitioning the rows once per first block (a scatter
    // over all of memory), then per table building and radix-sorting keys inside cache-sized
    // buckets, and comparing the rows whose keys are equal.
    AllPairsPlan best;
    double best_cost = std::numeric_limits<double>::infinity();
    const double nn = double(std::max<std::size_t>(n, 2));
    for (int blocks = std::max(k, 1); blocks <= width; ++blocks) {
        const int t = blocks - k;
        if (t < 0) continue;
        const double tables = std::round(choose(blocks, t));
        if (tables > 20000) break;
        const int bits = min_key_bits(width, blocks, t);
        const int partition_bits = t == 0 ? 0 : partition_bits_for(n, block_len(width, blocks, blocks - 1));
        const double groups = t == 0 ? 1 : blocks - t + 1;
        const double passes = std::ceil((bits - partition_bits) / 8.0);
        const double per_table = nn * (4.0 + 2.0 * passes) + 0.5 * nn * nn / 2.0 / std::ldexp(1.0, bits);
        const double cost = groups * nn * 8.0 + tables * per_table;
        if (cost < best_cost * (1 - 1e-9)) {
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
    // ids and hashes once; per thread the partitioned (hash, row) arrays and, for the largest
    // partition (all rows at worst), its (key, index) arrays with their radix scratch; and the
    // pairs waiting for the caller (bounded by kDeliveredCap plus one batch per thread).
    const std::size_t per_thread = 3 * (sizeof(uint64_t) + sizeof(uint32_t));
    const std::size_t waiting = (kDeliveredCap + std::size_t(threads) * kBatch) * sizeof(Pair);
    return n * (sizeof(int64_t) + sizeof(uint64_t) + std::size_t(threads) * per_thread) + waiting;
}

struct AllPairsJob::Scratch {
    std::vector<uint64_t> hashes;          // the rows' hashes, partitioned
    std::vector<uint32_t> rows;            // their row numbers
    std::vector<std::size_t> bounds;       // partition p is [bounds[p], bounds[p + 1])
    std::vector<uint64_t> keys, tmp_keys;  // one partition's keys for one table
    std::vector<uint32_t> index, tmp_index;
    std::vector<Pair> pairs;
    std::size_t compared = 0;  // distance computations
};

AllPairsJob::AllPairsJob(std::vector<int64_t> ids, std::vector<uint64_t> hashes, int k, int threads, int width,
                         std::shared_ptr<const PairCheck> check)
    : ids_(std::move(ids)), hashes_(std::move(hashes)), k_(k), width_(width), check_(std::move(check))
{
    if (width < 1 || width > 64) throw InvalidArgument("width must be between 1 and 64, got " + std::to_string(width));
    if (k < 0 || k > 64) throw InvalidArgument("radius must be between 0 and 64, got " + std::to_string(k));
    if (threads < 0 || threads > 64) throw InvalidArgument("threads must be between 0 and 64, got " + std::to_string(threads));
    if (ids_.size() != hashes_.size()) throw InvalidArgument("ids and hashes differ in length");
    if (ids_.size() > std::numeric_limits<uint32_t>::max()) throw LimitExceeded("too many rows");
    plan_ = plan_all_pairs(ids_.size(), k, width);
    for (int b = 0; b < plan_.blocks; ++b) {
        const int len = block_len(width_, plan_.blocks, b);
        block_masks_.push_back((len == 64 ? ~0ULL : ((1ULL << len) - 1)) << block_start(width_, plan_.blocks, b));
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
    // Tables sharing their first block share one partitioning of the rows.
    for (std::size_t table = 0; table < choices_.size(); ++table) {
        if (table == 0 || choices_[table].empty() || choices_[table][0] != choices_[table - 1][0])
            groups_.push_back({table, table + 1});
        else
            groups_.back().second = table + 1;
    }
    if (ids_.empty()) return;
    if (threads == 0) {
        // Inline: the first step runs every table in the caller's thread.
        inline_pending_ = true;
        running_ = 1;
        return;
    }

    sigset_t all, caller;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &caller);  // inherited by the workers
    try {
        const int wanted = int(std::min<std::size_t>(std::size_t(threads), groups_.size()));
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
            const std::size_t group = next_group_++;
            if (group >= groups_.size() || stop_) break;
            run_group(group, s);
        }
        compared_ += s.compared;
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
    if (!inline_pending_) room_.wait(lock, [&] { return delivered_.size() < kDeliveredCap || stop_; });
    if (stop_) return;
    delivered_.insert(delivered_.end(), pairs.begin(), pairs.end());
    pairs.clear();
    ready_.notify_all();
}

bool AllPairsJob::step(std::vector<Pair> &out, int wait_ms)
{
    if (inline_pending_) {
        work();  // nobody collects meanwhile, so deliver() does not wait for room
        inline_pending_ = false;
    }
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

void AllPairsJob::run_group(std::size_t group, Scratch &s)
{
    const std::size_t n = ids_.size();
    const int blocks = plan_.blocks;
    const auto [first_table, end_table] = groups_[group];

    // Partition the rows by the leading bits of the group's first block.
    int part_bits = 0, part_shift = 0, first = -1;
    if (plan_.agree > 0) {
        first = choices_[first_table][0];
        const int len = block_len(width_, blocks, first);
        part_bits = partition_bits_for(n, len);
        // With no partition bits (a small job) the mask is 0 and the shift must stay below 64.
        part_shift = part_bits == 0 ? 0 : block_start(width_, blocks, first) + len - part_bits;
    }
    const uint64_t part_mask = (uint64_t(1) << part_bits) - 1;
    s.bounds.assign((std::size_t(1) << part_bits) + 1, 0);
    for (std::size_t r = 0; r < n; ++r) ++s.bounds[((hashes_[r] >> part_shift) & part_mask) + 1];
    for (std::size_t p = 1; p < s.bounds.size(); ++p) s.bounds[p] += s.bounds[p - 1];
    s.hashes.resize(n);
    s.rows.resize(n);
    {
        std::vector<std::size_t> next(s.bounds.begin(), s.bounds.end() - 1);
        for (std::size_t r = 0; r < n; ++r) {
            const std::size_t to = next[(hashes_[r] >> part_shift) & part_mask]++;
            s.hashes[to] = hashes_[r];
            s.rows[to] = uint32_t(r);
        }
    }

    for (std::size_t p = 0; p + 1 < s.bounds.size() && !stop_; ++p) {
        const std::size_t lo = s.bounds[p], m = s.bounds[p + 1] - lo;
        if (m < 2) continue;
        for (std::size_t table = first_table; table < end_table && !stop_; ++table)
            run_partition(choices_[table], part_bits, lo, m, s);
    }
}

void AllPairsJob::run_partition(const std::vector<int> &choice, int part_bits, std::size_t lo, std::size_t m,
                                Scratch &s)
{
    const int blocks = plan_.blocks;

    // Keys: the chosen blocks' bits, packed, without the partition bits (equal here).
    struct Field {
        int from;       // first bit in the hash
        uint64_t mask;  // of its length
        int to;         // first bit in the key
    };
    Field fields[64];
    int nfields = 0, key_bits = 0;
    for (std::size_t c = 0; c < choice.size(); ++c) {
        const int len = block_len(width_, blocks, choice[c]) - (c == 0 ? part_bits : 0);
        if (len == 0) continue;
        fields[nfields++] = Field{block_start(width_, blocks, choice[c]), len == 64 ? ~uint64_t(0) : (uint64_t(1) << len) - 1, key_bits};
        key_bits += len;
    }
    s.keys.resize(m);
    s.index.resize(m);
    for (std::size_t i = 0; i < m; ++i) {
        const uint64_t h = s.hashes[lo + i];
        uint64_t key = 0;
        for (int f = 0; f < nfields; ++f) key |= ((h >> fields[f].from) & fields[f].mask) << fields[f].to;
        s.keys[i] = key;
        s.index[i] = uint32_t(i);
    }

    // LSD radix sort of (key, index), 8 bits a pass: the partition fits in the cache.
    s.tmp_keys.resize(m);
    s.tmp_index.resize(m);
    for (int sh = 0; sh < key_bits; sh += 8) {
        std::size_t count[257] = {0};
        for (std::size_t i = 0; i < m; ++i) ++count[((s.keys[i] >> sh) & 0xFF) + 1];
        if (count[((s.keys[0] >> sh) & 0xFF) + 1] == m) continue;  // every key has this digit
        for (int d = 1; d < 257; ++d) count[d] += count[d - 1];
        for (std::size_t i = 0; i < m; ++i) {
            const std::size_t to = count[(s.keys[i] >> sh) & 0xFF]++;
            s.tmp_keys[to] = s.keys[i];
            s.tmp_index[to] = s.index[i];
        }
        s.keys.swap(s.tmp_keys);
        s.index.swap(s.tmp_index);
    }

    // Compare within runs of equal keys; emit a pair only from its first agreeing block choice,
    // so each pair comes out once.
    for (std::size_t run = 0; run < m && !stop_;) {
        std::size_t end = run + 1;
        while (end < m && s.keys[end] == s.keys[run]) ++end;
        for (std::size_t i = run; i < end && !stop_; ++i) {
            const uint64_t mine = s.hashes[lo + s.index[i]];
            s.compared += end - i - 1;
            for (std::size_t j = i + 1; j < end; ++j) {
                const uint64_t other = s.hashes[lo + s.index[j]];
                const int d = sh_hamming(mine, other);
                if (d > k_) continue;
                bool canonical = true;
                int seen = 0;
                const uint64_t diff = mine ^ other;
                for (int b = 0; b < blocks && seen < plan_.agree; ++b) {
                    if (diff & block_masks_[std::size_t(b)]) continue;
                    if (choice[std::size_t(seen)] != b) {
                        canonical = false;
                        break;
                    }
                    ++seen;
                }
                if (!canonical) continue;
                const std::size_t row_a = s.rows[lo + s.index[i]], row_b = s.rows[lo + s.index[j]];
                float score = -1;
                if (check_ && !check_->keep(row_a, row_b, score)) continue;
                int64_t a = ids_[row_a], b = ids_[row_b];
                if (a > b) std::swap(a, b);
                s.pairs.push_back(Pair{a, b, d, score});
            }
            if (s.pairs.size() >= kBatch) deliver(s.pairs);
        }
        run = end;
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
        const int len = block_len(64, blocks, b);
        const uint64_t value = (hash >> block_start(64, blocks, b)) & ((1ULL << len) - 1);
        keys.push_back(int64_t((uint64_t(b) << 56) | value));
    }
    return keys;
}

}  // namespace simhash
