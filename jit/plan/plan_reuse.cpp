// The planner's steps that keep input for the outputs that read it again (run in the order jit/plan.cpp
// gives): rings of row maxima in registers (planar rows, channels-last columns), separable maxima through stack
// buffers (planar rows, channels-last pixels), and small planes held whole in registers. Where windows overlap
// they read each input row once instead of once a window; each takes registers or L1 that the others want, so
// a row gets at most one of them.
#include "jit/plan/planner.hpp"

#include "jit/plan/plan_rows.hpp"
#include "jit/plan/registers.hpp"

#include <pooljit/types.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace pooljit::jit {
namespace {

// Row-maxima rings: the ring's vector registers (input rows x vectors per row) at most half the register file
// (16 of AVX-512's 32); with indices, the ring's values and indices (2 x rows x vectors) five eighths (20 of 32,
// beside 2 x vectors accumulators and 6 others).
constexpr int ring_register_eighths = 4, ring_register_eighths_with_indices = 5;
// Input of one column of a column ring's call: a third of a 48 KiB L1. Measured against 32, 64 and 128 KiB, the
// best on a 2048-row image (1x64x2048x64 k3 nxc f32: 5.9 ms, 7.1, 10.3 and 9.5 ms; the row code 7.7-8.2 ms) and
// level on SPPF.
constexpr std::int64_t column_ring_input_bytes = 16 * 1024;
// Separable rows (planar): the padded input rows and the buffered row maxima on the stack, within half of a
// 32 KiB L1 (Zen 3 and Zen 4), beside the input stream. 24 KiB took three quarters of it: a DRAM-sized stem
// (16x64x112x112 ncx f32, 2 threads, lowest of 5 alternating rounds, Zen 4) ran 2287 us on AVX-512 and 2091 on
// AVX2 at 24 KiB, 1499 and 1269 at 16, 1374 and 1252 at 12, 1611 at 8 (the row code before separable rows: 1751);
// MobileNet ncx f32 54.8 / 50.1 / 50.9 / 55.8 (AVX-512, 24 / 16 / 12 / 8 KiB); SPP k9 ncx f32 226 / 232 / 250 /
// 299 (fewer output rows a pass take a 9-row window's rows more often). A prefetch of each input row 12 KiB
// ahead in the conversion (what the row code does) made the DRAM-sized stem slower still (16 KiB: 1384 -> 2071).
constexpr std::int64_t rules_separable_buffer_bytes = 16 * 1024;
// Byte rows stepping 2 rows an output row: 8 KiB where they hold two output rows' windows (Zen 4, one thread,
// u8 ncx, same runs: the stem at batch 16 757 -> 532 us, at batch 1, MobileNet and the audio row 0.98-0.99x;
// windows at stride 1, whose passes take a window's rows again, keep 16: SPP k9 1.05x and Inception 1.04x slower
// at 8); wider rows keep 16 KiB rather than leave the byte lanes.
constexpr std::int64_t byte_rows_stride_2_buffer_bytes = 8 * 1024;
// Byte rows at stride 1 whose windows span 9 rows or more: 24 KiB, so that a pass's output rows share more of their
// windows' rows (u8 1x256x40x40 k9 p4 in nCx16c, its channel blocks as planar rows of 640 bytes, AVX-512, one
// thread, Xeon 2, the choices forced in one process: 109 us at 16 KiB, 81 at 24 and at 32; the AVX2 form 143 and
// 104).
constexpr std::int64_t byte_rows_deep_window_buffer_bytes = 24 * 1024;
constexpr std::int64_t min_deep_window_rows = 9;
// Planar rows with indices take separable rows where a window has this many taps or more, or moves by one tap
// along both axes (separable_row_indices_declined).
constexpr std::int64_t min_separable_index_taps = 16;
// Separable pixels: the padded pixel row and the rows of maxima, past L1 (32 KiB on Zen 3) into L2. A pass's
// rows of maxima beyond its output rows (taps_h - row_step of them) are taken again by the next pass, so more
// output rows a pass take fewer rows twice. Measured (AVX2 Zen 3, 1 thread, nxc, lowest of 6 rounds, budgets of
// 24 / 32 / 48 / 64 KiB): SPP k9 f32 539 / 532 / 419 / 379 us, the dilated 3x3 (pad 2) f32 100 / 90 / 86 / 84,
// bf16 87 / 78 / 78 / 69, Inception and SPPF level from 32 KiB on (53 / 51 / 54 / 54, 140 / 126 / 130 / 131);
// 96 and 128 KiB gave SPP k9 375 and 358, the rest level.
constexpr std::int64_t separable_pixel_buffer_bytes = 64 * 1024;
// Separable pixels with indices: rows of maxima twice as wide (an index vector beside each), so twice the bytes.
// Measured with ymm pixels (AVX2); zmm pixels take as many bytes more (separable_pixel_budget), so that a pass
// holds as many rows: SPP k9's window and its output row, in a 40-wide image, would not fit 48 KiB of zmm.
constexpr std::int64_t separable_index_buffer_bytes = 48 * 1024;
std::int64_t separable_pixel_budget(bool indices, std::int64_t vector_bytes) {
    return indices ? separable_index_buffer_bytes * vector_bytes / 32 : separable_pixel_buffer_bytes;
}
// Separable pixels (channels last), blocks of a cache line's storage a pixel (each input line read whole by one
// call), where the column ring's registers would hold fewer than min_column_ring_block_bytes of a block's
// channels a row; integer data in windows of fewer than 5 rows only over pixels whose storage is a multiple of
// separable_pixel_bytes_multiple, whose block columns fell into a few L1 sets (measured in
// separable_pixels_declined).
constexpr std::int64_t cache_line_bytes = 64;
constexpr std::int64_t min_column_ring_block_bytes = 128;
constexpr std::int64_t separable_pixel_bytes_multiple = 1024;
// Separable rows and pixels: at most this many maxima in flight (the accumulators' latency chains).
constexpr int max_separable_accumulators = 8;
// Separable pixels' direct rows: at most this many width runs (each its own loop of code) and this many input
// positions of a row watched one by one.
constexpr std::size_t max_direct_row_runs = 16, max_direct_row_unwatched = 16;
// ... and at most this many width taps: each output's first touch of a new input pixel is then a few loads
// apart. AVX2, f32, lowest of 8 alternating rounds, copied / direct: k5 over 192 channels 41.7 / 33.7 us, 320
// channels 74.4 / 57.2; k3 over 256 channels 108 / 97, 512 259 / 265; SPPF (k5, 512) 143 / 146; but k9 over 96
// channels 132 / 141, SPP's (256) 377 / 375, k7 over 64 35.4 / 35.9.
constexpr std::int64_t max_direct_row_taps = 5;
// Byte rows take rows of at least this many outputs, by the vector's width. 64-byte vectors (Zen 4, u8 ncx,
// same run, against the 32-bit lanes' row ring or masked items): rows of 40 to 112 outputs ran 1.08-2.4x
// faster (the stem 103 -> 46 us, SPP k9 469 -> 192), rows of 14 to 28 outputs 1.25-1.6x slower (k3 s1 over
// 28x28 24 -> 35, SPPF 94 -> 121). 32-byte vectors (no ring): faster from 14 outputs (1.2-2.8x on every suite
// layer); shorter rows take whole-plane items.
// Byte pairs (k2 s2 inside the input, no buffers) on AVX-512 ran 1.6-3.2x faster from rows of 14 outputs (VGG
// pool3 u8 ncx 52-60 -> 18.5 us, 1x512x28x28 30 -> 19), so they take AVX2's bound. Rows of 7 outputs or
// fewer ran 1.1-4x slower (VGG pool5 12.4 against 10.9, 8x8 planes 4.6 against 1.2), and so did planes of 45
// outputs (1x64x6x30: 1.07-1.47 against 0.89-1.08 us: a call a plane of three rows): both keep 32-bit lanes.
// On a trait without opmasks (AVX2), byte pairs pay from shorter rows and planes (Zen 3, one thread, u8 ncx,
// lowest of 4 alternating rounds of 400 calls, against 32-bit lanes): rows of 7 outputs over 14x14 planes 23.3 ->
// 20.2 us, of 6 over 13x13 (k3 s2) 19.5 -> 11.7, of 5 over 10x10 (k3 s2 p1) 11.9 -> 7.3; planes of 16 outputs
// (8x8, k2 s2) ran slower, 1.4 against 1.6.
constexpr std::int64_t min_byte_row_outputs_ymm = 8, min_byte_row_outputs_zmm = 32;
constexpr std::int64_t min_byte_row_plane_outputs = 64;
constexpr std::int64_t min_byte_pair_row_outputs_ymm = 5, min_byte_pair_plane_outputs_ymm = 25;
// Planes in registers: the plane's input takes at most half the register file (16 of AVX-512's 32).
constexpr int plane_register_halves = 1;
// Byte planes in registers take rows of fewer outputs (a row of 16 fills a vector of 32-bit lanes), in planes of
// at most 4 zmm: a plane's permutes grow with its outputs, and over 28x28 planes (13 zmm, 108 permutes a plane)
// GoogLeNet's k3 s2 ceil u8 ncx ran 40.4 us against 31.9 in the 256-bit form's byte pairs (Xeon 2).
constexpr std::int64_t max_byte_plane_row_outputs = 16, max_byte_plane_bytes = 256;

}  // namespace

// Planar rows that are one item, whose windows along h share k - 1 rows with those ring_row_interval rows on
// (a stride that divides the dilation): a k-row window costs one input row's width taps and k - 1 merges
// per output row instead of k rows of taps. With indices in 32-bit lanes, each row maximum's index rides
// beside it (twice the ring's registers).
void Planner::choose_row_ring() {
    constexpr const char* step = "row_ring";
    if (!lanes_are_outputs_ || p_.spatial_rank != 2 || adaptive_) return;
    if (reuse_is(PlanChoice::Reuse::none) || reuse_is(PlanChoice::Reuse::separable))
        return declined(step, "the choice of reuse");
    if (byte_rows_) return declined(step, byte_lanes_taken());
    const std::vector<Segment>& fast_row = plan_.fast_segments.empty() ? plan_.segments : plan_.fast_segments;
    if (p_.out[0] < 2 || p_.kernel[0] < 2) return declined(step, "windows along h do not overlap");
    if (p_.dilation[0] % p_.stride[0] != 0) return declined(step, "the stride along h does not divide the dilation");
    if (!caps_.opmasks) return declined(step, "the ring's rows are masked fast items (opmasks)");
    if (p_.has_indices && (is_64bit(plan_.compare) || half_vectors_ || window_relative_))
        return declined(step, "indices beside the ring need 32-bit index lanes");
    if (!plan_.unroll_width_taps || fast_row.size() != 1 || fast_row[0].repeat != 1 || fast_row[0].taps <= 0 ||
        fast_row[0].taps_as_lanes || fast_row[0].whole_plane)
        return declined(step, "the row is not one item of unrolled width taps");
    const std::int64_t per_row = plan_.vectors_per_block * (p_.has_indices ? 2 : 1);
    const std::int64_t limit = caps_.vector_registers *
                               (p_.has_indices ? ring_register_eighths_with_indices : ring_register_eighths) / 8;
    if (p_.kernel[0] > limit / per_row) return declined(step, "the ring would take more than its registers");
    KernelPlan candidate = plan_;
    candidate.ring_rows = p_.kernel[0];
    if (!fits_registers(candidate)) return declined(step, "it needs " + registers_text(candidate));
    plan_.ring_rows = p_.kernel[0];
    plan_.ring_row_interval = p_.dilation[0] / p_.stride[0];
    chose(step, std::to_string(plan_.ring_rows) + " rows, calls of rows " + std::to_string(plan_.ring_row_interval) +
                    " apart");
}

// Channels-last windows whose rows overlap along h (stride 1, dilation 1) and whose input is read by enough
// windows to bound them by compares.
bool Planner::column_ring_shape() const {
    return !lanes_are_outputs_ && !adaptive_ && p_.spatial_rank == 2 &&
           p_.out[0] >= 2 && p_.stride[0] == 1 && p_.dilation[0] == 1 && p_.kernel[0] >= 2 &&
           reads_per_element(p_) >= min_reads_of_compare_bound_rows;
}
bool Planner::column_ring_indices() const {
    return p_.has_indices && size_of(p_.dtype) < 4 && !half_vectors_ && !window_relative_;
}

// The column ring: each output column walked down a call's rows with its window's k row maxima in registers,
// and with indices of narrow data each maximum's index beside it. One channel block per call.
void Planner::choose_column_ring() {
    constexpr const char* step = "column_ring";
    if (lanes_are_outputs_ || p_.spatial_rank != 2) return;
    if (reuse_is(PlanChoice::Reuse::none) || reuse_is(PlanChoice::Reuse::separable))
        return declined(step, "the choice of reuse");
    if (!column_ring_shape()) return declined(step, "windows along h do not overlap at stride 1 in compare-bound rows");
    if (p_.has_indices && !column_ring_indices())
        return declined(step, "indices ride beside 8- and 16-bit data only (f32 and s32 ran slower than the rows)");
    const int per_row = plan_.vectors_per_block * (p_.has_indices ? 2 : 1);
    if (p_.kernel[0] > caps_.vector_registers * column_ring_register_eighths / 8 / per_row)
        return declined(step, "the ring would take more than its registers");
    if (plan_.computed_windows || axis_.kernel > max_column_ring_width_taps)
        return declined(step, "the width taps are not unrolled");
    if (plan_.channel_sweep != 1) return declined(step, "a call sweeps several channel blocks");
    if (plan_.separable.enabled()) return declined(step, "separable pixels took the rows");
    // Pixels that end inside a vector: vertical rows (choose_vertical_rows, where the measurements are) unless the
    // ring is asked for.
    if (!reuse_is(PlanChoice::Reuse::ring) && vertical_rows_declined().empty())
        return declined(step, "vertical rows take pixels that end inside a vector");
    // (The rules watch only memory-bound rows, which take no ring; a watch chosen for these rows keeps the rows.)
    if (plan_.watch_rows_for_nan) return declined(step, "the ring's calls scan their rows for NaN; these rows watch");
    KernelPlan candidate = plan_;
    candidate.ring_rows = p_.kernel[0];
    if (!fits_registers(candidate)) return declined(step, "it needs " + registers_text(candidate));
    plan_.ring_rows = p_.kernel[0];
    plan_.unroll_width_taps = true;
    // The next column reads most of the same input pixels again: a call's rows stop where one column's
    // input (rows x window width x block) would pass column_ring_input_bytes, so it is still in L1.
    // Divisions only: the dilated width (validated below 2^63; under ceil rounding up to stride - 1 past the
    // padded input) times the block's bytes can pass 2^63.
    const std::int64_t extent_w = (axis_.kernel - 1) * axis_.dilation + 1;
    const std::int64_t block_bytes = plan_.channel_block * static_cast<std::int64_t>(size_of(p_.dtype));
    plan_.ring_call_rows =
        std::max<std::int64_t>(1, column_ring_input_bytes / block_bytes / extent_w - (plan_.ring_rows - 1));
    chose(step, std::to_string(plan_.ring_rows) + " rows, at most " + std::to_string(plan_.ring_call_rows) +
                    " output rows a call");
}

// Windows along h move by whole taps between the rows of a call: a stride that divides the dilation (calls
// of rows dilation / stride apart, one tap stride between their windows) or a multiple of it that is less
// than the window (stride / dilation tap strides between consecutive rows). False: they do not.
bool Planner::separable_row_steps(std::int64_t& interval, std::int64_t& row_step, bool windows_may_abut) const {
    const std::int64_t stride_h = p_.stride[0], dilation_h = p_.dilation[0];
    interval = 1;
    row_step = 1;
    if (dilation_h % stride_h == 0) interval = dilation_h / stride_h;
    else if (stride_h % dilation_h == 0) row_step = stride_h / dilation_h;
    else return false;
    return row_step < p_.kernel[0] || (windows_may_abut && row_step == p_.kernel[0]);
}

// Channels-last 2-D values in compare-bound rows whose windows along h share input rows, where the column
// ring would hold a narrow block (integers: over pixels of a multiple of separable_pixel_bytes_multiple): the
// reason they are not such a problem, or empty.
//
// Measured (same run, separable pixels against the column ring, 1 thread): on AVX2 (16 registers: the ring
// holds 1 to 3 vectors a row, 32 to 96 bytes), f32 1.2-5.2x faster (SPPF 465 -> 90 us, Inception 39 -> 34,
// SPP k9 941 -> 391), bf16 1.2-3.2x, f64 1.2-3.1x; s32 0.7-2.2x and u8 0.5-1.0x over smaller pixels, but
// s32 1.4-1.5x and u8 1.3-2.0x over pixels of 1 or 2 KiB. On AVX-512 (32 registers: 2 to 4 vectors of 64
// bytes a row) 0.5-1.1x: the ring keeps it.
std::string Planner::separable_pixels_declined() const {
    if (p_.has_indices) {
        if (plan_.index_lanes_64 || is_64bit(plan_.compare) || half_vectors_ || window_relative_)
            return "indices ride in the buffers beside 32-bit compare lanes only";
        // A padded tap before a window's first real one takes that tap's index (emit_separable_pixel_indices in
        // emit_separable_pixels.cpp): right only where the window's taps are contiguous and one of them is real.
        if (axis_.dilation != 1) return "indices: a dilation along the width";
        const auto empty = [&](std::int64_t o) {
            const WindowTaps taps = window_taps(o, axis_.in, axis_.kernel, axis_.stride, axis_.dilation, axis_.pad);
            return taps.begin >= taps.end;
        };
        if (axis_.out < 1 || empty(0) || empty(axis_.out - 1)) return "indices: windows empty along the width";
    }
    if (adaptive_ || plan_.computed_windows) return "the windows are not runs of segments";
    if (p_.kernel[0] < 2 || p_.out[0] < 2) return "windows along h do not overlap";
    if (p_.channels < 1 || axis_.out < 1) return "the output is empty";
    std::int64_t interval = 1, row_step = 1;
    if (!separable_row_steps(interval, row_step)) return "windows along h do not move by whole taps that they share";
    if (reuse_is(PlanChoice::Reuse::separable)) return {};  // the speed rules below give way to the choice
    if (reads_per_element(p_) < min_reads_of_compare_bound_rows) return "the rows are bound by memory";
    // Cores that split 512-bit operations (Zen 4, one thread, same runs): windows spanning 5 rows or more ran
    // faster as separable pixels than in the column ring on both forms, integer pixels of any size included
    // (u8 nxc: SPP k9 63-65 us against 74 in the AVX-512 ring and 110 in the AVX2 one, SPPF k5 13.5 against 14.4
    // and 28.6, k3 d2 8.7 against 9.1; bf16 k3 d2 42.6 against 63; f32 k3 d2 51.7 against 59.7); windows of 3
    // rows keep the ring (Inception k3 s1: u8 4.6 us in the ring against 8.2, f32 29.7 against 38.2).
    if (options_.core.splits_512_bit_ops && window_spans_at_least(p_, 0, 5)) return {};
    // bf16 and f16 on every core: each tap they read widens to f32 as it loads, and separable pixels read 2k taps
    // an output where the ring reads k x k. A 16-core Xeon VM (full 512-bit units; one thread, tuned against the
    // rules' AVX-512 column ring): SPPF bf16 nxc 79.6 us against 121, SPP k9 339 against 506, k3 d2 p2 60.7
    // against 77.1; f32 on the same layers kept the ring within 1.2x. Xeon 2 (the same way): f16 SPPF 70.0
    // against 105, SPP k9 263 against 446, k3 d2 p1 45.2 against 84.5, p2 51.7 against 84.9; Inception's 3 rows
    // keep the ring. (Measured without indices.)
    if ((p_.dtype == DType::bf16 || p_.dtype == DType::f16) && !p_.has_indices && window_spans_at_least(p_, 0, 5))
        return {};
    // Every type on every core, windows spanning 7 rows or more: the ring merges k row maxima an output where
    // separable pixels merge 2, and AVX-512's ring holds fewer vectors a row as k grows. Xeon 2 (full 512-bit
    // units; one thread, tuned against the rules' AVX-512 column ring, without indices): SPP k9 nxc f32 499 us
    // against 720, u8 61.1 against 86.5, s32 412 against 498; k7 p3 over 26x26 f32 36.9 against 46.1; SPPF's
    // 5 rows kept the ring (f32 level).
    if (!p_.has_indices && window_spans_at_least(p_, 0, 7)) return {};
    // 32-bit data with indices: the column ring carries indices beside 8- and 16-bit data only
    // (choose_column_ring), so the alternative to the buffers is the row code, a compare and two blends for each
    // of a window's taps. On AVX2 they ran 4.4x faster than those rows (Zen 3, SPP k9 f32 s32); the AVX-512 form,
    // which holds more maxima in flight, is not yet timed.
    if (p_.has_indices && size_of(p_.dtype) == 4) return {};
    const std::int64_t ring_vectors = std::min<std::int64_t>(
        max_vectors, caps_.vector_registers * column_ring_register_eighths / 8 / p_.kernel[0]);
    if (ring_vectors * caps_.vector_bytes >= min_column_ring_block_bytes)
        return "the column ring holds " + std::to_string(ring_vectors * caps_.vector_bytes) + " bytes of channels a row";
    // Integers over smaller pixels keep the ring for windows of fewer than 5 rows only: on Zen 3 (one thread,
    // the tuner's interleaved times) windows spanning 5 rows or more ran faster as separable pixels over pixels of
    // any size (u8 nxc SPP k9 90 us against 164 in the ring, SPPF 23.1 against 41.5, k3 d2 12.4 against 15.4; s32
    // k3 d2 77 against 89), as on the split cores above; Inception's 3 rows kept the ring (u8 11.3 against 11.7).
    if (!plan_.is_float && !p_.has_indices && !window_spans_at_least(p_, 0, 5) &&
        p_.channels % (separable_pixel_bytes_multiple / elem()) != 0)
        return "integer pixels of " + std::to_string(p_.channels * elem()) + " bytes in windows of fewer than 5 rows keep "
               "the column ring (not a multiple of " + std::to_string(separable_pixel_bytes_multiple) + ")";
    return {};
}

// Separable pixels over a block of `lanes` channels that does not fill its `vectors` vectors (data loaded as
// stored, without indices, on a trait without opmasks): the only block, whose last vector is partial, or the tail
// after whole blocks, in as many vectors or fewer. A partial vector loads the whole register that ends at its
// last channel where the pixel's channels before it fill the rest (SeparableRows::partial_reads_back), else
// masked. Zen 3 (AVX2, one thread, lowest of 3000 calls in turn): u8 SPPF k5 over 20x20 at 24 channels 1.87 us in
// the column ring, 1.35 copied, 1.32 in direct rows, where 32 take 1.14. A tail after whole blocks (lowest of 3
// rounds of 1000 calls in turn, libraries alternating): f32 k5 p2 over 20x20 with 42 channels 13.7 -> 8.5 us,
// u8 SPP k9 with 120 channels 57.1 -> 40.6, s32 k9 over 13x13 with 42 channels 13.0 -> 11.7; SPPF u8 level.
// (Measured on AVX2 only: AVX-512's opmasked tails keep the ring or the row code.)
bool Planner::separable_block_fits(std::int64_t lanes, int vectors) const {
    const std::int64_t whole = std::int64_t{vectors} * plan_.lanes;
    if (lanes == whole) return true;
    // (Data loaded as stored: never bf16's widened pairs.)
    return !caps_.opmasks && !p_.has_indices && size_of(p_.dtype) == static_cast<std::size_t>(lane_bytes(plan_.compare)) &&
           lanes > 0 && lanes < whole;
}

// Separable pixels of `vectors` vectors a pixel: the padded row of the block's pixels and the buffered rows of
// maxima on the stack, within separable_pixel_buffer_bytes (with indices separable_index_buffer_bytes; group_rows
// 0: they do not fit). Sizes are bounded before they are multiplied. Windows along the width that are empty read
// only the empty value, which is what the row code stores for them.
SeparableRows Planner::separable_pixels_of(int vectors) const {
    SeparableRows sep;
    std::int64_t interval = 1, row_step = 1;
    separable_row_steps(interval, row_step);
    const std::int64_t pixel_bytes = std::int64_t{vectors} * caps_.vector_bytes;
    const std::int64_t budget = separable_pixel_budget(p_.has_indices, caps_.vector_bytes);
    const std::int64_t most_pixels = budget / pixel_bytes;
    if (axis_.in > most_pixels || axis_.out > most_pixels || axis_.pad > most_pixels || axis_.kernel > most_pixels ||
        axis_.dilation > most_pixels || axis_.stride > most_pixels)
        return sep;
    sep.window_rows = p_.kernel[0];
    sep.row_step = row_step;
    sep.pad_lanes = axis_.pad;
    sep.phases = 1;
    sep.maxima_vectors = axis_.out * vectors * (p_.has_indices ? 2 : 1);  // with indices, an index vector beside each
    // (with indices, the planner takes no width dilation)
    sep.paired_width_windows = axis_.stride == 1 && axis_.kernel >= 2;
    // Direct rows load each tap as it is stored (f32, s32, f64, bytes in byte lanes); widened data (bf16) is
    // widened once in the copy but once a tap in direct rows, which pays for 3 taps only (lowest of 8
    // alternating rounds, copied / direct: SPPF bf16 91 / 102 us, f32 147 / 151; Inception bf16 40.0 / 37.2,
    // f32 58 / 53; the dilated 3x3 bf16 64.4 / 63.4, f32 91 / 84).
    // (choose_vector_blocking asks before choose_width_code computes the plan's runs.)
    if (!p_.has_indices && axis_.stride == 1 && axis_.kernel <= max_direct_row_taps &&
        (size_of(p_.dtype) == static_cast<std::size_t>(lane_bytes(plan_.compare)) || axis_.kernel <= 3)) {
        const std::vector<WidthRun> runs = width_runs(axis_.out, axis_.in, axis_.kernel, axis_.stride, axis_.dilation, axis_.pad);
        sep.direct_rows = !runs.empty() && runs.size() <= max_direct_row_runs &&
                          direct_row_unwatched_pixels(runs, axis_.dilation, axis_.pad, max_direct_row_unwatched).size() <=
                              max_direct_row_unwatched;
    }
    const std::int64_t reach = (axis_.out - 1) * axis_.stride + (axis_.kernel - 1) * axis_.dilation + 1;
    sep.phase_lanes = sep.direct_rows ? 0 : std::max(reach, axis_.pad + axis_.in);
    // With indices, the padded row's index lanes follow its pixels: one vector a position (its index, broadcast).
    const std::int64_t position_bytes = pixel_bytes + (p_.has_indices ? caps_.vector_bytes : 0);
    const std::int64_t padded_bytes = sep.phase_lanes * position_bytes, maxima_bytes = sep.maxima_vectors * caps_.vector_bytes;
    if (padded_bytes + (sep.window_rows + row_step) * maxima_bytes <= budget)
        sep.group_rows = std::min(((budget - padded_bytes) / maxima_bytes - sep.window_rows) / row_step + 1, p_.out[0]);
    return sep;
}

// The vectors of a cache line's storage, where separable pixels will take the rows (0: they will not).
int Planner::separable_pixel_vectors() const {
    if (lanes_are_outputs_ || p_.spatial_rank != 2 || !separable_pixels_declined().empty()) return 0;
    if (reuse_is(PlanChoice::Reuse::none) || reuse_is(PlanChoice::Reuse::ring)) return 0;
    const std::int64_t line_vectors = std::clamp<std::int64_t>(cache_line_bytes / (plan_.lanes * elem()), 1, max_vectors);
    const int most = static_cast<int>(std::min<std::int64_t>(line_vectors, (p_.channels + plan_.lanes - 1) / plan_.lanes));
    // Values take a cache line's channels, or fewer only where a pass over a line's would hold fewer output
    // rows than a window's rows: each pass takes the rows of maxima past its output rows again, and a block of
    // fewer vectors holds more rows a pass (AVX2 SPP k9 bf16 at 64 KiB: 4 vectors, 3 output rows a pass, 592
    // us; 1 vector, the whole plane a pass, 488, lowest of 6 alternating rounds; 2 vectors, 16 rows a pass,
    // 343 against 1 vector's 402, lowest of 8). Indices (a vector of them beside each accumulator) take fewer
    // where a line's do not fit the registers.
    const std::int64_t window_rows = std::min(p_.kernel[0], p_.out[0]);
    for (int vectors = most; vectors >= 1; --vectors) {
        // Else the tail's calls run the row code (but a tail of as many vectors, its last partial); a call's block
        // stays inside a run of consecutive channels.
        const std::int64_t block = std::int64_t{vectors} * plan_.lanes, tail = p_.channels % block;
        const bool whole_blocks = (tail == 0 || separable_block_fits(tail, vectors)) &&
                                  (memory_.channel_run >= p_.channels || memory_.channel_run % block == 0);
        KernelPlan candidate = plan_;
        candidate.vectors_per_block = vectors;
        candidate.separable = separable_pixels_of(vectors);
        const bool fits = whole_blocks && candidate.separable.enabled() && fits_registers(candidate);
        if (p_.has_indices) {
            if (fits) return vectors;
            continue;
        }
        if (!fits) {
            if (vectors == most) return 0;
            continue;
        }
        if (candidate.separable.group_rows >= window_rows) return vectors;
    }
    return 0;
}

// Separable pixels: one block of a cache line's channels a call (choose_vector_blocking took its vectors).
void Planner::choose_separable_pixels() {
    constexpr const char* step = "separable_pixels";
    if (lanes_are_outputs_ || p_.spatial_rank != 2) return;
    if (reuse_is(PlanChoice::Reuse::none) || reuse_is(PlanChoice::Reuse::ring)) return declined(step, "the choice of reuse");
    if (const std::string why = separable_pixels_declined(); !why.empty()) return declined(step, why);
    // bf16 channels of whole vectors that the block leaves a tail of (a pair block of 16 over 40, 72 or 120
    // channels): blocks that divide them, 3 vectors where that divides, else 1 (no pairs). The tail's calls ran
    // the column ring, two widening ops a tap. Zen 4, AVX2 form, k3 s1 p1 over 28x28, lowest of 2 rounds:
    // 72 channels 16.5 -> 12.5 us (80: 10.5), 120 27.2 -> 20.7 (128: 15.2), 40 9.3 -> 8.0 with one vector (48:
    // 7.1); f32 runs its tail at the time of whole blocks and ran 1.2-1.3x slower one vector a block.
    const std::int64_t vectors_of_channels = p_.channels / plan_.lanes;
    if (p_.dtype == DType::bf16 && !channels_apart() && p_.channels % plan_.channel_block != 0 &&
        p_.channels % plan_.lanes == 0 && plan_.channel_block == std::int64_t{plan_.vectors_per_block} * plan_.lanes &&
        plan_.vectors_per_block > 1) {
        const int vectors = vectors_of_channels % 3 == 0 && plan_.vectors_per_block < 3 ? 3 : 1;
        KernelPlan candidate = plan_;
        candidate.vectors_per_block = vectors;
        candidate.separable = separable_pixels_of(vectors);
        if (candidate.separable.enabled() && fits_registers(candidate)) {
            plan_.vectors_per_block = vectors;
            plan_.channel_block = std::int64_t{vectors} * plan_.lanes;
            plan_.channel_tail = 0;
            plan_.channel_sweep = 1;
            plan_.tap_pass_taps = 0;  // passes sweep blocks
            chose("channel_blocks", "blocks of " + std::to_string(plan_.channel_block) +
                                        " channels, which divide them, for separable pixels (no tail block)");
        }
    }
    // A block whose last vector is partial (the only block), or a tail after whole blocks (separable_block_fits):
    // the copy into the padded row, or a direct row, loads a partial vector as it is or read back (its lanes past
    // the channels are never stored), and the stores write its channels alone.
    const std::int64_t whole_lanes = std::int64_t{plan_.vectors_per_block} * plan_.lanes;
    const bool partial_pixel = plan_.channel_block == p_.channels && plan_.channel_tail == 0 &&
                               plan_.channel_block > whole_lanes - plan_.lanes && plan_.channel_block < whole_lanes &&
                               separable_block_fits(plan_.channel_block, plan_.vectors_per_block);
    const bool partial_tail = plan_.channel_block == whole_lanes && plan_.channel_tail > 0 &&
                              separable_block_fits(plan_.channel_tail, plan_.vectors_per_block);
    if (!partial_pixel && !partial_tail &&
        (plan_.channel_block != whole_lanes || p_.channels % plan_.channel_block != 0))
        return declined(step, "the blocks are not whole vectors of channels (a tail would run the row code)");
    SeparableRows sep = separable_pixels_of(plan_.vectors_per_block);
    sep.partial_tail = partial_tail;
    const bool partial_vector = (partial_pixel ? plan_.channel_block : plan_.channel_tail) % plan_.lanes != 0;
    sep.partial_reads_back = partial_vector && ((partial_pixel && plan_.channel_block >= plan_.lanes) ||
                                                (partial_tail && !channels_apart()));
    if (!sep.enabled())
        return declined(step, "two output rows' buffers would pass " +
                                  std::to_string(separable_pixel_budget(p_.has_indices, caps_.vector_bytes)) +
                                  " bytes");
    KernelPlan candidate = plan_;
    candidate.separable = sep;
    if (!fits_registers(candidate)) return declined(step, "it needs " + registers_text(candidate));
    std::int64_t interval = 1, row_step = 1;
    separable_row_steps(interval, row_step);
    plan_.separable = sep;
    plan_.ring_row_interval = interval;
    plan_.width_ranges = false;  // a call computes whole rows
    plan_.channel_sweep = 1;     // a call's buffers hold one block (memory-bound rows take them only by choice)
    plan_.tap_pass_taps = 0;     // and tap passes sweep blocks (a choice of separable pixels over wide pixels)
    chose(step, std::to_string(sep.group_rows) + " output rows a pass, " + std::to_string(sep.window_rows) +
                    " rows of maxima each, pixels of " + std::to_string(plan_.vectors_per_block * caps_.vector_bytes) + " bytes");
}

// Why a view's planes stay out of registers (set_plane_rows).
constexpr const char* plane_rows_declined =
    "a view whose plane reaches past 32-bit displacements, or whose indices' rows are apart";

// Planar rows of fewer outputs than a vector, in planes that fit in registers: the whole plane per pass,
// its outputs flat across rows (VGG pool5's 14x14 planes: rows of 7 outputs, each a call's row loop with
// its NaN scan, half the lanes idle). f16 planes are not converted into registers; half vectors keep 64-bit
// index lanes beside 32-bit data lanes: both keep the rows.
void Planner::choose_planes() {
    constexpr const char* step = "planes_in_registers";
    if (!lanes_are_outputs_) return;
    if (byte_planes_in_registers_) return take_planes(std::move(byte_plane_));
    if (byte_rows_) return declined(step, byte_lanes_taken());
    if (choice().planes == PlanChoice::Switch::off) return declined(step, "the choice planes=off");
    if (reuse_is(PlanChoice::Reuse::ring) || reuse_is(PlanChoice::Reuse::separable))
        return declined(step, "the choice of reuse");
    // Rows of a vector of outputs or more keep their rows' code, unless the choice asks for the planes.
    if (axis_.out >= plan_.lanes && choice().planes != PlanChoice::Switch::on) return;
    if (!caps_.two_source_permutes || !caps_.opmasks)
        return declined(step, "outputs are gathered by two-register permutes into opmasked lanes");
    if (p_.dtype == DType::f16 && p_.has_indices) return declined(step, "f16 planes with indices keep the row code");
    if (half_vectors_) return declined(step, "64-bit index lanes beside half vectors");
    if (PlanePlan rows; !set_plane_rows(p_, rows)) return declined(step, plane_rows_declined);
    PlanePlan plane =
        plane_plan(p_, multipliers_, plan_.lanes, caps_.vector_registers * plane_register_halves / 2);
    if (plane.gathers.empty()) return declined(step, "the plane does not fit, or its permutes do not pay");
    take_planes(std::move(plane));
}

void Planner::take_planes(PlanePlan plane) {
    constexpr const char* step = "planes_in_registers";
    plan_.strategy = Strategy::ncx_planes;
    plan_.plane = std::move(plane);
    plan_.fast_segments.clear();
    plan_.ring_rows = 0;
    plan_.ring_row_interval = 1;
    chose(step, std::to_string(plan_.plane.registers) + " registers, " + std::to_string(plan_.plane.gathers.size()) +
                    " permutes");
}

// Planar u8/s8 planes in byte lanes held in registers (64 outputs a zmm, against 16 widened): rows of fewer
// outputs than max_byte_plane_row_outputs in planes of at most max_byte_plane_bytes (4 zmm), their outputs
// gathered by two-register byte permutes (vpermi2b, AVX512_VBMI: the core's byte_permutes). Without indices
// (32-bit lanes beside the values); flat planes, a later step, take the planes whose outputs sit at their inputs. Byte pairs and byte rows leave most lanes of
// short rows idle and run a call's loop per row: adaptive 1x512x13x13 to 7x7 (k3 s2 p1 byte pairs in the 256-bit
// form) 26 us, VGG pool5 4.3 us (Xeon 2).
std::string Planner::byte_plane_registers_declined() {
    if (options_.no_byte_rows) return "the planes did not take the rows";
    if (p_.has_indices) return "indices take 32-bit lanes";
    if (!caps_.opmasks || !caps_.two_source_permutes || !caps_.byte_max || !options_.core.byte_permutes)
        return "outputs are gathered by two-register byte permutes (AVX512_VBMI) into opmasked lanes";
    if (choice().planes == PlanChoice::Switch::off) return "the choice planes=off";
    if (reuse_is(PlanChoice::Reuse::ring) || reuse_is(PlanChoice::Reuse::separable)) return "the choice of reuse";
    if (axis_.out >= max_byte_plane_row_outputs && choice().planes != PlanChoice::Switch::on)
        return "rows of " + std::to_string(max_byte_plane_row_outputs) + " outputs or more";
    if (PlanePlan rows; !set_plane_rows(p_, rows)) return plane_rows_declined;
    if (p_.spatial_in_size() > max_byte_plane_bytes)
        return "planes of more than " + std::to_string(max_byte_plane_bytes) + " bytes";
    byte_plane_ = plane_plan(p_, multipliers_, caps_.vector_bytes, caps_.vector_registers * plane_register_halves / 2);
    if (byte_plane_.gathers.empty()) return "the plane does not fit, or its permutes do not pay";
    return {};
}

// Why the row code's steps leave planar byte lanes alone.
std::string Planner::byte_lanes_taken() const {
    return byte_planes_in_registers_ ? "byte lanes take planes in registers" : "byte rows take separable rows";
}

// Planar u8/s8 rows in byte lanes (32 outputs a ymm, 64 a zmm, against 8 and 16 widened), where separable rows
// can take them: 2-D values of at most stride 2 along the width, windows along h that move by whole taps and
// skip no input row (a stride no larger than the window), no row of windows that lie in the padding (the
// buffered code has no empty rows), rows of min_byte_row_outputs_* or more (shorter ones take the row ring,
// whole-plane and register code). The row code does not serve byte lanes: a plan whose later steps leave separable rows is made again
// with widened lanes (make_plan).
// Byte pairs' shape: 1-D, 2-D and 3-D max pools at stride 2 along the width with at most 4 contiguous width taps
// (k2 s2, the 1-D k3 s2 of audio rows) and at most 4 rows a window, whose windows lie inside the input. In 1-D and
// 2-D (padded_byte_pairs_allowed) a window may also start in the padding before the row (AVX2's first outputs' loads
// shift the empty value in; AVX-512's leave those lanes out) and before the first row, and overhang the row's end (the bytes
// past it take the empty value) and the last row (ceil rounding: the ceil stem, GoogLeNet), each window keeping a
// real tap; rows of fewer taps run as calls of their own. 3-D: every window inside.
bool Planner::byte_pairs_shape() const {
    if (adaptive_ || p_.stride[wa_] != 2 || p_.dilation[wa_] != 1 || p_.kernel[wa_] > 4) return false;
    const bool borders_allowed = padded_byte_pairs_allowed();
    bool border_rows = false;  // windows along h with fewer rows than the kernel
    const auto fits = [&](std::size_t a) {  // no overflow: divided
        const std::int64_t pad = p_.pad_begin[a], last_tap = (p_.kernel[a] - 1) * p_.dilation[a];
        if ((pad != 0 && !borders_allowed) || p_.kernel[a] > 4 || pad > last_tap || last_tap - pad >= p_.in[a])
            return false;
        // Inside: (out - 1) * stride - pad + last_tap <= in - 1.
        if ((p_.out[a] - 1) <= (p_.in[a] - 1 + pad - last_tap) / p_.stride[a]) {
            border_rows = border_rows || (a != wa_ && pad > 0);
            return true;
        }
        // Overhanging: the last window still starts inside, (out - 1) * stride - pad <= in - 1, and (dilated rows,
        // whose taps may step over the input: 1 row, pads of 2, k2 d2 reads rows -1 and 1) every window keeps a
        // real tap.
        if (!borders_allowed || (p_.out[a] - 1) > (p_.in[a] - 1 + pad) / p_.stride[a]) return false;
        if (p_.dilation[a] > 1) {
            if (p_.out[a] > max_table_rows) return false;
            for (std::int64_t o = 0; o < p_.out[a]; ++o) {
                const WindowTaps taps = window_taps(o, p_.in[a], p_.kernel[a], p_.stride[a], p_.dilation[a], pad);
                if (taps.begin >= taps.end) return false;
            }
        }
        border_rows = border_rows || a != wa_;
        return true;
    };
    if (!fits(wa_)) return false;
    if (p_.spatial_rank == 1) return true;
    // (Rows of fewer taps run as calls of their own where the executor tabulates the rows' taps.)
    if (p_.spatial_rank == 2) return fits(0) && (!border_rows || p_.out[0] <= max_table_rows);
    // 3-D: the window's rows in each of its planes, at most 4 in all.
    return fits(0) && fits(1) && p_.kernel[0] * p_.kernel[1] <= 4;
}

// Byte pairs whose windows start in the padding or overhang the input's end: 1-D and 2-D (a trait without opmasks
// shifts the empty value into the first outputs' loads and blends it past the row's end; with opmasks the loads
// leave those lanes out).
bool Planner::padded_byte_pairs_allowed() const { return p_.spatial_rank <= 2; }

std::string Planner::byte_rows_declined() const {
    if (options_.no_byte_rows) return "the buffers did not take the rows";
    if (p_.has_indices) return "indices take 32-bit lanes";
    if (!caps_.byte_max) return "the ISA has no byte max";
    if (adaptive_ || (p_.spatial_rank != 2 && !byte_pairs_shape()))
        return "separable rows are 2-D max pools (1-D and 3-D: windows inside the input at stride 2)";
    if (reuse_is(PlanChoice::Reuse::none) || reuse_is(PlanChoice::Reuse::ring)) return "the choice of reuse";
    if (choice().planes == PlanChoice::Switch::on) return "the choice planes=on";
    if (axis_.stride > 2) return "width taps more than 2 apart";
    // Byte pairs (no buffers) pay on AVX-512 from the rows AVX2 takes.
    const bool pairs = byte_pairs_shape(), short_pairs = pairs && !caps_.opmasks;
    const std::int64_t min_outputs = short_pairs                             ? min_byte_pair_row_outputs_ymm
                                     : caps_.vector_bytes == 64 && !pairs ? min_byte_row_outputs_zmm
                                                                          : min_byte_row_outputs_ymm;
    if (axis_.out < min_outputs) return "rows of fewer than " + std::to_string(min_outputs) + " outputs";
    const std::int64_t min_plane = short_pairs ? min_byte_pair_plane_outputs_ymm : min_byte_row_plane_outputs;
    const std::int64_t rows = p_.spatial_rank >= 2 ? p_.out[wa_ - 1] : 1;  // a call's rows: one plane's
    if (rows < (min_plane + axis_.out - 1) / axis_.out)  // rows * out_w below, no overflow
        return "planes of fewer than " + std::to_string(min_plane) + " outputs";
    if (pairs) return {};  // every window has a real row: no row along h is empty
    std::int64_t interval = 1, row_step = 1;
    if (!separable_row_steps(interval, row_step, true)) return "windows along h do not move by whole taps";
    if (p_.out[0] > max_table_rows) return "more output rows than the executor tabulates";
    for (std::int64_t o = 0; o < p_.out[0]; ++o)
        if (outer_taps_of(p_, 0, o).count == 0) return "a row of windows lies in the padding";
    return {};
}

// Planar rows with indices: the reason separable rows cannot carry them, or empty. An index lane rides beside
// each 32-bit compare lane; a position in the padding before the input holds the index of its windows' first
// real tap (emit_separable_indices.cpp), so every window along the width must have one.
std::string Planner::separable_row_indices_declined() const {
    if (!p_.has_indices) return {};
    if (plan_.index_lanes_64 || lane_bytes(plan_.compare) != 4 || half_vectors_ || window_relative_)
        return "indices ride in the buffers beside 32-bit compare lanes only";
    for (std::int64_t o = 0; o < axis_.out; ++o) {
        const WindowTaps taps = window_taps(o, axis_.in, axis_.kernel, axis_.stride, axis_.dilation, axis_.pad);
        if (taps.begin >= taps.end) return "indices: windows empty along the width";
    }
    if (reuse_is(PlanChoice::Reuse::separable)) return {};  // the speed rule below gives way to the choice
    // Zen 3 (AVX2, one thread, separable rows with indices against the row code, the same runs; hot: Google
    // Benchmark's repeated calls, cold: every problem's calls in turn over 9 layers): windows of 16 taps or
    // more ran 1.5-9x faster hot and 1.0-4x cold (f32 s64: SPP k9 1436 against 10862 us hot, SPPF k5 367
    // against 1290, k5 s2 145 against 244, k4 227 against 327 hot and 299 against 291 cold); 3x3 windows at
    // stride 1 1.1-3x both ways (Inception f32 166 against 290 hot, 213 against 221 cold; bf16 111 against 352
    // and 130 against 265; s32 0.66x and 0.87x). 3x3 windows at stride 2 or dilated ran faster hot (0.5-0.9x)
    // but slower cold: the stem 1.35x, the dilated 3x3 1.28-1.55x, u8 and bf16 1.07-1.10x, and a DRAM-sized
    // stem at batch 16 1.27-1.37x both ways: the buffers' bursts of stores to cold lines (a whole group's output
    // rows after its maxima) where the row code spreads them among its compares.
    // (Each factor below the bound before the product: kernels are bounded only by the padded input.)
    const bool many_taps = p_.kernel[0] >= min_separable_index_taps || p_.kernel[1] >= min_separable_index_taps ||
                           p_.kernel[0] * p_.kernel[1] >= min_separable_index_taps;
    const bool taps_in_turn = p_.stride[0] == 1 && p_.stride[1] == 1 && p_.dilation[0] == 1 && p_.dilation[1] == 1;
    if (!many_taps && !taps_in_turn)
        return "indices: windows of fewer than " + std::to_string(min_separable_index_taps) +
               " taps that do not move by one tap (the row code spreads their stores)";
    return {};
}

// Planar 2-D rows (with indices: separable_row_indices_declined) whose windows along h share input rows, where
// no ring or plane took them: separable maxima through buffers on the stack (KernelPlan::separable). Each input
// row is read once per call, with no border items, no per-tap gathers and no NaN scan pass. Windows along h move
// by whole taps: a stride that divides the dilation (calls of rows dilation / stride apart, one tap stride
// between their windows) or a multiple of it that is less than the window (stride / dilation tap strides between
// consecutive rows, the stem's 3 rows at stride 2 sharing one).
void Planner::choose_separable() {
    constexpr const char* step = "separable_rows";
    // Byte rows whose windows lie inside the input at stride 2 along the width: no buffers at all (byte_pairs),
    // whatever the width; 1-D rows too.
    if (byte_rows_ && byte_pairs_shape() && plan_.strategy == Strategy::ncx_width &&
        !reuse_is(PlanChoice::Reuse::none) && !reuse_is(PlanChoice::Reuse::ring)) {
        SeparableRows direct;
        direct.group_rows = 1;
        direct.window_rows = p_.spatial_rank >= 2 ? p_.kernel[wa_ - 1] : 1;
        direct.window_planes = p_.spatial_rank == 3 ? p_.kernel[0] : 1;
        direct.row_step = p_.spatial_rank >= 2 ? p_.stride[wa_ - 1] : 1;
        direct.phases = 2;
        direct.maxima_vectors = (axis_.out + plan_.lanes - 1) / plan_.lanes;
        direct.byte_pairs = true;
        direct.shifted_pair_loads = padded_byte_pairs_allowed() && !caps_.opmasks;
        plan_.separable = direct;
        plan_.ring_row_interval = 1;
        return chose("byte_pairs", "each output row straight from its window's input rows, no buffers");
    }
    if (plan_.strategy != Strategy::ncx_width || p_.spatial_rank != 2 || adaptive_) return;
    if (reuse_is(PlanChoice::Reuse::none) || reuse_is(PlanChoice::Reuse::ring)) return declined(step, "the choice of reuse");
    if (plan_.ring_rows > 0) return declined(step, "a ring of row maxima in registers took the rows");
    if (!byte_rows_ && (p_.kernel[0] < 2 || p_.out[0] < 2)) return declined(step, "windows along h do not overlap");
    std::int64_t interval = 1, row_step = 1;
    // Byte rows take windows that share no row too (a stride of the window's size): each input row is still
    // converted once.
    if (!separable_row_steps(interval, row_step, byte_rows_))
        return declined(step, "windows along h do not move by whole taps that they share");
    // Byte data at stride 2 along h: masked fast rows widen each tap as they load it, and ran faster than the
    // conversion to padded rows (AVX-512 u8, same-run A/B: stem 79 against 86 us, GoogLeNet 77 against 88;
    // bf16, s32, f32 and f64 ran 1.1-1.7x faster through the buffers).
    if (row_step > 1 && caps_.opmasks && size_of(p_.dtype) == 1 && !byte_rows_ && !reuse_is(PlanChoice::Reuse::separable))
        return declined(step, "masked rows widen byte taps as they load them");
    if (axis_.stride > 2) return declined(step, "width taps more than 2 apart would be gathered");
    // bf16 rows of fewer outputs than a vector at stride 2, values only, where the row code loads even words
    // under opmasks and pairs its taps: the buffers' conversion of each input row into two padded phases costs
    // more than the row code's loads. Xeon 2, one thread, the tuner's interleaved times, k3 s2 bf16 ncx
    // (2026-11-30): 20x20 p1 (10 outputs a row) 32.8 us separable against 23.5 in the row code, 28x28 p1 42.2
    // against 32.3, GoogLeNet's 1x480x28x28 ceil_torch 77.1 against 64.6; rows of a vector or more kept them:
    // 32x32 p1 16.0 against 18.0, 36x36 p1 37.5 against 43.3, 56x56 p1 50.9 against 62.4. f32 ran level at 28x28.
    // A choice only the buffers honour (their size, bf16 pairs) keeps them.
    if (p_.dtype == DType::bf16 && caps_.even_word_loads && axis_.stride == 2 && !p_.has_indices &&
        axis_.out < plan_.lanes && !reuse_is(PlanChoice::Reuse::separable) && choice().separable_kib == 0 &&
        choice().pairs != PlanChoice::Switch::on)
        return declined(step, "bf16 rows of fewer outputs than a vector: the row code loads even words and pairs taps");
    const std::int64_t lanes = plan_.lanes, lane_bytes_ = lane_bytes(plan_.compare);
    std::int64_t separable_buffer_bytes =
        choice().separable_kib > 0 ? std::int64_t{choice().separable_kib} * 1024 : rules_separable_buffer_bytes;
    if (axis_.in > separable_buffer_bytes || axis_.out > separable_buffer_bytes || axis_.pad > separable_buffer_bytes ||
        axis_.kernel > separable_buffer_bytes || axis_.dilation > separable_buffer_bytes)
        return declined(step, "the row does not fit the buffers");
    // (After the bounds above: the indices' check walks the row's outputs.)
    if (const std::string why = separable_row_indices_declined(); !why.empty()) return declined(step, why);
    SeparableRows sep;
    sep.window_rows = p_.kernel[0];
    sep.row_step = row_step;
    sep.pad_lanes = axis_.pad;
    sep.phases = axis_.stride == 2 ? 2 : 1;
    sep.maxima_vectors = (axis_.out + lanes - 1) / lanes;
    // Phase lanes the taps read (whole vectors from each output vector's first) and the conversion writes
    // (the input's whole vectors); converted vectors are stored whole and aligned.
    const std::int64_t reach = sep.maxima_vectors * lanes + (axis_.kernel - 1) * axis_.dilation / sep.phases;
    std::int64_t most = 0;
    for (int phase = 0; phase < sep.phases; ++phase) {
        const std::int64_t start = sep.input_start(phase), count = sep.input_count(phase, axis_.in);
        sep.lead_lanes[static_cast<std::size_t>(phase)] = (lanes - start % lanes) % lanes;
        most = std::max(most, sep.lead_lanes[static_cast<std::size_t>(phase)] +
                                  std::max(reach, start + (count + lanes - 1) / lanes * lanes));
    }
    sep.phase_lanes = (most + lanes - 1) / lanes * lanes + lanes;  // a vector of slack for the last stores
    // Each buffered row: its padded input and its maxima (with indices, an index vector beside each). As many
    // output rows a pass as the bytes hold.
    const std::int64_t row_bytes =
        sep.row_lanes() * lane_bytes_ + sep.maxima_vectors * caps_.vector_bytes * (p_.has_indices ? 2 : 1);
    // Byte rows at stride 2 take the smaller buffers where they hold two output rows' windows.
    if (choice().separable_kib == 0 && byte_rows_ && row_step == 2 &&
        byte_rows_stride_2_buffer_bytes / row_bytes >= sep.window_rows + row_step)
        separable_buffer_bytes = byte_rows_stride_2_buffer_bytes;
    if (choice().separable_kib == 0 && byte_rows_ && row_step == 1 && sep.window_rows >= min_deep_window_rows)
        separable_buffer_bytes = byte_rows_deep_window_buffer_bytes;
    const std::int64_t rows = separable_buffer_bytes / row_bytes;
    if (rows < sep.window_rows + row_step)
        return declined(step, "two output rows' buffers would pass " + std::to_string(separable_buffer_bytes) + " bytes");
    sep.group_rows = std::min((rows - sep.window_rows) / row_step + 1, p_.out[0]);
    KernelPlan candidate = plan_;
    candidate.separable = sep;
    if (!fits_registers(candidate)) return declined(step, "it needs " + registers_text(candidate));
    plan_.separable = sep;
    plan_.ring_row_interval = interval;
    chose(step, std::to_string(sep.group_rows) + " output rows a pass, " + std::to_string(sep.window_rows) +
                    " row maxima each, " + std::to_string(row_step) + " tap strides apart, calls of rows " +
                    std::to_string(interval) + " apart");
}

// Separable rows and pixels take the registers no other role of the plan takes as maxima in flight, beside
// the block's accumulators, up to max_separable_accumulators; pixels a whole number of blocks of them.
void Planner::choose_separable_accumulators() {
    if (!plan_.separable.enabled()) return;
    const int vectors = plan_.vectors_per_block;
    const int free = caps_.vector_registers - vector_registers_needed(plan_, caps_);
    // With indices each maximum in flight takes an index register beside it; registers the row code takes only
    // for a moment hold them too (separable_alias_registers).
    const int per_maximum = p_.has_indices ? 2 : 1;
    const int spare = std::max(0, free) + separable_alias_registers(plan_, caps_);
    int accumulators = std::min(max_separable_accumulators, vectors + spare / per_maximum);
    if (!lanes_are_outputs_) accumulators = std::max(1, accumulators / vectors) * vectors;
    plan_.separable.accumulators = accumulators;
    chose("separable_accumulators", std::to_string(accumulators) + " maxima in flight (" + registers_text(plan_) + ")");
    // Output rows in pairs: two maxima a lane (planar) or a pixel's vectors (pixels) in flight.
    const int per_output = lanes_are_outputs_ ? 1 : vectors;
    if (!p_.has_indices && plan_.separable.row_step == 1 && p_.kernel[0] >= 2 && accumulators >= 2 * per_output &&
        plan_.separable.group_rows >= 2)
        plan_.separable.paired_output_rows = true;
}

}  // namespace pooljit::jit
