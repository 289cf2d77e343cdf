// Work shares for the executor's threads: contiguous shares of units, each taken from its front by its own
// thread and from its back by threads that have finished theirs.
#pragma once

#include "runtime/float_environment.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>

namespace pooljit::detail {

// Units of work [0, units) dealt out in shares, one contiguous share per thread: share t's runner takes its units
// from the front, in order, and then units from the back of the other shares, so that a thread that comes late
// (waking a oneTBB worker took 40 us or more on a 2-vCPU VM) leaves its units to the threads already there,
// instead of its whole share. Every unit runs once. Beyond 2^31 units a slot holds several.
class SharedUnits {
public:
    SharedUnits(std::int64_t units, int threads)
        : threads_(threads), units_(units), step_(units / max_slots + 1), slots_((units + step_ - 1) / step_),
          heap_(threads > inline_shares ? std::make_unique<Share[]>(static_cast<std::size_t>(threads)) : nullptr),
          shares_(heap_ ? heap_.get() : inline_.data()) {
        for (int t = 0; t < threads; ++t)
            shares_[t].range.store(pack(slots_ * t / threads, slots_ * (t + 1) / threads), std::memory_order_relaxed);
    }

    // Runs unit(u) for every unit of share t from its front, then the units the other shares have left.
    template <class Unit>
    void run(int t, const Unit& unit) {
        const auto run_slot = [&](std::uint64_t slot) {
            const std::int64_t end = std::min(units_, static_cast<std::int64_t>(slot + 1) * step_);
            for (std::int64_t u = static_cast<std::int64_t>(slot) * step_; u < end; ++u) unit(u);
        };
        for (std::uint64_t slot; take(t, true, slot);) run_slot(slot);
        for (int k = 1; k < threads_; ++k)
            for (std::uint64_t slot; take((t + k) % threads_, false, slot);) run_slot(slot);
    }

private:
    // A share's slots [front, back) in one word, so that its owner and a thief never take the same slot.
    struct alignas(64) Share {
        std::atomic<std::uint64_t> range{0};
    };
    static constexpr std::int64_t max_slots = std::int64_t{1} << 31;
    // Shares held in the object up to this many threads: a call allocates nothing of its own.
    static constexpr int inline_shares = 64;
    static std::uint64_t pack(std::int64_t front, std::int64_t back) {
        return static_cast<std::uint64_t>(front) | static_cast<std::uint64_t>(back) << 32;
    }

    bool take(int t, bool from_front, std::uint64_t& slot) {
        std::atomic<std::uint64_t>& range = shares_[t].range;
        std::uint64_t old = range.load(std::memory_order_relaxed);
        for (;;) {
            const std::uint64_t front = old & 0xffffffffu, back = old >> 32;
            if (front >= back) return false;
            const std::uint64_t next = from_front ? pack(static_cast<std::int64_t>(front + 1), static_cast<std::int64_t>(back))
                                                  : pack(static_cast<std::int64_t>(front), static_cast<std::int64_t>(back - 1));
            if (range.compare_exchange_weak(old, next, std::memory_order_relaxed)) {
                slot = from_front ? front : back - 1;
                return true;
            }
        }
    }

    int threads_;
    std::int64_t units_, step_, slots_;
    std::array<Share, inline_shares> inline_;
    std::unique_ptr<Share[]> heap_;
    Share* shares_;
};

// Runs unit(u) for u in [0, units) on `threads` threads, in shares (detail::SharedUnits); static_partitioner gives
// share t to the same arena slot on every call, so a thread that runs a primitive again runs the same units, in
// the same order, and finds their rows in its own caches: dynamic tasks moved rows between cores from call to
// call (16-core Xeon VM, 16 threads, same run: shares took 0.76x the time of dynamic tasks over the suite's short
// layers; 1x192x28x28 f32 nxc 29.8 -> 12.0 us, 16x2048x7x7 f32 nxc 35.9 -> 19.1).
template <class Unit>
void run_in_shares(std::int64_t units, int threads, const Unit& unit) {
    SharedUnits shared(units, threads);
    tbb::parallel_for(
        tbb::blocked_range<int>(0, threads, 1),
        [&](const tbb::blocked_range<int>& r) {
            const ExactFloatCompares exact;  // MXCSR is each thread's own
            for (int t = r.begin(); t != r.end(); ++t) shared.run(t, unit);
        },
        tbb::static_partitioner());
}

}  // namespace pooljit::detail
