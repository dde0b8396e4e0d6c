#include "distinct_features.hpp"

#include <algorithm>
#include <cstddef>

namespace simhash {
namespace {

// Above this many values the sort in place is used: a hash set would need several times the
// memory the values already take.
constexpr std::size_t kHashSetLimit = std::size_t(1) << 20;

// Feature hashes are uniform, so their low bits index the set directly; text crafted to collide
// could make probing quadratic, so a long probe hands the rest over to the sort.
constexpr std::size_t kMaxProbes = 32;

void sort_distinct(std::vector<uint64_t> &values)
{
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
}

}  // namespace

void keep_distinct(std::vector<uint64_t> &values)
{
    const std::size_t n = values.size();
    if (n < 2) return;
    if (n > kHashSetLimit) {
        sort_distinct(values);
        return;
    }
    std::size_t capacity = 16;
    while (capacity < 2 * n) capacity <<= 1;
    const std::size_t mask = capacity - 1;
    std::vector<uint64_t> slots(capacity, 0);  // 0 marks an empty slot; the value 0 is tracked apart
    bool zero_seen = false;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const uint64_t v = values[i];
        bool is_new;
        if (v == 0) {
            is_new = !zero_seen;
            zero_seen = true;
        } else {
            std::size_t slot = std::size_t(v) & mask, probes = 0;
            while (slots[slot] != 0 && slots[slot] != v) {
                if (++probes == kMaxProbes) {
                    // values[0, kept) are distinct and nothing after i was read: drop the
                    // repeats found so far and sort the rest.
                    values.erase(values.begin() + std::ptrdiff_t(kept), values.begin() + std::ptrdiff_t(i));
                    sort_distinct(values);
                    return;
                }
                slot = (slot + 1) & mask;
            }
            is_new = slots[slot] == 0;
            slots[slot] = v;
        }
        if (is_new) values[kept++] = v;
    }
    values.resize(kept);
}

}  // namespace simhash
