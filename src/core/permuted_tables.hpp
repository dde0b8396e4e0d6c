// Permuted tables for running the all-pairs job on many nodes (Manku, Jain and Das Sarma, 2007).
//
// The 64 bits are split into B blocks (mih_blocks.h). Two hashes within distance k differ on at
// most k blocks, so they agree on at least t = B - k of them. Each choice of t blocks is a table,
// numbered in lexicographic order; a row's key in a table is the table's number and the chosen
// blocks' bits. Rows sharing a key are the only candidates of that table, so a cluster shards the
// rows by key, and each node runs the in-memory job on each of its key groups. A pair is owned by
// the first table whose blocks it agrees on, which either hash of the pair determines alone: a
// group emits only the pairs its table owns, so every pair within k comes out exactly once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "all_pairs.hpp"

namespace simhash {

class PermutedTables {
public:
    // Bits of a key that hold the table's number; the rest hold the blocks' bits (mixed when they
    // are more than 48: equal bits still give equal keys, and a collision only adds candidates).
    static constexpr int kTableShift = 48;
    static constexpr std::size_t kMaxTables = 4096;

    // Throws InvalidArgument unless 0 <= k <= 64, 1 <= blocks <= 64 and C(blocks, blocks - k)
    // tables are at most kMaxTables. With blocks <= k every row has one key (one table, t = 0).
    PermutedTables(int k, int blocks);

    int k() const { return k_; }
    int blocks() const { return blocks_; }
    int agree() const { return agree_; }
    std::size_t tables() const { return choices_.size(); }

    // The row's key in every table, by table number.
    std::vector<int64_t> keys(uint64_t hash) const;
    int64_t key(uint64_t hash, std::size_t table) const;
    static int key_table(int64_t key) { return int(uint64_t(key) >> kTableShift); }
    // How many low bits of the table's keys can differ: its blocks' bits, at most kTableShift.
    int key_bits(std::size_t table) const;
    // The bits of a table's blocks: equal in every row of one of its keys.
    uint64_t table_mask(std::size_t table) const;

    // The table that owns the pair: the first whose blocks a and b agree on; -1 when they agree on
    // fewer than t blocks (then they are more than k apart).
    int owner(uint64_t a, uint64_t b) const;

private:
    int k_, blocks_, agree_;
    std::vector<std::vector<int>> choices_;  // each table's blocks, lexicographic
    std::vector<uint64_t> block_masks_;
};

// The pairs within k among rows that share the key `key`, emitted only when key's table owns
// them. Ids must be distinct and every row must have `key` in its table (InvalidArgument
// otherwise, naming the row). A group past a few hundred rows runs the in-memory job on a worker
// thread, so the caller collects its pairs in steps and stays free to notice a cancel.
class GroupPairsJob {
public:
    GroupPairsJob(const PermutedTables &tables, int64_t key, std::vector<int64_t> ids, std::vector<uint64_t> hashes);
    // Appends the owned pairs found so far, waiting at most wait_ms; false once all are out.
    bool step(std::vector<Pair> &out, int wait_ms = 100);
    // Distance computations made (all of them once step is false).
    std::size_t compared() const { return job_ ? job_->compared() : compared_; }

private:
    PermutedTables tables_;
    int table_;
    std::unique_ptr<AllPairsJob> job_;                 // null for small groups
    std::vector<Pair> found_;
    std::size_t compared_ = 0;
};

// A group's rows as bytes, kPackedRowBytes a row: the id, then the hash, each little-endian. Groups
// travel between nodes as bytes (PostgreSQL's bytea: binary COPY moves them as they are, and
// string_agg joins the parts of a key in linear time).
constexpr std::size_t kPackedRowBytes = 16;
void pack_row(int64_t id, uint64_t hash, unsigned char *out);
// Throws InvalidArgument when len is not a whole number of rows.
void unpack_rows(const unsigned char *bytes, std::size_t len, std::vector<int64_t> &ids, std::vector<uint64_t> &hashes);

// The key groups of one part of the rows: every key some row has, ascending, with the rows that
// have it packed, in the part's order. A node groups its own rows this way before they travel, so
// a cluster ships one row a key and node instead of one a key and page.
struct KeyGroups {
    std::vector<int64_t> keys;
    std::vector<std::size_t> starts;  // group g's rows are rows [starts[g], starts[g + 1])
    std::vector<unsigned char> packed;  // kPackedRowBytes a row
};
// Groups a part one table at a time, so that its caller can notice a cancel between tables. The
// rows must stay valid until the last step. Throws InvalidArgument past 2^32 - 1 rows.
class KeyGrouper {
public:
    KeyGrouper(const PermutedTables &tables, const int64_t *ids, const uint64_t *hashes, std::size_t n);
    // Groups the next table; false once every table is grouped (then groups() is complete).
    bool step();
    const KeyGroups &groups() const { return out_; }
    KeyGroups &groups() { return out_; }

private:
    const PermutedTables &tables_;
    const int64_t *ids_;
    const uint64_t *hashes_;
    std::size_t n_, next_table_ = 0;
    KeyGroups out_;
    std::vector<int64_t> keys_;
    std::vector<std::size_t> next_;
    std::vector<uint32_t> order_;
};
// All tables at once (tests).
KeyGroups group_by_key(const PermutedTables &tables, const int64_t *ids, const uint64_t *hashes, std::size_t n);

// The whole of a group's pairs at once (tests and benchmarks).
std::vector<Pair> group_pairs(const PermutedTables &tables, int64_t key, const std::vector<int64_t> &ids,
                              const std::vector<uint64_t> &hashes, std::size_t *compared = nullptr);

}  // namespace simhash
