// The thread count that execute() uses. Recorded here; the oneTBB executor of the runtime issue reads it.
#include <pooljit/pooljit.hpp>

#include <atomic>
#include <string>

namespace pooljit {
namespace {
std::atomic<int> requested_threads{0};
}

void set_num_threads(int n) {
    if (n < 0) throw Error("set_num_threads: n = " + std::to_string(n) + ", must be >= 0 (0 restores the default)");
    requested_threads.store(n, std::memory_order_relaxed);
}

int num_threads() { return requested_threads.load(std::memory_order_relaxed); }

}  // namespace pooljit
