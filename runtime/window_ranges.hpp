// Global windows run as ranges of their pixels (KernelPlan::window_ranges): where an image's channels-last global
// pool would give each thread a narrow column of channels in every pixel, each thread takes whole pixels instead.
// Each range's maxima go to a buffer, one row of channels a range, by a kernel of the same kind over the range;
// then one kernel pools the buffer's rows, in range order, into the destination. The merge is exact: every range
// holds its first NaN or its first maximum in scan order, ranges follow the scan order, and a kernel keeps the
// first of equal values, so the merge selects the element the whole window would (the last range may overlap the
// one before: max(a, a) is a). Split by channels, PointNet's 1x1024x1024 f32 nxc global pool ran each thread's
// share of every pixel 4 KiB apart, 32 lines in 64 of each L2 set's range.
#pragma once

#include "jit/isa/isa.hpp"
#include "runtime/primitive_state.hpp"

#include <pooljit/types.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <memory>

namespace pooljit::detail {

// What an implementation holds to run one image's windows as ranges, made with it: the input's pixels (flattened
// in scan order) as `count` ranges of `length` pixels (the last one starts at pixels - length, so it may overlap
// the one before), the kernels of a range and of the merge, and the buffer of the ranges' maxima, which one
// execute at a time takes.
struct WindowRanges {
    struct FreeAligned {
        void operator()(std::uint8_t* p) const { std::free(p); }
    };
    std::int64_t pixels = 0, count = 0, length = 0, row_bytes = 0;
    Problem range, merge;  // one range's pool (batch 1) and the merge of `count` rows into the destination
    std::shared_ptr<const Implementation> range_impl, merge_impl;
    std::unique_ptr<std::uint8_t, FreeAligned> maxima;  // count rows of row_bytes, each row a range's channels
    mutable std::atomic_flag busy;                      // set while an execute uses `maxima`

    std::int64_t start(std::int64_t range_index) const { return std::min(range_index * length, pixels - length); }
};

// The ranges for an implementation whose plan allows them (window_ranges), made at creation for the threads
// execute has then (set_num_threads', else oneTBB's concurrency; two ranges a thread, each at least
// min_range_pixels) where the rules would take them on those threads: its kernels planned in its ISA form (outside
// the cache) and its buffer allocated. Null otherwise: on one thread, where fewer than two ranges fit, where the
// buffer would pass max_range_buffer_bytes, or where a kernel is declined.
std::shared_ptr<WindowRanges> make_window_ranges(const Problem& problem, const Implementation& impl, jit::Isa cap,
                                                 bool byte_permutes);

// The implementation's ranges where execute takes them for this problem on `threads` threads, else null: one
// image, and (unless the choice says ranges=on) channel blocks fewer than the threads or an image's input beyond
// about an L2 while a thread's share fits in one.
const WindowRanges* window_ranges_for(const Problem& problem, const Implementation& impl, int threads);

// Runs the problem's image as those ranges on `threads` threads (in an arena of exactly that many where
// own_arena), then merges them on the calling thread. Returns false, having run nothing, where another execute
// holds the buffer: the caller then splits the channels. Allocates nothing.
bool execute_window_ranges(const Problem& problem, const WindowRanges& ranges, const void* src, void* dst, int threads,
                           bool own_arena);

}  // namespace pooljit::detail
