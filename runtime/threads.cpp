// The thread count: set_num_threads(n), else POOLJIT_NUM_THREADS, else 0 (oneTBB's choice: the caller's arena).
#include "runtime/threads.hpp"

#include <pooljit/pooljit.hpp>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <mutex>
#include <string>

namespace pooljit {
namespace {

constexpr int unset = -1;
// More threads than any machine has would only make oneTBB build a huge arena.
constexpr int max_threads = 4096;
std::atomic<int> requested_threads{unset};

int threads_from_environment() {
    const char* text = std::getenv("POOLJIT_NUM_THREADS");
    if (text == nullptr || *text == '\0') return 0;
    errno = 0;
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    if (errno != 0 || *end != '\0' || value < 0 || value > 4096)
        throw Error(std::string("POOLJIT_NUM_THREADS = '") + text + "', must be an integer in [0, 4096] (0: oneTBB's default)");
    return static_cast<int>(value);
}

}  // namespace

void set_num_threads(int n) {
    if (n < 0 || n > max_threads)
        throw Error("set_num_threads: n = " + std::to_string(n) + ", must be in [0, " + std::to_string(max_threads) +
                    "] (0 restores the default)");
    requested_threads.store(n == 0 ? unset : n, std::memory_order_relaxed);  // 0: back to POOLJIT_NUM_THREADS
}

int num_threads() {
    int n = requested_threads.load(std::memory_order_relaxed);
    if (n == unset) {
        static const int from_environment = threads_from_environment();
        n = from_environment;
    }
    return n;
}

namespace detail {

tbb::task_arena& arena_for(int threads) {
    // One arena per count, made once and kept: execute reads the pointer without a lock; the mutex only
    // serializes the first creation.
    static std::array<std::atomic<tbb::task_arena*>, max_threads + 1> arenas{};
    std::atomic<tbb::task_arena*>& slot = arenas[static_cast<std::size_t>(threads)];
    if (tbb::task_arena* arena = slot.load(std::memory_order_acquire)) return *arena;
    static std::mutex creating;
    const std::lock_guard lock(creating);
    if (tbb::task_arena* arena = slot.load(std::memory_order_acquire)) return *arena;
    auto* arena = new tbb::task_arena(threads);  // lives as long as the process, like oneTBB's own default arena
    slot.store(arena, std::memory_order_release);
    return *arena;
}

}  // namespace detail
}  // namespace pooljit
