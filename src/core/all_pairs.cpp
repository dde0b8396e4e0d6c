#include "all_pairs.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <unordered_map>

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

std::size_t all_pairs_memory(std::size_t n)
{
    // ids, hashes, and the (key, row) arrays with their radix scratch.
    return n * (sizeof(int64_t) + sizeof(uint64_t) + 2 * (sizeof(uint64_t) + sizeof(uint32_t)));
}

AllPairsJob::AllPairsJob(std::vector<int64_t> ids, std::vector<uint64_t> hashes, int k)
    : ids_(std::move(ids)), hashes_(std::move(hashes)), k_(k)
{
    if (k < 0 || k > 64) throw InvalidArgument("radius must be between 0 and 64, got " + std::to_string(k));
    if (ids_.size() != hashes_.size()) throw InvalidArgument("ids and hashes differ in length");
    if (ids_.size() > std::numeric_limits<uint32_t>::max()) throw LimitExceeded("too many rows");
    plan_ = plan_all_pairs(ids_.size(), k);
    for (int b = 0; b < plan_.blocks; ++b) {
        const int len = block_len(plan_.blocks, b);
        block_masks_.push_back((len == 64 ? ~0ULL : ((1ULL << len) - 1)) << block_start(plan_.blocks, b));
    }
    for (int i = 0; i < plan_.agree; ++i) choice_.push_back(i);
}

void AllPairsJob::next_choice()
{
    // Next t-subset of {0..B-1} in lexicographic order.
    const int t = plan_.agree, blocks = plan_.blocks;
    int i = t - 1;
    while (i >= 0 && choice_[std::size_t(i)] == blocks - t + i) --i;
    if (i < 0) {
        done_ = true;
        return;
    }
    ++choice_[std::size_t(i)];
    for (int j = i + 1; j < t; ++j) choice_[std::size_t(j)] = choice_[std::size_t(j - 1)] + 1;
}

bool AllPairsJob::step(std::vector<Pair> &out)
{
    if (done_ || ids_.empty()) return false;
    const std::size_t n = ids_.size();

    // Key of every row: the bits of the chosen blocks, packed.
    keys_.resize(n);
    rows_.resize(n);
    int key_bits = 0;
    for (std::size_t r = 0; r < n; ++r) {
        uint64_t key = 0;
        int shift = 0;
        for (int b : choice_) {
            const uint64_t part = (hashes_[r] & block_masks_[std::size_t(b)]) >> block_start(plan_.blocks, b);
            key |= part << shift;
            shift += block_len(plan_.blocks, b);
        }
        key_bits = shift;
        keys_[r] = key;
        rows_[r] = uint32_t(r);
    }

    // LSD radix sort of (key, row) by key, 16 bits a pass.
    tmp_keys_.resize(n);
    tmp_rows_.resize(n);
    for (int pass = 0; pass * 16 < key_bits; ++pass) {
        std::vector<std::size_t> count(65537, 0);
        const int sh = pass * 16;
        for (std::size_t r = 0; r < n; ++r) ++count[((keys_[r] >> sh) & 0xFFFF) + 1];
        for (std::size_t d = 1; d < count.size(); ++d) count[d] += count[d - 1];
        for (std::size_t r = 0; r < n; ++r) {
            const std::size_t to = count[(keys_[r] >> sh) & 0xFFFF]++;
            tmp_keys_[to] = keys_[r];
            tmp_rows_[to] = rows_[r];
        }
        keys_.swap(tmp_keys_);
        rows_.swap(tmp_rows_);
    }

    // Compare within runs of equal keys; emit a pair only from its first agreeing block choice.
    for (std::size_t lo = 0; lo < n;) {
        std::size_t hi = lo + 1;
        while (hi < n && keys_[hi] == keys_[lo]) ++hi;
        for (std::size_t i = lo; i < hi; ++i) {
            const uint64_t hi_hash = hashes_[rows_[i]];
            for (std::size_t j = i + 1; j < hi; ++j) {
                const uint64_t other = hashes_[rows_[j]];
                const int d = sh_hamming(hi_hash, other);
                if (d > k_) continue;
                // The first t blocks on which the two agree must be this table's choice.
                bool canonical = true;
                int seen = 0;
                const uint64_t diff = hi_hash ^ other;
                for (int b = 0; b < plan_.blocks && seen < plan_.agree; ++b) {
                    if (diff & block_masks_[std::size_t(b)]) continue;
                    if (choice_[std::size_t(seen)] != b) {
                        canonical = false;
                        break;
                    }
                    ++seen;
                }
                if (!canonical) continue;
                int64_t a = ids_[rows_[i]], b = ids_[rows_[j]];
                if (a > b) std::swap(a, b);
                out.push_back(Pair{a, b, d});
            }
        }
        lo = hi;
    }

    if (plan_.agree == 0) done_ = true;
    else next_choice();
    return true;
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
