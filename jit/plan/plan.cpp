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
//   choose_planar_nan_watch planar rows of items read by few windows: the watch instead of the scan
//   choose_row_code_nan_watch  channels-last f32/f64 row code of dilated windows: the watch instead of the scan
//   choose_outer_unroll     items of rows whose windows hold the most common outer taps: those taps unrolled
//   choose_vertical_rows    channels-last integer pixels ending inside a vector: the window's rows merged first,
//                           flat, into a stack row that the row code reads as a row of one tap
//   choose_watch_chains     watched rows: running NaN sums per vector, taken in turn by the taps
//   choose_widened_pairs    bf16 items, whole planes and separable buffers: two vectors a load, split into
//                           even and odd elements (separable rows at stride 2: the two phases)
//   choose_even_element_loads  planar bf16/u8/s8 lanes at stride 2: one load, even elements widened in place
//                           (and the row's room around each segment's first load)
//   choose_paired_tap_loads planar lanes at stride 2 loaded as stored (or bf16): two neighbouring width taps a
//                           pair of loads (bf16: one load of whole dwords)
//   choose_row_chains       channels-last items of at most 2 vectors: each kernel row's taps in two chains
//   choose_separable_accumulators  separable rows and pixels: maxima in flight, the registers left over
//   set_strides, set_prefetch, set_indices, set_tiling: the facts the code and the executor walk
//   choose_shared_watch     watched channels-last rows: each input element added to the watch once per call
//   choose_byte_planes      planar u8/s8 whole planes: the planes' maxima reduced together in byte lanes
//   choose_flat_planes      planar u8/s8 planes whose outputs sit at their inputs: each plane one span of vectors
//   choose_byte_bands       planar u8/s8 2-D planes (byte permutes): bands of outputs from rows' maxima, permuted
//
// The steps live by what they decide (jit/planner.hpp declares them and holds the constants that more than one
// file reads), so each file holds one kind of decision: here, the run order and the plan's basic shape
// (choose_lanes, choose_vector_blocking, choose_channel_blocks, choose_width_code, choose_width_ranges and the
// set_* facts); plan_nan.cpp, how a float row's fast copy learns it holds no NaN (choose_nan_scan,
// choose_planar_nan_watch, choose_row_code_nan_watch, choose_watch_chains, choose_shared_watch); plan_items.cpp,
// the shapes and loads of the fast copy's items (choose_fast_row and its whole plane, choose_tap_passes, choose_outer_unroll,
// choose_widened_pairs, choose_even_element_loads, choose_paired_tap_loads, choose_row_chains); plan_reuse.cpp, input rows or row maxima kept in registers
// or buffers for the outputs that read them again (choose_row_ring, choose_separable_pixels, choose_column_ring,
// choose_planes, choose_separable, choose_separable_accumulators); plan_flat.cpp, planar byte planes whose
// outputs sit at their inputs, each one span of vectors (choose_flat_planes); plan_bands.cpp, planar byte planes in bands
// of outputs gathered by byte permutes (choose_byte_bands); plan_depth.cpp, which 3-D problems
// are planned as the 2-D planes of their channels (folds_depth, depth_folded).
#include "jit/plan/plan.hpp"

#include "jit/isa/caps.hpp"
#include "jit/plan/plan_rows.hpp"
#include "jit/plan/planner.hpp"
#include "jit/plan/registers.hpp"

#include <pooljit/types.hpp>

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pooljit::jit {
namespace {

// Vectors per block: enough independent dependency chains to hide the compare latency, few enough to leave the
// rest of the registers to raw bits, indices, rings and masks: an eighth of the register file (4 zmm of 32, 2
// ymm of 16), then fewer where the plan's registers would not fit.
constexpr int registers_per_block_vector = 8;
// With indices, in rows bound by compares or in windows of at least min_taps_of_long_index_chains taps, a fifth
// (3 ymm of 16; AVX-512 keeps max_vectors, 4 zmm of 32): each tap is a compare and two blends, a longer chain
// per vector, and where the window's input is not in L1 (pixels of 1 KiB, whose window rows fall into a few L1
// sets) a third chain keeps a third load in flight. Measured on AVX2 (Zen 3, 1 thread, same-run A/B, lowest of
// 6 rounds, nxc, s64 indices unless stated): SPP k9 f32 4309 -> 3640 us, u8 2877 -> 2159, bf16 4154 -> 3294;
// SPPF f32 948 -> 697 (s32 977 -> 679); Inception 154 -> 142 (s32 142 -> 127); PointNet u8 111 -> 92; global
// 7x7 u8 252 -> 195. Short windows of memory-bound rows keep 2: with 3 the 24-channel blocks left a channel
// tail that the rows swept apart (SegNet u8 nxc 2347 -> 3607 us, audio f32 2918 -> 3331).
constexpr int registers_per_block_vector_with_indices = 5;
constexpr double min_taps_of_long_index_chains = 16;
// Channels one nxc call sweeps per output pixel, in bytes: 2048 f32 channels.
constexpr std::int64_t max_sweep_bytes = 8192;
// Blocked layouts sweep blocks whose input planes span at most this many bytes (Planner::blocked_sweep_declined).
constexpr std::int64_t max_blocked_sweep_plane_bytes = 16 * 1024;
// Planar rows prefetch the input about this far ahead of the row they compute; past max_prefetch_bytes of
// input per output row (1-D signals, whose one row is the whole plane) they leave the stream to the hardware.
constexpr std::int64_t prefetch_target_distance = 12288;
constexpr std::int64_t max_prefetch_bytes = 4096;
// Channels-last 1-D rows that sweep channel blocks prefetch about this far past each output's window (whole input
// pixels): Zen 3, one thread, lowest of 15 calls in 3 interleaved runs, the audio row nxc (1x256x16000 k3 s2) f32
// 2458-2602 us without, 2080-2206 at 4 KiB, 2115-2298 at 8 KiB; bf16 1434-1676 against 905-1069 and 900-987;
// 1x512x8000 k2 s2 f32 2170-2612 against 1923-2107 and 1918-2163; 64-channel pixels (1x64x64000) 1641-2034
// against 1669-1841 and 1617-1824. 16 KiB ran 0.75-1.15x the time without.
constexpr std::int64_t sweep_prefetch_target_distance = 8192;
// Rows of at least this many outputs may be computed in pieces (width_ranges); the code clips positions near
// 2^40 at most (every width extent of the plan below max_ranged_extent keeps its sums far from 2^63).
constexpr std::int64_t min_ranged_outputs = 64;
constexpr std::int64_t max_ranged_extent = std::int64_t{1} << 40;
// Output rows per call when channel blocks go innermost (channels last, several blocks): the input rows they
// read, all channels, in about half of a 48 KiB L1 (at least one row).
constexpr std::int64_t chunk_input_bytes = 24 * 1024;

constexpr std::int64_t int32_max = std::numeric_limits<std::int32_t>::max();

// Whether a range of the input's pixels, in scan order, is the window of a problem of the same kind: one output
// per image and channel, the window the whole input, channels contiguous and pixels one stride apart (so that a
// range is a 1-D row), no indices (a range's indices would number its own pixels).
bool windows_split_into_ranges(const Problem& p) {
    if (p.has_indices || p.layout != Layout::nxc || p.src_strides.c != 1 || p.spatial_in_size() < 2) return false;
    for (int a = 0; a < p.spatial_rank; ++a) {
        const auto i = static_cast<std::size_t>(a);
        if (p.out[i] != 1) return false;
        if (p.op == OpKind::max_pool &&
            (p.kernel[i] != p.in[i] || p.dilation[i] != 1 || p.pad_begin[i] != 0 || p.pad_end[i] != 0))
            return false;
        if (a + 1 < p.spatial_rank && p.src_strides.spatial[i] != p.src_strides.spatial[i + 1] * p.in[i + 1]) return false;
    }
    return true;
}

}  // namespace

Planner::Planner(const Problem& p, const IsaCaps& caps, const PlanOptions& options)
    : p_(p), caps_(caps), options_(options), memory_(memory_facts(p)), adaptive_(p.op == OpKind::adaptive_max_pool),
      lanes_are_outputs_(planar_lanes(p, memory_)) {
    plan_.isa = caps.isa;
    plan_.memory = memory_;
    plan_.choice = options.choice;
    plan_.strategy = lanes_are_outputs_ ? Strategy::ncx_width : Strategy::nxc_channels;
    plan_.dtype = p.dtype;
    plan_.nan = p.nan;
    plan_.spatial_rank = p.spatial_rank;
    plan_.vector_bytes = caps.vector_bytes;
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
    // A plane whose source spans less than 2^31 bytes (a dense one: its elements; a view: to its last element).
    std::int64_t plane_span = 1;
    for (int a = 0; a < p.spatial_rank; ++a) {
        const auto u = static_cast<std::size_t>(a);
        plane_span = memory_.planes_contiguous ? plane_span * p.in[u] : wrap_add(plane_span, wrap_mul(p.in[u] - 1, p.src_strides.spatial[u]));
    }
    small_plane_ = plane_span >= 0 && plane_span < (std::int64_t{1} << 31) / static_cast<std::int64_t>(size_of(p.dtype));
}

KernelPlan Planner::plan() && {
    const bool lanes = options_.blocks_folded && blocks_as_lanes(p_);
    if (options_.blocks_folded) {
        plan_.blocks_folded = true;
        chose("block_fold", lanes ? "blocked bytes at stride 2: " + std::to_string(p_.channels) +
                                        " channel blocks as planar channels whose last axis is the block's lanes"
                                  : "blocked bytes at stride 1: " + std::to_string(p_.channels) +
                                        " channel blocks as planar rows of bytes, width taps a block apart");
    }
    if (options_.depth_folded) {
        plan_.depth_folded = true;
        chose("depth_fold", "windows one plane deep: the planes of " + std::to_string(p_.channels) +
                                " channels (C x D) as 2-D planes");
    }
    if (lanes) {
        // The lane-axis problem is blocked_byte_pixels' alone: the row code would compute a partial last block's
        // padded lanes from the source's and store them (its tail entry stores them as 0).
        if (choice().planes == PlanChoice::Switch::off)
            unhonoured("planes=off", "blocked bytes folded into their lanes run only their own plane code");
        if (!blocked_pixels_fit(p_)) throw Error("jit: the lane-axis problem does not fit blocked_byte_pixels' code");
        choose_blocked_pixels();
        set_expected_work();
        check_choice_honoured();
        return std::move(plan_);
    }
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
    choose_row_code_nan_watch();
    choose_outer_unroll();
    choose_vertical_rows();
    choose_watch_chains();
    choose_widened_pairs();
    choose_even_element_loads();
    choose_paired_tap_loads();
    choose_row_chains();
    choose_separable_accumulators();
    set_strides();
    choose_tail_back_reads();
    set_prefetch();
    set_indices();
    set_tiling();
    choose_shared_watch();
    choose_byte_planes();
    choose_flat_planes();
    choose_byte_bands();
    choose_half_float_scan();
    set_expected_work();
    check_choice_honoured();
    return std::move(plan_);
}

void Planner::check_choice_honoured() {
    const PlanChoice& c = choice();
    using Reuse = PlanChoice::Reuse;
    const bool ring = plan_.ring_rows > 0, separable = plan_.separable.enabled();
    if (c.reuse == Reuse::ring && !ring) unhonoured("reuse=ring", "no ring of row maxima serves these rows");
    if (c.reuse == Reuse::separable && !separable) unhonoured("reuse=separable", "no separable buffers serve these rows");
    if (c.planes == PlanChoice::Switch::on && plan_.strategy != Strategy::ncx_planes && !plan_.byte_planes.enabled())
        unhonoured("planes=on", "the planes do not fit in registers");
    const bool masked = std::any_of(plan_.fast_segments.begin(), plan_.fast_segments.end(),
                                    [](const Segment& s) { return s.masked; });
    if (c.masked == PlanChoice::Switch::on && !masked) unhonoured("masked=on", "no masked border items serve these rows");
    if (c.masked == PlanChoice::Switch::off && !lanes_are_outputs_) unhonoured("masked=off", "channels-last rows have no border items");
    if (c.pairs == PlanChoice::Switch::on && !plan_.widened_pairs && !plan_.separable.widened_pairs)
        unhonoured("pairs=on", "no bf16 items load their vectors in pairs here");
    if (c.tap_pairs == PlanChoice::Switch::on && !plan_.paired_tap_loads)
        unhonoured("tap_pairs=on", "no planar items at lane stride 2 merge two width taps from one pair of loads here");
    const bool taps_as_lanes = std::any_of(plan_.fast_segments.begin(), plan_.fast_segments.end(),
                                           [](const Segment& s) { return s.taps_as_lanes; });
    if (c.ranks != PlanChoice::Switch::rules && !(taps_as_lanes && caps_.opmasks))
        unhonoured(c.ranks == PlanChoice::Switch::on ? "ranks=on" : "ranks=off",
                   "no taps-as-lanes items under opmasks here (ranks ride in masked moves)");
    if (c.vertical == PlanChoice::Switch::on && !plan_.vertical_rows.enabled())
        unhonoured("vertical=on", "no channels-last integer rows take their window rows first here: " + vertical_rows_declined());
    if (c.bands == PlanChoice::Switch::on && !plan_.byte_bands.enabled())
        unhonoured("bands=on", "no planar byte bands serve these planes (2-D u8/s8 max pools without indices, AVX512_VBMI)");
    if (c.nan == PlanChoice::Nan::watch && !plan_.watch_rows_for_nan)
        unhonoured("nan=watch", "these rows' code does not watch its loads");
    if (c.sweep_bytes != 0 && lanes_are_outputs_) unhonoured("sweep_bytes", "planar rows sweep no channel blocks");
    if (c.separable_kib != 0 && !(lanes_are_outputs_ && separable))
        unhonoured("separable_kib", "no planar separable rows here");
    if (c.prefetch_kib > 0 && plan_.prefetch_distance == 0 && plan_.sweep_prefetch_distance == 0 &&
        plan_.byte_bands.prefetch_distance == 0)
        unhonoured("prefetch_kib", "these rows prefetch nothing");
    if (c.prefetch_kib < 0 && !(plan_.strategy == Strategy::ncx_width && p_.spatial_rank >= 2) && !sweep_prefetch_rows() &&
        !plan_.byte_bands.enabled())
        unhonoured("prefetch_kib", "only planar rows of 2-D and 3-D planes, looped byte bands and channels-last 1-D sweeps prefetch");
    if (c.ranges != PlanChoice::Switch::rules && !(windows_split_into_ranges(p_) && plan_.strategy == Strategy::nxc_channels))
        unhonoured(c.ranges == PlanChoice::Switch::on ? "ranges=on" : "ranges=off",
                   "no global window of channels-last pixels one stride apart, without indices, here");
    if (c.chunk_kib != 0 && !(plan_.channel_blocks_innermost && !ring && !separable))
        unhonoured("chunk_kib", "no channels-last calls of chunks of rows here");
}

// Lanes: compare-type lanes of a vector; u8/s8 channels last without indices compare in their own bytes (no
// widening or narrowing); indices of planes beyond 2^31 elements take 64-bit lanes beside half vectors of
// data where a window reaches 2^31 index units, else count from each window's first tap.
void Planner::choose_lanes() {
    plan_.compare = compare_type_of(p_.dtype);
    const bool narrow_integers = p_.dtype == DType::u8 || p_.dtype == DType::s8;
    if (narrow_integers) {
        if (lanes_are_outputs_) {
            if (const std::string why = byte_plane_registers_declined(); !why.empty()) {
                declined("byte_planes_in_registers", why);
            } else {
                byte_rows_ = byte_planes_in_registers_ = true;
                plan_.compare = p_.dtype == DType::u8 ? CompareType::u8 : CompareType::s8;
                chose("byte_planes_in_registers", std::to_string(caps_.vector_bytes) + " outputs a vector");
            }
            if (byte_rows_) {
            } else if (const std::string why = byte_rows_declined(); !why.empty()) {
                declined("byte_rows", why);
                declined("byte_lanes", "planar rows widen bytes to 32-bit lanes");
            } else {
                byte_rows_ = true;
                plan_.compare = p_.dtype == DType::u8 ? CompareType::u8 : CompareType::s8;
                chose("byte_rows", std::to_string(caps_.vector_bytes) + " outputs a vector, through separable rows");
            }
        } else if (channels_apart() && memory_.channel_run < min_byte_lane_run(caps_.vector_bytes))
            declined("byte_lanes", "runs of " + std::to_string(memory_.channel_run) + " consecutive channels would fill " +
                                       std::to_string(memory_.channel_run) + " of " + std::to_string(caps_.vector_bytes) +
                                       " byte lanes");
        else if (p_.has_indices) declined("byte_lanes", "indices need 32-bit lanes beside the values");
        else if (!caps_.byte_max) declined("byte_lanes", "the ISA has no byte max");
        else {  // a partial vector (the channel tail) loads and stores its exact bytes in registers
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

// Channels-last indices whose compare-and-blend chains are long enough to want a third vector a block (see
// registers_per_block_vector_with_indices): rows bound by compares, or windows of many taps (a global pool's,
// an adaptive bin of ceil(in / out) + 1 a side at most). Planar rows keep their blocking: later steps of theirs
// (taps as lanes) take registers that a third vector would leave them short of.
bool Planner::long_index_chains() const {
    if (!p_.has_indices || lanes_are_outputs_) return false;  // measured channels last only
    if (reads_per_element(p_) >= min_reads_of_compare_bound_rows) return true;
    double taps = 1;
    for (int a = 0; a < p_.spatial_rank; ++a) {
        const auto u = static_cast<std::size_t>(a);
        // ceil(in / out) + 1 without in + out, which could pass 2^63.
        const std::int64_t side = adaptive_ ? (p_.in[u] - 1) / p_.out[u] + 2 : p_.kernel[u];
        taps *= static_cast<double>(side);
    }
    return taps >= min_taps_of_long_index_chains;
}

// As many vectors per block as the lanes need, up to an eighth of the registers (a fifth for long index
// chains), and fewer while the plan's registers (accumulators, raw f16 bits, indices, the trait's masks) would
// not fit.
void Planner::choose_vector_blocking() {
    const std::int64_t lane_items =
        lanes_are_outputs_ ? plan_.out_width : channels_apart() ? memory_.channel_run : p_.channels;
    const std::int64_t vectors_needed = (lane_items + plan_.lanes - 1) / plan_.lanes;
    const int per_vector = long_index_chains() ? registers_per_block_vector_with_indices : registers_per_block_vector;
    const int most = std::min(max_vectors, caps_.vector_registers / per_vector);
    plan_.vectors_per_block = static_cast<int>(std::clamp<std::int64_t>(vectors_needed, 1, most));
    while (plan_.vectors_per_block > 1 && !fits_registers(plan_)) --plan_.vectors_per_block;
    // A call's channels stay inside one run of consecutive channels: its block divides the run.
    while (channels_apart() && plan_.vectors_per_block > 1 &&
           memory_.channel_run % (std::int64_t{plan_.vectors_per_block} * plan_.lanes) != 0)
        --plan_.vectors_per_block;
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

void Planner::choose_channel_blocks() {
    if (lanes_are_outputs_) {
        plan_.channel_block = 1;
        plan_.channel_tail = 0;
        return;
    }
    plan_.channel_block =
        std::min<std::int64_t>(plan_.vectors_per_block * plan_.lanes, std::max<std::int64_t>(p_.channels, 1));
    if (channels_apart()) {
        // Calls of whole runs (or of blocks that divide one), one call a run at a time: no sweep, which would
        // step from a run's last block into memory of another; except blocked layouts' small planes, below.
        plan_.channel_block = std::min(plan_.channel_block, memory_.channel_run);
        plan_.channel_tail = p_.channels % plan_.channel_block;
        if (const std::string why = blocked_sweep_declined(); !why.empty()) return declined("channel_sweep", why);
    } else {
        plan_.channel_tail = p_.channels % plan_.channel_block;
        balance_channel_blocks();
    }
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
    const std::int64_t most_sweep_bytes = choice().sweep_bytes != 0 ? choice().sweep_bytes : max_sweep_bytes;
    for (std::int64_t sweep = std::min(full_blocks, most_sweep_bytes / block_bytes); sweep > 1; --sweep)
        if (full_blocks % sweep == 0) {
            plan_.channel_sweep = sweep;
            chose("channel_sweep", std::to_string(sweep) + " blocks a call");
            return;
        }
}

// Blocked layouts (one call a block of the layout): a call sweeps blocks a block's stride apart where a block's
// input plane spans at most max_blocked_sweep_plane_bytes, so that a call does more than its own set-up: a global
// 7x7 pool of 16x2048 nCx16c f32 made 2048 calls of 49 loads each, 22 ns of set-up a call (a 1x2 plane of the
// same blocks took 46 us, where nxc took 4).
std::string Planner::blocked_sweep_declined() const {
    const std::string runs = "channels are consecutive in runs of " + std::to_string(memory_.channel_run) + " only";
    if (p_.block <= 1 || memory_.channel_run != p_.block || plan_.channel_block != p_.block) return runs;
    if (plan_.is_float && plan_.scan_rows_for_nan) return runs + " (the NaN scan reads a call's channels as one run)";
    std::int64_t plane_bytes = p_.block * elem();  // bounded before it is multiplied
    for (int a = 0; a < p_.spatial_rank; ++a) {
        const std::int64_t in = std::max<std::int64_t>(1, p_.in[static_cast<std::size_t>(a)]);
        if (plane_bytes > max_blocked_sweep_plane_bytes / in)
            return runs + " and blocks' planes of more than " + std::to_string(max_blocked_sweep_plane_bytes) + " bytes";
        plane_bytes *= in;
    }
    return {};
}

// A tail block is a call of its own, with a row loop of its own, after the full blocks' calls (u8 nxc 120
// channels on AVX2: blocks of 64 and a tail of 56). Rows bound by memory whose channels split into blocks of
// equal size that load no more vectors a pixel than the full blocks and the tail take them: 120 u8 channels
// as two blocks of 60 ran k2 s2 1.72 -> 1.27 us, k3 s2 8.86 -> 7.48; f32 on AVX-512 k3 s2 36.6 -> 30.4 (Zen 4).
// Not where a split adds a partial vector (72 u8 channels as two blocks of 36, or 96 as two of 48: 1.2x slower),
// nor rows bound by compares (k3 s1: 1.04-1.25x slower; their blocks stay in L1 one at a time).
void Planner::balance_channel_blocks() {
    if (plan_.channel_tail == 0 || reads_per_element(p_) >= min_reads_of_compare_bound_rows) return;
    const std::int64_t lanes = plan_.lanes, full_blocks = p_.channels / plan_.channel_block;
    const std::int64_t blocks = full_blocks + 1;
    if (p_.channels % blocks != 0) return;
    const std::int64_t balanced = p_.channels / blocks;
    const std::int64_t vectors_now = full_blocks * plan_.vectors_per_block + (plan_.channel_tail + lanes - 1) / lanes;
    if (blocks * ((balanced + lanes - 1) / lanes) > vectors_now) return;
    plan_.channel_block = balanced;
    plan_.vectors_per_block = static_cast<int>((balanced + lanes - 1) / lanes);  // the registers the block holds
    plan_.channel_tail = 0;
    plan_.balanced_blocks = true;
    chose("balanced_blocks", std::to_string(blocks) + " blocks of " + std::to_string(balanced) + " channels, no tail");
}

// Segments of runs of equal windows along the width (straight-line code per run), or windows computed at
// run time when the row has too many runs.
void Planner::choose_width_code() {
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

// A row of pieces clips its segments and NaN scan to the call's outputs at run time: a few instructions per
// segment, so only rows long enough to be worth splitting take it. The clipping computes positions
// out * stride - pad + extent, kept small by bounding each term.
void Planner::choose_width_ranges() {
    const std::int64_t pad_end_w = adaptive_ ? 0 : p_.pad_end[wa_];
    plan_.width_ranges = !lanes_are_outputs_ && !adaptive_ && !plan_.computed_windows &&
                         plan_.out_width >= min_ranged_outputs && axis_.in < max_ranged_extent &&
                         axis_.pad < max_ranged_extent && pad_end_w < max_ranged_extent &&
                         axis_.stride < max_ranged_extent;
}

// Byte steps from the tensors' strides. Planar rows step one element along the width (their rows are
// contiguous: MemoryFacts::rows_contiguous); channels-last code steps a pixel, whatever its channels' stride.
void Planner::set_strides() {
    const int w = p_.spatial_rank - 1;
    const std::int64_t index_elem = static_cast<std::int64_t>(size_of(p_.index_dtype));
    const std::int64_t src_step = lanes_are_outputs_ ? elem() : wrap_mul(p_.src_strides.spatial[wa_], elem());
    plan_.src_step_w = src_step;
    plan_.src_tap_stride_w = wrap_mul(plan_.dilation_w, src_step);
    plan_.src_out_stride_w = wrap_mul(plan_.stride_w, src_step);
    plan_.dst_out_stride_w = lanes_are_outputs_ ? elem() : wrap_mul(p_.dst_strides.spatial[wa_], elem());
    if (p_.has_indices)
        plan_.indices_out_stride_w = lanes_are_outputs_ ? index_elem : wrap_mul(p_.indices_strides.spatial[wa_], index_elem);
    const auto tap_stride = [&](int a) {
        return wrap_mul(dilation_of(a), p_.src_strides.spatial[static_cast<std::size_t>(a)], elem());
    };
    if (p_.spatial_rank >= 2) plan_.src_tap_stride_h = tap_stride(w - 1);
    if (p_.spatial_rank >= 3) plan_.src_tap_stride_d = tap_stride(0);
    if (plan_.channel_sweep > 1) {
        const Problem::Spatial origin{0, 0, 0};
        const auto step = [&](const Problem::Strides& s, std::int64_t bytes) {
            return wrap_mul(p_.offset(s, 0, plan_.channel_block, origin), bytes);
        };
        plan_.sweep_src_step = step(p_.src_strides, elem());
        plan_.sweep_dst_step = step(p_.dst_strides, elem());
        if (p_.has_indices) plan_.sweep_indices_step = step(p_.indices_strides, index_elem);
    }
}

// The hardware prefetcher alone kept a DRAM-sized stem's planes (16x64x112x112 ncx f32) at 8.4 ms, 2x the
// same plane count in cache; the row's own NaN scan then waited on every line.
void Planner::set_prefetch() {
    if (sweep_prefetch_rows() && choice().prefetch_kib >= 0) {
        const std::int64_t pixel = wrap_mul(p_.src_strides.spatial[wa_], elem());
        const std::int64_t target = choice().prefetch_kib > 0 ? std::int64_t{choice().prefetch_kib} * 1024
                                                              : sweep_prefetch_target_distance;
        plan_.sweep_prefetch_pixel_bytes = pixel;
        plan_.sweep_prefetch_distance = (target + pixel - 1) / pixel * pixel;
        plan_.sweep_prefetch_pixels = p_.stride[wa_];
        return;
    }
    if (plan_.strategy != Strategy::ncx_width || p_.spatial_rank < 2) return;
    // An input row is at most the tensor's bytes (validated below 2^63); the stride is only bounded by 2^63,
    // so the bound is divided, never multiplied past it.
    // The rows one output row steps over, from the first row's start (a view's row pitch included).
    const std::int64_t in_row_bytes = std::max<std::int64_t>(1, wrap_mul(p_.src_strides.spatial[wa_ - 1], elem()));
    if (p_.stride[wa_ - 1] > max_prefetch_bytes / in_row_bytes) return;
    const std::int64_t row_bytes = p_.stride[wa_ - 1] * in_row_bytes;
    if (choice().prefetch_kib < 0) return;
    // 2-D windows apart along h (each input row read by one output row): the hardware's streams kept up, and the
    // burst at each row's start only competed with them (Zen 4, one thread, without the prefetch, same runs:
    // f32 VGG pool1 0.72x the time, SegNet f32 and bf16 0.74-0.75x, VGG pool3 0.84x, global 7x7 of 16x2048 f32
    // and bf16 0.88-0.92x, u8 and other cells level). Overlapping windows (the stem at batch 16: 1.06-1.13x
    // slower without) and 3-D windows (C3D f32 1.30x slower without) keep it.
    const auto h = wa_ - 1;
    if (choice().prefetch_kib == 0 && p_.spatial_rank == 2 && !adaptive_ &&
        p_.stride[h] / std::max<std::int64_t>(p_.dilation[h], 1) >= p_.kernel[h])
        return;
    const std::int64_t target = choice().prefetch_kib > 0 ? std::int64_t{choice().prefetch_kib} * 1024 : prefetch_target_distance;
    plan_.prefetch_bytes = row_bytes;
    plan_.prefetch_distance = (target + row_bytes - 1) / row_bytes * row_bytes;
    // 3-D windows of several planes, each input row read by one output row only (windows apart along d and h):
    // the burst at the row's start covers the rows of the window's first plane only (C3D's k2x2x2 s2x2x2 ncx
    // f32 1x128: 1790 -> 1638 us with the items' prefetches, with s64 indices 2753 -> 1830). In 2-D rows the
    // items' prefetches measured level to 1.25x slower (VGG pool1 ncx f32 342-456 against 364-418 us over 5
    // runs), and where windows overlap slower (the stem's 3 rows at stride 2 with indices 326 -> 395).
    bool apart = !adaptive_ && p_.spatial_rank == 3 && p_.kernel[0] > 1;
    for (int a = 0; a + 1 < p_.spatial_rank; ++a) {
        const auto u = static_cast<std::size_t>(a);
        apart = apart && p_.stride[u] / std::max<std::int64_t>(p_.dilation[u], 1) >= p_.kernel[u];
    }
    plan_.prefetch_in_items = apart && plan_.unrolled_taps_h > 0 && plan_.unroll_width_taps && plan_.ring_rows == 0 &&
                              !plan_.separable.enabled();
}

// Channels-last 1-D rows whose calls sweep channel blocks: the hardware's streams fell behind (the pixels of
// each output are read a block at a time, a few lines of each; measured on AVX2 only). Pixels of at most 4 KiB,
// an output stepping over at most 4 of them. With indices too (Zen 3, the tuner's interleaved times, without ->
// with: the audio row f32 s64 4460 -> 3445 us, s32 3451 -> 2196, bf16 s64 2781 -> 2422, u8 s64 level).
bool Planner::sweep_prefetch_rows() const {
    if (plan_.strategy != Strategy::nxc_channels || p_.spatial_rank != 1 || plan_.channel_sweep <= 1 || adaptive_ ||
        caps_.opmasks || p_.stride[wa_] > 4)
        return false;
    const std::int64_t pixel = wrap_mul(p_.src_strides.spatial[wa_], elem());
    return pixel > 0 && pixel <= max_prefetch_bytes;
}

void Planner::set_indices() {
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
void Planner::set_tiling() {
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
    // Byte pairs read each output row's window rows straight from the input, no buffers: their planes stack too.
    if (sr == 2 && plan_.strategy == Strategy::ncx_width && plan_.ring_rows == 0 &&
        (!plan_.separable.enabled() || plan_.separable.byte_pairs) && memory_.planes_stack) {
        const std::int64_t step = stacked_plane_step(p_, plan_);
        plan_.stacked_planes = step > 0;
        if (plan_.stacked_planes) plan_.row_runs_h.front().position_step = step;
    }
    // Divisions only: a stride near 2^62 must not overflow.
    const std::int64_t stride_h = sr >= 2 ? std::max<std::int64_t>(1, p_.stride[h]) : 1;
    const std::int64_t row_bytes = std::max<std::int64_t>(1, p_.in[wa_] * p_.channels * elem());
    const std::int64_t chunk_bytes = choice().chunk_kib > 0 ? std::int64_t{choice().chunk_kib} * 1024 : chunk_input_bytes;
    plan_.rows_per_chunk = std::max<std::int64_t>(1, chunk_bytes / row_bytes / stride_h);
    plan_.channel_blocks_innermost = !lanes_are_outputs_ && !channels_apart();
    plan_.sweep_splits = plan_.channel_sweep > 1 && !plan_.scan_rows_for_nan;
    plan_.window_ranges = windows_split_into_ranges(p_) && plan_.strategy == Strategy::nxc_channels &&
                          choice().ranges != PlanChoice::Switch::off;
    set_byte_pair_reach();
}

// Byte pairs on a trait without opmasks, 2-D: each output row but a call's last loads whole registers where its
// row's bytes end short of one (a 7-output row of VGG pool5 read 14 bytes in three loads a row) and, where the
// output rows abut, stores whole registers. A call's next output row (the plane's next, or in planes that stack
// the next plane's first) has its window at least one input row further on (every run of rows steps forward),
// so the bytes up to the row pitch and one row past a row's start are the tensor's, read later by the same
// call; the stored bytes past an output row are the next row's, which the call stores after it. Opmasks load
// and store a partial vector in one instruction.
void Planner::set_byte_pair_reach() {
    SeparableRows& sep = plan_.separable;
    if (!sep.byte_pairs || caps_.opmasks || p_.spatial_rank != 2 || plan_.taps_h.empty()) return;
    // Planes of one output row that do not stack: a call's rows are consecutive channels, any channel stride apart.
    if (p_.out[0] == 1 && !plan_.stacked_planes) return;
    for (const RowRun& run : plan_.row_runs_h)
        if (run.end - run.begin >= 2 && run.position_step < 1) return;  // rows of one window (a short input)
    const std::int64_t pitch = p_.src_strides.spatial[0], in_w = p_.in[1];
    if (pitch < in_w) return;  // rows that overlap (a 0 stride): no row past this one's end
    constexpr std::int64_t most_reach = std::int64_t{1} << 20;  // more than any load's offset and width
    sep.row_read_reach = std::min(pitch, most_reach) + std::min(in_w, most_reach);
    sep.rows_store_whole = p_.dst_strides.spatial[0] == p_.out[1];
}

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

namespace {

// The max pool whose windows are an adaptive pool's, where along every spatial axis the bins are a max pool's
// windows of k elements s apart, clipped to the input at both ends (13 -> 6 bins: k3 s2; 14 -> 7: k2 s2; 13 -> 7:
// k3 s2 with one padded element at each end, its first and last bins 2 long; one bin: the whole axis), indices
// numbered per plane as the adaptive pool's (axis 2). Empty where some axis's bins are not.
std::optional<Problem> max_pool_of_even_bins(const Problem& p) {
    if (p.op != OpKind::adaptive_max_pool) return std::nullopt;
    Problem m = p;
    for (int a = 0; a < p.spatial_rank; ++a) {
        const auto u = static_cast<std::size_t>(a);
        const std::int64_t in = p.in[u], out = p.out[u];
        if (out > max_table_rows || in > (std::int64_t{1} << 40)) return std::nullopt;  // (products below fit)
        std::int64_t k = in, s = 1, pad = 0;
        if (out >= 3) {  // an inner bin is a whole window: its length, the step to the next, the padding before
            const WindowTaps second = adaptive_window(1, in, out);
            k = second.end - second.begin;
            s = adaptive_window(2, in, out).begin - second.begin;
            pad = s - second.begin;
        } else if (out == 2) {  // two bins: no padding
            k = adaptive_window(0, in, out).end;
            s = adaptive_window(1, in, out).begin;
        }
        if (s < 1 || pad < 0 || pad >= k) return std::nullopt;
        for (std::int64_t o = 0; o < out; ++o) {
            const WindowTaps w = adaptive_window(o, in, out);
            const std::int64_t first = o * s - pad;  // (bins of at most 2^16 outputs: no overflow)
            if (w.begin != std::max<std::int64_t>(first, 0) || w.end != std::min(first + k, in)) return std::nullopt;
        }
        const std::int64_t pad_end = (out - 1) * s - pad + k - in;
        if (pad_end < 0 || pad_end >= k) return std::nullopt;
        m.kernel[u] = k;
        m.stride[u] = s;
        m.dilation[u] = 1;
        m.pad_begin[u] = pad;
        m.pad_end[u] = pad_end;
    }
    m.op = OpKind::max_pool;
    m.axis = 2;
    m.order = StorageOrder::row_major;
    return m;
}

}  // namespace

KernelPlan make_plan(const Problem& p, Isa isa, const PlanOptions& options) {
    if (isa != Isa::avx2 && isa != Isa::avx512) throw Error("planner: isa must be avx2 or avx512");
    // Adaptive bins that are a max pool's windows: where that max pool takes byte pairs (u8/s8 planar rows at
    // stride 2, AVX2) or byte bands (AVX-512 byte permutes), the plan is its. Zen 3, one thread, 1x256x13x13 to
    // 6x6 u8 ncx: 12.7 us in 32-bit lanes, 6.9 as k3 s2 byte pairs (--interleave 2000); Xeon 2: 4.0 us as byte
    // planes in registers, 2.4 as k3 s2 byte bands, to 7x7 (1x512) 9.0 and 4.7. f32 and bf16 ran 3-8% slower as
    // the max pool's plans and keep the adaptive ones. The executor runs the adaptive problem: the same windows
    // and indices.
    const bool byte_data = (p.dtype == DType::u8 || p.dtype == DType::s8) && !p.has_indices;  // byte pairs' only
    if (const std::optional<Problem> even = byte_data ? max_pool_of_even_bins(p) : std::nullopt) {
        try {
            KernelPlan plan = make_plan(*even, isa, options);
            if (plan.separable.byte_pairs || plan.byte_bands.enabled()) {
                std::string windows;
                for (int a = 0; a < even->spatial_rank; ++a) {
                    const auto u = static_cast<std::size_t>(a);
                    windows += (a > 0 ? ", " : "") + std::string("k") + std::to_string(even->kernel[u]) + " s" +
                               std::to_string(even->stride[u]) + " p" + std::to_string(even->pad_begin[u]) + "/" +
                               std::to_string(even->pad_end[u]);
                }
                plan.choices.push_back("adaptive_bins: a max pool's windows (" + windows + "), planned as that max pool");
                return plan;
            }
        } catch (const UnhonouredChoice&) {
        }
    }
    // Planar byte lanes exist only in separable rows and planes in registers: where a later step left the rows to
    // other code (the buffers or registers do not fit, a choice asks for other code), the rows are planned again
    // in 32-bit lanes.
    PlanOptions widened = options;
    widened.no_byte_rows = true;
    try {
        KernelPlan plan = Planner(p, caps_of(isa), options).plan();
        const bool byte_rows = plan.strategy == Strategy::ncx_width && lane_bytes(plan.compare) == 1;
        if (!byte_rows || plan.separable.enabled() || plan.byte_planes.enabled() || plan.flat_planes.enabled() ||
            plan.byte_bands.enabled())
            return plan;
    } catch (const UnhonouredChoice&) {
        const bool bytes = (p.dtype == DType::u8 || p.dtype == DType::s8) && !p.has_indices;
        if (options.no_byte_rows || !bytes) throw;
    }
    return Planner(p, caps_of(isa), widened).plan();
}

}  // namespace pooljit::jit
