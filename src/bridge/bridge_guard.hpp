// Runs a core call inside the exception guard every bridge body needs (see bridge_common.h).
#pragma once

#include <cstdio>
#include <exception>
#include <new>
#include <stdexcept>

#include "bridge_common.h"
#include "core_errors.hpp"

namespace simhash {

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
