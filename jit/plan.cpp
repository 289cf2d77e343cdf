// The planner: a pure function (Problem, ISA capabilities) -> KernelPlan, made of choose_* steps in the order
// below. Each step reads the problem, the capabilities of the ISA's trait (jit/caps.hpp: vector bytes and
// registers, opmasks, two-source permutes, byte max, masked narrow memory) and the plan so far; it records its
// decision, or the reason it declined, in the plan's `choices` (printed at POOLJIT_VERBOSE=2). No step asks which
// ISA it plans for: a new ISA is a new trait and a new caps row. Strategies and what each ISA's plans get are
// described in docs/strategies.md; how each was measured, in docs/performance.md.
//
//   choose_lanes            compare type (bytes in their own lanes), lanes, index lane width
//   choose_nan_scan         float rows: a NaN scan before the fast copy of the row code, or a watch within it
//   choose_vector_blocking  vectors per block: latency chains within the register budget (jit/registers.hpp)
//   choose_channel_blocks   channels last: channels per call, the tail, swept blocks of memory-bound rows
//   choose_width_code       segments of equal windows along the width, or windows computed at run time
//   choose_fast_row         planar fast rows: the whole plane as a span, taps as lanes, or masked border items
//   choose_tap_passes       channels-last calls over wide pixels: windows in passes over all the call's blocks
//   choose_width_ranges     channels-last rows computable in pieces (for threads)
//   choose_row_ring         planar rows: row maxima kept in registers between output rows
//   choose_separable_pixels channels last, pixels of a multiple of 1 KiB: row maxima of padded pixel rows, merged
//   choose_column_ring      channels last: each output column walked down with its window's row maxima
//   choose_planes           small planes in registers, outputs gathered by permutes
//   choose_separable        planar 2-D rows: padded rows, width maxima buffered, merged down the rows
//   choose_planar_nan_watch planar rows of plain items read by few windows: the watch instead of the scan
//   choose_outer_unroll     items of rows whose windows hold the most common outer taps: those taps unrolled
//   choose_watch_chains     watched rows: running NaN sums per vector, taken in turn by the taps
//   choose_widened_pairs    bf16 items and whole planes: two vectors a load, split into even and odd elements
//   choose_even_element_loads  planar bf16/u8/s8 lanes at stride 2: one load, even elements widened in place
//                           (and the row's room around each segment's first load)
//   choose_separable_accumulators  separable rows and pixels: maxima in flight, the registers left over
//   set_strides, set_prefetch, set_indices, set_tiling: the facts the code and the executor walk
//   choose_shared_watch     watched channels-last rows: each input element added to the watch once per call
#include "jit/plan.hpp"

#include "jit/caps.hpp"
#include "jit/plan_rows.hpp"
#include "jit/registers.hpp"

#include <pooljit/types.hpp>

#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace pooljit::jit {
namespace {

// Width taps up to this count are unrolled; longer windows (a 1-D kernel of 200 taps) loop.
constexpr std::int64_t max_unrolled_width_taps = 8;
// The column ring unrolls its width taps up to this many (SPP's 9: one new row maximum and 9 merges an output
// instead of 81 taps).
constexpr std::int64_t max_column_ring_width_taps = 16;
// Channels-last rows read by fewer windows per input element than this are bound by memory (k2 s2, k3 s2, a
// global pool); k2 s1 and denser windows by compares.
constexpr double min_reads_of_compare_bound_rows = 4.0;
// Vectors per block: enough independent dependency chains to hide the compare latency, few enough to leave the
// rest of the registers to raw bits, indices, rings and masks: an eighth of the register file (4 zmm of 32, 2
// ymm of 16), then fewer where the plan's registers would not fit.
constexpr int registers_per_block_vector = 8;
// Fast items merge the taps of windows with the row's most common outer taps in straight-line code up to this
// many taps a window; wider windows loop along h (and d). 32 takes a 5x5 window and every window of the suite
// but the 7x7 and 9x9 ones, whose loops of 7 and 9 rows end in one mispredict per 7 or 9 rows; a copy of 32
// taps is at most 32 x 4 vectors of merges, and creation's median rose from 34 to 37-41 us with it.
constexpr std::int64_t max_unrolled_window_taps = 32;
// Whole-plane items are straight-line code of two passes over the plane's vectors (the maximum, then the first
// element equal to it) up to this many vectors (256 f32 elements in zmm, a 16x16 global pool); longer planes loop.
constexpr std::int64_t max_unrolled_whole_plane_vectors = 16;
// Channels one nxc call sweeps per output pixel, in bytes: 2048 f32 channels.
constexpr std::int64_t max_sweep_bytes = 8192;
// Swept pixels of at least this many bytes, windows of at least this many width taps, compute their windows in
// tap passes (choose_tap_passes).
constexpr std::int64_t min_tap_pass_sweep_bytes = 1024;
constexpr std::int64_t min_tap_pass_width_taps = 5;
// Planar rows prefetch the input about this far ahead of the row they compute; past max_prefetch_bytes of
// input per output row (1-D signals, whose one row is the whole plane) they leave the stream to the hardware.
constexpr std::int64_t prefetch_target_distance = 12288;
constexpr std::int64_t max_prefetch_bytes = 4096;
// Row-maxima rings: the ring's vector registers (input rows x vectors per row) at most half the register file
// (16 of AVX-512's 32); with indices, the ring's values and indices (2 x rows x vectors) five eighths (20 of 32,
// beside 2 x vectors accumulators and 6 others).
constexpr int ring_register_eighths = 4, ring_register_eighths_with_indices = 5;
// Column rings (channels last): ring_rows x vectors_per_block registers (twice that with indices), five eighths
// of the register file (20 of AVX-512's 32, beside the accumulators, their indices and 3 to 5 others).
constexpr int column_ring_register_eighths = 5;
// Input of one column of a column ring's call: a third of a 48 KiB L1. Measured against 32, 64 and 128 KiB, the
// best on a 2048-row image (1x64x2048x64 k3 nxc f32: 5.9 ms, 7.1, 10.3 and 9.5 ms; the row code 7.7-8.2 ms) and
// level on SPPF.
constexpr std::int64_t column_ring_input_bytes = 16 * 1024;
// Separable rows: the padded input row and the buffered row maxima on the stack, within half of a 48 KiB L1.
constexpr std::int64_t separable_buffer_bytes = 24 * 1024;
// Separable pixels (channels last), blocks of a cache line's storage a pixel (each input line read whole by one
// call), where the column ring's registers would hold fewer than min_column_ring_block_bytes of a block's
// channels a row; integer data only over pixels whose storage is a multiple of separable_pixel_bytes_multiple,
// whose block columns fell into a few L1 sets (measured in choose_separable_pixels).
constexpr std::int64_t cache_line_bytes = 64;
constexpr std::int64_t min_column_ring_block_bytes = 128;
constexpr std::int64_t separable_pixel_bytes_multiple = 1024;
// Separable rows and pixels: at most this many maxima in flight (the accumulators' latency chains).
constexpr int max_separable_accumulators = 8;
// Planes in registers: the plane's input takes at most half the register file (16 of AVX-512's 32).
constexpr int plane_register_halves = 1;
// Rows of at least this many outputs may be computed in pieces (width_ranges); the code clips positions near
// 2^40 at most (every width extent of the plan below max_ranged_extent keeps its sums far from 2^63).
constexpr std::int64_t min_ranged_outputs = 64;
constexpr std::int64_t max_ranged_extent = std::int64_t{1} << 40;
// Output rows per call when channel blocks go innermost (channels last, several blocks): the input rows they
// read, all channels, in about half of a 48 KiB L1 (at least one row).
constexpr std::int64_t chunk_input_bytes = 24 * 1024;
// Shared watch rows (choose_shared_watch) where calls hold at least this many output rows, or whole runs.
constexpr std::int64_t min_shared_watch_call_rows = 4;
// Beyond this many output rows along an outer axis the executor computes a row's taps itself (no table that
// grows with the output).
constexpr std::int64_t max_table_rows = std::int64_t{1} << 16;

constexpr std::int64_t int32_max = std::numeric_limits<std::int32_t>::max();

class Planner {
public:
    Planner(const Problem& p, const IsaCaps& caps, const PlanOptions& options)
        : p_(p), caps_(caps), options_(options), adaptive_(p.op == OpKind::adaptive_max_pool),
          lanes_are_outputs_(p.layout == Layout::ncx) {
        plan_.isa = caps.isa;
        plan_.strategy = lanes_are_outputs_ ? Strategy::ncx_width : Strategy::nxc_channels;
        plan_.dtype = p.dtype;
        plan_.nan = p.nan;
        plan_.spatial_rank = p.spatial_rank;
        plan_.vector_bytes = caps.vector_bytes;
        plan_.fast_starts_from_lowest = p.dtype != DType::f16;
        if (p.has_indices) index_multipliers(p, multipliers_);
        const int w = p.spatial_rank - 1;
        wa_ = static_cast<std::size_t>(w);
        axis_ = {p.out[wa_], p.in[wa_], p.kernel[wa_], p.stride[wa_], p.dilation[wa_], p.pad_begin[wa_]};
        if (adaptive_) axis_ = {p.out[wa_], p.in[wa_], 1, 1, 1, 0};  // windows come from the adaptive rule
        plan_.out_width = axis_.out;
        plan_.in_width = axis_.in;
        plan_.kernel_w = axis_.kernel;
        plan_.stride_w = axis_.stride;
        plan_.dilation_w = axis_.dilation;
        plan_.pad_w = axis_.pad;
        huge_index_plane_ = p.has_indices && p.spatial_in_size() - 1 > int32_max;
        small_plane_ = p.spatial_in_size() < (std::int64_t{1} << 31) / static_cast<std::int64_t>(size_of(p.dtype));
    }

    KernelPlan plan() && {
        choose_lanes();
        choose_nan_scan();
        choose_vector_blocking();
        choose_channel_blocks();
        choose_width_code();
        choose_fast_row();
        choose_tap_passes();
        choose_width_ranges();
        choose_row_ring();
        choose_separable_pixels();
        choose_column_ring();
        choose_planes();
        choose_separable();
        choose_planar_nan_watch();
        choose_outer_unroll();
        choose_watch_chains();
        choose_widened_pairs();
        choose_even_element_loads();
        choose_separable_accumulators();
        set_strides();
        set_prefetch();
        set_indices();
        set_tiling();
        choose_shared_watch();
        return std::move(plan_);
    }

private:
    // A step's decision: taken, with what it chose, or declined, with why.
    void chose(const char* step, const std::string& what) { plan_.choices.push_back(std::string(step) + ": " + what); }
    void declined(const char* step, const std::string& why) {
        plan_.choices.push_back(std::string(step) + ": no, " + why);
    }
    bool fits_registers(const KernelPlan& candidate) const {
        return vector_registers_needed(candidate, caps_) <= caps_.vector_registers;
    }
    std::string registers_text(const KernelPlan& candidate) const {
        return std::to_string(vector_registers_needed(candidate, caps_)) + " vector registers of " +
               std::to_string(caps_.vector_registers);
    }

    // Lanes: compare-type lanes of a vector; u8/s8 channels last without indices compare in their own bytes (no
    // widening or narrowing); indices of planes beyond 2^31 elements take 64-bit lanes beside half vectors of
    // data where a window reaches 2^31 index units, else count from each window's first tap.
    void choose_lanes() {
        plan_.compare = compare_type_of(p_.dtype);
        const bool narrow_integers = p_.dtype == DType::u8 || p_.dtype == DType::s8;
        if (narrow_integers) {
            if (lanes_are_outputs_) declined("byte_lanes", "planar rows widen bytes to 32-bit lanes");
            else if (p_.has_indices) declined("byte_lanes", "indices need 32-bit lanes beside the values");
            else if (!caps_.byte_max) declined("byte_lanes", "the ISA has no byte max");
            else {  // a partial vector (the channel tail) goes through a stack area without masked narrow memory
                plan_.compare = p_.dtype == DType::u8 ? CompareType::u8 : CompareType::s8;
                chose("byte_lanes", std::to_string(caps_.vector_bytes) + " channels a vector");
            }
        }
        plan_.is_float = plan_.compare == CompareType::f64 || plan_.compare == CompareType::f32;
        plan_.lanes = plan_.vector_bytes / lane_bytes(plan_.compare);
        half_vectors_ = p_.has_indices && !is_64bit(plan_.compare) &&
                        (options_.wide_index_lanes ||
                         (huge_index_plane_ && window_index_extent(p_, multipliers_) > int32_max));
        window_relative_ = p_.has_indices && (huge_index_plane_ || options_.window_relative_indices);
        if (half_vectors_) {
            plan_.lanes /= 2;
            chose("index_lanes", "64-bit index lanes beside half vectors (windows reach 2^31 index units)");
        }
        plan_.has_indices = p_.has_indices;
        plan_.index_relative_to_window = p_.has_indices && !half_vectors_ && !is_64bit(plan_.compare) && window_relative_;
        plan_.index_lanes_64 = p_.has_indices && (is_64bit(plan_.compare) || half_vectors_);
        if (p_.has_indices) plan_.index_dtype = p_.index_dtype;
    }

    // As many vectors per block as the lanes need, up to an eighth of the registers, and fewer while the plan's
    // registers (accumulators, raw f16 bits, indices, the trait's masks) would not fit.
    void choose_vector_blocking() {
        const std::int64_t lane_items = lanes_are_outputs_ ? plan_.out_width : p_.channels;
        const std::int64_t vectors_needed = (lane_items + plan_.lanes - 1) / plan_.lanes;
        const int most = std::min(max_vectors, caps_.vector_registers / registers_per_block_vector);
        plan_.vectors_per_block = static_cast<int>(std::clamp<std::int64_t>(vectors_needed, 1, most));
        while (plan_.vectors_per_block > 1 && !fits_registers(plan_)) --plan_.vectors_per_block;
        // A column ring with indices keeps an index vector beside each of its k x vectors row maxima, and one
        // beside each accumulator: fewer vectors per block, as many as leave the ring its registers. Only for data
        // narrower than its 32-bit compare lanes, whose every tap is a widening load: f32 and s32 taps are plain
        // loads, and with 2 vectors' compare-and-blend chains instead of 4 the ring ran 0.76-0.96x the rows (SPPF,
        // Inception, same-run A/B) where bf16, u8 and s8 ran 1.4-2.0x faster.
        if (const int line_vectors = separable_pixel_vectors(); line_vectors > 0) {
            plan_.vectors_per_block = line_vectors;
            return chose("vector_blocking", std::to_string(plan_.vectors_per_block) + " vectors of " +
                                                std::to_string(plan_.lanes) + " lanes, a cache line of channels a pixel (" +
                                                registers_text(plan_) + ")");
        }
        const std::int64_t column_ring_registers = caps_.vector_registers * column_ring_register_eighths / 8;
        if (column_ring_shape() && column_ring_indices() && p_.kernel[0] <= column_ring_registers / 2)
            plan_.vectors_per_block = static_cast<int>(std::min<std::int64_t>(
                plan_.vectors_per_block, std::max<std::int64_t>(1, column_ring_registers / (2 * p_.kernel[0]))));
        // A column ring of values that its registers would not hold at this many vectors: fewer vectors, as
        // many as leave the ring its registers (AVX2's 16 registers: SPPF's 5 rows in 1 vector), where the ring
        // can be taken (its width taps unrolled).
        if (column_ring_shape() && !p_.has_indices && p_.kernel[0] <= column_ring_registers &&
            axis_.kernel <= max_column_ring_width_taps) {
            KernelPlan candidate = plan_;
            candidate.ring_rows = p_.kernel[0];
            const auto ring_fits = [&] {
                return p_.kernel[0] * candidate.vectors_per_block <= column_ring_registers && fits_registers(candidate);
            };
            while (candidate.vectors_per_block > 1 && !ring_fits()) --candidate.vectors_per_block;
            if (ring_fits()) plan_.vectors_per_block = candidate.vectors_per_block;
        }
        chose("vector_blocking", std::to_string(plan_.vectors_per_block) + " vectors of " +
                                     std::to_string(plan_.lanes) + " lanes (" + registers_text(plan_) + ")");
    }

    void choose_channel_blocks() {
        if (lanes_are_outputs_) {
            plan_.channel_block = 1;
            plan_.channel_tail = 0;
            return;
        }
        plan_.channel_block =
            std::min<std::int64_t>(plan_.vectors_per_block * plan_.lanes, std::max<std::int64_t>(p_.channels, 1));
        plan_.channel_tail = p_.channels % plan_.channel_block;
        // Rows bound by memory sweep the largest divisor of the full blocks whose channels span at most
        // max_sweep_bytes (measured: the audio row 1.8x, C3D 1.2x, VGG pool3 bf16 1.3x faster). Rows bound by
        // compares do not: a window's input rows stay in L1 between output rows only block by block (Inception
        // bf16 ran 1.2x slower swept).
        const std::int64_t full_blocks = p_.channels / plan_.channel_block;
        const std::int64_t block_bytes = plan_.channel_block * static_cast<std::int64_t>(size_of(p_.dtype));
        if (reads_per_element(p_) >= min_reads_of_compare_bound_rows) {
            declined("channel_sweep", "the rows are bound by compares, not memory");
            return;
        }
        for (std::int64_t sweep = std::min(full_blocks, max_sweep_bytes / block_bytes); sweep > 1; --sweep)
            if (full_blocks % sweep == 0) {
                plan_.channel_sweep = sweep;
                chose("channel_sweep", std::to_string(sweep) + " blocks a call");
                return;
            }
    }

    // Segments of runs of equal windows along the width (straight-line code per run), or windows computed at
    // run time when the row has too many runs.
    void choose_width_code() {
        if (adaptive_) {
            runs_ = adaptive_runs(axis_, default_max_width_runs);
        } else {
            plan_.width_runs = width_runs(axis_.out, axis_.in, axis_.kernel, axis_.stride, axis_.dilation, axis_.pad);
            if (!plan_.width_runs.empty()) runs_ = max_pool_runs(axis_);
        }
        const std::int64_t group = plan_.vectors_per_block * plan_.lanes;
        if (!runs_.empty()) plan_.segments = segments_of(runs_, lanes_are_outputs_, group);
        if (runs_.empty() || plan_.segments.size() > 2 * default_max_width_runs) {
            plan_.computed_windows = true;
            plan_.walk = computed_windows_of(axis_, adaptive_);
            chose("width_code", "windows computed at run time (too many runs of equal windows)");
        }
        // Planar items load whole registers wherever that stays inside the input row: a partial vector of narrow
        // data otherwise goes element by element through the stack on a trait without masked narrow memory (u8
        // ncx ran 3-15x slower than f32 ncx), and a masked load costs more than a plain one on every trait.
        if (lanes_are_outputs_)
            mark_whole_register_loads(plan_.segments, axis_, plan_.lanes, plan_.vector_bytes / lane_bytes(plan_.compare));
        std::int64_t longest_window = 0;
        for (const Segment& s : plan_.segments) longest_window = std::max(longest_window, s.taps);
        plan_.unroll_width_taps = !plan_.computed_windows && longest_window <= max_unrolled_width_taps;
    }

    // Planar fast rows (input without NaN) may use item shapes of their own: a window of the whole plane read as
    // one span; a window's taps as lanes where a row has few outputs for its windows; else masked items that let
    // border outputs share vectors with interior ones (every kernel tap unrolled, a mask per tap). f16 starts
    // from its first element, which a masked or tap lane may not have. Taps as lanes keep each lane's scan rank
    // as its row's byte offset in the window, in 32-bit lanes, with opmasks; without them (AVX2) the window's
    // maximum goes to every lane and a second pass over its rows finds the first element equal to it (only for
    // indices or a float maximum of zero: any other maximum's bits are the element's).
    void choose_fast_row() {
        constexpr const char* step = "fast_row";
        if (!lanes_are_outputs_) return;
        if (plan_.computed_windows) return declined(step, "the row's windows are computed at run time");
        if (!half_vectors_ && small_plane_) plan_.fast_segments = whole_plane_segments(p_, multipliers_, plan_.lanes);
        if (!plan_.fast_segments.empty()) return choose_whole_plane();
        if (!plan_.fast_starts_from_lowest) return declined(step, "f16 starts each window from its first element");
        if (!half_vectors_ && !window_relative_ && axis_.dilation == 1 && small_plane_)
            plan_.fast_segments = window_lane_segments(runs_, plan_.segments, axis_.out, plan_.lanes);
        // Without opmasks each window costs a reduction across the lanes and, for a float zero or indices, a
        // search of its rows: that pays only against items whose lanes would mostly be empty. Measured on AVX2
        // (f32 ncx, 1 thread): rows of 1 to 3 outputs ran 1.2-1.7x faster (adaptive 13 -> 2 and 13 -> 3 bins,
        // a 10x7 window of 3x2 outputs, a full-width window), 4 outputs about the same (k5 s5 over 20), rows of 7
        // to 18 outputs 1.2-1.6x slower (adaptive 28 -> 7, k3 s3 over 56, k8 s20 over 301).
        // Windows of fewer width taps than half a vector gather few elements per output either way.
        std::int64_t widest_item = 0, widest_window = 0;
        for (const Segment& seg : plan_.segments) widest_item = std::max(widest_item, seg.outputs_per_item);
        for (const Segment& seg : plan_.fast_segments) widest_window = std::max(widest_window, seg.taps);
        if (!caps_.opmasks && !plan_.fast_segments.empty() &&
            (2 * widest_item >= plan_.lanes || 2 * widest_window < plan_.lanes)) {
            plan_.fast_segments.clear();
            declined("fast_row", "taps as lanes: items of " + std::to_string(widest_item) + " outputs, windows of " +
                                     std::to_string(widest_window) +
                                     " width taps: the reduction across lanes costs more than gathered lanes");
        }
        if (!plan_.fast_segments.empty() && caps_.opmasks) return chose(step, "taps as lanes");
        if (!plan_.fast_segments.empty()) {
            // Lanes past the window are blended out at every row, so a row loads a whole register where the
            // input row holds one: a partial vector of narrow data is a load per piece.
            mark_whole_register_loads(plan_.fast_segments, axis_, plan_.lanes, plan_.vector_bytes / lane_bytes(plan_.compare));
            return chose(step, "taps as lanes, the first maximum found by a search of the window's rows");
        }
        if (!caps_.opmasks) return declined(step, "masked border items pick lanes by opmask");
        if (!adaptive_ && axis_.kernel <= max_unrolled_width_taps)
            plan_.fast_segments = masked_fast_segments(axis_, plan_.width_runs, plan_.vectors_per_block * plan_.lanes);
        if (!plan_.fast_segments.empty()) return chose(step, "masked border items");
        declined(step, "no item shape of its own pays here");
    }

    // A window of the whole plane read as one span: straight-line code up to max_unrolled_whole_plane_vectors, a
    // loop beyond (PointNet's 1024-element rows), with as many maxima in flight as a block has vectors.
    void choose_whole_plane() {
        const std::int64_t vectors = (plan_.fast_segments.front().taps + plan_.lanes - 1) / plan_.lanes;
        plan_.loop_whole_plane = vectors > max_unrolled_whole_plane_vectors;
        plan_.whole_plane_stores_maximum = !p_.has_indices && plan_.dtype != DType::f16;
        if (plan_.loop_whole_plane) {
            // The row's other items are one output each: the block's vectors only matter to this item. As many
            // maxima in flight as the registers hold, each with its own NaN sum where they hold that too: one sum
            // was one chain of an add (3 cycles) per vector of the plane, which bounded it, not the loads (AVX2
            // PointNet 1x1024x1024: 158 -> 78 us with 4 maxima and 4 sums, docs/performance.md).
            const bool sums = plan_.is_float;
            bool fits = false;
            for (int chains = max_vectors; chains >= 1 && !fits; --chains)
                for (int watch = sums ? chains : 1; watch >= 1 && !fits; --watch) {
                    plan_.vectors_per_block = chains;
                    plan_.whole_plane_sums = watch;
                    fits = fits_registers(plan_);
                }
        }
        chose("fast_row", "the whole plane as one span of " + std::to_string(vectors) + " vectors" +
                              (plan_.loop_whole_plane ? ", looped with " + std::to_string(plan_.vectors_per_block) +
                                                            " maxima in flight" + (plan_.is_float ? " and " + std::to_string(plan_.whole_plane_sums) + " NaN sums" : "")
                                                      : "") +
                              (plan_.whole_plane_stores_maximum ? ", its maximum stored (searched for only if a float zero)" : ""));
    }

    // The fast copy of a float row needs to know that the row holds no NaN. A scan is a pass over the row's
    // input before the row code runs; channels last it pays only where windows overlap enough that compares,
    // not memory, bound the row (measured: the DRAM-sized stem ran 1.3x, the audio row 1.5x, C3D 1.3x slower
    // with it; Inception k3 s1 1.5x faster). Where each input element is read by few windows, the fast copy
    // watches the values it loads instead (a running sum per vector of the block) and leaves for the exact copy
    // at the row's end when the sum is NaN. Planar rows start with the scan: their fast copy may take item
    // shapes of its own (taps as lanes, masked borders, separable rows); choose_planar_nan_watch decides once
    // they are known.
    void choose_nan_scan() {
        if (!plan_.is_float) {
            plan_.scan_rows_for_nan = false;
            return;
        }
        plan_.scan_rows_for_nan = lanes_are_outputs_ || reads_per_element(p_) >= min_reads_of_compare_bound_rows;
        plan_.watch_rows_for_nan = !plan_.scan_rows_for_nan;
        if (plan_.watch_rows_for_nan)
            chose("nan_scan", "a watch in the fast copy: channels-last rows bound by memory, no second pass");
    }

    // Planar rows whose fast copy is plain items (no taps as lanes, masked borders, whole planes, rings or
    // separable buffers: each of those loads the row its own way) watch what they load as channels-last rows
    // do, where each input element is read by few windows: every element a window reads is a lane of some tap's
    // vector, so the sums see it. The scan's second pass over the row cost more than the watch's adds there:
    // AVX2 VGG pool5 (1x512x14x14 k2 s2 f32), its kernel called alone over the planes, 18.1 against 14.6 us.
    void choose_planar_nan_watch() {
        constexpr const char* step = "planar_nan_watch";
        if (!lanes_are_outputs_ || !plan_.scan_rows_for_nan || plan_.strategy != Strategy::ncx_width) return;
        if (!plan_.fast_segments.empty()) return declined(step, "the fast row's items load the row their own way");
        if (plan_.separable.enabled() || plan_.ring_rows > 0)
            return declined(step, "the row's buffers or rings read the input, not items");
        if (reads_per_element(p_) >= min_reads_of_compare_bound_rows)
            return declined(step, "windows overlap: a scan reads each element once, a watch once per window");
        // The watch adds one vector per tap an item loads, the scan one per vector of input: items of few outputs
        // in many lanes (adaptive 13 -> 2 and 3 bins, windows of 7 x 7 taps for 2 or 3 outputs) are cheaper
        // scanned (AVX-512 f16, whose lanes there go through the stack: 316 against 644 us).
        std::int64_t outputs_per_item = 1;
        if (!plan_.computed_windows)
            for (const Segment& seg : plan_.segments) outputs_per_item = std::max(outputs_per_item, seg.outputs_per_item);
        if (2 * outputs_per_item < plan_.lanes)
            return declined(step, "items of " + std::to_string(outputs_per_item) + " outputs in " +
                                      std::to_string(plan_.lanes) + " lanes");
        KernelPlan candidate = plan_;
        candidate.scan_rows_for_nan = false;
        candidate.watch_rows_for_nan = true;
        if (!fits_registers(candidate)) return declined(step, "no registers for the sums (" + registers_text(candidate) + ")");
        plan_.scan_rows_for_nan = false;
        plan_.watch_rows_for_nan = true;
        chose(step, "a watch in the fast copy: each element read by few windows, no second pass");
    }

    // Watched rows sum each vector's loads into several running sums in turn, as many as the registers hold up
    // to max_watch_chains: the same adds, in chains that short. With one sum a vector, the chain of adds through
    // the row bounded AVX2's channels-last stem on Zen 3 (3 cycles an add, 9 a 3x3 item's vector: f32 111 us,
    // s32 without a watch 75).
    void choose_watch_chains() {
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

    // bf16 values: the items of consecutive lanes load their vectors two at a time (plan.widened_pairs), where
    // the trait can split a load into even and odd elements and the items are the row code's own or tap passes'
    // (which reload their partial maxima as pairs too): rings and separable buffers keep their maxima in lane
    // order, whole planes load the plane their own way, indices would need their lanes in the same order.
    void choose_widened_pairs() {
        constexpr const char* step = "widened_pairs";
        if (plan_.dtype != DType::bf16) return;
        if (!caps_.widened_pairs) return declined(step, "the trait does not split a load into even and odd elements");
        if (p_.has_indices) return declined(step, "indices");
        // A whole plane's maximum takes its vectors in any order: pairs of them, whatever the block.
        if (has_whole_plane(plan_)) {
            plan_.widened_pairs = true;
            return chose(step, "the whole plane's maximum two vectors a load, even and odd elements");
        }
        if (plan_.vectors_per_block < 2) return declined(step, "one vector a block");
        if (plan_.ring_rows > 0 || plan_.separable.enabled() || !plan_.fast_segments.empty())
            return declined(step, "the fast row is not plain items");
        plan_.widened_pairs = true;
        chose(step, "two vectors a load, even and odd elements");
    }

    // Planar rows of bf16, u8 or s8: items at lane stride 2 load the span once and widen its even elements,
    // where the trait can and the lanes fill the register (64-bit index lanes beside half vectors keep the
    // deinterleave, whose lanes their masks follow).
    void choose_even_element_loads() {
        constexpr const char* step = "even_element_loads";
        const bool narrow = plan_.dtype == DType::bf16 || plan_.dtype == DType::u8 || plan_.dtype == DType::s8;
        if (!narrow || !lanes_are_outputs_ || plan_.strategy != Strategy::ncx_width) return;
        if (!caps_.even_element_loads) return declined(step, "the trait does not widen even elements in place");
        if (plan_.lanes * lane_bytes(plan_.compare) != plan_.vector_bytes)
            return declined(step, "half vectors beside 64-bit index lanes");
        plan_.even_element_loads = true;
        mark_room_around_first_loads(plan_.segments, axis_, plan_.lanes);
        chose(step, "lanes at stride 2 widen the even elements of one load");
    }

    // Wide pixels: a call of swept blocks whose window taps lie a pixel apart reads them in passes of at most
    // max_unrolled_width_taps taps of one input row across all its blocks. The partial maxima go through the
    // output (a load and a store per block and pass), so only windows of more taps than one pass, at least
    // min_tap_pass_width_taps a pass, take it. Measured (same run, passes against blocks, AVX2 / AVX-512): the
    // global 7x7 pool of 2048 f32 channels 6.9x / 1.6x, u8 2.4x / 1.5x; PointNet's 1024 taps f32 3.3x / 2.3x,
    // u8 (1 KiB pixels) 2.4x / 1.3x; 1 KiB f32 pixels of a 7x7 pool 1.2x; a 5x5 window at stride 4 over 2 KiB
    // pixels 1.3x; k3 s2 windows (3 taps a pass) 0.5-1.0x at every width, 512-byte pixels about 1.0x. The
    // fast copy starts from the lowest value, so f16 and indices (raw bits or indices through the output)
    // keep the blocks.
    void choose_tap_passes() {
        constexpr const char* step = "tap_passes";
        if (lanes_are_outputs_ || plan_.channel_sweep <= 1) return;
        const std::int64_t sweep_bytes = plan_.channel_sweep * plan_.channel_block * static_cast<std::int64_t>(size_of(p_.dtype));
        std::int64_t window_taps = 1;
        for (int a = 0; a < p_.spatial_rank; ++a) window_taps *= adaptive_ ? 1 : p_.kernel[static_cast<std::size_t>(a)];
        if (sweep_bytes < min_tap_pass_sweep_bytes)
            return declined(step, "the call's pixel spans " + std::to_string(sweep_bytes) + " bytes");
        if (adaptive_ || plan_.computed_windows) return declined(step, "the windows are not runs of segments");
        if (window_taps <= max_unrolled_width_taps) return declined(step, "a window is one pass");
        if (axis_.kernel < min_tap_pass_width_taps)
            return declined(step, "passes of " + std::to_string(axis_.kernel) + " width taps");
        if (p_.has_indices) return declined(step, "indices would pass through the output");
        if (!plan_.fast_starts_from_lowest) return declined(step, "f16 starts each window from its first element");
        plan_.tap_pass_taps = max_unrolled_width_taps;
        chose(step, "passes of up to " + std::to_string(plan_.tap_pass_taps) + " taps over " +
                        std::to_string(sweep_bytes) + " bytes of channels");
    }

    // A row of pieces clips its segments and NaN scan to the call's outputs at run time: a few instructions per
    // segment, so only rows long enough to be worth splitting take it. The clipping computes positions
    // out * stride - pad + extent, kept small by bounding each term.
    void choose_width_ranges() {
        const std::int64_t pad_end_w = adaptive_ ? 0 : p_.pad_end[wa_];
        plan_.width_ranges = !lanes_are_outputs_ && !adaptive_ && !plan_.computed_windows &&
                             plan_.out_width >= min_ranged_outputs && axis_.in < max_ranged_extent &&
                             axis_.pad < max_ranged_extent && pad_end_w < max_ranged_extent &&
                             axis_.stride < max_ranged_extent;
    }

    // Planar rows that are one item, whose windows along h share k - 1 rows with those ring_row_interval rows on
    // (a stride that divides the dilation): a k-row window costs one input row's width taps and k - 1 merges
    // per output row instead of k rows of taps. With indices in 32-bit lanes, each row maximum's index rides
    // beside it (twice the ring's registers).
    void choose_row_ring() {
        constexpr const char* step = "row_ring";
        if (!lanes_are_outputs_ || p_.spatial_rank != 2 || adaptive_) return;
        const std::vector<Segment>& fast_row = plan_.fast_segments.empty() ? plan_.segments : plan_.fast_segments;
        if (p_.out[0] < 2 || p_.kernel[0] < 2) return declined(step, "windows along h do not overlap");
        if (p_.dilation[0] % p_.stride[0] != 0) return declined(step, "the stride along h does not divide the dilation");
        if (!caps_.opmasks) return declined(step, "the ring's rows are masked fast items (opmasks)");
        if (!plan_.fast_starts_from_lowest) return declined(step, "f16 starts each window from its first element");
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
    bool column_ring_shape() const {
        return !lanes_are_outputs_ && !adaptive_ && plan_.fast_starts_from_lowest && p_.spatial_rank == 2 &&
               p_.out[0] >= 2 && p_.stride[0] == 1 && p_.dilation[0] == 1 && p_.kernel[0] >= 2 &&
               reads_per_element(p_) >= min_reads_of_compare_bound_rows;
    }
    bool column_ring_indices() const {
        return p_.has_indices && size_of(p_.dtype) < 4 && !half_vectors_ && !window_relative_;
    }

    // The column ring: each output column walked down a call's rows with its window's k row maxima in registers,
    // and with indices of narrow data each maximum's index beside it. One channel block per call.
    void choose_column_ring() {
        constexpr const char* step = "column_ring";
        if (lanes_are_outputs_ || p_.spatial_rank != 2) return;
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
    bool separable_row_steps(std::int64_t& interval, std::int64_t& row_step) const {
        const std::int64_t stride_h = p_.stride[0], dilation_h = p_.dilation[0];
        interval = 1;
        row_step = 1;
        if (dilation_h % stride_h == 0) interval = dilation_h / stride_h;
        else if (stride_h % dilation_h == 0) row_step = stride_h / dilation_h;
        else return false;
        return row_step < p_.kernel[0];
    }

    // Channels-last 2-D values in compare-bound rows whose windows along h share input rows, where the column
    // ring would hold a narrow block (integers: over pixels of a multiple of separable_pixel_bytes_multiple): the
    // reason they are not such a problem, or empty. f16 keeps raw bits beside each lane and starts from a
    // window's first element.
    //
    // Measured (same run, separable pixels against the column ring, 1 thread): on AVX2 (16 registers: the ring
    // holds 1 to 3 vectors a row, 32 to 96 bytes), f32 1.2-5.2x faster (SPPF 465 -> 90 us, Inception 39 -> 34,
    // SPP k9 941 -> 391), bf16 1.2-3.2x, f64 1.2-3.1x; s32 0.7-2.2x and u8 0.5-1.0x over smaller pixels, but
    // s32 1.4-1.5x and u8 1.3-2.0x over pixels of 1 or 2 KiB. On AVX-512 (32 registers: 2 to 4 vectors of 64
    // bytes a row) 0.5-1.1x: the ring keeps it.
    std::string separable_pixels_declined() const {
        if (p_.has_indices) return "values only: the buffered maxima carry no indices";
        if (p_.dtype == DType::f16) return "f16 carries raw bits beside each lane";
        if (adaptive_ || plan_.computed_windows) return "the windows are not runs of segments";
        if (p_.kernel[0] < 2 || p_.out[0] < 2) return "windows along h do not overlap";
        if (p_.channels < 1 || axis_.out < 1) return "the output is empty";
        if (reads_per_element(p_) < min_reads_of_compare_bound_rows) return "the rows are bound by memory";
        std::int64_t interval = 1, row_step = 1;
        if (!separable_row_steps(interval, row_step)) return "windows along h do not move by whole taps that they share";
        const std::int64_t ring_vectors = std::min<std::int64_t>(
            max_vectors, caps_.vector_registers * column_ring_register_eighths / 8 / p_.kernel[0]);
        if (ring_vectors * caps_.vector_bytes >= min_column_ring_block_bytes)
            return "the column ring holds " + std::to_string(ring_vectors * caps_.vector_bytes) + " bytes of channels a row";
        if (!plan_.is_float && p_.channels % (separable_pixel_bytes_multiple / elem()) != 0)
            return "integer pixels of " + std::to_string(p_.channels * elem()) + " bytes keep the column ring (not a multiple of " +
                   std::to_string(separable_pixel_bytes_multiple) + ")";
        return {};
    }

    // Separable pixels of `vectors` vectors a pixel: the padded row of the block's pixels and the buffered rows of
    // maxima on the stack, within separable_buffer_bytes (group_rows 0: they do not fit). Sizes are bounded
    // before they are multiplied. Windows along the width that are empty read only the empty value, which is
    // what the row code stores for them.
    SeparableRows separable_pixels_of(int vectors) const {
        SeparableRows sep;
        std::int64_t interval = 1, row_step = 1;
        separable_row_steps(interval, row_step);
        const std::int64_t pixel_bytes = std::int64_t{vectors} * caps_.vector_bytes;
        const std::int64_t most_pixels = separable_buffer_bytes / pixel_bytes;
        if (axis_.in > most_pixels || axis_.out > most_pixels || axis_.pad > most_pixels || axis_.kernel > most_pixels ||
            axis_.dilation > most_pixels || axis_.stride > most_pixels)
            return sep;
        sep.window_rows = p_.kernel[0];
        sep.row_step = row_step;
        sep.pad_lanes = axis_.pad;
        sep.phases = 1;
        sep.maxima_vectors = axis_.out * vectors;
        sep.paired_width_windows = axis_.stride == 1 && axis_.dilation == 1 && axis_.kernel >= 2;
        const std::int64_t reach = (axis_.out - 1) * axis_.stride + (axis_.kernel - 1) * axis_.dilation + 1;
        sep.phase_lanes = std::max(reach, axis_.pad + axis_.in);
        const std::int64_t padded_bytes = sep.phase_lanes * pixel_bytes, maxima_bytes = sep.maxima_vectors * caps_.vector_bytes;
        if (padded_bytes + (sep.window_rows + row_step) * maxima_bytes <= separable_buffer_bytes)
            sep.group_rows =
                std::min(((separable_buffer_bytes - padded_bytes) / maxima_bytes - sep.window_rows) / row_step + 1, p_.out[0]);
        return sep;
    }

    // The vectors of a cache line's storage, where separable pixels will take the rows (0: they will not).
    int separable_pixel_vectors() const {
        if (lanes_are_outputs_ || p_.spatial_rank != 2 || !separable_pixels_declined().empty()) return 0;
        const std::int64_t line_vectors = std::clamp<std::int64_t>(cache_line_bytes / (plan_.lanes * elem()), 1, max_vectors);
        const int vectors = static_cast<int>(std::min<std::int64_t>(line_vectors, (p_.channels + plan_.lanes - 1) / plan_.lanes));
        if (p_.channels % (vectors * plan_.lanes) != 0) return 0;  // the tail block's calls would run the row code
        KernelPlan candidate = plan_;
        candidate.vectors_per_block = vectors;
        candidate.separable = separable_pixels_of(vectors);
        return candidate.separable.enabled() && fits_registers(candidate) ? vectors : 0;
    }

    // Separable pixels: one block of a cache line's channels a call (choose_vector_blocking took its vectors).
    void choose_separable_pixels() {
        constexpr const char* step = "separable_pixels";
        if (lanes_are_outputs_ || p_.spatial_rank != 2) return;
        if (const std::string why = separable_pixels_declined(); !why.empty()) return declined(step, why);
        if (plan_.channel_block != std::int64_t{plan_.vectors_per_block} * plan_.lanes || p_.channels % plan_.channel_block != 0)
            return declined(step, "the blocks are not whole vectors of channels (a tail would run the row code)");
        const SeparableRows sep = separable_pixels_of(plan_.vectors_per_block);
        if (!sep.enabled())
            return declined(step, "two output rows' buffers would pass " + std::to_string(separable_buffer_bytes) + " bytes");
        KernelPlan candidate = plan_;
        candidate.separable = sep;
        if (!fits_registers(candidate)) return declined(step, "it needs " + registers_text(candidate));
        std::int64_t interval = 1, row_step = 1;
        separable_row_steps(interval, row_step);
        plan_.separable = sep;
        plan_.ring_row_interval = interval;
        plan_.width_ranges = false;  // a call computes whole rows
        chose(step, std::to_string(sep.group_rows) + " output rows a pass, " + std::to_string(sep.window_rows) +
                        " rows of maxima each, pixels of " + std::to_string(plan_.vectors_per_block * caps_.vector_bytes) + " bytes");
    }

    // Planar rows of fewer outputs than a vector, in planes that fit in registers: the whole plane per pass,
    // its outputs flat across rows (VGG pool5's 14x14 planes: rows of 7 outputs, each a call's row loop with
    // its NaN scan, half the lanes idle). f16 carries raw bits beside each lane; half vectors keep 64-bit
    // index lanes beside 32-bit data lanes: both keep the rows.
    void choose_planes() {
        constexpr const char* step = "planes_in_registers";
        if (!lanes_are_outputs_ || axis_.out >= plan_.lanes) return;
        if (!caps_.two_source_permutes || !caps_.opmasks)
            return declined(step, "outputs are gathered by two-register permutes into opmasked lanes");
        if (p_.dtype == DType::f16) return declined(step, "f16 carries raw bits beside each lane");
        if (half_vectors_) return declined(step, "64-bit index lanes beside half vectors");
        PlanePlan plane =
            plane_plan(p_, multipliers_, plan_.lanes, caps_.vector_registers * plane_register_halves / 2);
        if (plane.gathers.empty()) return declined(step, "the plane does not fit, or its permutes do not pay");
        plan_.strategy = Strategy::ncx_planes;
        plan_.plane = std::move(plane);
        plan_.fast_segments.clear();
        plan_.ring_rows = 0;
        plan_.ring_row_interval = 1;
        chose(step, std::to_string(plan_.plane.registers) + " registers, " + std::to_string(plan_.plane.gathers.size()) +
                        " permutes");
    }

    std::int64_t elem() const { return static_cast<std::int64_t>(size_of(p_.dtype)); }
    std::int64_t dilation_of(int a) const { return adaptive_ ? 1 : p_.dilation[static_cast<std::size_t>(a)]; }

    // Planar 2-D rows without indices whose windows along h share input rows, where no ring or plane took
    // them: separable maxima through buffers on the stack (KernelPlan::separable). Each input row is read once
    // per call, with no border items, no per-tap gathers and no NaN scan pass. Windows along h move by whole
    // taps: a stride that divides the dilation (calls of rows dilation / stride apart, one tap stride between
    // their windows) or a multiple of it that is less than the window (stride / dilation tap strides between
    // consecutive rows, the stem's 3 rows at stride 2 sharing one).
    void choose_separable() {
        constexpr const char* step = "separable_rows";
        if (plan_.strategy != Strategy::ncx_width || p_.spatial_rank != 2 || adaptive_) return;
        if (plan_.ring_rows > 0) return declined(step, "a ring of row maxima in registers took the rows");
        if (p_.has_indices) return declined(step, "values only: the buffered maxima carry no indices");
        if (!plan_.fast_starts_from_lowest) return declined(step, "f16 carries raw bits beside each lane");
        if (p_.kernel[0] < 2 || p_.out[0] < 2) return declined(step, "windows along h do not overlap");
        std::int64_t interval = 1, row_step = 1;
        if (!separable_row_steps(interval, row_step))
            return declined(step, "windows along h do not move by whole taps that they share");
        // Byte data at stride 2 along h: masked fast rows widen each tap as they load it, and ran faster than the
        // conversion to padded rows (AVX-512 u8, same-run A/B: stem 79 against 86 us, GoogLeNet 77 against 88;
        // bf16, s32, f32 and f64 ran 1.1-1.7x faster through the buffers).
        if (row_step > 1 && caps_.opmasks && size_of(p_.dtype) == 1)
            return declined(step, "masked rows widen byte taps as they load them");
        if (axis_.stride > 2) return declined(step, "width taps more than 2 apart would be gathered");
        const std::int64_t lanes = plan_.lanes, lane_bytes_ = lane_bytes(plan_.compare);
        if (axis_.in > separable_buffer_bytes || axis_.out > separable_buffer_bytes || axis_.pad > separable_buffer_bytes ||
            axis_.kernel > separable_buffer_bytes || axis_.dilation > separable_buffer_bytes)
            return declined(step, "the row does not fit the buffers");
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
        // Each buffered row: its padded input and its maxima. As many output rows a pass as the bytes hold.
        const std::int64_t row_bytes = sep.row_lanes() * lane_bytes_ + sep.maxima_vectors * caps_.vector_bytes;
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
    void choose_separable_accumulators() {
        if (!plan_.separable.enabled()) return;
        const int vectors = plan_.vectors_per_block;
        const int free = caps_.vector_registers - vector_registers_needed(plan_, caps_);
        int accumulators = std::min(max_separable_accumulators, vectors + std::max(0, free));
        if (!lanes_are_outputs_) accumulators = std::max(1, accumulators / vectors) * vectors;
        plan_.separable.accumulators = accumulators;
        chose("separable_accumulators", std::to_string(accumulators) + " maxima in flight (" + registers_text(plan_) + ")");
    }

    // Fast items loop over a window's rows along h (and planes along d) at run time, as the rows' real taps
    // vary at the borders. A loop of 2 or 3 rows ended in a mispredicted branch per item: SegNet's channels-last
    // k2 s2 rows ran 1.8x slower than straight-line code. Rows whose windows hold the most common count of taps
    // along h (and d) take a copy of the item with those taps unrolled; the others keep the loop.
    void choose_outer_unroll() {
        constexpr const char* step = "outer_unroll";
        if (p_.spatial_rank < 2) return;
        if (plan_.strategy == Strategy::ncx_planes || plan_.ring_rows > 0 || plan_.separable.enabled() ||
            plan_.tap_pass_taps > 0)
            return declined(step, "the fast rows are not items");
        if (plan_.computed_windows || !plan_.unroll_width_taps) return declined(step, "the width taps loop");
        const int sr = p_.spatial_rank;
        const std::int64_t rows_h = most_common_taps(static_cast<std::size_t>(sr - 2));
        const std::int64_t rows_d = sr >= 3 ? most_common_taps(0) : 1;
        std::int64_t width_taps = 1;
        for (const Segment& s : plan_.segments) width_taps = std::max(width_taps, s.taps);
        if (rows_h * rows_d <= 1) return declined(step, "windows of at most one row");
        const std::int64_t limit = max_unrolled_window_taps;
        if (rows_h > limit || rows_d > limit || rows_h * rows_d * width_taps > limit)
            return declined(step, "windows of more than " + std::to_string(limit) + " taps");
        plan_.unrolled_taps_h = rows_h;
        if (sr >= 3) plan_.unrolled_taps_d = rows_d;
        chose(step, "windows of " + (sr >= 3 ? std::to_string(rows_d) + " x " : "") + std::to_string(rows_h) +
                        (sr >= 3 ? " rows (d x h)" : " rows") + " unrolled, the other rows loop");
    }

    // The count of real taps along outer axis `axis` that the most output rows have (among the first
    // max_table_rows; ties: the larger count).
    std::int64_t most_common_taps(std::size_t axis) const {
        std::vector<std::pair<std::int64_t, std::int64_t>> counts;  // taps, rows
        for (std::int64_t o = 0; o < std::min(p_.out[axis], max_table_rows); ++o) {
            const std::int64_t taps = outer_taps_of(p_, axis, o).count;
            auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == taps; });
            if (it == counts.end()) counts.push_back({taps, 1});
            else ++it->second;
        }
        std::pair<std::int64_t, std::int64_t> best{0, 0};
        for (const auto& c : counts)
            if (c.second > best.second || (c.second == best.second && c.first > best.first)) best = c;
        return best.first;
    }

    void set_strides() {
        const int w = p_.spatial_rank - 1;
        const std::int64_t pixel = lanes_are_outputs_ ? elem() : p_.channels * elem();  // bytes between positions
        plan_.src_step_w = pixel;
        plan_.src_tap_stride_w = wrap_mul(plan_.dilation_w, pixel);
        plan_.src_out_stride_w = wrap_mul(plan_.stride_w, pixel);
        plan_.dst_out_stride_w = pixel;
        if (p_.spatial_rank >= 2) plan_.src_tap_stride_h = wrap_mul(dilation_of(w - 1), p_.in[wa_], pixel);
        if (p_.spatial_rank >= 3) plan_.src_tap_stride_d = wrap_mul(wrap_mul(dilation_of(0), p_.in[1]), p_.in[2], pixel);
    }

    // The hardware prefetcher alone kept a DRAM-sized stem's planes (16x64x112x112 ncx f32) at 8.4 ms, 2x the
    // same plane count in cache; the row's own NaN scan then waited on every line.
    void set_prefetch() {
        if (plan_.strategy != Strategy::ncx_width || p_.spatial_rank < 2) return;
        // An input row is at most the tensor's bytes (validated below 2^63); the stride is only bounded by 2^63,
        // so the bound is divided, never multiplied past it.
        const std::int64_t in_row_bytes = p_.in[wa_] * elem();
        if (p_.stride[wa_ - 1] > max_prefetch_bytes / in_row_bytes) return;
        const std::int64_t row_bytes = p_.stride[wa_ - 1] * in_row_bytes;
        plan_.prefetch_bytes = row_bytes;
        plan_.prefetch_distance = (prefetch_target_distance + row_bytes - 1) / row_bytes * row_bytes;
    }

    void set_indices() {
        if (!p_.has_indices) return;
        const int sr = p_.spatial_rank, w = sr - 1;
        const int index_axis = adaptive_ ? 2 : p_.axis;
        for (int a = 0; a < sr; ++a) plan_.index_mult[a] = multipliers_[a];
        plan_.index_mult_w = plan_.index_mult[w];
        plan_.index_tap_step_w = wrap_mul(plan_.dilation_w, plan_.index_mult[w]);
        plan_.index_out_step_w = wrap_mul(plan_.stride_w, plan_.index_mult[w]);
        if (sr >= 2) plan_.index_tap_step_h = wrap_mul(dilation_of(w - 1), plan_.index_mult[w - 1]);
        if (sr >= 3) plan_.index_tap_step_d = wrap_mul(dilation_of(0), plan_.index_mult[0]);
        plan_.channel_index_stride = index_axis <= 1 ? p_.spatial_in_size() : 0;
        plan_.lane_index_unit = lanes_are_outputs_ ? plan_.index_mult_w : plan_.channel_index_stride;
        // The spatial part never exceeds the spatial size; with 32-bit compare lanes it is tracked in 32-bit
        // lanes unless the spatial size does not fit.
        plan_.wide_index_math = plan_.index_lanes_64 || p_.index_dtype == DType::s64;
    }

    // What the executor walks, computed once: the real taps of every output position along the outer axes, the
    // runs of output rows one call computes, and the rows per call when channel blocks go innermost.
    void set_tiling() {
        const int sr = p_.spatial_rank;
        const auto table = [&](std::size_t a) {
            std::vector<OuterTaps> taps(static_cast<std::size_t>(p_.out[a]));
            for (std::int64_t o = 0; o < p_.out[a]; ++o) taps[static_cast<std::size_t>(o)] = outer_taps_of(p_, a, o);
            return taps;
        };
        if (sr >= 3 && p_.out[0] <= max_table_rows) plan_.taps_d = table(0);
        const auto h = static_cast<std::size_t>(sr - 2);
        if (sr >= 2 && p_.out[h] <= max_table_rows) plan_.taps_h = table(h);
        plan_.row_runs_h = row_runs_of(plan_.taps_h);
        if (sr == 2 && plan_.strategy == Strategy::ncx_width && plan_.ring_rows == 0 && !plan_.separable.enabled()) {
            const std::int64_t step = stacked_plane_step(p_, plan_);
            plan_.stacked_planes = step > 0;
            if (plan_.stacked_planes) plan_.row_runs_h.front().position_step = step;
        }
        // Divisions only: a stride near 2^62 must not overflow.
        const std::int64_t stride_h = sr >= 2 ? std::max<std::int64_t>(1, p_.stride[h]) : 1;
        const std::int64_t row_bytes = std::max<std::int64_t>(1, p_.in[wa_] * p_.channels * elem());
        plan_.rows_per_chunk = std::max<std::int64_t>(1, chunk_input_bytes / row_bytes / stride_h);
        plan_.sweep_splits = plan_.channel_sweep > 1 && !plan_.scan_rows_for_nan;
    }

    // Watched channels-last rows: a tap that reads what a tap of the previous output (output row) read adds
    // nothing to the watch. Windows 3 wide at stride 2 (the stem, MobileNet) then add 4 of their 9 loads, not
    // 9: on AVX2 (Zen 3, one thread) 13% fewer instructions an execute and 1.05-1.22x faster (docs/performance.md,
    // "Shared watch"). Shared rows need calls of many rows: each call scans its first row's shared rows first.
    void choose_shared_watch() {
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

    const Problem& p_;
    const IsaCaps& caps_;
    const PlanOptions options_;
    const bool adaptive_, lanes_are_outputs_;
    KernelPlan plan_;
    std::size_t wa_ = 0;  // the innermost spatial axis
    WidthAxis axis_{};
    std::vector<PositionRun> runs_;
    std::int64_t multipliers_[3] = {0, 0, 0};
    bool huge_index_plane_ = false, small_plane_ = false, half_vectors_ = false, window_relative_ = false;
};

}  // namespace

OuterTaps outer_taps_of(const Problem& p, std::size_t axis, std::int64_t o) {
    if (p.op == OpKind::adaptive_max_pool) {
        const WindowTaps w = adaptive_window(o, p.in[axis], p.out[axis]);
        return {w.end - w.begin, w.begin};
    }
    const WindowTaps w = window_taps(o, p.in[axis], p.kernel[axis], p.stride[axis], p.dilation[axis], p.pad_begin[axis]);
    if (w.begin == w.end) return {0, 0};
    // The first real tap's position fits; the products on the way may not (strides near 2^62).
    const std::int64_t first =
        wrap_add(wrap_add(wrap_mul(o, p.stride[axis]), -p.pad_begin[axis]), wrap_mul(w.begin, p.dilation[axis]));
    return {w.end - w.begin, first};
}

KernelPlan make_plan(const Problem& p, Isa isa, const PlanOptions& options) {
    if (isa != Isa::avx2 && isa != Isa::avx512) throw Error("planner: isa must be avx2 or avx512");
    return Planner(p, caps_of(isa), options).plan();
}

}  // namespace pooljit::jit
