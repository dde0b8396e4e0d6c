// Records the largest single heap request made while a probe is alive, through a replacement of
// the global operator new in the test binary. Sanitizer builds keep their own allocator, so there
// the probe is unavailable (available() is false) and tests that need it skip.
#pragma once

#include <cstddef>

namespace simhash::test {

class AllocationProbe {
public:
    AllocationProbe();
    ~AllocationProbe();
    static bool available();
    std::size_t largest_request() const;
};

}  // namespace simhash::test
