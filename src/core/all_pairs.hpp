// Every pair of rows within Hamming distance k, exactly, without comparing all pairs.
//
// The 64 bits are split into B contiguous blocks. Two hashes within distance k differ on at most k
// blocks, so they agree exactly on at least t = B - k of them. For every choice of t blocks there
// is one table: the rows sorted by those blocks' bits, so rows agreeing on them are adjacent and
// only those are compared. A pair that agrees on several choices is emitted only from the first
// one (in lexicographic order of block choices), so each pair comes out once without a set of
// pairs seen. B is chosen per (N, k) to minimise the estimated sorting plus comparing work.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace simhash {

struct Pair {
    int64_t id_a;  // id_a < id_b
    int64_t id_b;
    int32_t distance;
    float score = -1;  // what the job's PairCheck measured (the resemblance); -1 without one
};

// A second test that a pair within k must pass to be emitted (the confirming stage), given the
// two rows' positions in the job's input; it sets the pair's score. Worker threads call it
// concurrently, so it must not change.
class PairCheck {
public:
    virtual ~PairCheck() = default;
    virtual bool keep(std::size_t row_a, std::size_t row_b, float &score) const = 0;
};

struct AllPairsPlan {
    int blocks = 0;         // B
    int agree = 0;          // t: blocks two hashes within k must agree on
    std::size_t tables = 0; // C(B, t)
};

// width: the hashes use only their low `width` bits (the rest equal), which the blocks split.
AllPairsPlan plan_all_pairs(std::size_t n, int k, int width = 64);

// Memory the job needs for n rows on the given number of threads, besides the pairs it emits
// (for the caller's limit check).
std::size_t all_pairs_memory(std::size_t n, int threads);

// Tables with the same first block share a partitioning of the rows by that block's leading bits,
// so each table sorts cache-sized partitions instead of all rows. Such groups of tables are
// independent, so worker threads take them one at a time while the caller's
// thread only collects pairs: it stays free to notice a cancel. Workers run with every signal
// blocked (signals belong to the caller's thread) and stop within milliseconds of the job's
// destruction, which joins them.
class AllPairsJob {
public:
    // ids must be distinct (the caller checks); throws InvalidArgument if k is outside 0..64.
    // threads = 0 runs the whole job in the caller's thread during the first step (small jobs,
    // where starting a thread costs more than the work).
    // width < 64 when the caller has packed the bits that may differ into the low width bits (a
    // key group whose rows share some blocks), so every block keeps discriminating.
    // check, when given, filters the pairs within k (rows are positions in ids).
    AllPairsJob(std::vector<int64_t> ids, std::vector<uint64_t> hashes, int k, int threads = 1, int width = 64,
                std::shared_ptr<const PairCheck> check = nullptr);
    ~AllPairsJob();
    AllPairsJob(const AllPairsJob &) = delete;
    AllPairsJob &operator=(const AllPairsJob &) = delete;

    const AllPairsPlan &plan() const { return plan_; }
    const std::vector<int64_t> &ids() const { return ids_; }
    // Waits at most wait_ms for pairs and appends those found so far to out; false once every
    // table is done and its pairs delivered. Rethrows what a worker threw.
    bool step(std::vector<Pair> &out, int wait_ms = 100);
    // Distance computations made so far by the workers that finished (all, once step is false).
    std::size_t compared() const { return compared_; }

private:
    struct Scratch;
    void work();
    void run_group(std::size_t group, Scratch &s);
    void run_partition(const std::vector<int> &choice, int part_bits, std::size_t lo, std::size_t m, Scratch &s);
    void deliver(std::vector<Pair> &pairs);

    std::vector<int64_t> ids_;
    std::vector<uint64_t> hashes_;
    int k_;
    int width_;
    std::shared_ptr<const PairCheck> check_;
    AllPairsPlan plan_;
    std::vector<uint64_t> block_masks_;       // mask of each block's bits
    std::vector<std::vector<int>> choices_;   // each table's t blocks, in lexicographic order
    // Ranges of tables with the same first block: a worker's unit of work.
    std::vector<std::pair<std::size_t, std::size_t>> groups_;

    std::atomic<std::size_t> next_group_{0};
    std::atomic<bool> stop_{false};
    bool inline_pending_ = false;             // threads = 0 and the first step not yet taken
    std::atomic<std::size_t> compared_{0};
    std::mutex mutex_;
    std::condition_variable ready_;           // pairs delivered or a worker finished
    std::condition_variable room_;            // the caller took the delivered pairs
    std::vector<Pair> delivered_;
    int running_ = 0;
    std::exception_ptr failure_;
    std::vector<std::thread> workers_;
};

// Connected components of the "within k" graph: cluster id = smallest id in the component.
// Returns (id, cluster_id) for every id in a pair, sorted by id.
std::vector<std::pair<int64_t, int64_t>> connected_components(const std::vector<Pair> &pairs);

// Band keys for an equi-join: two hashes within k share at least one key. Block b (of k + 1
// blocks, see mih_blocks layout rules) gives the key (b << 56) | block value.
std::vector<int64_t> band_keys(uint64_t hash, int k);

}  // namespace simhash
