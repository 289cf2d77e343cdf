// Vertical rows (VerticalRows): channels-last integer pixels whose bytes end inside a vector, each output row's
// window rows merged first, flat, into a row on the stack that the row code then reads as a row of one tap.
#include "jit/plan/planner.hpp"

#include <pooljit/types.hpp>

#include <algorithm>
#include <cstdint>
#include <string>

namespace pooljit::jit {
namespace {

// The stack row: at most this many bytes of an input row (the L1 holds it beside the rows it is merged from).
constexpr std::int64_t max_vertical_row_bytes = 32 * 1024;
// Windows of more rows loop over them (the unrolled merge is the code of a row's whole window).
constexpr int max_unrolled_vertical_taps = 16;
constexpr std::int64_t max_vertical_tap_stride = std::int64_t{1} << 30;
constexpr int line_bytes = 64;

}  // namespace

// Why the problem is not vertical rows' shape (empty: it is).
std::string Planner::vertical_rows_declined() const {
    if (lanes_are_outputs_ || p_.spatial_rank != 2) return "not channels-last 2-D rows";
    if (p_.op != OpKind::max_pool || adaptive_) return "not a max pool's windows";
    if (p_.has_indices) return "indices follow the scan order tap by tap";
    // Integers loaded as stored: a float's rows merged before its columns could pick another of two equal
    // maxima (+0 and -0) or NaN than the scan order's first.
    if (plan_.is_float || size_of(p_.dtype) != static_cast<std::size_t>(lane_bytes(plan_.compare)))
        return "not integers compared as stored";
    if (p_.src_strides.c != 1 || p_.src_strides.spatial[1] != p_.channels)
        return "a row's pixels are not C channels apart (a view)";
    if (plan_.channel_block != p_.channels || plan_.channel_tail != 0 || plan_.channel_sweep != 1)
        return "a call takes a block of fewer than all the channels";
    if (plan_.ring_rows > 0 || plan_.separable.enabled() || plan_.tap_pass_taps > 0)
        return "a ring, separable pixels or tap passes took the rows";
    if (plan_.computed_windows) return "the windows are computed at run time";
    if (p_.kernel[0] < 2) return "windows of one row";
    if (p_.channels < 1 || p_.in[1] < 1) return "an empty row";
    if (p_.in[1] > max_vertical_row_bytes / elem() / p_.channels)
        return "a row of more than " + std::to_string(max_vertical_row_bytes) + " bytes";
    if (p_.in[1] * p_.channels < plan_.lanes) return "a row of less than a vector";
    // The rows' tap stride is a 32-bit displacement.
    if (p_.dilation[0] > max_vertical_tap_stride / elem() / std::max<std::int64_t>(p_.src_strides.spatial[0], 1))
        return "rows more than " + std::to_string(max_vertical_tap_stride) + " bytes apart";
    if (choice().vertical == PlanChoice::Switch::off) return "the choice vertical=off";
    if (choice().vertical == PlanChoice::Switch::on) return {};
    // The rules, in vectors a cache line wide: pixels whose bytes end inside a vector, and byte pixels of whole
    // vectors in windows of 5 rows or more at stride 1 along h (below).
    if (caps_.vector_bytes < line_bytes) return "vectors of half a cache line (fewer of their loads split lines)";
    if (p_.channels % plan_.lanes == 0 && !(lane_bytes(plan_.compare) == 1 && p_.kernel[0] >= 5 && p_.stride[0] == 1))
        return "pixels of whole vectors (their loads do not split cache lines) outside byte windows of 5 rows or more "
               "at stride 1";
    if (p_.kernel[0] == 2 && (p_.stride[0] < 2 || p_.channels <= plan_.lanes))
        return "windows of 2 rows over pixels of one vector, or at stride 1 along h";
    return {};
}

// Pixels whose bytes end inside a vector: a pixel's vectors start at every offset of the cache line and most of
// them split two lines. Xeon 2 (Emerald Rapids, one thread, hot buffers; medians of 3 runs, each cell's two plans
// in one process), u8 nxc, AVX-512, vertical rows against the row code or the column ring: k3 s2 p1 over 56x56 at
// 72 channels 8.85 -> 4.80 us (128: 5.52), 40 4.85 -> 3.12 (64: 3.05), 112 9.18 -> 5.92; k3 s1 p1 over 28x28
// (the column ring before) 72 4.60 -> 3.81, 112 4.78 -> 3.91; k5 s1 p2 over 20x20 72 3.99 -> 2.81, 40 2.92 ->
// 1.85; k2 s2 over 56x56 72 5.19 -> 4.07, where pixels of one vector (40 to 56 channels) ran 1.1-1.2x slower.
// The AVX2 form (32-byte loads split a line on half of the pixels at most) ran level at 24 to 48 channels. Byte
// pixels of whole vectors gain where the column ring holds 5 rows (u8 k5 s1 p2 over 20x20, 3 runs in one process
// each: 64 channels 1.70-2.16 -> 1.57-1.65 us, 128 3.25-3.74 -> 2.45-2.50, 256 7.16-7.36 -> 4.57-4.80), not in
// windows of 3 rows (k3 s1 p1 over 28x28 at 64 channels 1.70-1.97 -> 2.02-2.37, 128 level; k3 s2 p1 over 56x56 at
// 128 level).
void Planner::choose_vertical_rows() {
    constexpr const char* step = "vertical_rows";
    if (lanes_are_outputs_ || p_.spatial_rank != 2) return;
    if (const std::string why = vertical_rows_declined(); !why.empty()) return declined(step, why);
    plan_.vertical_rows.row_bytes = p_.in[1] * p_.channels * elem();
    plan_.vertical_rows.taps = p_.kernel[0] <= max_unrolled_vertical_taps ? static_cast<int>(p_.kernel[0]) : 0;
    // The row code reads one row: its items unroll that one row, and a call computes whole rows.
    plan_.unrolled_taps_h = 1;
    plan_.width_ranges = false;
    chose(step, "rows of " + std::to_string(plan_.vertical_rows.row_bytes) + " bytes merged first, " +
                    std::to_string(p_.kernel[0]) + " a window");
}

}  // namespace pooljit::jit
