// The planner's NaN steps (run in the order jit/plan.cpp gives). A float row's fast copy must know that the
// row holds no NaN: a scan over its input first, or a watch, running sums of what the fast copy loads. Which one
// pays depends on how many windows read each element and on how the fast copy loads the row, so the planar
// choice waits for the item, ring and buffer steps, and the watch's sums take the registers they leave.
#include "jit/plan/planner.hpp"

#include "jit/plan/plan_rows.hpp"
#include "jit/plan/registers.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

namespace pooljit::jit {
namespace {

// Shared watch rows (choose_shared_watch) where calls hold at least this many output rows, or whole runs.
constexpr std::int64_t min_shared_watch_call_rows = 4;
// Planar rows watch for NaN in planes under this many bytes of input (choose_planar_nan_watch).
constexpr double max_watched_plane_bytes = 128 * 1024;

}  // namespace

// The fast copy of a float row needs to know that the row holds no NaN. A scan is a pass over the row's
// input before the row code runs; channels last it pays only where windows overlap enough that compares,
// not memory, bound the row (measured: the DRAM-sized stem ran 1.3x, the audio row 1.5x, C3D 1.3x slower
// with it; Inception k3 s1 1.5x faster). Where each input element is read by few windows, the fast copy
// watches the values it loads instead (a running sum per vector of the block) and leaves for the exact copy
// at the row's end when the sum is NaN. Planar rows start with the scan: their fast copy may take item
// shapes of its own (taps as lanes, masked borders, separable rows); choose_planar_nan_watch decides once
// they are known.
void Planner::choose_nan_scan() {
    if (!plan_.is_float) {
        if (choice().nan != PlanChoice::Nan::rules) unhonoured("nan", "integer rows hold no NaN");
        plan_.scan_rows_for_nan = false;
        return;
    }
    plan_.scan_rows_for_nan = lanes_are_outputs_ || reads_per_element(p_) >= min_reads_of_compare_bound_rows;
    if (choice().nan == PlanChoice::Nan::scan) plan_.scan_rows_for_nan = true;
    if (choice().nan == PlanChoice::Nan::watch && !lanes_are_outputs_) plan_.scan_rows_for_nan = false;
    plan_.watch_rows_for_nan = !plan_.scan_rows_for_nan;
    if (plan_.watch_rows_for_nan)
        chose("nan_scan", "a watch in the fast copy: channels-last rows bound by memory, no second pass");
}

// Planar rows whose fast copy is items, plain or masked (no taps as lanes, whole planes, rings or separable
// buffers: each of those loads the row its own way), watch what they load as channels-last rows do, where each
// input element is read by few windows: every element a window reads is a lane of some tap's vector (a masked
// item's load zeroes the lanes whose tap is outside the input), so the sums see it. The scan's second pass over
// the row cost more than the watch's adds there: AVX2 VGG pool5 (1x512x14x14 k2 s2 f32), its kernel called alone
// over the planes, 18.1 against 14.6 us; AVX-512's masked items, the audio row 1x256x16000 k3 s2 f32 1375 -> 942
// us, f16 805 -> 573, bf16 598 -> 461 (Xeon 2, 5 alternating rounds).
void Planner::choose_planar_nan_watch() {
    constexpr const char* step = "planar_nan_watch";
    if (!lanes_are_outputs_ || !plan_.scan_rows_for_nan || plan_.strategy != Strategy::ncx_width) return;
    if (choice().nan == PlanChoice::Nan::scan) return declined(step, "the choice nan=scan");
    const bool own_loads = std::any_of(plan_.fast_segments.begin(), plan_.fast_segments.end(),
                                       [](const Segment& s) { return s.taps_as_lanes || s.whole_plane; });
    if (own_loads) return declined(step, "taps as lanes and whole planes load the row their own way");
    if (plan_.separable.enabled() || plan_.ring_rows > 0)
        return declined(step, "the row's buffers or rings read the input, not items");
    const bool chosen = choice().nan == PlanChoice::Nan::watch;  // the speed rules below give way to the choice
    if (!chosen && reads_per_element(p_) >= min_reads_of_compare_bound_rows)
        return declined(step, "windows overlap: a scan reads each element once, a watch once per window");
    // Large 2-D planes from DRAM: the scan's pass of loads alone streams each row in, and the row code reads it from
    // the cache; the watched row code reading DRAM itself ran at memcpy speed (Zen 4, one thread, f32 k2 s2:
    // SegNet's 1x64x360x480, 691 KiB planes, 5292 us watched against 2352 scanned; 4x64x224x224, 196 KiB planes,
    // 5592 against 3226; 8x256x120x120, 56 KiB planes, 7706 against 7571, and 16x256x56x56 3647 against 3693).
    // Where such planes stay in the caches the watch was faster (VGG pool1's 1x64x224x224, hot in a quiet L3:
    // 1.3x), but a plane that size is seldom still there when its pool runs. 3-D volumes keep the watch (C3D's
    // 1x128x16x56x56 f32, 196 KiB a channel, 1.17-1.23x slower scanned; k1x3x3 over 32x112x112 1.2-1.28x).
    const double plane_bytes = static_cast<double>(p_.in[0]) * static_cast<double>(p_.in[1]) *
                               static_cast<double>(p_.in[2]) * static_cast<double>(elem());
    if (!chosen && p_.spatial_rank == 2 && plane_bytes >= max_watched_plane_bytes)
        return declined(step, "planes of " + std::to_string(static_cast<std::int64_t>(plane_bytes / 1024)) +
                                  " KiB or more: a scan streams each row in before the row code reads it");
    // The watch adds one vector per tap an item loads, the scan one per vector of input: items of few outputs
    // in many lanes (adaptive 13 -> 2 and 3 bins, windows of 7 x 7 taps for 2 or 3 outputs) are cheaper
    // scanned (AVX-512 f16, whose lanes there go through the stack: 316 against 644 us).
    std::int64_t outputs_per_item = 1;
    if (!plan_.computed_windows)
        for (const Segment& seg : plan_.segments) outputs_per_item = std::max(outputs_per_item, seg.outputs_per_item);
    if (!chosen && 2 * outputs_per_item < plan_.lanes)
        return declined(step, "items of " + std::to_string(outputs_per_item) + " outputs in " +
                                  std::to_string(plan_.lanes) + " lanes");
    watch_instead_of_scan(step, "a watch in the fast copy: each element read by few windows, no second pass");
}

// Channels-last rows bound by compares scan (choose_nan_scan), which pays where a column ring or separable pixels
// read each input row once (Xeon 2, wisdom forcing the watch, 4 rounds: Inception's k3 s1 f32 nxc 1.13x, SPPF
// 1.25x slower watched). Dilated windows, which no reuse takes, run the row code, whose f32 and f64 taps are
// loaded as stored: there the watch's adds beside the maxima cost less than the scan's pass over the window rows
// of every output row (the dilated 3x3 f32 nxc, p2 59.5 -> 53.5 us, p1 58.6 -> 49.0; nCx16c p2 84.1 -> 61.6).
// Widened taps (bf16, f16) keep the scan: their taps cost more operations already (bf16 p2 1.11x slower watched,
// p1 level; f16 0.96x). Other row code (k2x6 s2x1, say) keeps the scan: not measured, and its watch sums would
// take the registers of AVX2's row chains.
void Planner::choose_row_code_nan_watch() {
    constexpr const char* step = "row_code_nan_watch";
    if (lanes_are_outputs_ || !plan_.scan_rows_for_nan || choice().nan == PlanChoice::Nan::scan) return;
    if (plan_.ring_rows > 0 || plan_.separable.enabled() || plan_.tap_pass_taps > 0)
        return declined(step, "a ring, separable pixels or tap passes read the input rows once");
    if (p_.dtype != DType::f32 && p_.dtype != DType::f64) return declined(step, "widened taps keep the scan");
    if (std::all_of(p_.dilation.begin(), p_.dilation.begin() + p_.spatial_rank, [](std::int64_t d) { return d == 1; }))
        return declined(step, "windows without a dilation keep the scan");
    watch_instead_of_scan(step, "a watch in the row code: its taps are loaded as stored");
}

// The watch in place of the scan, where the registers hold its sums beside the plan's other roles.
void Planner::watch_instead_of_scan(const char* step, const std::string& why) {
    KernelPlan candidate = plan_;
    candidate.scan_rows_for_nan = false;
    candidate.watch_rows_for_nan = true;
    if (!fits_registers(candidate)) return declined(step, "no registers for the sums (" + registers_text(candidate) + ")");
    plan_.scan_rows_for_nan = false;
    plan_.watch_rows_for_nan = true;
    chose(step, why);
}

// Watched rows sum each vector's loads into several running sums in turn, as many as the registers hold up
// to max_watch_chains: the same adds, in chains that short. With one sum a vector, the chain of adds through
// the row bounded AVX2's channels-last stem on Zen 3 (3 cycles an add, 9 a 3x3 item's vector: f32 111 us,
// s32 without a watch 75).
void Planner::choose_watch_chains() {
    if (!plan_.watch_rows_for_nan) return;
    KernelPlan candidate = plan_;
    for (int chains = max_watch_chains; chains > 1; --chains) {
        candidate.watch_chains = chains;
        if (fits_registers(candidate)) break;
        candidate.watch_chains = 1;
    }
    plan_.watch_chains = candidate.watch_chains;
    chose("watch_chains", std::to_string(plan_.watch_chains) + " running NaN sums a vector (" + registers_text(plan_) + ")");
}

// Watched channels-last rows: a tap that reads what a tap of the previous output (output row) read adds
// nothing to the watch. Windows 3 wide at stride 2 (the stem, MobileNet) then add 4 of their 9 loads, not
// 9: on AVX2 (Zen 3, one thread) 13% fewer instructions an execute and 1.05-1.22x faster (docs/performance.md,
// "Shared watch"). Shared rows need calls of many rows: each call scans its first row's shared rows first.
void Planner::choose_shared_watch() {
    constexpr const char* step = "shared_watch";
    if (!plan_.watch_rows_for_nan) return;
    if (lanes_are_outputs_) return declined(step, "planar items watch their own lanes");
    if (adaptive_ || plan_.computed_windows || plan_.tap_pass_taps > 0)
        return declined(step, "the row's windows are not segments of kernel taps");
    const auto shared = [](std::int64_t kernel, std::int64_t stride, std::int64_t dilation) -> std::int64_t {
        if (stride % dilation != 0 || stride / dilation >= kernel) return 0;
        return kernel - stride / dilation;  // taps [0, that) are the previous window's taps [stride/dilation, kernel)
    };
    plan_.watch_shared_taps_w = shared(axis_.kernel, axis_.stride, axis_.dilation);
    const auto h = static_cast<std::size_t>(p_.spatial_rank - 2);
    const std::int64_t full_blocks = p_.channels / plan_.channel_block;
    const bool calls_of_runs = (full_blocks <= plan_.channel_sweep && plan_.channel_tail == 0) ||
                               plan_.rows_per_chunk >= min_shared_watch_call_rows;
    if (p_.spatial_rank == 2 && calls_of_runs && plan_.unrolled_taps_h == p_.kernel[h])
        plan_.watch_shared_rows_h = shared(p_.kernel[h], p_.stride[h], p_.dilation[h]);
    if (plan_.watch_shared_taps_w == 0 && plan_.watch_shared_rows_h == 0)
        return declined(step, "no tap reads what the previous window read");
    chose(step, std::to_string(plan_.watch_shared_rows_h) + " rows and " + std::to_string(plan_.watch_shared_taps_w) +
                    " width taps of a window watched by the previous window");
}

// The scan of planar bf16 and f16 rows: an and with the magnitude bits, a word compare above the infinity's and
// an or, for 16 elements, where the widened sums took two widening operations and an add in a 3-cycle chain for 8
// (and an inf beside a -inf sent a row to the exact copy). Zen 3, one thread, alternating rounds: the batch-16
// stem bf16 ncx 4743 -> 4109 us, I3D 1x64x32x112x112 k1x3x3 s1x2x2 6699 -> 6347; SegNet's k2 s2 level (its scan
// waits on memory). Whole steps of 16 or 32 bytes cover the row (the last one read back from its end).
void Planner::choose_half_float_scan() {
    constexpr const char* step = "half_float_scan";
    if (!plan_.scan_rows_for_nan || (p_.dtype != DType::bf16 && p_.dtype != DType::f16)) return;
    if (plan_.strategy != Strategy::ncx_width) return declined(step, "channels-last pixels are scanned a block at a time");
    if (caps_.opmasks) return declined(step, "opmask traits compare into mask registers: the test as stored is written for vector masks");
    if (plan_.width_ranges) return declined(step, "calls of some outputs scan their windows' positions");
    const std::int64_t step_elements = std::int64_t{plan_.vectors_per_block} * plan_.lanes;
    if (p_.in[wa_] < step_elements) return declined(step, "rows shorter than a step of " + std::to_string(step_elements) + " elements");
    if (step_elements * elem() % 16 != 0) return declined(step, "steps of a partial 16 bytes");
    plan_.scan_half_floats_as_stored = true;
    chose(step, "steps of " + std::to_string(step_elements * elem()) + " bytes tested as stored");
}

}  // namespace pooljit::jit
