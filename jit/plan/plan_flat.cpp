// Flat planes (FlatPlanes): planar u8/s8/s32/f32/bf16/f16 2-D planes whose outputs sit at their inputs' positions
// (stride 1, any dilation), a plane's elements as one span of vectors across its rows.
#include "jit/plan/plan_rows.hpp"
#include "jit/plan/planner.hpp"

#include <pooljit/types.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <set>
#include <string>

namespace pooljit::jit {
namespace {

// Each pass's taps are straight-line code: the width pass's vectors whose taps all load in place go in a loop of
// whole periods of their masks (a period: the vectors after which a vector's offset along the row repeats), the
// height pass's in a loop of 4; the rest are unrolled. At most max_flat_tap_ops width taps (2 ops each) and rows
// unrolled a plane (twice that where an exact copy of the passes follows for planes that hold a NaN).
constexpr std::int64_t max_flat_tap_ops = 4096;
// The width masks, one vector per phase of a vector along the row and per width tap but the window's own column.
constexpr std::int64_t max_flat_mask_bytes = 8 * 1024;
// A width tap up to this many elements from its output (bytes: 15, shifted within 16-byte lanes; 32-bit
// elements: 7, permuted within a ymm): the plane's first and last vectors move a loaded vector into place.
constexpr std::int64_t max_flat_byte_reach = 15, max_flat_dword_reach = 7;
// The buffer of a plane's width maxima lives on the stack; a window's rows are unrolled in the height pass.
constexpr std::int64_t max_flat_buffer_bytes = 16 * 1024;
constexpr std::int64_t max_flat_kernel_rows = 64;
// bf16 planes converted once from windows of this many width taps (plan_flat below).
constexpr int min_converted_width_taps = 5;

}  // namespace

// A plan whose code takes a call's planes one by one (flat planes, byte bands): none of the row code's reuse,
// loads or prefetch, which the code of whole planes does not run.
void Planner::take_plane_code() {
    plan_.strategy = Strategy::ncx_planes;
    plan_.flat_planes = {};
    plan_.byte_bands = {};
    plan_.blocked_pixels = {};
    plan_.plane = {};
    plan_.byte_planes = {};
    plan_.separable = {};
    plan_.ring_rows = 0;
    plan_.ring_row_interval = 1;
    plan_.stacked_planes = false;
    plan_.width_ranges = false;
    plan_.widened_pairs = plan_.even_element_loads = plan_.paired_tap_loads = plan_.tail_back_reads = false;
    plan_.prefetch_distance = plan_.prefetch_bytes = 0;  // a call's planes are one stream the hardware follows
}

// Why the problem is not flat planes' shape, or empty.
std::string Planner::flat_planes_declined() const {
    if (p_.op != OpKind::max_pool || p_.spatial_rank != 2) return "not a 2-D max pool";
    if (p_.has_indices) return "indices";
    if (!caps_.byte_max) return "the ISA has no byte max";
    const std::int64_t reach = elem() == 1 ? max_flat_byte_reach : max_flat_dword_reach;
    for (std::size_t a = 0; a < 2; ++a) {
        if (p_.stride[a] != 1) return "a stride other than 1";
        if (p_.kernel[a] > max_flat_buffer_bytes || p_.dilation[a] > max_flat_buffer_bytes)
            return "a window wider than a plane's buffer of " + std::to_string(max_flat_buffer_bytes) + " bytes";
        const std::int64_t extent = (p_.kernel[a] - 1) * p_.dilation[a] + 1;  // under 2^28: no overflow
        if (p_.out[a] != p_.in[a] || p_.pad_begin[a] + p_.pad_end[a] != extent - 1)
            return "outputs not at their inputs' positions (pads of the window's extent - 1 along each axis)";
    }
    // The NaN watch sums each vector's elements as its tap at the output's own column loads them.
    const bool half = p_.dtype == DType::bf16 || p_.dtype == DType::f16;  // widened to f32 in the buffer
    const bool floats = p_.dtype == DType::f32 || half;
    const std::int64_t lane_bytes = half ? 4 : elem();
    if (floats && p_.nan == NanPolicy::propagate && p_.pad_begin[1] % p_.dilation[1] != 0)
        return "no width tap at the output's own column (pads before of " + std::to_string(p_.pad_begin[1]) +
               ", not a multiple of the dilation " + std::to_string(p_.dilation[1]) + ") for the NaN watch";
    if (p_.pad_begin[1] > reach || p_.pad_end[1] > reach)
        return "width taps more than " + std::to_string(reach) + " elements from their output";
    if (p_.kernel[0] > max_flat_kernel_rows) return "windows of more than " + std::to_string(max_flat_kernel_rows) + " rows";
    if (!memory_.rows_contiguous) return "a row's elements are apart in memory (a view)";
    // A view's rows may lie apart (a row pitch): the passes then take a row at a time.
    const auto flat_pitch = [&](std::int64_t row_stride) { return p_.in[0] > 1 ? row_stride : p_.in[1]; };
    const std::int64_t pitch = flat_pitch(p_.src_strides.spatial[0]), out_pitch = flat_pitch(p_.dst_strides.spatial[0]);
    if (pitch < p_.in[1] || out_pitch < p_.in[1])
        return "rows that overlap (a row pitch of " + std::to_string(std::min(pitch, out_pitch)) + " under the width " +
               std::to_string(p_.in[1]) + ")";
    // The output's row step is a 32-bit immediate (the source's pitch is bounded by the buffer below).
    if (out_pitch > std::numeric_limits<std::int32_t>::max() / elem())
        return "an output row pitch of " + std::to_string(out_pitch) + " elements: a row step past 2^31 bytes";
    // Each factor below max_flat_buffer_bytes first: no product can overflow.
    if (p_.in[0] > max_flat_buffer_bytes || pitch > max_flat_buffer_bytes ||
        (p_.in[0] + p_.pad_begin[0] + p_.pad_end[0]) * pitch * lane_bytes > max_flat_buffer_bytes)
        return "a plane's buffer of width maxima past " + std::to_string(max_flat_buffer_bytes) + " bytes";
    if (choice().planes == PlanChoice::Switch::off) return "the choice planes=off";
    if (reuse_is(PlanChoice::Reuse::ring) || reuse_is(PlanChoice::Reuse::separable)) return "the choice of reuse";
    if (floats && choice().nan == PlanChoice::Nan::scan)
        return "the choice nan=scan (flat planes watch the values they load)";
    if (p_.dtype == DType::bf16 && choice().pairs == PlanChoice::Switch::on)
        return "the choice pairs=on (flat planes widen each tap as it loads)";
    return {};
}

// Planar u8/s8/s32/f32/bf16/f16 planes of at most 16 KiB at stride 1 with their outputs at their inputs' positions.
// Byte rows fill one vector per row (SPPF's 20-byte rows: 20 of 32 lanes), each row through a padded copy, its
// width maxima and the merges down the rows: u8 SPPF ncx ran 6.1x its nxc time, Inception 3.75x. The flat span
// fills every lane and pays a masked min for each width tap that may cross a row; it ran faster than byte rows on
// every plane measured (Zen 3, one thread, u8, the tuner's candidates: rows of 20 to 100 bytes, k3 to k9).
void Planner::choose_flat_planes() {
    constexpr const char* step = "flat_planes";
    const bool bytes_data = p_.dtype == DType::u8 || p_.dtype == DType::s8;
    // bf16 and f16: each tap widened to f32 as it loads, each output narrowed as it stores.
    const bool widened = p_.dtype == DType::bf16 || p_.dtype == DType::f16;
    if (!lanes_are_outputs_ || (!bytes_data && !widened && p_.dtype != DType::s32 && p_.dtype != DType::f32)) return;
    if (const std::string why = flat_planes_declined(); !why.empty()) return declined(step, why);
    FlatPlanes flat;
    flat.height = p_.in[0];
    flat.width = p_.in[1];
    flat.pitch = p_.in[0] > 1 ? p_.src_strides.spatial[0] : p_.in[1];
    flat.out_pitch = p_.in[0] > 1 ? p_.dst_strides.spatial[0] : p_.in[1];
    flat.kernel_h = static_cast<int>(p_.kernel[0]);
    flat.kernel_w = static_cast<int>(p_.kernel[1]);
    flat.pad_h = static_cast<int>(p_.pad_begin[0]);
    flat.pad_w = static_cast<int>(p_.pad_begin[1]);
    flat.dilation_h = static_cast<int>(p_.dilation[0]);
    flat.dilation_w = static_cast<int>(p_.dilation[1]);
    const std::int64_t elements = flat.elements();
    // VEX code on both ISAs: bytes in ymm, or xmm for planes under 32 bytes; 32-bit elements (bf16 widened) in ymm.
    int bytes = caps_.vector_bytes >= 32 ? 32 : 16;
    if (bytes_data)  // over a row pitch a row stores whole vectors: rows of 16 to 31 bytes in xmm
        while (bytes > 16 && (bytes > elements || (flat.pitched() && bytes > flat.width))) bytes /= 2;
    const int lanes = bytes / static_cast<int>(widened ? 4 : elem());
    if (elements < lanes) return declined(step, "planes of fewer elements than a vector's " + std::to_string(lanes));
    // A pitched plane stores its output a row at a time, whole vectors with the last one overlapping the one
    // before: rows of a vector at least, so that no store reaches into a gap.
    if (flat.pitched() && flat.width < lanes)
        return declined(step, "rows apart in memory (a row pitch) narrower than a vector's " + std::to_string(lanes) +
                                  " lanes: their stores would write the gaps");
    flat.vector_bytes = bytes;
    flat.lanes = lanes;
    const bool floats = p_.dtype == DType::f32 || widened;
    const bool exact_copy = floats && p_.nan == NanPolicy::propagate;
    // Unrolled: a looped pass's vectors before and after its loop, and a period (at most two periods and the
    // vectors that reach past the plane's ends, 4 of them at most with taps of up to 15 bytes or 7 elements).
    // Over a row pitch: the first, a middle and the last row.
    const std::int64_t period = flat.width / std::gcd(flat.width, std::int64_t{lanes});
    const std::int64_t unrolled = flat.pitched() ? 3 * flat.row_vectors() : std::min(flat.vectors(), 2 * period + 4);
    if (unrolled * (2 * flat.kernel_w + flat.kernel_h) * (exact_copy ? 2 : 1) > max_flat_tap_ops)
        return declined(step, "more than " + std::to_string(max_flat_tap_ops) + " unrolled tap operations a plane");
    // The masks: one per distinct phase of a vector along the row (its offset modulo the row) and width tap (f32:
    // an and and an or, exact for NaN).
    // Over a row pitch, a row's vectors: whole ones and one overlapping the last.
    std::set<std::int64_t> phases;
    for (std::int64_t v = 0; v < (flat.pitched() ? flat.row_vectors() : flat.vectors()); ++v)
        phases.insert(flat.pitched() ? std::min(v * lanes, flat.width - lanes) : std::min(v * lanes, elements - lanes) % flat.width);
    const std::int64_t masked_taps = flat.kernel_w - (flat.pad_w % flat.dilation_w == 0 ? 1 : 0);  // dx = 0 needs none
    const std::int64_t mask_bytes =
        static_cast<std::int64_t>(phases.size()) * masked_taps * bytes * (floats ? 2 : 1);
    if (mask_bytes > max_flat_mask_bytes)
        return declined(step, "width masks of more than " + std::to_string(max_flat_mask_bytes) + " bytes");
    // bf16 windows of 5 width taps or more convert each plane once (Xeon 2, one thread, lowest of 6 alternating
    // rounds, both forms' code: SPP k9 ncx 317-325 -> 270 us, SPPF k5 93.5-93.7 -> 85.5-87.2; 3 taps level or
    // slower converted: Inception 40.7 -> 39.7, the dilated 3x3 51.9 -> 55.2). f16 ran slower converted (SPPF
    // 70.3 -> 79.3, Inception 29.9 -> 36.2, the dilated 3x3 37.2 -> 49.6): vcvtph2ps takes its tap from memory.
    flat.converts_plane = p_.dtype == DType::bf16 && flat.kernel_w >= min_converted_width_taps;
    take_plane_code();
    plan_.flat_planes = flat;
    // No scan pass: floats under nan=propagate watch the values its width pass loads (the emitter's own sums).
    plan_.scan_rows_for_nan = false;
    plan_.watch_rows_for_nan = exact_copy;
    plan_.watch_chains = 1;
    plan_.compare = p_.dtype == DType::u8 ? CompareType::u8 : p_.dtype == DType::s8 ? CompareType::s8 : compare_type_of(p_.dtype);
    plan_.lanes = lanes;
    chose(step, (flat.pitched() ? std::to_string(flat.row_vectors()) + " vectors of " + std::to_string(bytes) +
                                      " bytes a row over row pitches of " + std::to_string(flat.pitch) + " and " +
                                      std::to_string(flat.out_pitch) + ", "
                                : std::to_string(flat.vectors()) + " vectors of " + std::to_string(bytes) + " bytes a plane, ") +
                    std::to_string(phases.size()) + " phases of width masks" +
                    (exact_copy ? ", a NaN watch and an exact copy" : ""));
}

}  // namespace pooljit::jit
