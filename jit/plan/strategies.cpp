#include "jit/plan/strategies.hpp"

#include <algorithm>
#include <array>

namespace pooljit::jit {
namespace {

bool any_segment(const KernelPlan& plan, bool (*test)(const Segment&)) {
    return std::any_of(plan.segments.begin(), plan.segments.end(), test) ||
           std::any_of(plan.fast_segments.begin(), plan.fast_segments.end(), test);
}

bool lanes_of_outputs_at(const Segment& s, bool paired) {
    if (s.outputs_per_item <= 1 || s.taps_as_lanes || s.whole_plane) return false;
    return paired ? s.lane_step == 2 : s.lane_step > 2;
}

__extension__ typedef __int128 i128;  // positions of descriptors near the 64-bit limits

// A window whose real width taps are every position of the row its taps can reach (no tap before the first
// or after the last lies inside the row) and fewer than the kernel's: it overhangs the row.
bool holds_whole_row(const KernelPlan& plan, const WidthRun& run) {
    if (run.tap_begin >= run.tap_end || run.tap_end - run.tap_begin >= plan.kernel_w) return false;
    const auto position = [&](std::int64_t tap) {
        return static_cast<i128>(run.out_begin) * plan.stride_w - plan.pad_w + static_cast<i128>(tap) * plan.dilation_w;
    };
    return position(run.tap_begin) < plan.dilation_w && position(run.tap_end - 1) + plan.dilation_w >= plan.in_width;
}

bool uses(const KernelPlan& plan, StrategyId id) {
    // The problem the plan was made for, whatever code serves it.
    if (id == StrategyId::blocked_byte_rows) return plan.blocks_folded && !plan.blocked_pixels.enabled();
    if (plan.blocked_pixels.enabled()) return id == StrategyId::blocked_byte_pixels;
    if (plan.flat_planes.enabled()) return id == StrategyId::flat_planes;
    if (plan.byte_bands.enabled()) return id == StrategyId::byte_bands;
    const bool nxc = plan.strategy == Strategy::nxc_channels;
    const bool ncx_rows = plan.strategy == Strategy::ncx_width;
    const bool ring = plan.ring_rows > 0;
    switch (id) {
        case StrategyId::nxc_segments: return nxc && !plan.computed_windows;
        case StrategyId::ncx_segments: return ncx_rows && !plan.computed_windows;
        case StrategyId::computed_windows: return plan.computed_windows;
        case StrategyId::paired_lanes:
            return ncx_rows && any_segment(plan, [](const Segment& s) { return lanes_of_outputs_at(s, true); });
        case StrategyId::gathered_lanes:
            return ncx_rows && any_segment(plan, [](const Segment& s) { return lanes_of_outputs_at(s, false); });
        case StrategyId::looped_width_taps: return !plan.computed_windows && !plan.unroll_width_taps;
        case StrategyId::unrolled_outer_taps: return plan.unrolled_taps_h > 0;
        case StrategyId::channel_sweep: return plan.channel_sweep > 1;
        case StrategyId::balanced_blocks: return plan.balanced_blocks;
        case StrategyId::width_ranges: return plan.width_ranges;
        case StrategyId::nan_scan: return plan.scan_rows_for_nan;
        case StrategyId::nan_watch: return plan.watch_rows_for_nan;
        case StrategyId::planar_nan_watch: return ncx_rows && plan.watch_rows_for_nan;
        case StrategyId::shared_watch: return plan.watch_shared_rows_h > 0 || plan.watch_shared_taps_w > 0;
        case StrategyId::tap_passes: return plan.tap_pass_taps > 0;
        case StrategyId::prefetch: return plan.prefetch_distance > 0 || plan.sweep_prefetch_distance > 0;
        case StrategyId::masked_items:
            return std::any_of(plan.fast_segments.begin(), plan.fast_segments.end(), [](const Segment& s) { return s.masked; });
        case StrategyId::taps_as_lanes:
            return std::any_of(plan.fast_segments.begin(), plan.fast_segments.end(),
                               [](const Segment& s) { return s.taps_as_lanes; });
        case StrategyId::whole_plane:
            return !plan.byte_planes.enabled() && std::any_of(plan.fast_segments.begin(), plan.fast_segments.end(),
                                                              [](const Segment& s) { return s.whole_plane; });
        case StrategyId::byte_planes: return plan.byte_planes.enabled();
        case StrategyId::planes_in_registers: return plan.strategy == Strategy::ncx_planes;
        case StrategyId::byte_planes_in_registers:
            return plan.strategy == Strategy::ncx_planes && lane_bytes(plan.compare) == 1;
        case StrategyId::flat_planes: return false;  // above
        case StrategyId::byte_bands: return false;   // above
        case StrategyId::row_ring: return ncx_rows && ring && plan.ring_row_interval == 1 && !plan.has_indices;
        case StrategyId::dilated_row_ring: return ncx_rows && ring && plan.ring_row_interval > 1;
        case StrategyId::row_ring_indices: return ncx_rows && ring && plan.has_indices;
        case StrategyId::separable_rows: return ncx_rows && plan.separable.enabled() && !plan.has_indices;
        case StrategyId::separable_row_indices: return ncx_rows && plan.separable.enabled() && plan.has_indices;
        case StrategyId::separable_pixels: return nxc && plan.separable.enabled();
        case StrategyId::column_ring: return nxc && ring && !plan.has_indices;
        case StrategyId::column_ring_indices: return nxc && ring && plan.has_indices;
        case StrategyId::vertical_rows: return nxc && plan.vertical_rows.enabled();
        case StrategyId::widened_pairs: return plan.widened_pairs || plan.separable.widened_pairs;
        case StrategyId::even_element_loads:
            return plan.even_element_loads && any_segment(plan, [](const Segment& s) { return lanes_of_outputs_at(s, true); });
        case StrategyId::paired_tap_loads: return plan.paired_tap_loads;
        case StrategyId::tail_back_reads: return plan.tail_back_reads;
        case StrategyId::byte_lanes: return nxc && lane_bytes(plan.compare) == 1;
        case StrategyId::byte_rows: return ncx_rows && plan.separable.enabled() && lane_bytes(plan.compare) == 1;
        case StrategyId::byte_pairs: return ncx_rows && plan.separable.byte_pairs;
        case StrategyId::wide_index_lanes: return plan.has_indices && plan.index_lanes_64 && lane_bytes(plan.compare) == 4;
        case StrategyId::window_relative_indices: return plan.index_relative_to_window;
        case StrategyId::overhanging_windows:
            return std::any_of(plan.width_runs.begin(), plan.width_runs.end(),
                               [&](const WidthRun& run) { return holds_whole_row(plan, run); });
        case StrategyId::channel_runs: return nxc && !plan.channel_blocks_innermost;
        case StrategyId::row_pitch: return plan.strategy != Strategy::nxc_channels && !plan.memory.planes_contiguous;
        case StrategyId::blocked_byte_rows: return false;    // above
        case StrategyId::blocked_byte_pixels: return false;  // above
        case StrategyId::count: break;
    }
    return false;
}

constexpr std::array<const char*, static_cast<std::size_t>(StrategyId::count)> names = {
    "nxc_segments", "ncx_segments", "computed_windows", "paired_lanes", "gathered_lanes", "looped_width_taps",
    "unrolled_outer_taps", "channel_sweep", "balanced_blocks", "width_ranges", "nan_scan", "nan_watch",
    "planar_nan_watch", "shared_watch", "tap_passes", "prefetch", "masked_items", "taps_as_lanes", "whole_plane",
    "byte_planes", "planes_in_registers", "byte_planes_in_registers", "flat_planes", "byte_bands", "row_ring", "dilated_row_ring", "row_ring_indices", "separable_rows", "separable_row_indices", "separable_pixels",
    "column_ring", "column_ring_indices", "vertical_rows", "widened_pairs", "even_element_loads", "paired_tap_loads", "tail_back_reads",
    "byte_lanes", "byte_rows", "byte_pairs", "wide_index_lanes", "window_relative_indices", "overhanging_windows", "channel_runs", "row_pitch",
    "blocked_byte_rows", "blocked_byte_pixels",
};

}  // namespace

const char* name_of(StrategyId id) {
    const auto i = static_cast<std::size_t>(id);
    return i < names.size() ? names[i] : "invalid";
}

std::vector<StrategyId> strategies_of(const KernelPlan& plan) {
    std::vector<StrategyId> ids;
    for (int i = 0; i < static_cast<int>(StrategyId::count); ++i)
        if (uses(plan, static_cast<StrategyId>(i))) ids.push_back(static_cast<StrategyId>(i));
    return ids;
}

std::string strategy_names(const KernelPlan& plan) {
    std::string text;
    for (const StrategyId id : strategies_of(plan)) text += (text.empty() ? "" : " ") + std::string(name_of(id));
    return text;
}

const std::vector<StrategyRow>& strategy_registry() {
    using enum StrategyId;
    constexpr Isa avx512 = Isa::avx512, avx2 = Isa::avx2;
    constexpr PlanOptions wide_index_lanes_forced{.wide_index_lanes = true};
    constexpr PlanOptions window_relative_forced{.window_relative_indices = true};
    constexpr PlanOptions byte_permutes{.core = {.byte_permutes = true}};
    // Byte permutes where the rules would give a 2-D max pool byte bands: planes in registers by choice.
    constexpr PlanOptions byte_permutes_no_bands{.choice = {.bands = PlanChoice::Switch::off}, .core = {.byte_permutes = true}};
    // The AVX2 form's byte bands take most planar bytes at stride 2 (their rows' examples ask for no bands).
    constexpr PlanOptions no_bands{.choice = {.bands = PlanChoice::Switch::off}};
    // The AVX2 form takes vertical rows by choice only.
    constexpr PlanOptions vertical_on{.choice = {.vertical = PlanChoice::Switch::on}};
    static const std::vector<StrategyRow> rows = {
        // Borders, channel tails, 3-D, dilation, ceil rounding; empty windows (pads beyond the kernel) inside the
        // row and whole empty rows; adaptive bins of even windows.
        {nxc_segments, {avx512, avx2}, {
            {"maxpool layout=nxc src=2x19x9x11 k=3x3 s=2x2 pb=1x1 pe=1x1"},
            {"maxpool layout=nxc src=1x70x5x6x7 k=2x3x2 s=1x2x2 d=2x1x2 pb=1x1x0 pe=0x1x1 round=ceil"},
            {"maxpool layout=nxc src=1x9x3x3 k=2x2 s=3x3 pb=3x3 pe=3x3 round=ceil"},
            {"adaptivemaxpool layout=nxc src=1x18x28x28 out=7x7"},
            // Blocks of one vector, 5 width taps: each kernel row in two chains of maxima (row_chains; AVX2's
            // 2 vectors of 16 channels keep one), a partial last block
            {"maxpool layout=nCx16c src=2x40x9x11 k=3x5 s=2x2 pb=1x2 pe=1x2 round=ceil"}}},
        // Stride 1: contiguous lanes, with borders.
        {ncx_segments, {avx512, avx2}, {
            {"maxpool layout=ncx src=2x3x7x133 k=3x3 s=1x1 pb=1x1 pe=1x1"}}},
        // Windows far wider than the input (more border windows than segments allow), with dilation and stride
        // (divisions in the kernel) and runs of empty windows at both ends; irregular adaptive rows (one beyond
        // 2^16 outputs).
        {computed_windows, {avx512, avx2}, {
            {"maxpool layout=nxc src=1x17x1 k=300 pb=299 pe=299"},
            {"maxpool layout=ncx src=1x3x2 k=300 pb=299 pe=299 round=ceil"},
            {"maxpool layout=nxc src=1x5x7 k=300 s=2 d=3 pb=1000 pe=950 round=ceil"},
            {"maxpool layout=ncx src=1x2x3x9 k=2x400 s=1x1 d=1x3 pb=0x1400 pe=1x1300"},
            {"adaptivemaxpool layout=ncx src=1x2x5x1000 out=3x600"},
            {"adaptivemaxpool layout=nxc src=1x33x1000 out=600"},
            {"adaptivemaxpool layout=ncx src=1x1x100003 out=70001"}}},
        {paired_lanes, {avx512, avx2}, {
            {"maxpool layout=ncx src=1x5x9x131 k=3x3 s=2x2 pb=1x1 pe=1x1 round=ceil_torch"}}},
        // Stride 3 with a width dilation, items longer than one vector, tails.
        {gathered_lanes, {avx512, avx2}, {
            {"maxpool layout=ncx src=1x2x4x50 k=2x4 s=1x3 d=1x2 pb=0x3 pe=0x3"}}},
        // Long 1-D windows in both layouts.
        {looped_width_taps, {avx512, avx2}, {
            {"maxpool layout=ncx src=1x3x260 k=200 s=1"},
            {"maxpool layout=nxc src=1x21x260 k=37 s=5 pb=20 pe=20"}}},
        // Rows whose windows hold the most common outer taps unroll them; the border rows (pads, ceil rounding,
        // other adaptive bins) loop: channels last with a tail and swept blocks, 3-D windows in both layouts
        // (2 x 2 unrolled, the rest of the rows at the d and h borders), adaptive bins of 2 and 3 rows.
        {unrolled_outer_taps, {avx512, avx2}, {
            {"maxpool layout=nxc src=2x40x9x11 k=3x3 s=2x2 pb=1x1 pe=1x1"},
            {"maxpool layout=nxc src=1x20x5x6x7 k=2x2x2 s=1x2x2 pb=1x0x1 pe=0x1x0"},
            {"maxpool layout=ncx src=1x2x5x8x70 k=2x2x3 s=2x1x2 pb=0x1x1 pe=1x0x1"},
            {"adaptivemaxpool layout=nxc src=1x24x13x13 out=6x6"},
            {"adaptivemaxpool layout=ncx src=1x3x13x70 out=6x20"}}},
        // Rows bound by memory sweep several channel blocks per call (AVX-512 f32: 3 blocks and a tail of 8;
        // AVX2 f32: 12 and 8): windows, empty windows and whole empty rows, computed windows.
        {channel_sweep, {avx512, avx2}, {
            {"maxpool layout=nxc src=2x200x7x9 k=2x2 s=2x2 pb=0x1 pe=1x0"},
            {"maxpool layout=nxc src=1x140x3x3 k=2x2 s=3x3 pb=3x3 pe=3x3 round=ceil"},
            {"adaptivemaxpool layout=nxc src=1x140x1000 out=600"}}},
        // Memory-bound rows whose 90 channels split into equal blocks (AVX-512 f32: 2 of 45 for 64 and a tail of
        // 26; AVX2 f32: 6 of 15 for 5 of 16 and a tail of 10): borders, empty windows, 3-D, 1-D with ceil.
        {balanced_blocks, {avx512, avx2}, {
            {"maxpool layout=nxc src=2x90x6x7 k=2x2 s=2x2 pb=0x1 pe=0x1"},
            {"maxpool layout=nxc src=1x90x9x9 k=3x3 s=2x2 pb=1x1 pe=1x1"},
            {"maxpool layout=nxc src=1x90x4x6x6 k=2x2x2 s=2x2x2"},
            {"maxpool layout=nxc src=1x90x40 k=3 s=3 round=ceil"}}},
        // Channels-last rows of at least 64 outputs (tests/emit/test_jit_paths.cpp splits them for threads).
        {width_ranges, {avx512, avx2}, {
            {"maxpool layout=nxc src=1x20x300 k=3 s=2 pb=1 pe=1"},
            {"maxpool layout=nxc src=1x16x2x200 k=2x3 s=3x1 pb=2x1 pe=2x1 round=ceil"}}},
        // Float rows read by enough windows: planar rows, and channels-last rows bound by compares.
        {nan_scan, {avx512, avx2}, {
            {"maxpool layout=ncx src=1x3x9x40 k=3x3 s=2x1 pb=1x1 pe=1x1"},
            {"maxpool layout=nxc src=1x40x9x9 k=3x3 s=1x2 pb=1x1 pe=1x1"}}},
        // Float channels-last rows read by few windows: windows with borders and a channel tail, a global pool,
        // irregular adaptive bins computed at run time, rows computed in pieces with indices, 3-D.
        {nan_watch, {avx512, avx2}, {
            {"maxpool dt=f32 layout=nxc src=2x19x9x11 k=3x3 s=2x2 pb=1x1 pe=1x1"},
            {"maxpool dt=f64 layout=nxc src=1x40x7x7 k=7x7"},
            {"adaptivemaxpool dt=bf16 layout=nxc src=1x33x1000 out=600"},
            {"maxpool dt=f16 layout=nxc src=1x20x300 k=3 s=2 pb=1 pe=1 idx=s32"},
            {"maxpool dt=f32 layout=nxc src=1x70x5x6x7 k=2x3x2 s=1x2x2 d=2x1x2 pb=1x1x0 pe=0x1x1 round=ceil"},
            // AVX-512's row code of dilated windows read by 9 windows each, in a blocked layout (AVX2 takes
            // separable pixels there, which scan)
            {"maxpool dt=f32 layout=nCx16c src=1x40x9x10 k=3x3 d=2x2 pb=2x2 pe=2x2", {}, {avx512}}}},
        // Planar float rows of items, plain or masked: VGG pool5's stride 2 with a width tail, borders and ceil
        // rounding at stride 3 with a width dilation, 3-D, 1-D with a long row, adaptive bins (the pool5 plane and
        // the adaptive bins are planes in registers on AVX-512), 3-D f16 at stride 2 with masked borders.
        {planar_nan_watch, {avx512, avx2}, {
            {"maxpool dt=f32 layout=ncx src=2x3x14x14 k=2x2 s=2x2", {}, {avx2}},
            {"maxpool dt=f64 layout=ncx src=1x3x10x40 k=3x3 s=3x3 d=1x2 pb=1x2 pe=1x2 round=ceil"},
            {"maxpool dt=bf16 layout=ncx src=1x2x4x12x40 k=2x2x2 s=2x2x2"},
            {"maxpool dt=f32 layout=ncx src=1x3x300 k=3 s=2 pb=1 pe=1"},
            {"adaptivemaxpool dt=f32 layout=ncx src=2x3x13x13 out=6x6", {}, {avx2}},
            {"maxpool dt=f16 layout=ncx src=1x2x4x9x150 k=2x3x3 s=2x2x2 pb=0x1x1 pe=0x1x1"}}},
        // Watched channels-last rows whose windows overlap (tests/emit/test_jit_paths.cpp puts a NaN at every input
        // position): 3 wide at stride 2 with a channel tail (rows and width taps shared), dilated, ceil rounding
        // (the row's first output in a loop of several), a 1-D row computed in pieces, 3-D (width taps only).
        {shared_watch, {avx512, avx2}, {
            {"maxpool dt=f32 layout=nxc src=2x19x9x11 k=3x3 s=2x2 pb=1x1 pe=1x1"},
            {"maxpool dt=f64 layout=nxc src=1x24x8x11 k=3x3 s=2x2 d=2x2 pb=2x2 pe=2x2"},
            {"maxpool dt=bf16 layout=nxc src=1x40x9x8 k=3x3 s=2x2 round=ceil_torch"},
            {"maxpool dt=f16 layout=nxc src=1x20x300 k=3 s=2 pb=1 pe=1 idx=s32"},
            {"maxpool dt=f32 layout=nxc src=1x70x3x9x11 k=1x3x3 s=1x2x2 pb=0x1x1 pe=0x1x1"}}},
        // Pixels of at least 1 KiB swept by a call (600 f32 channels: AVX-512 9 blocks of 64 and a tail of 24,
        // AVX2 37 blocks of 16 and a tail of 8), windows of at least 5 width taps: a global pool with an h
        // dilation, passes of 8 and a rest of 3 along the width, empty windows beside the borders, 3-D, a long
        // 1-D window (PointNet) in a loop of passes.
        {tap_passes, {avx512, avx2}, {
            {"maxpool layout=nxc src=2x600x7x5 k=4x5 d=2x1"},
            {"maxpool layout=nxc src=1x520x3x21 k=2x11 s=2x5 pb=1x4 pe=0x6"},
            {"maxpool layout=nxc src=1x600x4x13 k=3x5 s=2x4 pb=3x6 pe=3x6 round=ceil"},
            {"maxpool layout=nxc src=1x520x3x4x9 k=2x3x5 s=2x2x4 pb=0x1x1 pe=1x1x1"},
            {"maxpool layout=nxc src=1x1024x200 k=200"}}},
        {prefetch, {avx512, avx2}, {
            {"maxpool layout=ncx src=2x3x30x40 k=3x3 s=2x2 pb=1x1 pe=1x1"},
            {"maxpool layout=ncx src=1x2x4x12x40 k=2x3x3 s=2x2x1 pb=0x1x1 pe=1x1x1"},
            // AVX2: channels-last 1-D rows sweeping channel blocks, each block's lines prefetched 8 KiB on (the
            // audio row's shape; 3 pixels an output with a tail of windows past the row)
            {"maxpool layout=nxc src=2x256x300 k=3 s=2", {}, {avx2}},
            {"maxpool layout=nxc src=1x192x301 k=4 s=3 pb=1 pe=2 round=ceil", {}, {avx2}}}},
        {masked_items, {avx512}, {
            {"maxpool layout=ncx src=2x3x7x133 k=3x3 s=1x1 pb=1x1 pe=1x1"},
            {"maxpool layout=ncx src=1x3x10x70 k=3x5 s=2x2 pb=1x2 pe=1x2 round=ceil"},
            // bf16 rows at stride 1, which AVX2 takes in widened pairs: 1-D, and 2-D windows of one row (one column
            // short of its pads: flat planes take the outputs at their inputs)
            {"maxpool dt=bf16 layout=ncx src=1x3x301 k=3 pb=1 pe=1"},
            {"maxpool dt=bf16 layout=ncx src=1x5x9x27 k=1x3 s=1x1 pb=0x1 pe=0x0"}}},
        // Rows of few outputs (on AVX2 at most 3, windows of at least 4 taps: otherwise gathered lanes cost
        // less) on planes too large for registers (AVX-512): a global pool of less than a vector, adaptive bins
        // that overlap unevenly, 3-D with padding and a stride that would gather, windows of a whole AVX2 vector
        // (8 taps) 150 apart, adaptive bins of 4 rows by 7 taps.
        {taps_as_lanes, {avx512, avx2}, {
            {"maxpool layout=ncx src=2x3x1x7 k=1x7"},
            {"adaptivemaxpool layout=ncx src=1x3x30x13 out=3x2"},
            {"maxpool layout=ncx src=1x2x5x9x13 k=2x2x4 s=1x1x5 pb=0x1x2 pe=1x0x2"},
            {"maxpool layout=ncx src=1x3x310 k=8 s=150"},
            {"adaptivemaxpool layout=ncx src=2x3x28x21 out=7x3"}}},
        // 1-D, 3-D, a kernel larger than the input, an adaptive bin of the whole plane, planes of 2 and 3 groups
        // of 64 f32 lanes (2 of 64 f64).
        {whole_plane, {avx512, avx2}, {
            {"maxpool layout=ncx src=2x3x7x7 k=7x7"},
            {"maxpool layout=ncx src=2x3x37 k=37"},
            {"maxpool layout=ncx src=1x2x3x4x5 k=3x4x5"},
            {"maxpool layout=ncx src=1x3x5x6 k=7x8 pb=1x1 pe=1x1"},
            {"adaptivemaxpool layout=ncx src=1x3x13x13 out=1x1"},
            {"maxpool layout=ncx src=1x3x10x10 k=10x10 s=10x10 pe=3x3"},
            // Planes of more than 16 vectors loop over the span: PointNet's row, one that ends in a partial vector,
            // 2-D, 3-D.
            {"maxpool layout=ncx src=1x3x1024 k=1024"},
            {"maxpool layout=ncx src=2x3x1037 k=1037"},
            {"maxpool layout=ncx src=1x2x37x29 k=37x29"},
            {"maxpool layout=ncx src=1x2x5x9x13 k=5x9x13"}}},
        // Planes of 16, 32 and 64-byte vectors (and between: the last vector overlaps), a full group of planes and a
        // short one in one call (70 channels), 1-D, 3-D, an adaptive bin of the whole plane, planes long enough to
        // loop (a routine for the plane's maximum), s8.
        {byte_planes, {avx512, avx2}, {
            {"maxpool dt=u8 layout=ncx src=2x70x7x7 k=7x7"},
            {"maxpool dt=s8 layout=ncx src=1x33x4x4 k=4x4"},
            {"maxpool dt=u8 layout=ncx src=1x5x3x7 k=6x10 pb=1x0 pe=2x3"},
            {"maxpool dt=s8 layout=ncx src=2x40x1037 k=1037"},
            {"maxpool dt=u8 layout=ncx src=1x130x1024 k=1024"},
            {"maxpool dt=u8 layout=ncx src=1x3x2x5x7 k=2x5x7"},
            {"adaptivemaxpool dt=s8 layout=ncx src=1x65x13x13 out=1x1"},
            {"maxpool dt=u8 layout=ncx src=3x17x64 k=64"},
            {"maxpool dt=s8 layout=ncx src=1x129x9x9 k=9x9"}}},
        // VGG pool5's shape, borders with ceil rounding and a width dilation, adaptive bins that overlap unevenly
        // and bins smaller than a pixel, 3-D with padding, 1-D, a plane of exactly 16 f32 vectors, empty windows
        // and whole empty rows, an adaptive 3-D output larger than its input.
        {planes_in_registers, {avx512}, {
            {"maxpool layout=ncx src=2x3x14x14 k=2x2 s=2x2"},
            {"maxpool layout=ncx src=1x3x9x11 k=3x3 s=2x2 d=1x2 pb=1x2 pe=2x1 round=ceil"},
            {"adaptivemaxpool layout=ncx src=2x3x13x13 out=6x6"},
            {"adaptivemaxpool layout=ncx src=1x2x5x4 out=7x9"},
            {"maxpool layout=ncx src=1x2x4x6x6 k=2x3x3 s=2x2x2 pb=0x1x1 pe=1x1x1"},
            {"maxpool layout=ncx src=2x3x37 k=3 s=3"},
            {"maxpool layout=ncx src=1x2x16x16 k=3x3 s=2x2 pb=1x1 pe=1x1"},
            {"maxpool layout=ncx src=1x4x3x3 k=2x2 s=3x3 pb=3x3 pe=3x3 round=ceil"},
            {"adaptivemaxpool layout=ncx src=1x3x3x4x5 out=5x7x9"},
            // Views with a row pitch (rows of 17 and 16, 3-D rows of 8 in d-planes of 51): a register a row's piece
            // at a time, loaded and stored under lane masks, f16 too.
            {"maxpool layout=ncx src=2x3x14x14 k=2x2 s=2x2 src_strides=714x238x17x1 dst_strides=210x70x10x1"},
            {"maxpool dt=f16 layout=ncx src=1x3x13x13 k=3x3 s=2x2 pb=1x1 pe=1x1 src_strides=624x208x16x1"},
            {"maxpool layout=ncx src=1x2x4x6x6 k=2x3x3 s=2x2x2 pb=0x1x1 pe=1x1x1 src_strides=408x204x51x8x1 dst_strides=60x30x15x5x1"}}},
        // The same shapes in byte lanes, on a core with byte permutes (AVX512_VBMI): VGG pool5's, adaptive bins
        // (uneven, and an output larger than its input), borders with ceil rounding and a width dilation, empty
        // windows, 1-D, 3-D with padding, a plane of exactly 4 zmm, two vectors of outputs.
        {byte_planes_in_registers, {avx512}, {
            {"maxpool dt=u8 layout=ncx src=2x5x14x14 k=2x2 s=2x2", byte_permutes_no_bands},
            {"adaptivemaxpool dt=s8 layout=ncx src=2x3x13x13 out=7x7", byte_permutes_no_bands},
            {"adaptivemaxpool dt=u8 layout=ncx src=1x3x13x13 out=3x3", byte_permutes_no_bands},
            {"adaptivemaxpool dt=u8 layout=ncx src=1x2x5x4 out=7x9", byte_permutes_no_bands},
            {"maxpool dt=s8 layout=ncx src=1x3x9x11 k=3x3 s=2x2 d=1x2 pb=1x2 pe=2x1 round=ceil", byte_permutes_no_bands},
            {"maxpool dt=u8 layout=ncx src=1x4x3x3 k=2x2 s=3x3 pb=3x3 pe=3x3 round=ceil", byte_permutes_no_bands},
            {"maxpool dt=u8 layout=ncx src=2x3x37 k=3 s=3", byte_permutes_no_bands},
            {"maxpool dt=s8 layout=ncx src=1x2x4x6x6 k=2x3x3 s=2x2x2 pb=0x1x1 pe=1x1x1", byte_permutes_no_bands},
            {"maxpool dt=u8 layout=ncx src=1x2x16x16 k=3x3 s=2x2 pb=1x1 pe=1x1", byte_permutes_no_bands},
            {"adaptivemaxpool dt=s8 layout=ncx src=1x2x15x15 out=9x9", byte_permutes},
            {"maxpool dt=u8 layout=ncx src=2x5x14x14 k=2x2 s=2x2 src_strides=1190x238x17x1 dst_strides=350x70x10x1", byte_permutes_no_bands}}},
        // SPPF's, Inception's and SPP's shapes (planes ending in a vector that overlaps the one before), pads
        // uneven along both axes, a plane of one 16-byte vector, width taps 15 bytes before and after their output
        // (the first and last vectors' loads shifted by 15), rows of one byte, ceil rounding and same_upper pads
        // that keep the outputs at their inputs, channel planes apart in a view, planes of 98 and 94 vectors (rows of
        // 56 and 100 bytes); f32 (under propagate a watch, and an exact copy for planes with a NaN)
        // and s32, their width taps 7 elements before and after their outputs (permuted into place); dilated
        // windows (3x3 by 2 with p2 in each type, a width dilation of 3 with uneven pads in bytes, a height
        // dilation only, pads that leave no width tap at the output's column); bf16 (widened to f32 lanes) in
        // SPPF's planes, taps 7 elements before the first vector and past the last, dilated; f16 (converted, its
        // exact copy keeping each NaN's bits) in SPPF's and Inception's planes, taps before the first vector.
        {flat_planes, {avx512, avx2}, {
            {"maxpool dt=u8 layout=ncx src=2x5x20x20 k=5x5 pb=2x2 pe=2x2"},
            {"maxpool dt=s8 layout=ncx src=1x6x28x28 k=3x3 pb=1x1 pe=1x1"},
            {"maxpool dt=u8 layout=ncx src=1x3x40x40 k=9x9 pb=4x4 pe=4x4"},
            {"maxpool dt=s8 layout=ncx src=2x5x7x9 k=4x3 pb=1x2 pe=2x0"},
            {"maxpool dt=u8 layout=ncx src=1x3x4x4 k=3x3 pb=1x1 pe=1x1"},
            {"maxpool dt=s8 layout=ncx src=1x2x3x20 k=1x16 pb=0x15 pe=0x0"},
            {"maxpool dt=u8 layout=ncx src=1x2x3x20 k=2x16 pb=1x0 pe=0x15"},
            {"maxpool dt=u8 layout=ncx src=1x2x20x1 k=3x1 pb=1x0 pe=1x0"},
            {"maxpool dt=s8 layout=ncx src=1x4x9x11 k=3x3 pb=1x1 pe=1x1 round=ceil"},
            {"maxpool dt=u8 layout=ncx src=1x3x10x10 k=4x4 pad=same_upper"},
            {"maxpool dt=u8 layout=ncx src=2x3x6x6 k=3x3 pb=1x1 pe=1x1 src_strides=432x72x6x1 dst_strides=216x36x6x1"},
            {"maxpool dt=s8 layout=ncx src=1x2x56x56 k=3x3 pb=1x1 pe=1x1"},
            {"maxpool dt=u8 layout=ncx src=1x2x30x100 k=5x5 pb=2x2 pe=2x2"},
            {"maxpool dt=f32 layout=ncx src=2x5x20x20 k=5x5 pb=2x2 pe=2x2"},
            {"maxpool dt=f32 layout=ncx src=1x4x28x28 k=3x3 pb=1x1 pe=1x1"},
            {"maxpool dt=s32 layout=ncx src=2x3x7x9 k=4x3 pb=1x2 pe=2x0"},
            {"maxpool dt=f32 layout=ncx src=1x2x3x20 k=2x8 pb=1x7 pe=0x0"},
            {"maxpool dt=f32 layout=ncx src=1x2x3x20 k=2x8 pb=0x0 pe=1x7"},
            {"maxpool dt=s32 layout=ncx src=1x2x3x20 k=1x8 pb=0x0 pe=0x7"},
            {"maxpool dt=u8 layout=ncx src=1x3x56x56 k=3x3 d=2x2 pb=2x2 pe=2x2"},
            {"maxpool dt=s8 layout=ncx src=2x3x13x24 k=3x3 d=2x2 pb=2x2 pe=2x2"},
            {"maxpool dt=f32 layout=ncx src=1x3x21x19 k=3x3 d=2x2 pb=2x2 pe=2x2"},
            {"maxpool dt=s32 layout=ncx src=1x3x12x17 k=3x3 d=1x2 pb=1x2 pe=1x2"},
            {"maxpool dt=u8 layout=ncx src=1x2x9x40 k=2x4 d=1x3 pb=0x4 pe=1x5"},
            {"maxpool dt=s8 layout=ncx src=1x2x21x30 k=3x3 d=3x1 pb=3x1 pe=3x1"},
            {"maxpool dt=s32 layout=ncx src=1x2x11x23 k=3x2 d=2x3 pb=1x1 pe=3x2"},
            {"maxpool dt=bf16 layout=ncx src=2x5x20x20 k=5x5 pb=2x2 pe=2x2"},
            {"maxpool dt=bf16 layout=ncx src=1x2x3x20 k=2x8 pb=1x7 pe=0x0"},
            {"maxpool dt=bf16 layout=ncx src=1x2x3x20 k=2x8 pb=0x0 pe=1x7"},
            {"maxpool dt=bf16 layout=ncx src=1x3x21x19 k=3x3 d=2x2 pb=2x2 pe=2x2"},
            {"maxpool dt=f16 layout=ncx src=2x5x20x20 k=5x5 pb=2x2 pe=2x2"},
            {"maxpool dt=f16 layout=ncx src=1x2x3x20 k=2x8 pb=1x7 pe=0x0"},
            {"maxpool dt=f16 layout=ncx src=1x3x28x28 k=3x3 pb=1x1 pe=1x1"},
            // Over a row pitch (a row at a time): bytes of rows of 20 in xmm, f32 into an output pitch, bf16
            // converted once with its rows apart, f16 rows of 9 elements apart in both.
            {"maxpool dt=u8 layout=ncx src=2x3x10x20 k=3x5 pb=1x2 pe=1x2 src_strides=1500x500x50x1 dst_strides=1200x400x40x1"},
            {"maxpool dt=f32 layout=ncx src=1x3x9x11 k=3x3 pb=1x1 pe=1x1 dst_strides=400x130x13x1"},
            {"maxpool dt=bf16 layout=ncx src=1x2x20x20 k=5x5 pb=2x2 pe=2x2 src_strides=1600x800x36x1"},
            {"maxpool dt=f16 layout=ncx src=1x2x12x9 k=3x3 pb=1x1 pe=1x1 src_strides=400x200x16x1 dst_strides=300x150x12x1"}}},
        // 2-D u8/s8 max pools in bands on a core with byte permutes (AVX512_VBMI): the stem's rows of 56 outputs
        // from two registers, GoogLeNet's two 14-output rows a band (ceil_torch: the last column and row
        // overhang), Inception's, SPPF's and SPP's windows at stride 1, a dilated 3x3 with p1 (the second window's
        // first tap before the first one's), rows in chunks (150 and 300 bytes), a stride of 3 and 4 and rows that
        // skip input rows, windows wholly in the last rows (pads up to the extent), a band of fewer rows at the
        // plane's end, planes of one row and of one column, planes where no band lies inside (every load masked),
        // adaptive bins that are a max pool's windows, channel planes apart in a view, and row pitches.
        // The AVX2 form gathers by byte shuffles (32 lanes); it leaves windows whose outputs sit at their inputs
        // to flat planes, planes under 32 bytes to the row code, and byte rows of more than 64 outputs and byte
        // pairs of windows apart to those; planes of 32-63 bytes move every load inside.
        {byte_bands, {avx512, avx2}, {
            {"maxpool dt=u8 layout=ncx src=1x3x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1", byte_permutes},
            {"maxpool dt=s8 layout=ncx src=2x3x28x28 k=3x3 s=2x2 round=ceil_torch", byte_permutes},
            {"maxpool dt=u8 layout=ncx src=1x4x28x28 k=3x3 pb=1x1 pe=1x1", byte_permutes, {avx512}},
            {"maxpool dt=s8 layout=ncx src=1x3x20x20 k=5x5 pb=2x2 pe=2x2", byte_permutes, {avx512}},
            {"maxpool dt=u8 layout=ncx src=1x2x40x40 k=9x9 pb=4x4 pe=4x4", byte_permutes, {avx512}},
            {"maxpool dt=s8 layout=ncx src=1x3x56x56 k=3x3 d=2x2 pb=1x1 pe=1x1", byte_permutes},
            {"maxpool dt=u8 layout=ncx src=1x2x11x150 k=3x3 s=2x2 pb=1x1 pe=1x1", byte_permutes, {avx512}},
            {"maxpool dt=s8 layout=ncx src=1x2x7x300 k=2x5 s=1x3 d=1x2 pb=0x3 pe=1x4 round=ceil", byte_permutes},
            {"maxpool dt=u8 layout=ncx src=1x3x30x33 k=2x3 s=4x4 pb=1x2 pe=1x2", byte_permutes},
            {"maxpool dt=s8 layout=ncx src=1x2x9x10 k=3x3 s=2x2 d=2x1 pb=4x2 pe=4x2", byte_permutes},
            {"maxpool dt=u8 layout=ncx src=1x3x1x70 k=1x4 s=1x2 pb=0x1 pe=0x1", byte_permutes},
            {"maxpool dt=s8 layout=ncx src=1x3x70x1 k=4x1 s=2x1 pb=1x0 pe=2x0", byte_permutes},
            {"maxpool dt=u8 layout=ncx src=2x5x5x5 k=2x2 s=1x1", byte_permutes, {avx512}},
            {"maxpool dt=u8 layout=ncx src=2x5x6x6 k=2x2 s=1x1", byte_permutes},
            {"maxpool dt=s8 layout=ncx src=1x3x40x9 k=3x3 s=2x2 round=ceil dst_strides=400x100x5x1", byte_permutes},
            {"adaptivemaxpool dt=u8 layout=ncx src=2x3x13x13 out=2x2", byte_permutes},
            {"adaptivemaxpool dt=s8 layout=ncx src=1x3x13x13 out=7x7", byte_permutes},
            {"maxpool dt=u8 layout=ncx src=2x3x16x16 k=3x3 s=2x2 pb=1x1 pe=1x1 src_strides=2048x512x16x1 dst_strides=512x128x8x1", byte_permutes},
            {"maxpool dt=s8 layout=ncx src=1x3x28x28 k=3x3 s=2x2 round=ceil_torch src_strides=3360x1120x40x1 dst_strides=840x280x20x1", byte_permutes},
            {"maxpool dt=u8 layout=ncx src=2x2x30x130 k=3x3 pb=1x1 pe=1x1 src_strides=12000x6000x200x1", byte_permutes, {avx512}}}},
        // Masked borders (SPPF-like, its last column's pad dropped: flat planes take SPPF), a width stride of 2 (paired lanes) with border rows of fewer taps and ceil
        // rounding, a width dilation, a stride along h equal to the dilation.
        {row_ring, {avx512}, {
            {"maxpool layout=ncx src=2x3x20x20 k=5x5 s=1x1 pb=2x2 pe=2x1"},
            {"maxpool layout=ncx src=1x2x9x30 k=4x3 s=1x2 pb=1x0 pe=2x1 round=ceil"},
            {"maxpool layout=ncx src=1x3x12x17 k=3x3 d=1x2 pb=1x2 pe=1x1"},
            {"maxpool layout=ncx src=1x3x15x20 k=3x3 s=2x1 d=2x1 pb=1x1 pe=2x1 round=ceil"}}},
        // Calls of rows ring_row_interval apart: dilation 2 (two residues, border rows of 2 taps at both ends; one
        // column short of its pads: flat planes take the outputs at their inputs), a stride of 2 under a dilation
        // of 4, 3 residues of different lengths.
        {dilated_row_ring, {avx512}, {
            {"maxpool layout=ncx src=2x3x13x24 k=3x3 d=2x2 pb=2x2 pe=2x1"},
            {"maxpool layout=ncx src=1x2x21x19 k=2x3 s=2x1 d=4x1 pb=3x1 pe=0x1"},
            {"maxpool layout=ncx src=1x2x17x30 k=4x2 d=3x1"}}},
        {row_ring_indices, {avx512}, {
            {"maxpool dt=f32 layout=ncx src=2x3x20x20 k=5x5 pb=2x2 pe=2x2 idx=s64"},
            {"maxpool dt=bf16 layout=ncx src=1x3x16x28 k=3x3 pb=1x1 pe=1x1 idx=s32 axis=1 nan=ignore"}}},
        // Rows no register ring holds: a 9x9 window (SPP's, one column short of its pads: flat planes take SPP), a
        // width stride of 2 with ceil rounding over rows wider than 4 vectors, a dilation along h (calls of rows 2
        // apart; one column short of its pads), a plane taller than one pass over the buffer (7 rows a pass), pads beyond the kernel (windows
        // empty along the width, rows empty along h).
        // Windows 2 rows apart: the stem's odd padding on odd sizes, GoogLeNet's ceil overhang (no padding), a
        // 5x4 window with even padding, a stride of 4 under a dilation of 2 with a width dilation of 3 (taps
        // alternate between the phases), a plane taller than one pass.
        {separable_rows, {avx512, avx2}, {
            {"maxpool layout=ncx src=1x3x40x40 k=9x9 pb=4x4 pe=4x3"},
            {"maxpool layout=ncx src=1x2x12x200 k=3x3 s=1x2 pb=1x1 pe=1x1 round=ceil"},
            {"maxpool layout=ncx src=1x2x21x100 k=3x3 d=2x1 pb=2x1 pe=2x0"},
            {"maxpool layout=ncx src=1x1x300x300 k=3x3"},
            {"maxpool layout=ncx src=1x2x10x70 k=2x2 pb=3x3 pe=3x3"},
            {"maxpool layout=ncx src=1x3x29x57 k=3x3 s=2x2 pb=1x1 pe=1x1"},
            {"maxpool layout=ncx src=1x2x28x28 k=3x3 s=2x2 round=ceil_torch"},
            {"maxpool layout=ncx src=1x2x30x41 k=5x4 s=2x2 pb=2x2 pe=2x1"},
            {"maxpool layout=ncx src=1x2x40x50 k=3x3 s=4x2 d=2x3 pb=2x3 pe=2x3"},
            {"maxpool layout=ncx src=1x1x120x250 k=3x3 s=2x2 pb=1x1 pe=1x1"}}},
        // Indices beside the maxima: SPP's 9x9, a 5x5 with a width dilation over a padding of 3 (each window's
        // first real tap a dilation past its start) in bf16 with axis 2, a 5x4 at stride 2 (the two phases) with
        // column-major indices, a 4x4 at width stride 2 under ceil rounding, a plane taller than one pass (4 output
        // rows a pass), u8 3x3 at stride 1 widened to 32-bit lanes (AVX-512 holds its 3 rows in a ring).
        {separable_row_indices, {avx512, avx2}, {
            {"maxpool layout=ncx src=1x3x40x40 k=9x9 pb=4x4 pe=4x4 idx=s64"},
            {"maxpool dt=bf16 layout=ncx src=1x2x30x41 k=5x5 d=1x2 pb=2x3 pe=2x3 idx=s32 axis=2"},
            {"maxpool layout=ncx src=1x3x29x57 k=5x4 s=2x2 pb=2x2 pe=2x1 idx=s64 order=col"},
            {"maxpool layout=ncx src=1x2x12x99 k=4x4 s=1x2 pb=1x1 pe=1x1 round=ceil idx=s32"},
            {"maxpool layout=ncx src=1x2x80x150 k=5x5 pb=2x2 pe=2x2 idx=s64"},
            {"maxpool dt=u8 layout=ncx src=1x3x28x28 k=3x3 pb=1x1 pe=1x1 idx=s32", {}, {avx2}}}},
        // AVX2 (the column ring would hold 1 to 3 vectors a row): SPPF's shape with its border rows in calls of
        // their own, a plane taller than one pass (4 output rows a pass), a stride 2 along h (rows 2 tap strides
        // apart), a dilation along h (calls of rows 2 apart), a width stride and dilation under ceil rounding
        // (windows past the padded row), pads beyond the kernel (windows empty along the width, rows empty along
        // h), pixels of 1 KiB (s32 takes them too), indices beside SPP's 9x9 window and beside u8 at stride 2.
        {separable_pixels, {avx2}, {
            {"maxpool layout=nxc src=2x32x12x11 k=5x5 pb=2x2 pe=2x2"},
            {"maxpool layout=nxc src=1x8x40x100 k=3x3 pb=1x1 pe=1x1"},
            {"maxpool layout=nxc src=1x16x21x13 k=5x3 s=2x1 pb=2x1 pe=2x1"},
            {"maxpool layout=nxc src=1x16x21x12 k=3x3 d=2x1 pb=2x1 pe=2x1"},
            {"maxpool layout=nxc src=1x16x10x15 k=3x4 s=1x2 d=1x2 pb=1x1 pe=1x2 round=ceil"},
            {"maxpool layout=nxc src=1x16x9x8 k=3x3 pb=4x4 pe=4x4"},
            {"maxpool layout=nxc src=1x256x6x7 k=3x3 pb=1x1 pe=1x1"},
            {"maxpool layout=nxc src=1x16x40x40 k=9x9 pb=4x4 pe=4x4 idx=s64", {}, {avx512, avx2}},
            {"maxpool dt=u8 layout=nxc src=1x16x21x15 k=5x4 s=2x2 pb=2x1 pe=2x2 round=ceil idx=s32"},
            // bf16 pixels in widened pairs, split in their buffers: the padded copy at stride 2 along the width
            // with ceil rounding, SPP's 9x9 (2 vectors a pixel)
            {"maxpool dt=bf16 layout=nxc src=1x32x10x15 k=3x4 s=1x2 d=1x2 pb=1x1 pe=1x2 round=ceil"},
            // (bf16 windows of 5 rows or more, without indices, take separable pixels on AVX-512 too)
            {"maxpool dt=bf16 layout=nxc src=1x16x40x40 k=9x9 pb=4x4 pe=4x4", {}, {avx512, avx2}},
            // bf16 channels that a pair block of 16 leaves a tail of: blocks of 24 (3 vectors) and of 8 that divide
            {"maxpool dt=bf16 layout=nxc src=2x72x9x11 k=3x3 pb=1x1 pe=1x1"},
            {"maxpool dt=bf16 layout=nxc src=1x40x12x9 k=3x3 pb=1x1 pe=1x1"},
            // integer pixels of one block ending in a partial vector: SPPF's shape over 24 u8 channels (direct rows,
            // the partial vector masked), s8 at stride 2 along h with 20 channels, s32 over 13 (copied rows)
            {"maxpool dt=u8 layout=nxc src=2x24x20x20 k=5x5 pb=2x2 pe=2x2"},
            {"maxpool dt=s8 layout=nxc src=2x20x21x13 k=5x3 s=2x1 pb=2x1 pe=2x1"},
            {"maxpool dt=s32 layout=nxc src=1x13x12x11 k=5x5 s=1x2 pb=2x2 pe=2x2"},
            // AVX2: whole blocks and a channel tail: f32's tail of 10 in 2 vectors (the partial one read back, k5x4
            // with ceil rounding, 9x9), s32's tail of one whole vector (fewer than a block's 2), u8's tail of 56 in
            // SPPF's shape, f64's tail of 2 in one vector (read back from the block before it), and f32's only
            // block of 3 channels (masked)
            {"maxpool dt=f32 layout=nxc src=1x42x11x10 k=5x4 pb=2x0 pe=2x3 round=ceil", {}, {avx2}},
            {"maxpool dt=f32 layout=nxc src=1x42x14x13 k=9x9 pb=4x4 pe=4x4", {}, {avx2}},
            {"maxpool dt=s32 layout=nxc src=2x40x13x12 k=5x5 pb=2x2 pe=2x2", {}, {avx2}},
            {"maxpool dt=u8 layout=nxc src=1x120x12x11 k=5x5 pb=2x2 pe=2x2", {}, {avx2}},
            {"maxpool dt=f64 layout=nxc src=1x10x12x9 k=3x3 d=2x2 pb=2x2 pe=2x2", {}, {avx2}},
            {"maxpool dt=f32 layout=nxc src=2x3x15x14 k=9x9 pb=4x4 pe=4x4", {}, {avx2}}}},
        // Border rows around the ring's calls and a channel tail, k2 windows, a width dilation, empty windows at
        // both ends of the rows, a column taller than one ring call (f32: 19 rows a call, bf16: 40), SPP's 9x9
        // window (9 width taps unrolled, 2 vectors a block on AVX-512, 1 on AVX2). Each has a channel tail
        // (AVX2's float blocks take separable pixels with their tails, and so do its integer ones in windows of 5
        // rows or more: the bf16 twins keep the ring there).
        {column_ring, {avx512, avx2}, {
            {"maxpool layout=nxc src=2x70x12x9 k=3x3 pb=1x1 pe=1x1", {}, {avx512}},
            {"maxpool dt=bf16 layout=nxc src=2x70x12x9 k=3x3 pb=1x1 pe=1x1"},
            {"maxpool layout=nxc src=1x42x11x10 k=5x4 pb=2x0 pe=2x3 round=ceil", {}, {avx512}},
            {"maxpool dt=bf16 layout=nxc src=1x42x11x10 k=5x4 pb=2x0 pe=2x3 round=ceil"},
            {"maxpool layout=nxc src=1x20x9x8 k=2x2"},
            {"maxpool layout=nxc src=1x33x10x12 k=3x3 d=1x2 pb=1x2 pe=1x2", {}, {avx512}},
            {"maxpool dt=bf16 layout=nxc src=1x33x10x12 k=3x3 d=1x2 pb=1x2 pe=1x2"},
            {"maxpool layout=nxc src=1x24x9x6 k=4x2 pb=1x3 pe=1x3", {}, {avx512}},
            {"maxpool layout=nxc src=1x66x70x6 k=3x3 pb=1x1 pe=1x1", {}, {avx512}},
            {"maxpool dt=bf16 layout=nxc src=1x66x70x6 k=3x3 pb=1x1 pe=1x1"},
            {"maxpool layout=nxc src=1x42x14x13 k=9x9 pb=4x4 pe=4x4", {}, {avx512}}}},
        // Beside 8- and 16-bit data.
        {column_ring_indices, {avx512}, {
            {"maxpool dt=bf16 layout=nxc src=2x70x12x9 k=3x3 pb=1x1 pe=1x1 idx=s64"},
            {"maxpool dt=u8 layout=nxc src=1x40x11x10 k=5x4 pb=2x0 pe=2x3 round=ceil idx=s32 axis=1"},
            {"maxpool dt=s8 layout=nxc src=1x33x10x12 k=3x3 d=1x2 pb=1x2 pe=1x2 idx=s64 nan=ignore"},
            {"maxpool dt=f16 layout=nxc src=1x42x11x10 k=5x4 pb=2x0 pe=2x3 round=ceil idx=s64"}}},
        // u8, s8 and s32 pixels ending inside a vector: a partial second vector (72 u8 channels, at stride 2 with
        // padding), one partial vector (40 and 56), a row whose bytes end inside a vector (its last vector read back:
        // 9 x 40), border rows of fewer taps, a dilation along h (rows 2 apart), windows taller than the unrolled
        // rows (17: the rows' loop), windows whose rows all lie past the input (pads beyond the kernel: empty rows),
        // ceil rounding, 2 images, windows at stride 1 along h (before the column ring: 3x3 and 5x5), 2x2 windows over
        // pixels of more than a vector, byte pixels of whole vectors in 5x5 windows at stride 1; by choice, windows of 2 rows at stride 1 along h, and the AVX2 form (its partial
        // vectors read back or loaded in pieces).
        {vertical_rows, {avx512}, {
            {"maxpool dt=u8 layout=nxc src=2x72x12x11 k=3x3 s=2x2 pb=1x1 pe=1x1"},
            {"maxpool dt=s8 layout=nxc src=1x40x13x9 k=3x2 s=2x2 pb=1x0 pe=2x1"},
            {"maxpool dt=u8 layout=nxc src=1x56x9x13 k=3x3 s=2x1 d=2x1 pb=1x1 pe=2x1 round=ceil"},
            {"maxpool dt=s32 layout=nxc src=2x20x11x7 k=4x3 s=2x1 pb=1x1 pe=1x0"},
            {"maxpool dt=u8 layout=nxc src=1x40x20x3 k=17x2 s=3x1 pb=8x0 pe=8x1"},
            {"maxpool dt=s8 layout=nxc src=1x24x5x6 k=3x2 s=3x2 pb=4x0 pe=4x0"},
            {"maxpool dt=u8 layout=nxc src=1x56x12x13 k=3x3 pb=1x1 pe=1x1"},
            {"maxpool dt=s8 layout=nxc src=2x120x9x10 k=5x5 pb=2x2 pe=2x2"},
            {"maxpool dt=u8 layout=nxc src=1x72x14x12 k=2x2 s=2x2"},
            {"maxpool dt=s8 layout=nxc src=1x128x12x11 k=5x5 pb=2x2 pe=2x2"},
            {"maxpool dt=u8 layout=nxc src=1x40x12x11 k=2x3 s=1x2 pb=1x1 pe=1x1 idx=none", vertical_on, {avx512, avx2}},
            {"maxpool dt=s8 layout=nxc src=2x24x10x9 k=3x3 s=2x2 pb=1x1 pe=1x1 idx=none", vertical_on, {avx512, avx2}},
            {"maxpool dt=s32 layout=nxc src=1x12x9x9 k=3x3 s=2x2 pb=1x1 pe=1x1 idx=none", vertical_on, {avx512, avx2}}}},
        // bf16 values in plain items of consecutive lanes: channels last with a pair of 9 elements in the tail
        // block (AVX-512: of 25), swept blocks, ceil rounding; tap passes; separable pixels and rows. (AVX2's
        // planar rows at stride 1 and bf16 separable pixels take pairs too; on AVX-512 those shapes are masked
        // items and column rings: their examples are in those rows.)
        {widened_pairs, {avx512, avx2}, {
            {"maxpool dt=bf16 layout=nxc src=2x25x9x11 k=3x3 s=2x2 pb=1x1 pe=1x1"},
            {"maxpool dt=bf16 layout=nxc src=1x200x6x7 k=2x3 s=2x2 pb=0x1 pe=0x1 round=ceil"},
            // tap passes over 1200-byte pixels (37 blocks a call and a tail block of one vector): partial maxima
            // reloaded as pairs, windows of 11 width taps in passes of 8 and 3
            {"maxpool dt=bf16 layout=nxc src=2x600x6x22 k=3x11 s=3x11"},
            // AVX2's separable pixels, the pairs split in their buffers: direct rows 2 apart (4 vectors a pixel);
            // AVX-512's plain items
            {"maxpool dt=bf16 layout=nxc src=2x64x21x12 k=4x3 s=2x1 pb=1x1 pe=2x1"},
            // separable rows at stride 2, a load's even and odd elements the two phases: the even elements in
            // phase 1 (a pad of 1) and a last load of 9 elements; in phase 0 and a last load of 12 (AVX-512 keeps
            // bf16 rows of fewer outputs than a vector in the row code: there rows of 22); a last load of 2
            // elements (one vector, deinterleaved) under a dilation
            {"maxpool dt=bf16 layout=ncx src=1x3x29x57 k=3x3 s=2x2 pb=1x1 pe=1x1"},
            {"maxpool dt=bf16 layout=ncx src=1x2x28x28 k=3x3 s=2x2 round=ceil_torch", {}, {avx2}},
            {"maxpool dt=bf16 layout=ncx src=1x2x28x44 k=3x3 s=2x2 round=ceil_torch"},
            {"maxpool dt=bf16 layout=ncx src=1x2x40x50 k=3x3 s=4x2 d=2x3 pb=2x3 pe=2x3"}}},
        // Planar lanes at stride 2 of narrow data: rows whose last vector's span ends inside a 16-byte half or
        // past it, 1-D and 3-D, with indices.
        {even_element_loads, {avx2}, {
            {"maxpool dt=bf16 layout=ncx src=2x3x10x37 k=2x3 s=2x2 pb=0x1 pe=0x1"},
            {"maxpool dt=bf16 layout=ncx src=1x4x9x21 k=3x2 s=1x2 idx=s64"},
            {"maxpool dt=u8 layout=ncx src=1x3x45 k=3 s=2 round=ceil idx=s32"},
            {"maxpool dt=s8 layout=ncx src=1x2x5x6x33 k=2x2x3 s=2x2x2 pb=0x0x1 pe=0x0x1"}}},
        // Planar lanes at stride 2, taps one element apart, loaded as stored: windows of 2 taps (one pair), 3 (a
        // pair and a single tap) and 4 (two pairs), rows whose last vector is partial or whole, the first and
        // last windows in the padding, 1-D to 3-D, adaptive bins at stride 2, f64's 64-bit lanes. AVX-512 pairs the
        // taps of its plain items (not masked ones; bf16 as one word load of whole dwords beside its even-word loads).
        {paired_tap_loads, {avx512, avx2}, {
            {"maxpool dt=f32 layout=ncx src=2x3x10x37 k=2x2 s=2x2"},
            {"maxpool dt=f32 layout=ncx src=1x2x3x9x45 k=1x3x3 s=1x2x2 pb=0x1x1 pe=0x1x1 round=ceil"},
            {"maxpool dt=s32 layout=ncx src=1x2x7x70 k=2x4 s=2x2 pb=0x1 pe=0x2"},
            {"maxpool dt=f64 layout=ncx src=1x3x41 k=3 s=2 pb=1 pe=1"},
            {"maxpool dt=s64 layout=ncx src=1x2x4x5x36 k=2x2x2 s=2x2x2"},
            {"adaptivemaxpool dt=f32 layout=ncx src=1x3x8x50 out=4x25"},
            // bf16: one load of whole dwords a pair (7 lanes masked, 3 lanes in pieces, whole registers), windows
            // of 3 taps whose last one loads its even elements alone
            {"maxpool dt=bf16 layout=ncx src=1x3x14x14 k=2x2 s=2x2", {}, {avx2}},
            {"maxpool dt=bf16 layout=ncx src=2x2x9x6 k=2x2 s=2x2 round=ceil", {}, {avx2}},
            {"maxpool dt=bf16 layout=ncx src=1x2x4x40 k=2x2 s=2x2"},
            {"maxpool dt=bf16 layout=ncx src=1x3x41 k=3 s=2 pb=1 pe=1"}}},
        // Channels last without opmasks, a partial vector read back from its last channel: pixels narrower than
        // a register (k2 s2 without padding splits off the first item, whose tap has no pixel before it; 7 s8
        // channels need 4 pixels of room), a tail after a whole vector, floats (NaN policies from the run), 64-bit
        // lanes, 1-D and 3-D.
        {tail_back_reads, {avx2}, {
            {"maxpool dt=u8 layout=nxc src=2x24x17x19 k=3x3 s=2x2 pb=1x1 pe=1x1"},
            {"maxpool dt=u8 layout=nxc src=2x20x17x19 k=2x2 s=2x2"},
            {"maxpool dt=s8 layout=nxc src=2x7x9x23 k=2x3 s=1x2 d=1x2 pb=0x1 pe=1x2 round=ceil"},
            {"maxpool dt=u8 layout=nxc src=2x40x12x13 k=3x3 s=2x2"},
            {"maxpool dt=f32 layout=nxc src=2x20x11x13 k=3x3 s=2x2 pb=1x1 pe=1x1"},
            {"maxpool dt=f32 layout=nxc src=2x5x11x13 k=2x2 s=2x2"},
            {"maxpool dt=s64 layout=nxc src=2x5x11x13 k=3x3 s=2x2 pb=1x1 pe=1x1"},
            {"maxpool dt=u8 layout=nxc src=1x24x40 k=3 s=2"},
            {"maxpool dt=u8 layout=nxc src=1x24x5x6x9 k=2x2x3 s=1x2x2 pb=0x1x1 pe=1x1x1"}}},
        {byte_lanes, {avx512, avx2}, {
            {"maxpool dt=u8 layout=nxc src=2x70x7x9 k=3x3 s=2x2 pb=1x1 pe=1x1"},
            {"maxpool dt=s8 layout=nxc src=1x130x9x9 k=3x3 pb=1x1 pe=1x1"}}},
        // Planar bytes (rows of 32 outputs or more on AVX-512, 8 on AVX2): the stem at stride 2 (each phase a
        // byte shuffle of two vectors), windows that share no row (k2 s2), odd widths (a partial last vector
        // of input and of output), s8 with its lowest value as padding, a dilation along h (calls of rows 2
        // apart), SPP's 9x9 one column short of its pads (flat planes take SPP), ceil rounding past the padded row, a plane taller than one pass of the buffers,
        // calls whose rows step other than the buffers' (one row at a time: a channel slice's planes).
        {byte_rows, {avx512, avx2}, {
            {"maxpool dt=u8 layout=ncx src=1x3x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1", no_bands},
            {"maxpool dt=u8 layout=ncx src=2x3x37x131 k=2x2 s=2x2 pb=1x1 pe=1x1"},
            {"maxpool dt=s8 layout=ncx src=1x2x21x71 k=3x3 s=1x1 pb=1x1 pe=1x0"},
            {"maxpool dt=s8 layout=ncx src=1x2x23x97 k=3x3 s=2x2 pb=1x1 pe=1x1 round=ceil", no_bands},
            {"maxpool dt=u8 layout=ncx src=1x2x21x100 k=3x3 d=2x1 pb=2x1 pe=2x0"},
            {"maxpool dt=u8 layout=ncx src=1x2x40x120 k=9x9 pb=4x4 pe=4x3"},
            {"maxpool dt=u8 layout=ncx src=1x1x300x301 k=3x3 s=2x1"},
            {"maxpool dt=s8 layout=ncx src=1x2x20x66 k=5x3 s=2x1 pb=2x1 pe=2x1"}}},
        // Windows inside the input at stride 2 along the width: k2 s2 over rows of whole vectors (AVX2) and a
        // partial one, an odd width and height (the last element of each is in no window), s8, a row wider than
        // one vector on AVX-512; 1-D k3 s2 (the audio row's shape, a lone third tap) and k4 s2 ending on the
        // row's last element; 2-D k3 s2 and a 4x1 window of rows a dilation apart.
        {byte_pairs, {avx512, avx2}, {
            {"maxpool dt=u8 layout=ncx src=1x3x20x128 k=2x2 s=2x2"},
            {"maxpool dt=u8 layout=ncx src=2x3x37x131 k=2x2 s=2x2"},
            {"maxpool dt=s8 layout=ncx src=1x2x9x75 k=2x2 s=2x2"},
            {"maxpool dt=u8 layout=ncx src=1x2x6x300 k=2x2 s=2x2"},
            {"maxpool dt=u8 layout=ncx src=2x3x1001 k=3 s=2"},
            {"maxpool dt=s8 layout=ncx src=1x2x300 k=4 s=2"},
            {"maxpool dt=u8 layout=ncx src=1x2x21x99 k=3x3 s=2x2", no_bands},
            {"maxpool dt=s8 layout=ncx src=1x2x20x80 k=4x1 s=1x2 d=2x1"},
            // 3-D: C3D's 2x2x2 at stride 2, windows of 4 planes, of 2 dilated planes and 2 rows, and of rows 1 apart
            {"maxpool dt=u8 layout=ncx src=1x3x4x9x70 k=2x2x2 s=2x2x2"},
            {"maxpool dt=s8 layout=ncx src=2x2x10x5x41 k=4x1x3 s=2x1x2 round=ceil"},
            {"maxpool dt=u8 layout=ncx src=1x2x6x7x66 k=2x2x2 s=1x1x2 d=2x1x1"},
            // Windows that start in the padding before the row (AVX2 shifts the empty value into the first outputs'
            // loads; AVX-512's masked loads leave those lanes empty) and above the first row (calls of fewer rows): the stem's rows (a first chunk
            // and a short last one read back from the row's end), MobileNet's s8 rows (the empty value -128), a
            // row shorter than a register, 3 bytes of padding before a 1-D row, dilated rows under padding
            {"maxpool dt=u8 layout=ncx src=1x2x16x112 k=3x3 s=2x2 pb=1x1 pe=1x1", no_bands},
            {"maxpool dt=s8 layout=ncx src=2x2x12x150 k=3x3 s=2x2 pb=1x1 pe=1x1"},
            {"maxpool dt=s8 layout=ncx src=1x2x14x22 k=3x3 s=2x2 pb=1x1 pe=1x1", no_bands},
            {"maxpool dt=s8 layout=ncx src=1x2x300 k=4 s=2 pb=3 pe=0"},
            {"maxpool dt=u8 layout=ncx src=1x2x20x80 k=3x2 s=2x2 d=2x1 pb=2x1 pe=0x0"},
            // Windows that overhang the row's end and the last row (the bytes past the row's end in a load's register
            // take the empty value, the last row's calls have fewer rows): the ceil stem's rows, GoogLeNet's
            // s8 rows (-128), a last chunk of one output whose third tap lies past the row, a row shorter than a
            // register with padding on both sides, a 1-D row of 4 taps overhanging by 2
            {"maxpool dt=u8 layout=ncx src=1x2x12x112 k=3x3 s=2x2 round=ceil", no_bands},
            {"maxpool dt=s8 layout=ncx src=2x3x28x28 k=3x3 s=2x2 round=ceil_torch", no_bands},
            {"maxpool dt=s8 layout=ncx src=1x2x9x66 k=3x3 s=2x2 round=ceil", no_bands},
            {"maxpool dt=u8 layout=ncx src=1x2x12x19 k=3x3 s=2x2 pb=1x1 pe=1x1 round=ceil", no_bands},
            {"maxpool dt=s8 layout=ncx src=1x2x301 k=4 s=2 pb=1 pe=3 round=ceil_torch"},
            // AVX2: rows of 5 to 7 outputs in planes of 25 outputs or more (VGG pool5; 10x10 padded, past the end)
            {"maxpool dt=u8 layout=ncx src=2x3x14x14 k=2x2 s=2x2", no_bands, {avx2}},
            {"maxpool dt=s8 layout=ncx src=1x3x10x10 k=3x3 s=2x2 pb=1x1 pe=1x1 round=ceil", no_bands, {avx2}},
            // AVX2: rows before a call's last load and store whole registers past their bytes, in planes that
            // stack (row_read_reach): views with a row pitch in src (more bytes to reach into) and in dst (rows
            // that do not abut: exact stores, the gaps untouched), and a source whose rows all alias one row (no
            // reach past it)
            {"maxpool dt=u8 layout=ncx src=1x3x14x14 k=2x2 s=2x2 src_strides=700x224x16x1 dst_strides=378x63x9x1", no_bands, {avx2}},
            {"maxpool dt=s8 layout=ncx src=2x3x12x28 k=3x3 s=2x2 round=ceil_torch src_strides=1500x400x33x1", no_bands},
            {"maxpool dt=u8 layout=ncx src=1x3x10x14 k=2x2 s=2x2 src_strides=42x14x0x1", {}, {avx2}},
            // A run of output rows whose windows are all the input's two rows (AVX2: no reach past them)
            {"maxpool dt=u8 layout=ncx src=2x2x2x66 k=4x2 s=1x2 pb=2x0 pe=1x0"},
            // AVX2: one output row a plane, whose calls step over channels: planes padded to 64 bytes in dst (the
            // gaps untouched), planes that alias in src (no reach into the next)
            {"maxpool dt=u8 layout=ncx src=1x3x2x60 k=2x2 s=2x2 dst_strides=192x64x30x1", {}, {avx2}},
            {"adaptivemaxpool dt=s8 layout=ncx src=1x3x2x60 out=1x30 dst_strides=192x64x30x1", {}, {avx2}},
            {"maxpool dt=u8 layout=ncx src=2x3x2x60 k=2x2 s=2x2 src_strides=120x0x60x1", {}, {avx2}},
            // AVX2: adaptive bins that are a max pool's windows, as that max pool (13 -> 6: k3 s2; 14 -> 7 in planes
            // that stack; 6 -> 3 along h, 21 -> 10 along w; 13 -> 7: k3 s2 and a padded element at each end)
            {"adaptivemaxpool dt=u8 layout=ncx src=2x3x13x13 out=6x6", no_bands, {avx2}},
            {"adaptivemaxpool dt=s8 layout=ncx src=1x3x13x13 out=7x7", no_bands, {avx2}},
            {"adaptivemaxpool dt=s8 layout=ncx src=1x5x14x14 out=7x7", no_bands, {avx2}},
            {"adaptivemaxpool dt=u8 layout=ncx src=1x3x6x21 out=3x10", no_bands, {avx2}}}},
        // Windows that reach 2^31 index units in planes of more than 2^31 elements (planned, never run), and the
        // same choice forced on problems small enough to run.
        {wide_index_lanes, {avx512, avx2}, {
            {"maxpool dt=f32 layout=nxc src=1x3x70000x70000 k=40000x1 s=1000x1 idx=s64"},
            {"maxpool dt=f32 layout=nxc src=2x37x9x11 k=3x3 s=2x2 pb=1x1 pe=1x1 idx=s64 nan=ignore", wide_index_lanes_forced},
            {"maxpool dt=u8 layout=ncx src=1x3x5x7x19 k=2x3x3 s=1x2x1 d=2x1x1 pb=0x1x1 pe=1x1x1 idx=s64 axis=1", wide_index_lanes_forced},
            {"maxpool dt=s8 layout=ncx src=1x2x9x40 k=2x3 s=1x2 pb=1x1 pe=1x1 idx=s32", wide_index_lanes_forced},
            {"maxpool dt=f16 layout=nxc src=1x21x20 k=7 s=3 pb=6 pe=6 idx=s32 round=ceil", wide_index_lanes_forced},
            {"maxpool dt=bf16 layout=ncx src=1x2x9x21 k=2x2 s=1x1 pb=1x1 pe=0x0 idx=s64 order=col", wide_index_lanes_forced},
            {"adaptivemaxpool dt=f32 layout=nxc src=1x19x13x17 out=4x5 idx=s64", wide_index_lanes_forced}}},
        // Planes of more than 2^31 elements whose windows reach less (planned, never run), and the same choice
        // forced on problems small enough to run.
        {window_relative_indices, {avx512, avx2}, {
            {"maxpool dt=f32 layout=nxc src=1x3x70000x70000 k=3x3 s=2x2 idx=s64"},
            {"maxpool dt=f32 layout=nxc src=2x7x9x11 k=3x3 s=2x2 pb=1x1 pe=1x1 idx=s64 nan=ignore", window_relative_forced},
            {"maxpool dt=u8 layout=ncx src=1x3x5x7x8 k=2x3x3 s=1x2x1 d=2x1x1 pb=0x1x1 pe=1x1x1 idx=s64 axis=1", window_relative_forced},
            {"maxpool dt=f16 layout=nxc src=1x5x20 k=7 s=3 pb=6 pe=6 idx=s32 round=ceil", window_relative_forced},
            {"maxpool dt=bf16 layout=ncx src=1x2x9x8 k=2x2 s=2x2 idx=s32 order=col", window_relative_forced},
            {"adaptivemaxpool dt=s32 layout=nxc src=1x6x13x17 out=4x5 idx=s64", window_relative_forced}}},
        // Windows past the padded input under ceil rounding: ONNX's example (kernel 4 over 3 at stride 2),
        // a dilated window with a begin pad, the width of 2-D and 3-D problems (planes in registers, the column
        // ring), valid pads with dilation on both axes.
        {overhanging_windows, {avx512, avx2}, {
            {"maxpool layout=ncx src=2x3x3 k=4 s=2 round=ceil_torch"},
            {"maxpool layout=nxc src=1x19x7 k=4 s=3 d=3 pb=1 pe=0 round=ceil"},
            {"maxpool layout=ncx src=1x3x9x5 k=3x7 s=2x3 pb=1x1 pe=1x0 round=ceil"},
            {"maxpool layout=nxc src=1x40x11x3 k=5x4 s=1x2 pb=2x0 pe=2x0 round=ceil"},
            {"maxpool layout=ncx src=1x2x3x5x4 k=4x3x6 s=2x2x3 pb=0x1x1 pe=0x1x0 round=ceil"},
            {"maxpool layout=nxc src=1x17x6x4 k=3x3 s=2x2 d=3x2 pad=valid round=ceil"}}},
        // Blocked layouts (C not a multiple of the block: a partial last block, its padded lanes written 0; an
        // outer batch stride), 1-D, 2-D and 3-D, adaptive; and a view whose channels are apart (every element of
        // an ncx tensor 2 apart: one channel a call).
        {channel_runs, {avx512, avx2}, {
            {"maxpool layout=nCx16c src=2x40x9x9 k=3x3 s=2x2 pb=1x1 pe=1x1"},
            {"maxpool layout=nCx8c src=1x21x7x9 k=2x2 s=1x1 src_strides=2048x504x72x8"},
            {"maxpool layout=nCx8c src=1x13x3x5x4 k=2x2x2 s=1x2x2 pb=1x0x1 pe=0x1x0 round=ceil"},
            {"maxpool layout=nCx16c src=1x20x37 k=4 s=3 pb=1 pe=1"},
            {"adaptivemaxpool layout=nCx16c src=1x17x13x13 out=4x3"},
            {"maxpool layout=ncx src=1x5x9x8 k=3x3 s=1x2 pb=1x1 pe=1x1 src_strides=720x144x16x2 dst_strides=360x72x8x2"}}},
        // Planar rows of views with a row pitch in src, dst or both (a global pool and a stride-2 plane whose
        // planes stack, with indices of their own strides, 3-D; at stride 1 rows narrower than a vector, which flat
        // planes decline over a pitch).
        {row_pitch, {avx512, avx2}, {
            {"maxpool layout=ncx src=2x3x7x7 k=7x7 src_strides=180x60x10x1 dst_strides=6x2x1x1"},
            {"maxpool layout=ncx src=1x6x14x14 k=2x2 s=2x2 src_strides=1344x224x16x1 dst_strides=378x63x9x1"},
            {"maxpool layout=ncx src=1x3x9x6 k=3x3 s=1x1 pb=1x1 pe=1x1 dst_strides=240x80x8x1"},
            {"maxpool layout=ncx src=1x2x4x6x7 k=2x3x3 s=1x2x2 pb=0x1x1 pe=0x1x1 src_strides=800x400x96x12x1"},
            {"adaptivemaxpool layout=ncx src=1x4x13x13 out=3x3 src_strides=1000x250x16x1"}}},
        // Blocked bytes at stride 1 along the width whose width taps reach further than blocked_byte_pixels' (5 or
        // more pixels of 16 bytes, 9 or more of 8: windows of 11 width taps, of 19, dilated by 5), 2-D, 3-D windows
        // one plane deep, which then fold their depth too, a batch stride and a row pitch, 2 images of 2 blocks.
        {blocked_byte_rows, {avx512, avx2}, {
            {"maxpool dt=u8 layout=nCx16c src=2x32x9x11 k=3x11 pb=1x5 pe=1x5"},
            {"maxpool dt=s8 layout=nCx8c src=1x16x12x20 k=5x19 pb=2x9 pe=2x9"},
            {"maxpool dt=u8 layout=nCx16c src=1x16x10x14 k=3x3 d=2x5 pb=1x5 pe=2x5"},
            {"maxpool dt=u8 layout=nCx16c src=1x16x3x8x11 k=1x3x11 pb=0x1x5 pe=0x1x5"},
            {"maxpool dt=u8 layout=nCx16c src=2x32x6x11 k=3x11 s=2x1 pb=1x5 pe=1x5 src_strides=2410x1200x192x16 dst_strides=1090x540x176x16"},
            {"maxpool dt=s8 layout=nCx16c src=2x32x6x11 k=3x11 pb=1x5 pe=1x5 src_strides=2304x1152x192x16"},
            // On a core with byte permutes the AVX-512 form's bands take the folded rows.
            {"maxpool dt=u8 layout=nCx16c src=2x32x9x11 k=3x11 pb=1x5 pe=1x5", byte_permutes}}},
        // Blocked bytes at stride 1 along the width whose taps lie within 4 pixels of 16 bytes or 8 of 8 (Inception's,
        // SPPF's, SPP's 9x9, dilated windows, uneven pads, a partial last block, 1-D), windows of the whole row at any
        // stride (global pools: 2-D, 1-D of 1000 pixels looped, a row pitch, a partial block, dense planes as one
        // span, pads),
        // and at stride 2 (the stem's window, VGG's 2x2, GoogLeNet's ceil_torch rounding,
        // ceil rounding past the row's end, a width dilation whose taps pair with none, windows wholly in the padding
        // along h and w (output rows of the empty value), a window taller than the plane, 1-D rows of both blocks,
        // rows of one pixel, a batch stride and a row pitch in both tensors, rows of 40 pixels whose middle chunks
        // loop, 3-D windows one plane deep; partial last blocks, whose padded lanes the tail entry stores as 0).
        {blocked_byte_pixels, {avx512, avx2}, {
            {"maxpool dt=u8 layout=nCx16c src=2x32x9x11 k=3x3 s=2x2 pb=1x1 pe=1x1"},
            {"maxpool dt=s8 layout=nCx8c src=1x16x12x10 k=2x2 s=2x2"},
            {"maxpool dt=u8 layout=nCx8c src=1x8x13x13 k=3x3 s=2x2 round=ceil_torch"},
            {"maxpool dt=s8 layout=nCx16c src=2x16x7x9 k=3x2 s=3x2 pb=1x0 pe=1x1 round=ceil"},
            {"maxpool dt=u8 layout=nCx8c src=1x8x9x15 k=2x3 s=1x2 d=1x2 pb=0x3 pe=1x0"},
            {"maxpool dt=s8 layout=nCx16c src=1x16x4x4 k=2x2 s=2x2 pb=3x3 pe=3x3"},
            {"maxpool dt=u8 layout=nCx16c src=1x16x3x20 k=5x3 s=2x2 pb=2x1 pe=2x1"},
            {"maxpool dt=s8 layout=nCx8c src=2x16x100 k=3 s=2 pb=1 pe=1"},
            {"maxpool dt=u8 layout=nCx16c src=1x32x77 k=4 s=2 pb=1 pe=2"},
            {"maxpool dt=u8 layout=nCx16c src=1x16x5x1 k=3x1 s=2x2 pb=1x0 pe=1x0"},
            {"maxpool dt=s8 layout=nCx16c src=2x32x6x7 k=3x3 s=2x2 pb=1x1 pe=1x1 src_strides=1700x800x128x16 dst_strides=700x320x64x16"},
            {"maxpool dt=u8 layout=nCx8c src=1x8x6x40 k=3x3 s=2x2 pb=1x1 pe=1x1"},
            {"maxpool dt=s8 layout=nCx16c src=2x32x3x7x9 k=1x3x3 s=1x2x2 pb=0x1x1 pe=0x1x1"},
            {"maxpool dt=u8 layout=nCx16c src=2x24x9x11 k=3x3 s=2x2 pb=1x1 pe=1x1"},
            {"maxpool dt=s8 layout=nCx8c src=2x12x3x7x9 k=1x3x3 s=1x2x2 pb=0x1x1 pe=0x1x1"},
            {"maxpool dt=u8 layout=nCx16c src=2x32x9x11 k=3x3 pb=1x1 pe=1x1"},
            {"maxpool dt=s8 layout=nCx8c src=1x16x12x10 k=5x5 pb=2x2 pe=2x2"},
            {"maxpool dt=u8 layout=nCx16c src=1x16x11x13 k=9x9 pb=4x4 pe=4x4"},
            {"maxpool dt=u8 layout=nCx16c src=1x16x10x12 k=3x3 d=2x2 pb=1x2 pe=2x1"},
            {"maxpool dt=s8 layout=nCx8c src=2x8x7x7 k=7x7"},
            {"maxpool dt=u8 layout=nCx16c src=2x20x6x7 k=3x3 pb=1x1 pe=1x1"},
            {"maxpool dt=s8 layout=nCx8c src=1x8x50 k=5 pb=3 pe=1"},
            {"maxpool dt=u8 layout=nCx16c src=2x32x7x7 k=7x7"},
            {"maxpool dt=s8 layout=nCx8c src=1x20x1000 k=1000"},
            {"maxpool dt=u8 layout=nCx16c src=2x32x5x6 k=5x6 src_strides=1200x560x112x16"},
            {"maxpool dt=s8 layout=nCx16c src=1x24x3x70 k=3x72 s=1x3 pb=1x1 pe=1x1"}}},
    };
    return rows;
}

}  // namespace pooljit::jit
