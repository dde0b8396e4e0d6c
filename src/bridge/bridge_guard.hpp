// Runs a core call inside the exception guard every bridge body needs (see bridge_common.h).
#pragma once

#include <cstdio>
#include <exception>
#include <new>
#include <stdexcept>

#include "bridge_common.h"

namespace simhash {

// Thrown by core code for input the caller must be told about (mapped to SH_ERR_INVALID_ARGUMENT).
struct InvalidArgument : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

// Thrown when a documented limit would be crossed (mapped to SH_ERR_LIMIT_EXCEEDED).
struct LimitExceeded : std::length_error {
    using std::length_error::length_error;
};

template <typename F>
sh_status guarded(sh_error *err, F &&body) noexcept
{
    auto say = [err](const char *what) {
        if (err) std::snprintf(err->message, sizeof err->message, "%s", what);
    };
    try {
        body();
        return SH_OK;
    } catch (const std::bad_alloc &) {
        say("out of memory");
        return SH_ERR_OUT_OF_MEMORY;
    } catch (const InvalidArgument &e) {
        say(e.what());
        return SH_ERR_INVALID_ARGUMENT;
    } catch (const LimitExceeded &e) {
        say(e.what());
        return SH_ERR_LIMIT_EXCEEDED;
    } catch (const std::exception &e) {
        say(e.what());
        return SH_ERR_INTERNAL;
    } catch (...) {
        say("unknown C++ exception");
        return SH_ERR_INTERNAL;
    }
}

}  // namespace simhash
