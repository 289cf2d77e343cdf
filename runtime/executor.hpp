// Runs an implementation over a whole tensor: the loops over batch, channels (blocks) and output rows, and the
// real taps of each row along the outer axes. Knows a kernel only as a function pointer and the plan's facts.
#pragma once

#include "runtime/primitive_state.hpp"

#include <pooljit/types.hpp>

#include <optional>
#include <vector>

namespace pooljit {

// src, dst are non-null; indices is null exactly when the problem has no indices output.
// Returns the threads the split used (1: the kernel ran on the calling thread).
int execute_problem(const Problem& problem, const detail::Implementation& impl, const void* src, void* dst,
                    void* indices);

// A plan made for blocked rows of bytes or the planes of a 3-D problem (KernelPlan::blocks_folded, depth_folded)
// runs those: `problem` is always the problem as the caller resolved it.
// As execute_problem, on `threads` threads (0: set_num_threads' count); with small_problems_split, split for
// them however few bytes the problem moves, so tests reach every split with small tensors.
int execute_problem_split(const Problem& problem, const detail::Implementation& impl, const void* src, void* dst,
                          void* indices, int threads, bool small_problems_split);

// The calls of one whole planar tile for Implementation::tile_calls (kernel set); empty where the executor
// makes each call itself. Its batch size is ignored.
std::vector<detail::TileCall> tile_calls_of(const Problem& problem, const detail::Implementation& impl);

}  // namespace pooljit
