#include "resemblance_check.hpp"

#include <string>

#include "core_errors.hpp"

namespace simhash {

ResemblanceCheck::ResemblanceCheck(std::vector<uint8_t> sketches, double min_resemblance)
    : sketches_(std::move(sketches)), min_(min_resemblance)
{
    if (!(min_resemblance >= 0.0 && min_resemblance <= 1.0))
        throw InvalidArgument("min_resemblance must be between 0 and 1, got " + std::to_string(min_resemblance));
    if (sketches_.size() % kResemblanceBytes != 0)
        throw InvalidArgument("resemblance sketches are 64 bytes each");
}

bool ResemblanceCheck::keep(std::size_t row_a, std::size_t row_b, float &score) const
{
    const double j = resemblance_estimate(&sketches_[row_a * kResemblanceBytes], &sketches_[row_b * kResemblanceBytes]);
    score = float(j);  // a multiple of 1/256: exact in a float too
    return j >= min_;
}

}  // namespace simhash
