// What a Primitive handle shares: the resolved problem, its tensor descriptors and the chosen implementation.
// The implementation does not depend on the batch size, so one cached Implementation serves every N.
#pragma once

#include "jit/emit/kernel.hpp"

#include <pooljit/pooljit.hpp>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace pooljit::detail {

// One kernel call of a whole planar tile (an image's channel, every output row) as the executor makes it for
// channel 0 of image 0: its arguments with null tensor pointers, and the byte offsets of its src, dst and
// indices from the tile's first element. Another tile's call adds that tile's offsets and channel index base.
struct TileCall {
    jit::KernelArgs args;
    std::int64_t src_offset = 0, dst_offset = 0, indices_offset = 0;
};

struct WindowRanges;

// The batch-independent result of dispatch: what the cache stores.
struct Implementation {
    std::string impl_name;     // "jit:avx512", "jit:avx2" or "ref"
    std::string dispatch_log;  // why each implementation before the chosen one declined
    // Non-empty when an implementation that the CPU and POOLJIT_MAX_ISA allowed declined (its planner or emitter
    // threw): the reason. The next implementation serves the problem, but a demotion is a bug.
    std::string demotion;
    jit::KernelPlan plan;      // meaningful when kernel is set
    std::shared_ptr<const jit::CompiledKernel> kernel;  // null: the reference interpreter runs
    // Planar rows of several output rows: the calls of one whole tile, made once at creation (empty where the
    // executor makes each call itself: channels last, planes computed whole, tiles of too many calls).
    std::vector<TileCall> tile_calls;
    std::int64_t compile_microseconds = 0;
    // The choice the code was made under; its executor fields (threads, grain) shape each execute's split.
    PlanChoice choice;
    // Global windows run as ranges (runtime/window_ranges.hpp): their kernels and buffer, made with this code
    // where its plan allows them; null otherwise.
    std::shared_ptr<WindowRanges> window_ranges;
};

struct PrimitiveState {
    Problem problem;
    TensorDesc src, dst, indices;
    AnyPoolDesc desc;  // as the caller gave it: the problem string is made from it on first use
    std::shared_ptr<const Implementation> impl;  // never null in a created primitive

    // The problem string (DESIGN.md section 4) of desc. Formatted once, on first use, so that a cache hit does
    // not pay for it.
    const std::string& problem_string() const {
        std::call_once(problem_string_once_, [this] { problem_string_ = to_string(desc); });
        return problem_string_;
    }

private:
    mutable std::once_flag problem_string_once_;
    mutable std::string problem_string_;
};

}  // namespace pooljit::detail
