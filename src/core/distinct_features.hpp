// Removes repeated values from a vector of feature hashes, keeping the first occurrence of each
// (the order of what remains is unspecified).
#pragma once

#include <cstdint>
#include <vector>

namespace simhash {

void keep_distinct(std::vector<uint64_t> &values);

}  // namespace simhash
