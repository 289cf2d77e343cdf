// Global windows run as ranges of their pixels (KernelPlan::window_ranges): where an image's channels-last global
// pool would give each thread a narrow column of channels in every pixel, each thread takes whole pixels instead.
// Each range's maxima go to a buffer, one row of channels a range, by a kernel of the same kind over the range;
// then one kernel pools the buffer's rows, in range order, into the destination. The merge is exact: every range
// holds its first NaN or its first maximum in scan order, ranges follow the scan order, and a kernel keeps the
// first of equal values, so the merge selects the element the whole window would (the last range may overlap the
// one before: max(a, a) is a). Split by channels, PointNet's 1x1024x1024 f32 nxc global pool ran each thread's
// share of every pixel 4 KiB apart, 32 lines in 64 of each L2 set's range.
#pragma once

#include "runtime/primitive_state.hpp"

#include <pooljit/types.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>

namespace pooljit::detail {

// The input's pixels (flattened in scan order) as `count` ranges of `length` pixels each; the last one starts
// at pixels - length, so it may overlap the one before.
struct WindowRanges {
    std::int64_t pixels = 0, count = 0, length = 0;
    std::int64_t start(std::int64_t range) const { return std::min(range * length, pixels - length); }
};

// The ranges execute splits the problem's windows into on `threads` threads, or nothing where it splits the
// channels: the plan allows it (window_ranges), the images are fewer than the threads, their channel blocks are
// fewer than the threads or an image's input is beyond about an L2 while a thread's share fits in one, the ranges
// are at least min_range_pixels long, and the buffer of their maxima is at most max_range_buffer_bytes.
std::optional<WindowRanges> window_ranges_for(const Problem& problem, const Implementation& impl, int threads);

// Runs the problem as those ranges on `threads` threads (in an arena of exactly that many where own_arena), then
// merges each image's ranges on the calling thread. The kernels of a range and of the merge come from the
// cache, in the implementation's ISA form. Returns threads.
int execute_window_ranges(const Problem& problem, const Implementation& impl, const WindowRanges& ranges,
                          const void* src, void* dst, int threads, bool own_arena);

}  // namespace pooljit::detail
