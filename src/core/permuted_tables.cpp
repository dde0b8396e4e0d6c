#include "permuted_tables.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "core_errors.hpp"
#include "hamming.h"
#include "mih_blocks.h"
#include "splitmix64.h"

namespace simhash {
namespace {

// Below this many rows a group compares every pair; up to kInlineRows the job runs in the
// caller's thread (milliseconds); larger groups run on a worker so the caller can notice a cancel.
constexpr std::size_t kBruteForceRows = 64;
constexpr std::size_t kInlineRows = std::size_t(1) << 16;

// The bits outside `shared`, packed into the low bits in order: distances are unchanged (the
// shared bits are equal in the group) and the job's blocks split only bits that can differ.
struct BitPacker {
    explicit BitPacker(uint64_t shared)
    {
        for (int bit = 0; bit < 64;) {
            if ((shared >> bit) & 1) {
                ++bit;
                continue;
            }
            const int start = bit;
            while (bit < 64 && !((shared >> bit) & 1)) ++bit;
            runs.push_back({start, bit - start});
            width += bit - start;
        }
    }
    uint64_t operator()(uint64_t h) const
    {
        uint64_t out = 0;
        int at = 0;
        for (const auto &[start, len] : runs) {
            out |= ((h >> start) & (len == 64 ? ~0ULL : (1ULL << len) - 1)) << at;
            at += len;
        }
        return out;
    }
    std::vector<std::pair<int, int>> runs;  // (first bit, length) of each run of unshared bits
    int width = 0;
};

}  // namespace

PermutedTables::PermutedTables(int k, int blocks) : k_(k), blocks_(blocks)
{
    if (k < 0 || k > 64) throw InvalidArgument("radius must be between 0 and 64, got " + std::to_string(k));
    if (blocks < 1 || blocks > 64) throw InvalidArgument("blocks must be between 1 and 64, got " + std::to_string(blocks));
    agree_ = std::max(blocks - k, 0);
    double tables = 1;
    for (int i = 0; i < agree_; ++i) tables = tables * (blocks - i) / (i + 1);
    if (tables > double(kMaxTables))
        throw InvalidArgument(std::to_string(blocks) + " blocks at radius " + std::to_string(k) + " make " +
                              std::to_string((long long) (tables + 0.5)) + " tables, more than " +
                              std::to_string(kMaxTables) + "; use fewer blocks");
    for (int b = 0; b < blocks; ++b) {
        const int len = sh_mih_block_len(blocks, b);
        block_masks_.push_back((len == 64 ? ~0ULL : ((1ULL << len) - 1)) << sh_mih_block_start(blocks, b));
    }
    // Every t-subset of the blocks in lexicographic order; with t = 0 the one empty subset.
    std::vector<int> choice(static_cast<std::size_t>(agree_));
    for (int i = 0; i < agree_; ++i) choice[std::size_t(i)] = i;
    for (;;) {
        choices_.push_back(choice);
        int i = agree_ - 1;
        while (i >= 0 && choice[std::size_t(i)] == blocks - agree_ + i) --i;
        if (i < 0) break;
        ++choice[std::size_t(i)];
        for (int j = i + 1; j < agree_; ++j) choice[std::size_t(j)] = choice[std::size_t(j - 1)] + 1;
    }
}

int64_t PermutedTables::key(uint64_t hash, std::size_t table) const
{
    uint64_t bits = 0;
    int used = 0;
    for (int b : choices_[table]) {
        const int len = sh_mih_block_len(blocks_, b);
        const uint64_t value = (hash >> sh_mih_block_start(blocks_, b)) & ((len == 64 ? 0 : 1ULL << len) - 1);
        bits |= used < 64 ? value << used : 0;
        used += len;
    }
    const uint64_t low_mask = (1ULL << kTableShift) - 1;
    // Past 48 bits the packed bits (all 64 when t = B) are mixed into 48: a bijection would not fit.
    const uint64_t low = used <= kTableShift ? bits : sh_splitmix64_output(bits) & low_mask;
    return int64_t((uint64_t(table) << kTableShift) | low);
}

std::vector<int64_t> PermutedTables::keys(uint64_t hash) const
{
    std::vector<int64_t> out;
    out.reserve(choices_.size());
    for (std::size_t t = 0; t < choices_.size(); ++t) out.push_back(key(hash, t));
    return out;
}

uint64_t PermutedTables::table_mask(std::size_t table) const
{
    uint64_t mask = 0;
    for (int b : choices_[table]) mask |= block_masks_[std::size_t(b)];
    return mask;
}

int PermutedTables::owner(uint64_t a, uint64_t b) const
{
    // The first t-subset (lexicographically) of the agreeing blocks is their t smallest; its rank
    // counts the subsets that start with smaller choices, position by position.
    const uint64_t diff = a ^ b;
    std::vector<int> agreeing;
    for (int blk = 0; blk < blocks_ && int(agreeing.size()) < agree_; ++blk)
        if (!(diff & block_masks_[std::size_t(blk)])) agreeing.push_back(blk);
    if (int(agreeing.size()) < agree_) return -1;
    auto choose = [](int n, int r) {
        double c = 1;
        for (int i = 0; i < r; ++i) c = c * (n - i) / (i + 1);
        return std::size_t(c + 0.5);
    };
    std::size_t rank = 0;
    int next = 0;
    for (int i = 0; i < agree_; ++i) {
        for (int j = next; j < agreeing[std::size_t(i)]; ++j) rank += choose(blocks_ - 1 - j, agree_ - 1 - i);
        next = agreeing[std::size_t(i)] + 1;
    }
    return int(rank);
}

namespace {

// Keeps a pair only when the group's table owns it, judged on the rows' original hashes (the job
// sees them with the shared bits packed out).
// The first id that appears twice, or null: an open-addressing set, linear in the group's size
// (a group's ids are checked on every node that pairs it, so a sort would cost more than pairing).
const int64_t *repeated_id(const std::vector<int64_t> &ids)
{
    std::size_t size = 16;
    while (size < 2 * ids.size()) size *= 2;
    std::vector<int64_t> slots(size);
    std::vector<bool> used(size);
    for (const int64_t &id : ids) {
        for (std::size_t at = sh_splitmix64_output(uint64_t(id)) & (size - 1);; at = (at + 1) & (size - 1)) {
            if (!used[at]) {
                used[at] = true;
                slots[at] = id;
                break;
            }
            if (slots[at] == id) return &id;
        }
    }
    return nullptr;
}

class OwnedBy final : public PairCheck {
public:
    OwnedBy(const PermutedTables &tables, int table, std::vector<uint64_t> hashes)
        : tables_(tables), table_(table), hashes_(std::move(hashes))
    {
    }
    bool keep(std::size_t row_a, std::size_t row_b, float &) const override
    {
        return tables_.owner(hashes_[row_a], hashes_[row_b]) == table_;
    }

private:
    PermutedTables tables_;
    int table_;
    std::vector<uint64_t> hashes_;
};

}  // namespace

GroupPairsJob::GroupPairsJob(const PermutedTables &tables, int64_t key, std::vector<int64_t> ids,
                             std::vector<uint64_t> hashes)
    : tables_(tables), table_(PermutedTables::key_table(key))
{
    if (ids.size() != hashes.size()) throw InvalidArgument("ids and hashes differ in length");
    if (key < 0 || std::size_t(table_) >= tables.tables())
        throw InvalidArgument("key " + std::to_string(key) + " is not a key of " + std::to_string(tables.blocks()) +
                              " blocks at radius " + std::to_string(tables.k()));
    for (std::size_t i = 0; i < hashes.size(); ++i)
        if (tables.key(hashes[i], std::size_t(table_)) != key)
            throw InvalidArgument("row " + std::to_string(i + 1) + " (id " + std::to_string(ids[i]) +
                                  ") does not have key " + std::to_string(key) + " with " +
                                  std::to_string(tables.blocks()) + " blocks at radius " + std::to_string(tables.k()));
    if (const int64_t *twice = repeated_id(ids))
        throw InvalidArgument("id " + std::to_string(*twice) + " appears twice in the group");

    const std::size_t m = ids.size();
    if (m > kBruteForceRows) {
        const BitPacker pack(tables.table_mask(std::size_t(table_)));
        std::vector<uint64_t> packed(hashes);
        for (auto &h : packed) h = pack(h);
        auto owned = std::make_shared<const OwnedBy>(tables_, table_, std::move(hashes));
        job_ = std::make_unique<AllPairsJob>(std::move(ids), std::move(packed), tables.k(), m > kInlineRows ? 1 : 0,
                                             std::max(pack.width, 1), std::move(owned));
        return;
    }
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = i + 1; j < m; ++j) {
            const int d = sh_hamming(hashes[i], hashes[j]);
            if (d <= tables.k() && tables.owner(hashes[i], hashes[j]) == table_)
                found_.push_back(Pair{std::min(ids[i], ids[j]), std::max(ids[i], ids[j]), d});
        }
    compared_ = m * (m - 1) / 2;
}

bool GroupPairsJob::step(std::vector<Pair> &out, int wait_ms)
{
    if (!job_) {
        out.insert(out.end(), found_.begin(), found_.end());
        found_.clear();
        return false;
    }
    return job_->step(out, wait_ms);
}

std::vector<Pair> group_pairs(const PermutedTables &tables, int64_t key, const std::vector<int64_t> &ids,
                              const std::vector<uint64_t> &hashes, std::size_t *compared)
{
    GroupPairsJob job(tables, key, ids, hashes);
    std::vector<Pair> out;
    while (job.step(out, 1000)) {
    }
    if (compared) *compared = job.compared();
    return out;
}

int PermutedTables::key_bits(std::size_t table) const
{
    int used = 0;
    for (int b : choices_[table]) used += sh_mih_block_len(blocks_, b);
    return std::min(used, kTableShift);
}

void pack_row(int64_t id, uint64_t hash, unsigned char *out)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    std::memcpy(out, &id, 8);
    std::memcpy(out + 8, &hash, 8);
#else
    for (int b = 0; b < 8; ++b) {
        out[b] = static_cast<unsigned char>(uint64_t(id) >> (8 * b));
        out[8 + b] = static_cast<unsigned char>(hash >> (8 * b));
    }
#endif
}

KeyGrouper::KeyGrouper(const PermutedTables &tables, const int64_t *ids, const uint64_t *hashes, std::size_t n)
    : tables_(tables), ids_(ids), hashes_(hashes), n_(n), keys_(n)
{
    if (n > UINT32_MAX) throw InvalidArgument("cannot group more than 4294967295 rows at once, got " + std::to_string(n));
    out_.packed.resize(n * tables.tables() * kPackedRowBytes);
}

// Each table's keys are all larger than the previous table's. Keys of a few bits (blocks of about
// 64 / (k + 1) bits, the usual case): a counting sort that writes each row straight to its place,
// reading the rows in order. Wider keys: a comparison sort.
bool KeyGrouper::step()
{
    if (next_table_ == tables_.tables()) return false;
    const std::size_t t = next_table_++, n = n_;
    for (std::size_t i = 0; i < n; ++i) keys_[i] = tables_.key(hashes_[i], t);
    const std::size_t base = t * n;
    unsigned char *to = out_.packed.data() + base * kPackedRowBytes;
    const int bits = tables_.key_bits(t);
    if (bits <= 20) {
        const uint64_t low = (uint64_t(1) << bits) - 1;
        next_.assign(std::size_t(1) << bits, 0);
        for (std::size_t i = 0; i < n; ++i) ++next_[uint64_t(keys_[i]) & low];
        std::size_t at = 0;
        for (std::size_t v = 0; v < next_.size(); ++v) {
            if (next_[v] == 0) continue;
            out_.keys.push_back(int64_t((uint64_t(t) << PermutedTables::kTableShift) | v));
            out_.starts.push_back(base + at);
            const std::size_t count = next_[v];
            next_[v] = at;
            at += count;
        }
        for (std::size_t i = 0; i < n; ++i)
            pack_row(ids_[i], hashes_[i], to + next_[uint64_t(keys_[i]) & low]++ * kPackedRowBytes);
    } else {
        order_.resize(n);
        for (std::size_t i = 0; i < n; ++i) order_[i] = uint32_t(i);
        std::stable_sort(order_.begin(), order_.end(), [&](uint32_t a, uint32_t b) { return keys_[a] < keys_[b]; });
        for (std::size_t i = 0; i < n; ++i) {
            if (i == 0 || keys_[order_[i]] != keys_[order_[i - 1]]) {
                out_.keys.push_back(keys_[order_[i]]);
                out_.starts.push_back(base + i);
            }
            pack_row(ids_[order_[i]], hashes_[order_[i]], to + i * kPackedRowBytes);
        }
    }
    if (next_table_ == tables_.tables()) out_.starts.push_back(n * tables_.tables());
    return true;
}

KeyGroups group_by_key(const PermutedTables &tables, const int64_t *ids, const uint64_t *hashes, std::size_t n)
{
    KeyGrouper grouper(tables, ids, hashes, n);
    while (grouper.step()) {
    }
    return std::move(grouper.groups());
}

void unpack_rows(const unsigned char *bytes, std::size_t len, std::vector<int64_t> &ids, std::vector<uint64_t> &hashes)
{
    if (len % kPackedRowBytes != 0)
        throw InvalidArgument("packed rows are " + std::to_string(kPackedRowBytes) + " bytes each; " +
                              std::to_string(len) + " bytes is not a whole number of rows");
    const std::size_t n = len / kPackedRowBytes;
    ids.resize(n);
    hashes.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        const unsigned char *row = bytes + i * kPackedRowBytes;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        std::memcpy(&ids[i], row, 8);
        std::memcpy(&hashes[i], row + 8, 8);
#else
        uint64_t id = 0, hash = 0;
        for (int b = 7; b >= 0; --b) {
            id = id << 8 | row[b];
            hash = hash << 8 | row[8 + b];
        }
        ids[i] = int64_t(id);
        hashes[i] = hash;
#endif
    }
}

}  // namespace simhash
