// What a Primitive handle shares: the resolved problem, its tensor descriptors and the chosen implementation.
// The implementation does not depend on the batch size, so one cached Implementation serves every N.
#pragma once

#include "jit/kernel.hpp"

#include <pooljit/pooljit.hpp>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace pooljit::detail {

// The real taps of one output position along an outer axis: how many, and the input position of the first.
struct OuterTaps {
    std::int64_t count = 1, first_position = 0;
};

// Consecutive output rows [begin, end) along h whose windows have the same real taps along h and whose first
// taps are `position_step` input rows apart: one kernel call computes them all.
struct RowRun {
    std::int64_t begin = 0, end = 0, position_step = 0;
};

// The batch-independent result of dispatch: what the cache stores.
struct Implementation {
    std::string impl_name;     // "jit:avx512", "jit:avx2" or "ref"
    std::string dispatch_log;  // why each implementation before the chosen one declined
    // Non-empty when an implementation that the CPU and POOLJIT_MAX_ISA allowed declined (its planner or emitter
    // threw): the reason. The next implementation serves the problem, but a demotion is a bug.
    std::string demotion;
    jit::KernelPlan plan;      // meaningful when kernel is set
    std::shared_ptr<const jit::CompiledKernel> kernel;  // null: the reference interpreter runs
    std::int64_t compile_microseconds = 0;
    // Per output position of the outer axes (d, h), computed once so that execute does no window arithmetic.
    std::vector<OuterTaps> taps_d, taps_h;
    std::vector<RowRun> row_runs_h;  // covers every output row along h when taps_h is set
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
