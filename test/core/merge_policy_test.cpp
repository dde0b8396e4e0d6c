// The merge policy of simhash_mih (src/pg/index_am/lsm/mih_merge_policy.c): its choosers over views
// of a meta page, table by table. A pending limit of 1,000 rows makes the tiers easy to read: tier 0
// below 4,000 rows, tier 1 below 16,000, tier 2 below 64,000, big runs from 64,000 (tier 3), and a
// base run from 256,000 (four big runs' rows).
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "mih_merge_policy.h"

namespace {

const uint64_t kLimit = 1000;

struct Run {
    uint64_t nrows;
    bool merging = false;
    bool sliceable = true;
};

struct Index {
    std::vector<Run> runs;
    uint64_t base_share = MIH_BASE_SHARE_DEFAULT;
    bool compact = false;
    bool shape_changed = false;
    int ntables = 3;
};

MihPolicyView view_of(const Index &ix)
{
    MihPolicyView v{};
    v.nruns = uint32_t(ix.runs.size());
    for (size_t r = 0; r < ix.runs.size(); ++r) {
        v.runs[r].nrows = ix.runs[r].nrows;
        v.runs[r].merging = ix.runs[r].merging;
        v.runs[r].sliceable = ix.runs[r].sliceable;
    }
    v.ntables = ix.ntables;
    v.compact = ix.compact;
    v.limit = kLimit;
    v.base_share = ix.base_share;
    v.shape_changed = ix.shape_changed;
    return v;
}

std::set<int> chosen_of(const MihPolicyView &v, const MihMergePlan &p)
{
    std::set<int> s;
    for (uint32_t r = 0; r < v.nruns; ++r)
        if (p.chosen[r])
            s.insert(int(r));
    return s;
}

// What a plan must be: the runs chosen, their rows, the base of a merge in slices, a reshape.
struct Expect {
    std::set<int> chosen;
    uint64_t rows;
    int base = -1;
    bool reshape = false;
};

void expect_plan(const std::string &name, const MihPolicyView &v, const MihMergePlan &p,
                 const Expect &e)
{
    EXPECT_EQ(p.rows, e.rows) << name;
    EXPECT_EQ(chosen_of(v, p), e.chosen) << name;
    EXPECT_EQ(p.base, e.base) << name;
    EXPECT_EQ(p.reshape, e.reshape) << name;
}

std::vector<Run> many(int n, uint64_t nrows)
{
    return std::vector<Run>(size_t(n), Run{nrows});
}

std::vector<Run> operator+(std::vector<Run> a, const std::vector<Run> &b)
{
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

}  // namespace

TEST(MergePolicy, TiersGrowByTheFanIn)
{
    const struct {
        uint64_t nrows;
        int tier;
    } cases[] = {{0, 0},          {3999, 0},   {4000, 1},  {15999, 1},
                 {16000, 2},      {63999, 2},  {64000, 3}, {256000, 4},
                 {UINT64_MAX, 27}};
    for (const auto &c : cases)
        EXPECT_EQ(mih_tier_of(c.nrows, kLimit), c.tier) << c.nrows << " rows";
    // Tiers stop at 30, however small the limit.
    EXPECT_EQ(mih_tier_of(UINT64_MAX, 1), 30);
}

TEST(MergePolicy, MergesOfInsertersVacuumAndMergeAll)
{
    const struct {
        const char *name;
        MihMergeMode mode;
        Index index;
        Expect expect;
    } cases[] = {
        {"an inserter leaves three flushed runs", MIH_MERGE_INSERTER,
         {many(3, 1000)}, {{}, 0}},
        {"an inserter merges four runs of tier 0", MIH_MERGE_INSERTER,
         {{{1000}, {1100}, {1200}, {1300}}}, {{0, 1, 2, 3}, 4600}},
        {"... the four smallest of five", MIH_MERGE_INSERTER,
         {{{3000}, {1000}, {1100}, {1200}, {1300}}}, {{1, 2, 3, 4}, 4600}},
        {"... but not a run the worker marked", MIH_MERGE_INSERTER,
         {{{1000}, {1000, true}, {1000}, {1000}, {1000}}}, {{0, 2, 3, 4}, 4000}},
        {"tier 1 is the worker's", MIH_MERGE_INSERTER, {many(4, 5000)}, {{}, 0}},
        {"once half the run slots are taken an inserter merges any small tier",
         MIH_MERGE_INSERTER, {many(4, 5000) + many(12, 70000)}, {{0, 1, 2, 3}, 20000}},
        {"an inserter never merges big runs", MIH_MERGE_INSERTER,
         {{{70000}, {80000}, {90000}, {100000}}}, {{}, 0}},
        {"VACUUM merges the two smallest of four big runs", MIH_MERGE_DUE,
         {{{70000}, {80000}, {90000}, {100000}}}, {{0, 1}, 150000}},
        {"... and tier 1", MIH_MERGE_DUE, {many(4, 5000)}, {{0, 1, 2, 3}, 20000}},
        {"VACUUM merges every run into a base once they hold 1/16 of its rows, in slices",
         MIH_MERGE_DUE, {{{1000000}, {70000}}}, {{0, 1}, 1070000, 0}},
        {"... not in slices beside a run of 1.2", MIH_MERGE_DUE,
         {{{1000000}, {70000, false, false}}}, {{0, 1}, 1070000, -1}},
        {"... nor in a compact index", MIH_MERGE_DUE,
         {{{1000000}, {70000}}, MIH_BASE_SHARE_DEFAULT, true}, {{0, 1}, 1070000, -1}},
        {"... nor with base_share = 0: there is no base, and few big runs", MIH_MERGE_DUE,
         {{{1000000}, {70000}}, 0}, {{}, 0}},
        {"the runs beside the base merge into one at a LEVEL_RATIO-th", MIH_MERGE_DUE,
         {{{1000000}, {30000}, {4000}}}, {{1, 2}, 34000}},
        {"... not below it", MIH_MERGE_DUE, {{{1000000}, {30000}, {3000}}}, {{}, 0}},
        {"options that ask for another shape rewrite every run", MIH_MERGE_DUE,
         {{{1000}}, MIH_BASE_SHARE_DEFAULT, false, true}, {{0}, 1000, -1, true}},
        {"... and so does a merge of every run", MIH_MERGE_ALL,
         {{{1000}}, MIH_BASE_SHARE_DEFAULT, false, true}, {{0}, 1000, -1, true}},
        {"a merge of every run leaves one run alone", MIH_MERGE_ALL, {{{5000}}}, {{}, 0}},
        {"a merge of every run takes two", MIH_MERGE_ALL, {{{5000}, {6000}}}, {{0, 1}, 11000}},
        {"a merge of every run into a base goes in slices", MIH_MERGE_ALL,
         {{{1000000}, {1000}, {2000}}}, {{0, 1, 2}, 1003000, 0}},
        {"... the runs of a flush of no live row count one row", MIH_MERGE_ALL,
         {{{0}, {0}}}, {{0, 1}, 1}},
    };
    for (const auto &c : cases) {
        MihPolicyView v = view_of(c.index);
        MihMergePlan p;

        mih_plan_merge(&v, c.mode, &p);
        expect_plan(c.name, v, p, c.expect);
    }
}

TEST(MergePolicy, TheWorkersMerges)
{
    const struct {
        const char *name;
        Index index;
        bool marked_due;  // runs an inserter might take: chosen and marked under its lock
        Expect expect;
    } cases[] = {
        {"tier 1 full", {many(4, 5000)}, true, {{0, 1, 2, 3}, 20000}},
        {"tier 0 full, which an inserter left", {many(4, 1000)}, true, {{0, 1, 2, 3}, 4000}},
        {"every run into the base", {{{1000000}, {70000}}}, true, {{0, 1}, 1070000, 0}},
        {"the runs beside the base into one", {{{1000000}, {30000}, {4000}}}, true,
         {{1, 2}, 34000}},
        {"big runs are the worker's alone", {{{70000}, {80000}, {90000}, {100000}}}, false,
         {{0, 1}, 150000}},
        {"three big runs are kept", {{{70000}, {80000}, {90000}}}, false, {{}, 0}},
    };
    for (const auto &c : cases) {
        MihPolicyView v = view_of(c.index);
        MihMergePlan p;

        EXPECT_EQ(mih_worker_marked_due(&v), c.marked_due) << c.name;
        if (c.marked_due)
            mih_plan_worker_marked(&v, &p);
        else
            mih_plan_big(&v, &p);
        expect_plan(c.name, v, p, c.expect);
    }
}

TEST(MergePolicy, WhenTheWorkerIsStarted)
{
    const struct {
        const char *name;
        Index index;
        bool for_inserter;  // an inserter that flushed: start the worker?
        bool for_worker;    // the worker looking again: stay?
    } cases[] = {
        {"nothing due", {many(3, 1000)}, false, false},
        {"tier 0 full is the inserter's", {many(4, 1000)}, false, true},
        {"tier 1 full", {many(4, 5000)}, true, true},
        {"four big runs", {{{70000}, {80000}, {90000}, {100000}}}, true, true},
        {"... even while two are being merged", {{{70000, true}, {80000, true}, {90000}, {100000}}},
         true, true},
        {"a merge into the base", {{{1000000}, {70000}}}, true, true},
        {"runs beside the base", {{{1000000}, {30000}, {4000}}}, true, true},
        {"... not when the worker marked one", {{{1000000}, {30000}, {4000, true}}}, false, false},
    };
    for (const auto &c : cases) {
        MihPolicyView v = view_of(c.index);

        EXPECT_EQ(mih_worker_due(&v, false), c.for_inserter) << c.name;
        EXPECT_EQ(mih_worker_due(&v, true), c.for_worker) << c.name;
    }
}

// Three tables: the shortest block has 21 bits, so the runs beside the base pass SETTLE_FILL from
// 2^21 / 8 = 262,144 rows.
TEST(MergePolicy, TheSettle)
{
    const struct {
        const char *name;
        Index index;
        Expect expect;
        bool into_base;
    } cases[] = {
        {"the runs beside the base into it once their filters let enough through",
         {{{1000000}, {300000}}}, {{0, 1}, 1300000, 0}, true},
        {"... only once they hold a SETTLE_SHARE-th of its rows",
         {{{20000000}, {300000}}}, {{}, 0}, false},
        {"else the runs beside it into one", {{{1000000}, {5000}, {6000}}}, {{1, 2}, 11000},
         false},
        {"one run beside it stays", {{{1000000}, {5000}}}, {{}, 0}, false},
        {"a settled index", {{{1000000}}}, {{}, 0}, false},
        {"nothing with base_share = 0", {{{1000000}, {300000}, {5000}}, 0}, {{}, 0}, false},
        {"into the biggest, also before it is a base", {{{250000}, {200000}, {100000}}},
         {{0, 1, 2}, 550000}, false},
        {"not into a base the worker is merging", {{{1000000, true}, {300000}, {5000}}},
         {{1, 2}, 305000}, false},
        {"... nor runs it marked", {{{1000000}, {300000, true}, {5000}}}, {{}, 0}, false},
        {"six tables: the 10-bit block's filter lets enough through from 128 rows",
         {{{8000}, {100}, {28}}, 16, false, false, 6}, {{0, 1, 2}, 8128}, false},
        {"... not from 127", {{{8000}, {100}, {27}}, 16, false, false, 6}, {{1, 2}, 127}, false},
    };
    for (const auto &c : cases) {
        MihPolicyView v = view_of(c.index);
        MihMergePlan p;

        mih_plan_settle(&v, &p);
        expect_plan(c.name, v, p, c.expect);
        EXPECT_EQ(mih_settle_into_base(&v), c.into_base) << c.name;
    }
}

TEST(MergePolicy, TheFlush)
{
    const struct {
        uint64_t npending;
        bool due;
        bool wait;
    } cases[] = {{999, false, false}, {1000, true, false}, {1999, true, false}, {2000, true, true}};
    for (const auto &c : cases) {
        bool wait = !c.wait;

        EXPECT_EQ(mih_flush_due(c.npending, kLimit, &wait), c.due) << c.npending;
        EXPECT_EQ(wait, c.wait) << c.npending;
    }
}
