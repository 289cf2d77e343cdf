#include "jit/plan/plan.hpp"

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

// Stride 1: output o's tap t reads position o - pad + t * dilation, so each run's tap reads a range of positions,
// and its first taps the range of its tap_begin. The read ranges less the first ones.
std::vector<std::int64_t> direct_row_unwatched_pixels(const std::vector<WidthRun>& runs, std::int64_t dilation,
                                                      std::int64_t pad_begin, std::size_t most) {
    std::vector<std::pair<std::int64_t, std::int64_t>> first;  // [begin, end) of positions read as a first tap
    for (const WidthRun& r : runs)
        if (r.tap_begin < r.tap_end) {
            const std::int64_t at = r.tap_begin * dilation - pad_begin;
            first.emplace_back(r.out_begin + at, r.out_end + at);
        }
    std::sort(first.begin(), first.end());
    std::vector<std::int64_t> unwatched;
    for (const WidthRun& r : runs)
        for (std::int64_t t = r.tap_begin; t < r.tap_end; ++t) {
            const std::int64_t at = t * dilation - pad_begin;
            for (std::int64_t x = r.out_begin + at; x < r.out_end + at;) {
                // The first-tap range holding x, if any: past it at once.
                const auto covering = std::find_if(first.begin(), first.end(), [&](const auto& f) { return f.first <= x && x < f.second; });
                if (covering != first.end()) {
                    x = covering->second;
                    continue;
                }
                if (std::find(unwatched.begin(), unwatched.end(), x) == unwatched.end()) {
                    unwatched.push_back(x);
                    if (unwatched.size() > most) return unwatched;
                }
                ++x;
            }
        }
    std::sort(unwatched.begin(), unwatched.end());
    return unwatched;
}

}  // namespace pooljit::jit
