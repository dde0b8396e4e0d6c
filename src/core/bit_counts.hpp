// Charikar's combination step when every weight is 1, counted in integers: bit i of the result is 1
// exactly when more than half of the values have bit i set (the sum of +1 and -1 is > 0; a tie or
// no values give 0). That is the result the double sums of charikar.h give, since sums of +-1 are
// exact in a double far beyond any page's feature count.
#pragma once

#include <cstddef>
#include <cstdint>

namespace simhash {

uint64_t unweighted_simhash(const uint64_t *values, std::size_t n) noexcept;

}  // namespace simhash
