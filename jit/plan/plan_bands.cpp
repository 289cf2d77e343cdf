// Byte bands (ByteBands): planar u8/s8 2-D max pools without indices, a plane's outputs a vector of byte lanes at a
// time, from the vertical maxima of the window rows and a gather of bytes a width tap: one byte permute on cores
// with AVX512_VBMI (64 lanes), in-lane byte shuffles (vpshufb) in the AVX2 form (32 lanes).
#include "jit/plan/planner.hpp"

#include <pooljit/types.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pooljit::jit {
namespace {

// A band's outputs fill one vector of byte lanes; its vertical maxima span one or two (a permute reads at most two).
constexpr std::int64_t permute_lanes = 64, shuffle_lanes = 32;
// Straight-line code: a band row's chunks, and the bands of a plane outside its looped runs (chunks counted).
constexpr std::size_t max_band_chunks = 16;
constexpr std::int64_t max_unrolled_bands = 256, max_band_code_ops = 16384;
// Offsets into a plane are 32-bit displacements.
constexpr std::int64_t max_band_plane_bytes = std::int64_t{1} << 30;
// How far ahead looped bands prefetch their input (choose_byte_bands).
constexpr std::int64_t band_prefetch_distance = 2048, shuffle_prefetch_distance = 24 * 1024, max_band_prefetch_lines = 64;
// The shuffle form prefetches an image's planes past this many bytes.
constexpr double shuffle_prefetch_planes = 512 * 1024;
// Prefetch offsets stay 32-bit displacements: bands that step more than this prefetch nothing.
constexpr std::int64_t max_band_prefetch_step = std::int64_t{1} << 20;

// The input positions of the first and last real taps of output o's window along one axis (first > last: none).
struct RealTaps {
    std::int64_t first = 0, last = -1;
};
RealTaps real_taps(std::int64_t o, std::int64_t in, std::int64_t kernel, std::int64_t stride, std::int64_t dilation,
                   std::int64_t pad) {
    const WindowTaps taps = window_taps(o, in, kernel, stride, dilation, pad);
    if (taps.begin == taps.end) return {};
    return {o * stride - pad + taps.begin * dilation, o * stride - pad + (taps.end - 1) * dilation};
}

}  // namespace

// Why the problem is not byte bands' shape (empty: it is).
std::string Planner::byte_bands_declined() const {
    if (p_.op != OpKind::max_pool || p_.spatial_rank != 2) return "not a 2-D max pool";
    if (p_.dtype != DType::u8 && p_.dtype != DType::s8) return "not u8/s8 data";
    if (p_.has_indices) return "indices take 32-bit lanes";
    const bool permutes = caps_.vector_bytes == permute_lanes && caps_.opmasks && caps_.two_source_permutes &&
                          caps_.byte_max && options_.core.byte_permutes;
    const bool shuffles = caps_.vector_bytes == shuffle_lanes && caps_.byte_max;
    if (!permutes && !shuffles)
        return "bands are gathered by byte permutes (AVX512_VBMI) into opmasked byte lanes, or by byte shuffles in "
               "256-bit vectors";
    const std::int64_t band_lanes = caps_.vector_bytes, max_band_span = 2 * band_lanes;
    if (!memory_.rows_contiguous) return "a row's bytes are apart in memory (a view)";
    if (p_.in[0] > 1 && p_.src_strides.spatial[0] < p_.in[1])
        return "source rows that overlap (a row pitch of " + std::to_string(p_.src_strides.spatial[0]) + " under the width " +
               std::to_string(p_.in[1]) + ")";
    // A view of no elements may give its output rows a pitch under their width (nothing aliases where nothing is).
    if (p_.out[0] > 1 && p_.dst_strides.spatial[0] < p_.out[1])
        return "output rows that overlap (a row pitch of " + std::to_string(p_.dst_strides.spatial[0]) + " under the width " +
               std::to_string(p_.out[1]) + ")";
    if (choice().bands == PlanChoice::Switch::off) return "the choice bands=off";
    if (choice().planes == PlanChoice::Switch::off) return "the choice planes=off";
    if (reuse_is(PlanChoice::Reuse::ring) || reuse_is(PlanChoice::Reuse::separable)) return "the choice of reuse";
    // (rows - 1) x pitch + width past the bound, without overflow (a plane of one row has no pitch).
    const auto too_far = [](std::int64_t rows, std::int64_t pitch, std::int64_t width) {
        if (rows > max_band_plane_bytes || width > max_band_plane_bytes) return true;
        if (rows <= 1) return false;
        return pitch > max_band_plane_bytes || (pitch > 0 && rows - 1 > (max_band_plane_bytes - width) / pitch);
    };
    if (too_far(p_.in[0], p_.src_strides.spatial[0], p_.in[1]) || too_far(p_.out[0], p_.dst_strides.spatial[0], p_.out[1]))
        return "planes that span more than " + std::to_string(max_band_plane_bytes) + " bytes";
    // The shuffle form has no masked loads: a load that reaches past the plane's bytes moves inside the plane and
    // its bytes shift into place, so a plane holds a whole vector.
    if (!permutes && (p_.in[0] - 1) * (p_.in[0] > 1 ? p_.src_strides.spatial[0] : 0) + p_.in[1] < band_lanes)
        return "planes of fewer than " + std::to_string(band_lanes) + " bytes (a load moved inside the plane)";
    if (p_.kernel[0] > max_band_span || p_.kernel[1] > max_band_span)
        return "windows of more than " + std::to_string(max_band_span) + " taps along an axis";
    // Strides, dilations and pads bounded too: every row and column offset of a window (and its product with a
    // pitch) stays far inside 64 bits.
    for (std::size_t a = 0; a < 2; ++a)
        if (p_.stride[a] > max_band_plane_bytes || p_.dilation[a] > max_band_plane_bytes ||
            p_.pad_begin[a] > max_band_plane_bytes)
            return "a stride, dilation or pad past " + std::to_string(max_band_plane_bytes);
    // Rows in chunks: at most max_band_chunks of at most 64 outputs.
    if (p_.out[1] > static_cast<std::int64_t>(max_band_chunks) * band_lanes)
        return "rows of more than " + std::to_string(static_cast<std::int64_t>(max_band_chunks) * band_lanes) + " outputs";
    return {};
}

// Planar bytes otherwise run byte pairs, byte rows or flat planes, which leave lanes idle in short rows, shift and
// pack each pair, or buffer a pass. Here a band of outputs costs (kernel_h - 1) x registers maxima for its rows,
// kernel_w permutes and kernel_w - 1 maxima for its columns, and one store.
void Planner::choose_byte_bands() {
    constexpr const char* step = "byte_bands";
    if (!lanes_are_outputs_ || (p_.dtype != DType::u8 && p_.dtype != DType::s8)) return;
    if (const std::string why = byte_bands_declined(); !why.empty()) return declined(step, why);
    // A window of the whole plane: one output a band, where the planes' maxima reduced together take a few
    // operations a plane (a global 7x7 pool, 16x2048 planes: 192 us in bands, 35 reduced).
    if (plan_.byte_planes.enabled()) return declined(step, "whole planes reduce together (byte planes)");
    // The shuffle form's bands leave windows at stride 1 whose outputs sit at their inputs to flat planes
    // (Inception, SPPF, SPP: at the channels-last time on Zen 3).
    const bool shuffles = caps_.vector_bytes == shuffle_lanes;
    if (shuffles && plan_.flat_planes.enabled() && choice().bands != PlanChoice::Switch::on)
        return declined(step, "flat planes serve these planes (the 256-bit form)");
    const std::int64_t band_lanes = caps_.vector_bytes, max_band_span = 2 * band_lanes;
    // A tap of the shuffle form costs up to four shuffles and maxima where a row of byte pairs costs a shift, a max
    // and a pack: bands win where windows overlap along the width in rows the byte rows leave partly idle, and
    // lose on long rows and on windows apart. Zen 3, u8 ncx, one thread, the byte rows' time -> the bands' (400 KB
    // of planes, two processes, 3 runs): k3 s2 p1 with 7-56 outputs a row 0.21-0.59x, 75 0.96-1.0x, 112 1.20x;
    // k2 s2 with 10-14 outputs 0.73-0.75x, 28-56 1.10-1.31x, 112 1.22-1.44x; in one process (bands=off by wisdom
    // beside the rules, 3 runs, the lowest): VGG pool5 (7 outputs) 4.47 against 4.51 us, k2 s2 over 20x20 24.3
    // against 25.0, the stem 35.1 against 32.2, GoogLeNet 34.7 against 16.4.
    // (Rows the row code would widen to 32-bit lanes take bands.)
    if (shuffles && choice().bands != PlanChoice::Switch::on && lane_bytes(plan_.compare) == 1) {
        if (p_.out[1] > 2 * band_lanes)
            return declined(step, "byte rows of more than " + std::to_string(2 * band_lanes) + " outputs (the 256-bit form)");
        if (plan_.separable.byte_pairs && (p_.kernel[1] - 1) * p_.dilation[1] + 1 <= p_.stride[1])
            return declined(step, "byte pairs of windows apart along the width (the 256-bit form)");
    }
    ByteBands bands;
    bands.height = p_.in[0];
    bands.width = p_.in[1];
    bands.out_height = p_.out[0];
    bands.out_width = p_.out[1];
    bands.kernel_h = static_cast<int>(p_.kernel[0]);
    bands.kernel_w = static_cast<int>(p_.kernel[1]);
    bands.stride_h = p_.stride[0];
    bands.dilation_h = p_.dilation[0];
    bands.pad_h = p_.pad_begin[0];
    const std::int64_t H = bands.height, W = bands.width, OH = bands.out_height, OW = bands.out_width;
    bands.pitch = H > 1 ? p_.src_strides.spatial[0] : W;
    bands.out_pitch = OH > 1 ? p_.dst_strides.spatial[0] : OW;
    const std::int64_t P = bands.pitch;
    const std::int64_t sw = p_.stride[1], dw = p_.dilation[1], pw = p_.pad_begin[1];
    // Every output row has a real window row (runs of equal real taps: planning costs the runs, not the rows).
    const std::vector<WidthRun> row_runs = width_runs(OH, H, p_.kernel[0], bands.stride_h, bands.dilation_h, bands.pad_h);
    if (row_runs.empty()) return declined(step, "rows of windows too irregular to list");
    for (const WidthRun& run : row_runs)
        if (run.tap_begin >= run.tap_end)
            return declined(step, "output row " + std::to_string(run.out_begin) + " has no real window row");
    std::vector<RealTaps> columns(static_cast<std::size_t>(OW));
    for (std::int64_t j = 0; j < OW; ++j) {
        columns[static_cast<std::size_t>(j)] = real_taps(j, W, p_.kernel[1], sw, dw, pw);
        if (columns[static_cast<std::size_t>(j)].first > columns[static_cast<std::size_t>(j)].last)
            return declined(step, "output column " + std::to_string(j) + " has no real window column");
    }
    // The input columns outputs [j0, j0 + n) read: from the lowest first real tap to the highest last one (with
    // dilation, a window that starts in the padding may have its first real tap past the next window's).
    const auto lowest = [&](std::int64_t j0, std::int64_t n) {
        std::int64_t c = columns[static_cast<std::size_t>(j0)].first;
        for (std::int64_t j = j0 + 1; j < j0 + n; ++j) c = std::min(c, columns[static_cast<std::size_t>(j)].first);
        return c;
    };
    const auto span = [&](std::int64_t j0, std::int64_t n) {
        std::int64_t c = columns[static_cast<std::size_t>(j0)].last;
        for (std::int64_t j = j0 + 1; j < j0 + n; ++j) c = std::max(c, columns[static_cast<std::size_t>(j)].last);
        return c - lowest(j0, n) + 1;
    };
    // Whole rows a band where a row fits: as many rows as cost the fewest operations an output (the vertical
    // maxima of one or two registers a window row, the permutes and their maxima; a shuffle gathers from one
    // 128-bit half, so a width tap takes up to two shuffles a register).
    const auto cost = [&](std::int64_t rows, std::int64_t registers) {
        const std::int64_t gathers = shuffles ? 2 * registers : 1;
        return static_cast<double>((bands.kernel_h - 1) * registers + 2 * gathers * bands.kernel_w - 1) /
               static_cast<double>(rows * OW);
    };
    int rows = 0;
    // Several rows a band where their input spans at most 128 bytes (an output row pitch: a store a row).
    const std::int64_t most_rows = OH;
    if (OW <= band_lanes && span(0, OW) <= max_band_span) {
        double best = 0;
        for (std::int64_t g = 1; g <= most_rows && g * OW <= band_lanes && (g - 1) * bands.stride_h * P + span(0, OW) <= max_band_span; ++g) {
            const std::int64_t registers = (g - 1) * bands.stride_h * P + span(0, OW) <= band_lanes ? 1 : 2;
            if (rows == 0 || cost(g, registers) <= best) {
                rows = static_cast<int>(g);
                best = cost(g, registers);
            }
        }
        bands.chunks.push_back({0, OW, lowest(0, OW), 1, 0});
    } else {
        rows = 1;
        for (std::int64_t j0 = 0; j0 < OW;) {
            std::int64_t n = std::min(band_lanes, OW - j0);
            while (n > 0 && span(j0, n) > max_band_span) --n;
            if (n == 0) return declined(step, "a window wider than " + std::to_string(max_band_span) + " bytes");
            if (bands.chunks.size() == max_band_chunks)
                return declined(step, "rows of more than " + std::to_string(max_band_chunks) + " chunks");
            bands.chunks.push_back({j0, n, lowest(j0, n), 1, 0});
            j0 += n;
        }
    }
    bands.rows = rows;
    // Each chunk's registers and permutes: lane g * outputs + j takes output (r0 + g, out_begin + j)'s tap.
    for (ByteBandChunk& chunk : bands.chunks) {
        const std::int64_t reach = (rows - 1) * bands.stride_h * P + span(chunk.out_begin, chunk.outputs);
        chunk.registers = reach <= band_lanes ? 1 : 2;
        chunk.first_permute = bands.permutes.size();
        for (int k = 0; k < bands.kernel_w; ++k) {
            std::array<std::uint8_t, 64> source{};
            for (std::int64_t lane = 0; lane < rows * chunk.outputs; ++lane) {
                const std::int64_t g = lane / chunk.outputs, j = chunk.out_begin + lane % chunk.outputs;
                std::int64_t c = j * sw - pw + k * dw;
                if (c < 0 || c >= W) c = columns[static_cast<std::size_t>(j)].first;
                source[static_cast<std::size_t>(lane)] = static_cast<std::uint8_t>(g * bands.stride_h * P + c - chunk.in_begin);
            }
            bands.permutes.push_back(source);
        }
    }
    // Bands whose every load lies inside the plane go in looped runs; the others (a padded or overhanging row, a
    // last band of fewer rows, a load past the plane's end) are straight-line code each.
    // The bands inside are one interval: a band's offsets grow with its first row, so its loads start inside
    // from some band on and end inside up to some band. Found by bisection (planes of 2^28 rows plan at once).
    const std::int64_t count = (OH + rows - 1) / rows;
    const auto starts_inside = [&](std::int64_t b) {
        for (const ByteBandChunk& chunk : bands.chunks)
            if ((b * rows * bands.stride_h - bands.pad_h) * P + chunk.in_begin < 0) return false;
        return true;
    };
    const auto ends_inside = [&](std::int64_t b) {
        if ((b + 1) * rows > OH) return false;
        const std::int64_t row = b * rows * bands.stride_h - bands.pad_h + (bands.kernel_h - 1) * bands.dilation_h;
        for (const ByteBandChunk& chunk : bands.chunks)
            if (row * P + chunk.in_begin + chunk.registers * band_lanes > bands.extent()) return false;
        return true;
    };
    std::int64_t first = 0, past = count;  // first band that starts inside (count: none)
    while (first < past) {
        const std::int64_t mid = first + (past - first) / 2;
        if (starts_inside(mid)) past = mid;
        else first = mid + 1;
    }
    std::int64_t low = 0, end = count;  // [0, end): the bands that end inside
    while (low < end) {
        const std::int64_t mid = low + (end - low) / 2;
        if (ends_inside(mid)) low = mid + 1;
        else end = mid;
    }
    // A run of one band inside is straight-line code too (its loads all whole): no loop to set up a plane.
    const std::int64_t looped_count = end - first >= 2 ? end - first : 0;
    const std::int64_t unrolled = (count - looped_count) * static_cast<std::int64_t>(bands.chunks.size());
    if (unrolled > max_unrolled_bands)
        return declined(step, std::to_string(unrolled) + " bands of straight-line code a plane (at most " +
                                  std::to_string(max_unrolled_bands) + ")");
    // And their operations (a window row's loads and a width tap's permute and max each; the shuffle form's moved
    // loads take up to 6 and its taps up to 4 shuffles and maxima): 128x128 windows in 256 straight-line bands
    // would be a megabyte of code.
    const std::int64_t row_ops = shuffles ? 6 : 2, tap_ops = shuffles ? 8 : 2;
    const std::int64_t band_ops = row_ops * std::int64_t{bands.kernel_h} + tap_ops * std::int64_t{bands.kernel_w};
    if ((unrolled + static_cast<std::int64_t>(bands.chunks.size())) * band_ops > max_band_code_ops)
        return declined(step, "more than " + std::to_string(max_band_code_ops) + " operations of straight-line code");
    for (std::int64_t b = 0; b < count;) {
        if (looped_count > 0 && b == first) {
            bands.runs.push_back({b * rows, looped_count, rows, true});
            b += looped_count;
            continue;
        }
        bands.runs.push_back({b * rows, 1, std::min<std::int64_t>(rows, OH - b * rows), false});
        ++b;
    }
    // The loop's input rows prefetched 2 KiB (at least two bands) ahead: Xeon 2, one thread, u8 ncx, hot L2,
    // prefetcht0 at each load's address plus 0 / 512 / 1024 / 2048 / 4096 bytes: the stem 17.9 us / 15.4 / 14.8 /
    // 14.4 / 16.3, VGG pool3 14.0 / 12.6 / 12.4 / 12.4 / 13.4 (a band's loads wait on L2 otherwise: with the
    // permutes left out the stem ran 15.9, with one window row 9.8).
    // A band prefetches the lines of the input rows it steps over (their bytes, not a pitch's gap), up to
    // max_band_prefetch_lines; looped bands only.
    const std::int64_t band_step = rows * bands.stride_h * P;
    const bool looped_runs = std::any_of(bands.runs.begin(), bands.runs.end(), [](const ByteBandRun& r) { return r.looped; });
    // The shuffle form prefetches, 24 KiB ahead, only where an image's planes pass 512 KiB (Zen 3's L2). Zen 3,
    // one thread, u8 ncx, the tuner's interleaved times without prefetch against 2 KiB ahead, k3 s2 p1 over 400 KB
    // of planes in the caches: 14x14 29.1 / 30.3 us, 20x20 27.5 / 32.4, 32x32 13.6 / 16.2, 80x80 16.0 / 17.7,
    // 112x112 14.3 / 15.5, 64x64 13.7 / 13.4. Without against 6 and 24 KiB ahead: the stem (802 KB, hot) 31.9 /
    // 32.9 / 33.6, and at batch 16 (the plan does not see the batch) 1335 / 835 / 837; I3D's k1x3x3 s1x2x2
    // (25.7 MB, its frames folded into planes) 2156 / 1414 / 1426.
    const bool large = static_cast<double>(p_.channels) * static_cast<double>(bands.extent()) > shuffle_prefetch_planes;
    const bool prefetch = shuffles ? choice().prefetch_kib > 0 || (choice().prefetch_kib == 0 && large)
                                   : choice().prefetch_kib >= 0;
    const std::int64_t distance = shuffles ? shuffle_prefetch_distance : band_prefetch_distance;
    if (prefetch && looped_runs && rows * bands.stride_h * ((W + 63) / 64) <= max_band_prefetch_lines &&
        band_step <= max_band_prefetch_step)
        bands.prefetch_distance = choice().prefetch_kib > 0 ? std::int64_t{choice().prefetch_kib} * 1024
                                                            : std::max(distance, 2 * band_step);
    take_plane_code();
    plan_.byte_bands = bands;
    plan_.scan_rows_for_nan = plan_.watch_rows_for_nan = false;
    plan_.compare = p_.dtype == DType::u8 ? CompareType::u8 : CompareType::s8;
    plan_.lanes = static_cast<int>(band_lanes);
    std::int64_t looped = 0;
    for (const ByteBandRun& run : bands.runs) looped += run.looped ? run.count : 0;
    chose(step, std::to_string(rows) + " output rows a band, " + std::to_string(bands.chunks.size()) +
                    " chunks a band row, " + std::to_string(looped) + " looped bands and " + std::to_string(unrolled) +
                    " straight-line a plane");
}

}  // namespace pooljit::jit
