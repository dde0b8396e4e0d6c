// The errors the core reports to its callers. The core throws them; the bridge (bridge_guard.hpp)
// catches them and turns each into a status the C glue raises as a PostgreSQL error.
#pragma once

#include <stdexcept>

namespace simhash {

// Input the caller must be told about (the bridge maps it to SH_ERR_INVALID_ARGUMENT).
struct InvalidArgument : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

// A documented limit would be crossed (the bridge maps it to SH_ERR_LIMIT_EXCEEDED).
struct LimitExceeded : std::length_error {
    using std::length_error::length_error;
};

}  // namespace simhash
