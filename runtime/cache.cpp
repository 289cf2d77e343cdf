// The primitive cache. A stub until the runtime issue: nothing is cached yet, every create() compiles and
// counts as a miss.
#include <pooljit/pooljit.hpp>

#include <atomic>

namespace pooljit {
namespace {
std::atomic<std::uint64_t> creations{0};
std::atomic<std::size_t> configured_capacity{1024};
}  // namespace

namespace cache_internal {
void record_creation() { creations.fetch_add(1, std::memory_order_relaxed); }
}  // namespace cache_internal

namespace cache {

Stats stats() {
    Stats s;
    s.misses = creations.load(std::memory_order_relaxed);
    return s;
}

void set_capacity(std::size_t capacity) { configured_capacity.store(capacity, std::memory_order_relaxed); }
std::size_t capacity() { return configured_capacity.load(std::memory_order_relaxed); }
void clear() {}

void warmup(const std::vector<AnyPoolDesc>& descs) {
    for (const AnyPoolDesc& d : descs) (void)pooljit::create(d);
}

}  // namespace cache
}  // namespace pooljit
