#include "jit/plan.hpp"

#include <algorithm>
#include <limits>

namespace pooljit::jit {
namespace {

// Descriptors may hold values near INT64_MAX: window arithmetic is done in 128 bits.
__extension__ typedef __int128 i128;

i128 ceil_div(i128 a, i128 b) { return a >= 0 ? (a + b - 1) / b : -(-a / b); }

constexpr i128 never = std::numeric_limits<std::int64_t>::max();

}  // namespace

WindowTaps window_taps(std::int64_t o, std::int64_t in, std::int64_t kernel, std::int64_t stride,
                       std::int64_t dilation, std::int64_t pad_begin) {
    const i128 first = static_cast<i128>(o) * stride - pad_begin;
    const i128 begin = first >= 0 ? 0 : ceil_div(-first, dilation);
    const i128 end = in - first <= 0 ? 0 : std::min<i128>(kernel, ceil_div(in - first, dilation));
    if (begin >= end) return {0, 0};
    return {static_cast<std::int64_t>(begin), static_cast<std::int64_t>(end)};
}

std::vector<WidthRun> width_runs(std::int64_t out, std::int64_t in, std::int64_t kernel, std::int64_t stride,
                                 std::int64_t dilation, std::int64_t pad_begin, std::size_t max_runs) {
    std::vector<WidthRun> runs;
    for (i128 o = 0; o < out;) {
        const WindowTaps taps = window_taps(static_cast<std::int64_t>(o), in, kernel, stride, dilation, pad_begin);
        // The tap range changes only when the window's first position crosses a threshold: jump to the first
        // output past the nearest one, so planning costs O(runs), not O(out).
        const i128 first = o * stride - pad_begin;
        i128 change = never;
        const i128 begin_raw = first >= 0 ? 0 : ceil_div(-first, dilation);
        // begin drops once first reaches this (begin beyond the kernel behaves as the kernel: no real tap yet)
        const i128 begin_clamped = std::min<i128>(begin_raw, kernel);
        if (begin_clamped > 0) change = std::min(change, -(begin_clamped - 1) * dilation);
        const i128 end_raw = in - first <= 0 ? 0 : ceil_div(in - first, dilation);
        if (end_raw > 0) {
            const i128 end = std::min<i128>(end_raw, kernel);
            change = std::min(change, in - (end - 1) * dilation);  // end drops once first reaches this
        }
        i128 next = change >= never ? out : ceil_div(change + pad_begin, stride);
        next = std::clamp<i128>(next, o + 1, out);
        const auto o64 = static_cast<std::int64_t>(o), next64 = static_cast<std::int64_t>(next);
        if (!runs.empty() && runs.back().out_end == o64 && runs.back().tap_begin == taps.begin &&
            runs.back().tap_end == taps.end) {
            runs.back().out_end = next64;
        } else {
            if (runs.size() == max_runs) return {};
            runs.push_back({o64, next64, taps.begin, taps.end});
        }
        o = next;
    }
    return runs;
}

}  // namespace pooljit::jit
