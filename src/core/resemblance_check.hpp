// The confirming stage of the crawl-scale jobs: a pair within k bits is kept only if the rows'
// resemblance sketches estimate J >= min_resemblance; the estimate becomes the pair's score.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "all_pairs.hpp"
#include "resemblance_sketch.hpp"

namespace simhash {

class ResemblanceCheck : public PairCheck {
public:
    // sketches: kResemblanceBytes a row, in the job's row order. Throws InvalidArgument for a
    // min_resemblance outside 0..1 (or NaN).
    ResemblanceCheck(std::vector<uint8_t> sketches, double min_resemblance);
    bool keep(std::size_t row_a, std::size_t row_b, float &score) const override;

private:
    std::vector<uint8_t> sketches_;
    double min_;
};

}  // namespace simhash
