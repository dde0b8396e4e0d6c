#include "allocation_probe.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {

std::atomic<bool> probing{false};
std::atomic<std::size_t> largest{0};

}  // namespace

#if !defined(__SANITIZE_ADDRESS__)

void *operator new(std::size_t size)
{
    if (probing.load(std::memory_order_relaxed)) {
        std::size_t seen = largest.load(std::memory_order_relaxed);
        while (size > seen && !largest.compare_exchange_weak(seen, size)) {
        }
    }
    if (void *p = std::malloc(size == 0 ? 1 : size)) return p;
    throw std::bad_alloc();
}

void *operator new[](std::size_t size) { return operator new(size); }
void operator delete(void *p) noexcept { std::free(p); }
void operator delete[](void *p) noexcept { std::free(p); }
void operator delete(void *p, std::size_t) noexcept { std::free(p); }
void operator delete[](void *p, std::size_t) noexcept { std::free(p); }

#endif

namespace simhash::test {

AllocationProbe::AllocationProbe()
{
    largest = 0;
    probing = true;
}

AllocationProbe::~AllocationProbe() { probing = false; }

bool AllocationProbe::available()
{
#if defined(__SANITIZE_ADDRESS__)
    return false;
#else
    return true;
#endif
}

std::size_t AllocationProbe::largest_request() const { return largest.load(); }

}  // namespace simhash::test
