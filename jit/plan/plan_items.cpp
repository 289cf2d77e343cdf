// The planner's steps for the fast copy's items (run in the order jit/plan.cpp gives): the item shapes planar
// fast rows may take of their own (a whole plane as one span, taps as lanes, masked borders), tap passes over
// wide channels-last pixels, the outer taps unrolled, and how narrow items load (widened pairs, even elements).
// Each trades code size or registers for fewer loads, reductions or branches an item, and is taken only where
// it was measured to pay.
#include "jit/plan/planner.hpp"

#include "jit/plan/plan_rows.hpp"

#include <pooljit/types.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace pooljit::jit {
namespace {

// Fast items merge the taps of windows with the row's most common outer taps in straight-line code up to this
// many taps a window; wider windows loop along h (and d). 32 takes a 5x5 window and every window of the suite
// but the 7x7 and 9x9 ones, whose loops of 7 and 9 rows end in one mispredict per 7 or 9 rows; a copy of 32
// taps is at most 32 x 4 vectors of merges, and creation's median rose from 34 to 37-41 us with it.
constexpr std::int64_t max_unrolled_window_taps = 32;
// Whole-plane items are straight-line code of two passes over the plane's vectors (the maximum, then the first
// element equal to it) up to this many vectors (256 f32 elements in zmm, a 16x16 global pool); longer planes loop.
constexpr std::int64_t max_unrolled_whole_plane_vectors = 16;
// Swept pixels of at least this many bytes, windows of at least this many width taps, compute their windows in
// tap passes (choose_tap_passes).
constexpr std::int64_t min_tap_pass_sweep_bytes = 1024;
constexpr std::int64_t min_tap_pass_width_taps = 5;
// With indices, the index lanes of a call's blocks wait on the stack between passes.
constexpr std::int64_t max_tap_pass_index_buffer_bytes = 64 * 1024;

}  // namespace

// Planar fast rows (input without NaN) may use item shapes of their own: a window of the whole plane read as
// one span; a window's taps as lanes where a row has few outputs for its windows; else masked items that let
// border outputs share vectors with interior ones (every kernel tap unrolled, a mask per tap). Taps as lanes
// with indices keep each lane's scan rank as its row's byte offset in the window, in 32-bit lanes, with opmasks;
// otherwise the window's maximum goes to every lane and a second pass over its rows finds the first element
// equal to it (only for indices or a float maximum of zero: any other maximum's bits are the element's).
void Planner::choose_fast_row() {
    constexpr const char* step = "fast_row";
    if (!lanes_are_outputs_) return;
    if (byte_rows_) return declined(step, byte_lanes_taken());
    if (plan_.computed_windows) return declined(step, "the row's windows are computed at run time");
    if (!half_vectors_ && small_plane_ && memory_.planes_contiguous)
        plan_.fast_segments = whole_plane_segments(p_, multipliers_, plan_.lanes);
    if (!plan_.fast_segments.empty()) return choose_whole_plane();
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
    if (!plan_.fast_segments.empty() && caps_.opmasks) {
        // Ranks cost a compare and two masked moves a row where the maximum alone is one max: they pay only
        // for indices, which every window would otherwise search for in its rows. Values without them, Xeon 2
        // (adaptive 13x13 ncx, one thread, 5 alternating rounds): to 2x2 f32 15.3 -> 11.9 us, bf16 19.0 -> 13.0,
        // f16 19.4 -> 13.2, u8 10.5 -> 9.2; to 3x3 f16 26.4 -> 18.1.
        plan_.taps_as_lanes_ranked = choice().ranks == PlanChoice::Switch::rules ? p_.has_indices
                                                                                 : choice().ranks == PlanChoice::Switch::on;
        return chose(step, plan_.taps_as_lanes_ranked ? "taps as lanes, each lane's scan rank kept"
                                                      : "taps as lanes, the maximum alone (a float zero searched for in the window's rows)");
    }
    if (!plan_.fast_segments.empty()) {
        // Lanes past the window are blended out at every row, so a row loads a whole register where the
        // input row holds one: a partial vector of narrow data is a load per piece.
        mark_whole_register_loads(plan_.fast_segments, axis_, plan_.lanes, plan_.vector_bytes / lane_bytes(plan_.compare));
        return chose(step, "taps as lanes, the first maximum found by a search of the window's rows");
    }
    if (!caps_.opmasks) return declined(step, "masked border items pick lanes by opmask");
    if (choice().masked == PlanChoice::Switch::off) return declined(step, "the choice masked=off");
    if (!adaptive_ && axis_.kernel <= max_unrolled_width_taps)
        plan_.fast_segments = masked_fast_segments(axis_, plan_.width_runs, plan_.vectors_per_block * plan_.lanes);
    if (!plan_.fast_segments.empty()) return chose(step, "masked border items");
    declined(step, "no item shape of its own pays here");
}

// A window of the whole plane read as one span: straight-line code up to max_unrolled_whole_plane_vectors, a
// loop beyond (PointNet's 1024-element rows), with as many maxima in flight as a block has vectors.
void Planner::choose_whole_plane() {
    const std::int64_t vectors = (plan_.fast_segments.front().taps + plan_.lanes - 1) / plan_.lanes;
    plan_.loop_whole_plane = vectors > max_unrolled_whole_plane_vectors;
    plan_.whole_plane_stores_maximum = !p_.has_indices;
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

// Planar u8/s8 whole planes without indices: the planes' maxima in byte lanes, reduced together (BytePlanes).
// Widened, each plane took its 32-bit vectors and a reduction across the lanes of its own, 5 or 6 shuffles and
// maxes for one output byte: the global 7x7 of 16x2048 u8 planes ran 4.5x the time of its nxc twin.
void Planner::choose_byte_planes() {
    constexpr const char* step = "byte_planes";
    if (!lanes_are_outputs_ || !has_whole_plane(plan_)) return;
    if (p_.dtype != DType::u8 && p_.dtype != DType::s8) return;
    if (p_.has_indices) return declined(step, "indices need 32-bit lanes beside the values");
    if (!caps_.byte_max) return declined(step, "the ISA has no byte max");
    if (choice().planes == PlanChoice::Switch::off) return declined(step, "the choice planes=off");
    const std::int64_t elements = plan_.fast_segments.front().taps;  // the plane, one contiguous span
    constexpr std::int64_t min_vector_bytes = 16;
    if (elements < min_vector_bytes)
        return declined(step, "planes of fewer than " + std::to_string(min_vector_bytes) + " bytes");
    int bytes = caps_.vector_bytes;
    while (bytes > elements) bytes /= 2;
    BytePlanes planes;
    planes.vector_bytes = bytes;
    planes.elements = elements;
    // Two chains hide a max's latency behind the loads; four where a plane has four loads or more. A loop
    // beyond 16 whole vectors (PointNet's 1024 bytes in ymm: 32), a shared routine beyond 4 loads (the code
    // of a group is then 16 to 64 calls, not 16 to 64 copies of the loads).
    constexpr std::int64_t max_straight_vectors = 16, max_inline_loads = 4;
    const std::int64_t loads = planes.loads();
    planes.chains = loads >= 4 ? 4 : loads >= 2 ? 2 : 1;
    if (planes.whole_vectors() > max_straight_vectors)
        planes.loop_passes = (planes.whole_vectors() - planes.chains) / planes.chains;
    planes.shared_routine = loads > max_inline_loads;
    plan_.byte_planes = planes;
    plan_.prefetch_distance = plan_.prefetch_bytes = 0;  // a call's planes are one stream the hardware follows
    plan_.compare = p_.dtype == DType::u8 ? CompareType::u8 : CompareType::s8;
    plan_.lanes = bytes;
    chose(step, std::to_string(bytes) + " planes reduced together, each read in vectors of " + std::to_string(bytes) +
                    " bytes");
}

// bf16 values: the items of consecutive lanes load their vectors two at a time (plan.widened_pairs), where
// the trait can split a load into even and odd elements and the items are the row code's own or tap passes'
// (which reload their partial maxima as pairs too): rings keep their maxima in lane order, whole planes load
// the plane their own way, indices would need their lanes in the same order. Separable pixels load their
// pixels' vectors in pairs too and keep them split in their buffers (plan.separable.widened_pairs).
void Planner::choose_widened_pairs() {
    constexpr const char* step = "widened_pairs";
    if (plan_.dtype != DType::bf16) {
        if (choice().pairs != PlanChoice::Switch::rules) unhonoured("pairs", "pairs load bf16 only");
        return;
    }
    if (choice().pairs == PlanChoice::Switch::off) return declined(step, "the choice pairs=off");
    if (!caps_.widened_pairs) return declined(step, "the trait does not split a load into even and odd elements");
    if (p_.has_indices) return declined(step, "indices");
    // A whole plane's maximum takes its vectors in any order: pairs of them, whatever the block.
    if (has_whole_plane(plan_)) {
        plan_.widened_pairs = true;
        return chose(step, "the whole plane's maximum two vectors a load, even and odd elements");
    }
    // Separable rows at stride 2 along the width: a load's even and odd elements are the two phases.
    if (plan_.separable.enabled() && plan_.separable.phases == 2) {
        plan_.separable.widened_pairs = true;
        return chose(step, "separable rows at stride 2: a load's even and odd elements are the two phases");
    }
    if (plan_.vectors_per_block < 2) return declined(step, "one vector a block");
    // Separable pixels: the pixel's pairs, in pair order in the buffers too (the row code, for calls that saw a
    // NaN and the channel tail, keeps its lanes in order).
    if (plan_.separable.enabled() && plan_.strategy == Strategy::nxc_channels) {
        if (plan_.vectors_per_block % 2 != 0) return declined(step, "an odd number of vectors a pixel");
        if (!caps_.widened_pair_pixels) return declined(step, "the trait's pairs do not serve separable pixels' rows");
        plan_.separable.widened_pairs = true;
        return chose(step, "separable pixels: two vectors a load, even and odd elements, so in the buffers too");
    }
    if (plan_.ring_rows > 0 || plan_.separable.enabled() || !plan_.fast_segments.empty())
        return declined(step, "the fast row is not plain items");
    plan_.widened_pairs = true;
    chose(step, "two vectors a load, even and odd elements");
}

// Planar rows of bf16, u8 or s8: items at lane stride 2 load the span once and widen its even elements,
// where the trait can and the lanes fill the register (64-bit index lanes beside half vectors keep the
// deinterleave, whose lanes their masks follow).
void Planner::choose_even_element_loads() {
    constexpr const char* step = "even_element_loads";
    const bool narrow = plan_.dtype == DType::bf16 || plan_.dtype == DType::u8 || plan_.dtype == DType::s8;
    if (!narrow || !lanes_are_outputs_ || plan_.strategy != Strategy::ncx_width || byte_rows_) return;
    // bf16 under opmasks: one word load of each span, the even elements shifted up, in every item (masked or
    // not). Zen 4, one thread, bf16 ncx: the audio row 694 -> 411 us, C3D 857 -> 557, VGG pool1 391 -> 256.
    if (plan_.dtype == DType::bf16 && caps_.even_word_loads && plan_.lanes * lane_bytes(plan_.compare) == plan_.vector_bytes) {
        plan_.even_word_loads = true;
        return chose(step, "bf16 lanes at stride 2: one word load of each span under an opmask, even elements shifted up");
    }
    if (!caps_.even_element_loads) return declined(step, "the trait does not widen even elements in place");
    if (plan_.lanes * lane_bytes(plan_.compare) != plan_.vector_bytes)
        return declined(step, "half vectors beside 64-bit index lanes");
    plan_.even_element_loads = true;
    mark_room_around_first_loads(plan_.segments, axis_, plan_.lanes);
    chose(step, "lanes at stride 2 widen the even elements of one load");
}

// Planar rows whose items take lanes at stride 2 and whose width taps lie one element apart (loaded as stored,
// or bf16 with its even elements widened in place; bytes widen their even elements alone): the lanes of tap
// t + 1 are the odd elements of the pair of loads whose even elements are tap t's, so the fast copy merges its
// taps two at a time from one pair of loads (bf16: one load of whole dwords, the taps its low and high halves).
// Without indices (their blends follow each tap) and f16 (each tap converted as it loads). A 2x2 window at stride 2
// loads 8 vectors an item of 16 f32 outputs tap by tap, 4 in pairs: VGG pool1 ncx f32 385 -> 336 us, s32 over
// 256x56x56 88 -> 73 (AVX2, lowest of 6 alternating rounds).
void Planner::choose_paired_tap_loads() {
    constexpr const char* step = "paired_tap_loads";
    if (!lanes_are_outputs_ || plan_.strategy != Strategy::ncx_width || plan_.computed_windows || byte_rows_) return;
    const auto paired_taps = [](const Segment& s) {
        return s.outputs_per_item > 1 && s.lane_step == 2 && s.taps >= 2 && !s.taps_as_lanes && !s.whole_plane && !s.masked;
    };
    if (std::none_of(plan_.segments.begin(), plan_.segments.end(), paired_taps) &&
        std::none_of(plan_.fast_segments.begin(), plan_.fast_segments.end(), paired_taps))
        return;
    if (choice().tap_pairs == PlanChoice::Switch::off) return declined(step, "the choice tap_pairs=off");
    if (!caps_.paired_tap_loads) return declined(step, "the trait does not merge two taps from one pair of loads");
    if (plan_.dilation_w != 1) return declined(step, "width taps a dilation apart");
    if (p_.has_indices) return declined(step, "indices");
    if (plan_.dtype == DType::f16) return declined(step, "f16 converts each tap as it loads");
    // bf16's even elements widened in place pair too: a load of whole dwords holds tap t's elements in its low
    // halves and tap t + 1's in its high halves (a shift and an and, IsaCaps::widened_pairs). Bytes do not.
    if (plan_.even_element_loads && !(plan_.dtype == DType::bf16 && caps_.widened_pairs))
        return declined(step, "even elements widened in place");
    // The bf16 pair keeps its lanes in order, as even-element and even-word loads do (a deinterleave's pair order
    // is not): one load of whole dwords, a shift and an and, where even-word loads took a load and a shift a tap.
    if (plan_.dtype == DType::bf16 && !plan_.even_element_loads && !plan_.even_word_loads)
        return declined(step, "bf16 lanes without even-element or even-word loads");
    if (!plan_.unroll_width_taps) return declined(step, "width taps in a loop");
    if (plan_.ring_rows > 0 || plan_.separable.enabled()) return declined(step, "the fast row is not plain items");
    plan_.paired_tap_loads = true;
    chose(step, "two width taps from one pair of loads, even and odd elements");
}

// Channels last on a trait without opmasks: a partial vector of channels loads a whole register ending at its
// last channel (KernelPlan::tail_back_reads) in the plain items of the row code and the column ring, whose
// rows keep the lanes where the loads put them; separable pixels and tap passes keep their lanes in order, and
// indices and widened loads (bf16, f16, planar bytes) keep the masked load.
// Zen 3 (AVX2, one thread, u8 k3 s2 p1 over 56x56, min of 2000 calls): 24 channels ran 1.5x the time of 32
// with a vpmaskmovd a tap.
void Planner::choose_tail_back_reads() {
    constexpr const char* step = "tail_back_reads";
    if (lanes_are_outputs_ || plan_.strategy != Strategy::nxc_channels || plan_.computed_windows) return;
    const bool partial = plan_.channel_block % plan_.lanes != 0 || plan_.channel_tail % plan_.lanes != 0;
    if (!partial) return;
    if (caps_.opmasks) return declined(step, "opmasks load a partial vector");
    if (p_.has_indices) return declined(step, "indices");
    if (plan_.dtype == DType::f16 || size_of(plan_.dtype) != static_cast<std::size_t>(lane_bytes(plan_.compare)))
        return declined(step, "the lanes are widened from the data");
    if (plan_.widened_pairs || plan_.lanes != caps_.vector_bytes / lane_bytes(plan_.compare))
        return declined(step, "the lanes are not whole registers of the data");
    if (plan_.tap_pass_taps > 0 || plan_.separable.enabled())
        return declined(step, "the fast row is not plain items or the column ring");
    plan_.tail_back_reads = true;
    // A segment's first items whose first real tap has fewer bytes of the row before it than a partial vector
    // reads before its block split off and keep the masked load (WindowEmitter::tail_reads_back).
    const auto bytes_before = [&](std::int64_t block) {
        return block % plan_.lanes == 0 ? std::int64_t{0} : caps_.vector_bytes - block * elem();
    };
    const std::int64_t before = std::max(bytes_before(plan_.channel_block), bytes_before(plan_.channel_tail));
    std::int64_t split_items = 0;
    if (before > 0 && plan_.src_step_w > 0) {
        const std::int64_t pixel_step = plan_.src_step_w;  // (rounded up without an add: strides reach 2^63)
        const std::int64_t positions = before / pixel_step + (before % pixel_step != 0 ? 1 : 0);
        std::vector<Segment> segments;
        segments.reserve(plan_.segments.size() + 1);
        for (const Segment& s : plan_.segments) {
            // Items short of `positions`, rounded up without an add (an item step may reach 2^63).
            const bool near_start = s.taps > 0 && s.item_step > 0 && s.first_position >= 0 && s.first_position < positions;
            const std::int64_t short_by = near_start ? positions - s.first_position : 0;
            const std::int64_t near = near_start ? short_by / s.item_step + (short_by % s.item_step != 0 ? 1 : 0) : 0;
            if (near <= 0 || near >= s.repeat) {
                segments.push_back(s);
                continue;
            }
            Segment head = s, rest = s;
            head.repeat = near;
            rest.repeat = s.repeat - near;
            rest.out_begin = s.out_begin + near;
            rest.first_position = s.first_position + near * s.item_step;
            segments.push_back(head);
            segments.push_back(rest);
            split_items += near;
        }
        plan_.segments = std::move(segments);
    }
    chose(step, "a partial vector loads the whole register that ends at its last channel" +
                    (split_items > 0 ? ", but " + std::to_string(split_items) + " items at the row's start" : std::string{}));
}

// Channels-last items of 1 or 2 vectors (blocked layouts, few channels): one chain of maxima an item bounded
// the row by the max's latency (a global 7x7 pool of nCx16c f32: 49 dependent maxima a
// call of one vector). Each kernel row's taps go into two chains (KernelPlan::row_chains).
void Planner::choose_row_chains() {
    constexpr const char* step = "row_chains";
    if (lanes_are_outputs_ || plan_.strategy != Strategy::nxc_channels) return;
    if (plan_.vectors_per_block > 2) return declined(step, "the block's vectors are chains enough");
    if (plan_.kernel_w < min_row_chain_taps)
        return declined(step, "windows of fewer than " + std::to_string(min_row_chain_taps) + " width taps");
    if (p_.has_indices) return declined(step, "indices");
    if (!plan_.unroll_width_taps) return declined(step, "width taps in a loop");
    if (plan_.widened_pairs) return declined(step, "widened pairs");
    if (plan_.ring_rows > 0 || plan_.separable.enabled() || plan_.tap_pass_taps > 0)
        return declined(step, "the fast row is not plain items");
    KernelPlan candidate = plan_;
    candidate.row_chains = 2;
    if (!fits_registers(candidate)) return declined(step, "no registers (" + registers_text(candidate) + ")");
    plan_.row_chains = 2;
    chose(step, "2 chains of maxima a kernel row, merged in order");
}

// Wide pixels: a call of swept blocks whose window taps lie a pixel apart reads them in passes of at most
// max_unrolled_width_taps taps of one input row across all its blocks. The partial maxima go through the
// output (a load and a store per block and pass), so only windows of more taps than one pass, at least
// min_tap_pass_width_taps a pass, take it. Measured (same run, passes against blocks, AVX2 / AVX-512): the
// global 7x7 pool of 2048 f32 channels 6.9x / 1.6x, u8 2.4x / 1.5x; PointNet's 1024 taps f32 3.3x / 2.3x,
// u8 (1 KiB pixels) 2.4x / 1.3x; 1 KiB f32 pixels of a 7x7 pool 1.2x; a 5x5 window at stride 4 over 2 KiB
// pixels 1.3x; k3 s2 windows (3 taps a pass) 0.5-1.0x at every width, 512-byte pixels about 1.0x. The
// fast copy starts from the lowest value and keeps each pass's maxima in the output (f16's converted back
// exactly: the fast copy holds no NaN). Indices beside 32-bit compare lanes keep theirs in a stack buffer
// (emit_tap_passes.cpp); Zen 3, AVX2, the library before and after: the global 7x7 of 16x2048 f32 s64 568 ->
// 194 us, u8 s64 241 -> 162, PointNet f32 s64 245 -> 103, 1x512x28x28 k5 s4 f32 s64 70 -> 50.
void Planner::choose_tap_passes() {
    constexpr const char* step = "tap_passes";
    if (lanes_are_outputs_ || plan_.channel_sweep <= 1) return;
    const std::int64_t sweep_bytes = plan_.channel_sweep * plan_.channel_block * static_cast<std::int64_t>(size_of(p_.dtype));
    std::int64_t window_taps = 1;
    for (int a = 0; a < p_.spatial_rank; ++a) window_taps *= adaptive_ ? 1 : p_.kernel[static_cast<std::size_t>(a)];
    if (sweep_bytes < min_tap_pass_sweep_bytes)
        return declined(step, "the call's pixel spans " + std::to_string(sweep_bytes) + " bytes");
    if (adaptive_ || plan_.computed_windows) return declined(step, "the windows are not runs of segments");
    if (channels_apart()) return declined(step, "the swept blocks lie apart");
    if (window_taps <= max_unrolled_width_taps) return declined(step, "a window is one pass");
    if (axis_.kernel < min_tap_pass_width_taps)
        return declined(step, "passes of " + std::to_string(axis_.kernel) + " width taps");
    if (p_.has_indices) {
        if (plan_.index_lanes_64 || plan_.index_relative_to_window || lane_bytes(plan_.compare) != 4)
            return declined(step, "indices: a buffer holds 32-bit spatial index lanes beside 32-bit compare lanes only");
        const std::int64_t buffer = plan_.channel_sweep * plan_.vectors_per_block * caps_.vector_bytes;
        if (buffer > max_tap_pass_index_buffer_bytes)
            return declined(step, "indices: the call's index lanes would take " + std::to_string(buffer) + " bytes of stack");
    }
    plan_.tap_pass_taps = max_unrolled_width_taps;
    chose(step, "passes of up to " + std::to_string(plan_.tap_pass_taps) + " taps over " +
                    std::to_string(sweep_bytes) + " bytes of channels");
}

// Fast items loop over a window's rows along h (and planes along d) at run time, as the rows' real taps
// vary at the borders. A loop of 2 or 3 rows ended in a mispredicted branch per item: SegNet's channels-last
// k2 s2 rows ran 1.8x slower than straight-line code. Rows whose windows hold the most common count of taps
// along h (and d) take a copy of the item with those taps unrolled; the others keep the loop.
void Planner::choose_outer_unroll() {
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
std::int64_t Planner::most_common_taps(std::size_t axis) const {
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

}  // namespace pooljit::jit
