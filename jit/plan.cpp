#include "jit/plan.hpp"

#include <pooljit/types.hpp>

#include <algorithm>
#include <limits>
#include <sstream>
#include <utility>
#include <vector>

namespace pooljit::jit {
namespace {

CompareType compare_type_of(DType dtype) {
    switch (dtype) {
        case DType::f32: case DType::f16: case DType::bf16: return CompareType::f32;
        case DType::f64: return CompareType::f64;
        case DType::s8: case DType::u8: case DType::s32: return CompareType::s32;  // u8 zero-extends into s32
        case DType::s64: return CompareType::s64;
    }
    return CompareType::f32;
}

bool is_64bit(CompareType c) { return c == CompareType::f64 || c == CompareType::s64; }

// Width taps up to this count are unrolled; longer windows (a 1-D kernel of 200 taps) loop.
constexpr std::int64_t max_unrolled_width_taps = 8;
// Channels-last rows read by fewer windows per input element than this are bound by memory (k2 s2, k3 s2, a
// global pool); k2 s1 and denser windows by compares.
constexpr double min_reads_of_compare_bound_rows = 4.0;
// Vectors per block: enough independent dependency chains to hide the compare latency, few enough to keep
// accumulators, raw bits and indices in registers (16 ymm on AVX2, 32 zmm on AVX-512).
constexpr int max_vectors_per_block_avx512 = 4;
constexpr int max_vectors_per_block_avx2 = 2;
// Channels one nxc call sweeps per output pixel, in bytes: 2048 f32 channels.
constexpr std::int64_t max_sweep_bytes = 8192;
// Planar rows prefetch the input about this far ahead of the row they compute; past max_prefetch_bytes of
// input per output row (1-D signals, whose one row is the whole plane) they leave the stream to the hardware.
constexpr std::int64_t prefetch_target_distance = 12288;
constexpr std::int64_t max_prefetch_bytes = 4096;
// Whole-plane items are straight-line code of two passes over the plane's vectors (the maximum, then the
// first element equal to it): planes up to this many vectors (256 f32 elements, a 16x16 global pool).
constexpr std::int64_t max_whole_plane_vectors = 16;
// Row-maxima rings: the ring's vector registers (input rows x vectors per row), of the 32 AVX-512 has.
constexpr std::int64_t max_ring_vectors = 16;
// With indices, the ring's values and indices (2 x rows x vectors), beside 2 x vectors accumulators and 6 others.
constexpr std::int64_t max_ring_vectors_with_indices = 20;
// Column rings (channels last): ring_rows x vectors_per_block registers (twice that with indices), beside the
// accumulators (and their indices) and 3 to 5 others, of AVX-512's 32.
constexpr std::int64_t max_column_ring_vectors = 20;
// Input of one column of a column ring's call: a third of a 48 KiB L1. Measured against 32, 64 and 128 KiB, the
// best on a 2048-row image (1x64x2048x64 k3 nxc f32: 5.9 ms, 7.1, 10.3 and 9.5 ms; the row code 7.7-8.2 ms) and
// level on SPPF.
constexpr std::int64_t column_ring_input_bytes = 16 * 1024;
// Planes in registers: the plane's input registers (of the 32 AVX-512 has), and the permutes of a plane's code.
constexpr std::int64_t max_plane_registers = 16;
constexpr std::int64_t max_plane_gathers = 256;
// A gather feeds the lanes whose windows read its register pair; with few outputs and large windows most of its
// lanes idle, and the rows' own items (a window's taps as lanes) win. Measured: adaptive 13x13 -> 3x3 (7
// permutes per output) ran 2.8x faster in registers, 13x13 -> 2x2 (18 per output) 1.3x slower.
constexpr std::int64_t max_plane_gathers_per_output = 8;
// Rows of at least this many outputs may be computed in pieces (width_ranges); the code clips positions near
// 2^40 at most (every width extent of the plan below max_ranged_extent keeps its sums far from 2^63).
constexpr std::int64_t min_ranged_outputs = 64;
constexpr std::int64_t max_ranged_extent = std::int64_t{1} << 40;
// Each segment is straight-line code: beyond this many the row computes its windows at run time instead.
constexpr std::size_t max_segments = 2 * default_max_width_runs;
// Adaptive rows are scanned output by output for runs of equal windows up to this many outputs; longer
// irregular rows compute their windows at run time (planning stays O(1) in the row length).
constexpr std::int64_t max_scanned_outputs = std::int64_t{1} << 16;

struct WidthAxis {
    std::int64_t out, in, kernel, stride, dilation, pad;
};

// Adaptive windows along one axis: [o*in/out, ceil((o+1)*in/out)).
WindowTaps adaptive_window(std::int64_t o, std::int64_t in, std::int64_t out) {
    __extension__ typedef __int128 i128;
    const auto begin = static_cast<std::int64_t>(static_cast<i128>(o) * in / out);
    const auto end = static_cast<std::int64_t>((static_cast<i128>(o + 1) * in + out - 1) / out);
    return {begin, end};
}

// Runs of outputs whose windows have one tap count and whose first taps advance by one step; each becomes a
// segment of its own.
struct PositionRun {
    std::int64_t out_begin, out_end, taps, first_position, step;
};

std::vector<PositionRun> max_pool_runs(const WidthAxis& a) {
    std::vector<PositionRun> runs;
    for (const WidthRun& r : width_runs(a.out, a.in, a.kernel, a.stride, a.dilation, a.pad)) {
        const std::int64_t first = wrap_add(wrap_add(wrap_mul(r.out_begin, a.stride), -a.pad), wrap_mul(r.tap_begin, a.dilation));
        runs.push_back({r.out_begin, r.out_end, r.tap_end - r.tap_begin, first, a.stride});
    }
    return runs;
}

std::vector<PositionRun> adaptive_runs(const WidthAxis& a, std::size_t max_runs) {
    std::vector<PositionRun> runs;
    if (a.in % a.out == 0) {
        // Windows of in/out elements side by side: one run, whatever the size.
        const std::int64_t size = a.in / a.out;
        runs.push_back({0, a.out, size, 0, size});
        return runs;
    }
    if (a.out > max_scanned_outputs) return {};  // scanning would cost O(out): the caller computes windows
    for (std::int64_t o = 0; o < a.out; ++o) {
        const WindowTaps t = adaptive_window(o, a.in, a.out);
        if (!runs.empty()) {
            PositionRun& r = runs.back();
            const std::int64_t step = t.begin - (r.first_position + (r.out_end - 1 - r.out_begin) * r.step);
            const bool single = r.out_end - r.out_begin == 1;
            if (r.taps == t.end - t.begin && (single || step == r.step)) {
                if (single) r.step = step;
                ++r.out_end;
                continue;
            }
        }
        if (runs.size() == max_runs) return {};
        runs.push_back({o, o + 1, t.end - t.begin, t.begin, 0});
    }
    return runs;
}

// nxc: one item per output. ncx: items of `group` outputs, the last one partial.
std::vector<Segment> segments_of(const std::vector<PositionRun>& runs, bool lanes_are_outputs, std::int64_t group) {
    std::vector<Segment> segments;
    for (const PositionRun& r : runs) {
        const std::int64_t count = r.out_end - r.out_begin;
        if (!lanes_are_outputs) {
            segments.push_back({r.out_begin, count, 1, r.taps, r.first_position, r.step, 0});
            continue;
        }
        const std::int64_t full = count / group, rest = count % group;
        if (full > 0) segments.push_back({r.out_begin, full, group, r.taps, r.first_position, wrap_mul(group, r.step), r.step});
        if (rest > 0)
            segments.push_back({r.out_begin + full * group, 1, rest, r.taps, wrap_add(r.first_position, wrap_mul(full, group, r.step)),
                                0, r.step});
    }
    return segments;
}

ComputedWindows computed_windows_of(const WidthAxis& a, bool adaptive) {
    ComputedWindows walk;
    walk.adaptive = adaptive;
    walk.in = static_cast<std::uint64_t>(a.in);
    if (adaptive) {
        walk.out = static_cast<std::uint64_t>(a.out);
        walk.computed = a.out;
        return walk;
    }
    // Output o reaches the input when o*s + (k-1)*d >= pad and o*s < pad + in: outside [lo, hi) every window is
    // empty, and inside it every padded position is below pad + in (exact in unsigned 64 bits).
    __extension__ typedef __int128 i128;
    const auto ceil_div = [](i128 x, i128 y) { return x <= 0 ? i128{0} : (x + y - 1) / y; };
    const i128 reach = static_cast<i128>(a.kernel - 1) * a.dilation;
    const i128 lo = std::min<i128>(ceil_div(static_cast<i128>(a.pad) - reach, a.stride), a.out);
    const i128 hi = std::clamp<i128>(ceil_div(static_cast<i128>(a.pad) + a.in, a.stride), lo, a.out);
    walk.empty_before = static_cast<std::int64_t>(lo);
    walk.computed = static_cast<std::int64_t>(hi - lo);
    walk.empty_after = a.out - static_cast<std::int64_t>(hi);
    walk.first_padded_position = static_cast<std::uint64_t>(lo * a.stride);
    walk.stride = static_cast<std::uint64_t>(a.stride);
    walk.kernel = static_cast<std::uint64_t>(a.kernel);
    walk.dilation = static_cast<std::uint64_t>(a.dilation);
    walk.pad = static_cast<std::uint64_t>(a.pad);
    return walk;
}

// ncx fast rows on AVX-512: items of `group` consecutive outputs from the row's start; an item wholly inside the
// interior run is a plain segment (consecutive ones merge), any other is a masked item of all kernel taps.
// Empty when some output has no real tap along the width (its lanes would keep no index) or when the row
// would need more code than segments are allowed.
std::vector<Segment> masked_fast_segments(const WidthAxis& a, const std::vector<WidthRun>& runs, std::int64_t group) {
    const WidthRun* interior = nullptr;
    for (const WidthRun& r : runs) {
        if (r.tap_begin == r.tap_end) return {};
        if (r.tap_begin == 0 && r.tap_end == a.kernel) interior = &r;
    }
    // Planning is O(border items): the full items inside the interior run are counted, not walked.
    const std::int64_t items = (a.out + group - 1) / group;
    std::int64_t inside_begin = items, inside_end = items;  // full items wholly inside the interior run
    if (interior) {
        inside_begin = std::min(items, (interior->out_begin + group - 1) / group);
        inside_end = std::max(inside_begin, interior->out_end / group);
    }
    if (inside_begin + (items - inside_end) > static_cast<std::int64_t>(max_segments)) return {};
    std::vector<Segment> segments;
    const auto add_item = [&](std::int64_t i, std::int64_t repeat) {
        const std::int64_t o = i * group, n = std::min(group, a.out - o);
        Segment seg{o, repeat, n, a.kernel, wrap_add(wrap_mul(o, a.stride), -a.pad), wrap_mul(group, a.stride), a.stride};
        seg.masked = !(interior && o >= interior->out_begin && o + n <= interior->out_end);
        segments.push_back(seg);
    };
    for (std::int64_t i = 0; i < inside_begin; ++i) add_item(i, 1);
    if (inside_end > inside_begin) add_item(inside_begin, inside_end - inside_begin);
    for (std::int64_t i = inside_end; i < items; ++i) add_item(i, 1);
    return segments;
}

// ncx fast rows whose outputs are few for their windows: a row of one output (a global pool, an adaptive bin
// of the whole width), or one whose lanes-as-outputs items would gather every lane from a stride above 2 (each
// lane a separate move). There one output per item with its window's taps as lanes loads one vector per input
// row. Empty when that does not pay or some window is wider than a vector.
std::vector<Segment> window_lane_segments(const std::vector<PositionRun>& runs, const std::vector<Segment>& segments,
                                          std::int64_t out_width, std::int64_t lanes) {
    bool gathers = false;
    for (const Segment& s : segments) gathers |= s.outputs_per_item > 1 && s.lane_step > 2;
    if (out_width != 1 && !gathers) return {};
    for (const PositionRun& r : runs)
        if (r.taps > lanes) return {};
    std::vector<Segment> items = segments_of(runs, false, 1);
    for (Segment& s : items) s.taps_as_lanes = s.taps > 0;  // empty windows store the empty value as before
    return items;
}

// ncx rows whose one window is the whole plane, dense (a global pool, an adaptive pool to one bin), of at least
// one vector and at most max_whole_plane_vectors: one item reads the plane as a contiguous span. With indices,
// each element's spatial index must be its offset in the plane (row-major numbering that no axis modulus cuts).
std::vector<Segment> whole_plane_segments(const Problem& p, const std::int64_t (&multipliers)[3], std::int64_t lanes) {
    const bool adaptive = p.op == OpKind::adaptive_max_pool;
    std::int64_t elements = 1;
    for (int a = p.spatial_rank - 1; a >= 0; --a) {
        const auto u = static_cast<std::size_t>(a);
        if (p.out[u] != 1) return {};
        if (!adaptive) {
            // Real taps are consecutive positions (dilation 1, or one position) and as many as the input's.
            const WindowTaps t = window_taps(0, p.in[u], p.kernel[u], p.stride[u], p.dilation[u], p.pad_begin[u]);
            if ((p.dilation[u] != 1 && p.in[u] != 1) || t.end - t.begin != p.in[u]) return {};
        }
        if (p.has_indices && multipliers[a] != elements) return {};
        elements *= p.in[u];
        if (elements > max_whole_plane_vectors * lanes) return {};
    }
    if (elements < lanes) return {};
    Segment seg{0, 1, 1, elements, 0, 0, 0};
    seg.whole_plane = true;
    return {seg};
}

// ncx planes of at most max_plane_registers vectors whose rows leave most lanes of a vector idle: the plane is
// loaded into registers whole and the outputs, flat across rows, take each window's taps by permutes. Per
// output vector and tap ordinal (each lane's taps in scan order), the registers its lanes read are paired, one
// permute per pair. Empty when the plane does not fit or would need more than max_plane_gathers permutes.
PlanePlan plane_plan(const Problem& p, const std::int64_t (&multipliers)[3], std::int64_t lanes) {
    const bool adaptive = p.op == OpKind::adaptive_max_pool;
    const int sr = p.spatial_rank;
    const std::int64_t elements = p.spatial_in_size(), outputs = p.spatial_out_size();
    if (elements > max_plane_registers * lanes || outputs < 2) return {};
    // The real taps of every output along each axis, computed once (each is a few 128-bit divisions).
    if (outputs > max_plane_gathers * lanes) return {};
    std::vector<WindowTaps> axis_windows[3];
    for (int a = 0; a < sr; ++a) {
        const auto u = static_cast<std::size_t>(a);
        for (std::int64_t o = 0; o < p.out[u]; ++o)
            axis_windows[a].push_back(adaptive ? adaptive_window(o, p.in[u], p.out[u])
                                               : window_taps(o, p.in[u], p.kernel[u], p.stride[u], p.dilation[u], p.pad_begin[u]));
    }
    const auto axis_taps = [&](int a, std::int64_t o) { return axis_windows[a][static_cast<std::size_t>(o)]; };
    const auto position = [&](int a, std::int64_t o, std::int64_t t) {
        const auto u = static_cast<std::size_t>(a);
        // A real tap's position is inside the input; the terms may wrap on their way there (strides near 2^62).
        return adaptive ? t : wrap_add(wrap_add(wrap_mul(o, p.stride[u]), -p.pad_begin[u]), wrap_mul(t, p.dilation[u]));
    };
    // One lane's window, walked tap by tap in scan order (an odometer over its real taps per axis: no division).
    struct Window {
        std::int64_t coord[3] = {0, 0, 0};
        WindowTaps taps[3];
        std::int64_t tap[3] = {0, 0, 0};  // the current tap along each axis
        std::int64_t count = 1;
    };
    const auto window_at = [&](const std::int64_t (&coord)[3]) {
        Window w;
        for (int a = 0; a < sr; ++a) {
            w.coord[a] = coord[a];
            w.taps[a] = axis_taps(a, coord[a]);
            w.tap[a] = w.taps[a].begin;
            w.count *= w.taps[a].end - w.taps[a].begin;
        }
        return w;
    };
    const auto next_output = [&](std::int64_t (&coord)[3]) {
        for (int a = sr - 1; a >= 0; --a) {
            if (++coord[a] < p.out[static_cast<std::size_t>(a)]) return;
            coord[a] = 0;
        }
    };
    const auto element_of = [&](const Window& w, std::int64_t& index) {
        std::int64_t element = 0;
        index = 0;
        for (int a = 0; a < sr; ++a) {
            const std::int64_t pos = position(a, w.coord[a], w.tap[a]);
            element = element * p.in[static_cast<std::size_t>(a)] + pos;
            index += pos * multipliers[a];
        }
        return element;
    };
    const auto next_tap = [&](Window& w) {
        for (int a = sr - 1; a >= 0; --a) {
            if (++w.tap[a] < w.taps[a].end) return;
            w.tap[a] = w.taps[a].begin;
        }
    };
    // The permutes are at least the most taps of any lane, per vector: bounded before any is built.
    const std::int64_t vectors = (outputs + lanes - 1) / lanes;
    std::int64_t lower_bound = 0;
    {
        std::int64_t coord[3] = {0, 0, 0};
        for (std::int64_t v = 0; v < vectors && lower_bound <= max_plane_gathers; ++v) {
            std::int64_t most = 0;
            for (std::int64_t j = 0; j < lanes && v * lanes + j < outputs; ++j, next_output(coord))
                most = std::max(most, window_at(coord).count);
            lower_bound += most;
        }
    }
    if (lower_bound > std::min(max_plane_gathers, max_plane_gathers_per_output * outputs)) return {};

    PlanePlan plane;
    plane.elements = elements;
    plane.outputs = outputs;
    plane.registers = static_cast<int>((elements + lanes - 1) / lanes);
    plane.gathers.reserve(static_cast<std::size_t>(lower_bound));
    int lane_shift = 0;  // lanes is a power of two
    while ((std::int64_t{1} << lane_shift) < lanes) ++lane_shift;
    std::int64_t coord[3] = {0, 0, 0};
    for (std::int64_t v = 0; v < vectors; ++v) {
        const std::int64_t count = std::min(lanes, outputs - v * lanes);
        Window windows[16];
        std::int64_t most = 0;
        for (std::int64_t j = 0; j < count; ++j, next_output(coord)) {
            windows[j] = window_at(coord);
            most = std::max(most, windows[j].count);
        }
        for (std::int64_t t = 0; t < most; ++t) {
            std::int64_t elements_now[16], indices_now[16], registers[16];
            int distinct = 0;
            for (std::int64_t j = 0; j < count; ++j) {
                if (t >= windows[j].count) continue;
                elements_now[j] = element_of(windows[j], indices_now[j]);
                next_tap(windows[j]);
                registers[distinct++] = elements_now[j] >> lane_shift;
            }
            std::sort(registers, registers + distinct);
            distinct = static_cast<int>(std::unique(registers, registers + distinct) - registers);
            for (int r = 0; r < distinct; r += 2) {
                PlaneGather g;
                g.vector = static_cast<int>(v);
                g.tap = static_cast<int>(t);
                g.first = static_cast<int>(registers[r]);
                g.second = static_cast<int>(r + 1 < distinct ? registers[r + 1] : registers[r]);
                for (std::int64_t j = 0; j < count; ++j) {
                    if (t >= windows[j].count) continue;
                    const std::int64_t reg = elements_now[j] >> lane_shift, lane = elements_now[j] & (lanes - 1);
                    if (reg != g.first && reg != g.second) continue;
                    g.lanes_mask |= std::uint64_t{1} << j;
                    g.source[static_cast<std::size_t>(j)] = static_cast<std::int32_t>(reg == g.first ? lane : lanes + lane);
                    if (p.has_indices) g.index[static_cast<std::size_t>(j)] = indices_now[j];
                }
                plane.gathers.push_back(g);
            }
        }
    }
    if (plane.gathers.size() > static_cast<std::size_t>(std::min(max_plane_gathers, max_plane_gathers_per_output * outputs)))
        return {};
    return plane;
}

// Index multipliers per spatial axis: the index of an element is channel_term + sum(i_a * m_a).
void index_multipliers(const Problem& p, std::int64_t (&m)[3]) {
    const bool adaptive = p.op == OpKind::adaptive_max_pool;
    const int sr = p.spatial_rank;
    // Adaptive indices are per-channel spatial indices: axis 2 in MaxPool-8's terms.
    const int index_axis = adaptive ? 2 : p.axis;
    for (int a = 0; a < sr; ++a) {
        std::int64_t mult = 1;
        if (!adaptive && p.order == StorageOrder::column_major) {
            for (int b = 0; b < a; ++b) mult *= p.in[static_cast<std::size_t>(b)];
        } else {
            for (int b = a + 1; b < sr; ++b) mult *= p.in[static_cast<std::size_t>(b)];
            // axis >= 2 takes the index modulo the trailing spatial dims from spatial axis (axis - 2) on:
            // the terms of earlier axes are multiples of the modulus.
            if (a < index_axis - 2) mult = 0;
        }
        m[a] = mult;
    }
}

// How far a window's taps reach in index units from its first tap.
__extension__ typedef __int128 i128;

i128 window_index_extent(const Problem& p, const std::int64_t (&m)[3]) {
    const bool adaptive = p.op == OpKind::adaptive_max_pool;
    i128 extent = 0;
    for (int a = 0; a < p.spatial_rank; ++a) {
        const auto u = static_cast<std::size_t>(a);
        const i128 reach = adaptive ? p.in[u] / p.out[u] + 1 : static_cast<i128>(p.kernel[u] - 1) * p.dilation[u];
        extent += reach * m[a];
    }
    return extent;
}

// How many windows read an input element, on average over the interior: the kernel's taps per stride step, and 1
// along an axis of one output (a global pool reads each element once, whatever its stride).
double reads_per_element(const Problem& p) {
    if (p.op == OpKind::adaptive_max_pool) return 1.0;  // neighbouring bins share at most one row or column
    double reads = 1.0;
    for (int a = 0; a < p.spatial_rank; ++a) {
        const auto u = static_cast<std::size_t>(a);
        if (p.out[u] > 1) reads *= static_cast<double>(p.kernel[u]) / static_cast<double>(p.stride[u]);
    }
    return reads;
}

}  // namespace

KernelPlan make_plan(const Problem& p, Isa isa, const PlanOptions& options) {
    if (isa != Isa::avx2 && isa != Isa::avx512) throw Error("planner: isa must be avx2 or avx512");
    const bool adaptive = p.op == OpKind::adaptive_max_pool;
    KernelPlan plan;
    plan.isa = isa;
    plan.strategy = p.layout == Layout::nxc ? Strategy::nxc_channels : Strategy::ncx_width;
    const bool lanes_are_outputs = plan.strategy == Strategy::ncx_width;
    plan.dtype = p.dtype;
    plan.compare = compare_type_of(p.dtype);
    // Channels-last bytes without indices compare as bytes: 64 channels per vector, no widening or narrowing.
    if (isa == Isa::avx512 && !lanes_are_outputs && !p.has_indices && (p.dtype == DType::u8 || p.dtype == DType::s8))
        plan.compare = p.dtype == DType::u8 ? CompareType::u8 : CompareType::s8;
    plan.nan = p.nan;
    plan.is_float = plan.compare == CompareType::f64 || plan.compare == CompareType::f32;
    plan.fast_starts_from_lowest = p.dtype != DType::f16;
    plan.spatial_rank = p.spatial_rank;
    plan.vector_bytes = isa == Isa::avx512 ? 64 : 32;
    plan.lanes = plan.vector_bytes / lane_bytes(plan.compare);
    // Indices in a plane of more than 2^31 elements with 32-bit compare lanes: counted from each window's first
    // tap while a window reaches less than 2^31 index units; beyond that, half vectors of data lanes beside full
    // vectors of 64-bit index lanes (one opmask bit or one widened mask lane per index lane).
    constexpr std::int64_t int32_max = std::numeric_limits<std::int32_t>::max();
    const bool huge_index_plane = p.has_indices && p.spatial_in_size() - 1 > int32_max;
    std::int64_t multipliers[3] = {0, 0, 0};
    if (p.has_indices) index_multipliers(p, multipliers);
    const bool half_vectors = p.has_indices && !is_64bit(plan.compare) &&
                              (options.wide_index_lanes ||
                               (huge_index_plane && window_index_extent(p, multipliers) > int32_max));
    // Indices counted from each window's first tap (where 32-bit lanes hold them), or forced on a small plane.
    const bool window_relative = p.has_indices && (huge_index_plane || options.window_relative_indices);
    if (half_vectors) plan.lanes /= 2;
    const std::int64_t lanes = plan.lanes;
    // f16 carries raw bits beside each accumulator: with indices too, two vectors would not fit in 16 ymm.
    // Window-relative indices need one more register for the window's index.
    const int max_vectors = isa == Isa::avx512                                                   ? max_vectors_per_block_avx512
                            : (p.dtype == DType::f16 && p.has_indices) || window_relative ? 1
                                                                                             : max_vectors_per_block_avx2;

    const int w = p.spatial_rank - 1;  // innermost spatial axis
    const auto wa = static_cast<std::size_t>(w);
    WidthAxis axis{p.out[wa], p.in[wa], p.kernel[wa], p.stride[wa], p.dilation[wa], p.pad_begin[wa]};
    if (adaptive) axis = {p.out[wa], p.in[wa], 1, 1, 1, 0};  // windows come from the adaptive rule
    plan.out_width = axis.out;
    plan.in_width = axis.in;
    plan.kernel_w = axis.kernel;
    plan.stride_w = axis.stride;
    plan.dilation_w = axis.dilation;
    plan.pad_w = axis.pad;

    // Lanes are channels (nxc) or outputs along the width (ncx).
    const std::int64_t lane_items = lanes_are_outputs ? plan.out_width : p.channels;
    const std::int64_t vectors_needed = (lane_items + lanes - 1) / lanes;
    plan.vectors_per_block = static_cast<int>(std::clamp<std::int64_t>(vectors_needed, 1, max_vectors));
    // A column ring with indices keeps an index vector beside each of its k x vectors row maxima, and one
    // beside each accumulator: fewer vectors per block, as many as leave the ring its registers. Only for data
    // narrower than its 32-bit compare lanes, whose every tap is a widening load: f32 and s32 taps are plain
    // loads, and with 2 vectors' compare-and-blend chains instead of 4 the ring ran 0.76-0.96x the rows (SPPF,
    // Inception, same-run A/B) where bf16, u8 and s8 ran 1.4-2.0x faster.
    const bool column_ring_shape = isa == Isa::avx512 && !lanes_are_outputs && !adaptive && plan.fast_starts_from_lowest &&
                                   p.spatial_rank == 2 && p.out[0] >= 2 && p.stride[0] == 1 && p.dilation[0] == 1 &&
                                   p.kernel[0] >= 2 && reads_per_element(p) >= min_reads_of_compare_bound_rows;
    const bool column_ring_indices = p.has_indices && size_of(p.dtype) < 4 && !half_vectors && !window_relative;
    if (column_ring_shape && column_ring_indices && p.kernel[0] <= max_column_ring_vectors / 2)
        plan.vectors_per_block = static_cast<int>(std::min<std::int64_t>(
            plan.vectors_per_block, std::max<std::int64_t>(1, max_column_ring_vectors / (2 * p.kernel[0]))));
    if (lanes_are_outputs) {
        plan.channel_block = 1;
        plan.channel_tail = 0;
    } else {
        plan.channel_block = std::min<std::int64_t>(plan.vectors_per_block * lanes, std::max<std::int64_t>(p.channels, 1));
        plan.channel_tail = p.channels % plan.channel_block;
        // Rows bound by memory sweep the largest divisor of the full blocks whose channels span at most
        // max_sweep_bytes (measured: the audio row 1.8x, C3D 1.2x, VGG pool3 bf16 1.3x faster). Rows bound by
        // compares do not: a window's input rows stay in L1 between output rows only block by block
        // (Inception bf16 ran 1.2x slower swept).
        const std::int64_t full_blocks = p.channels / plan.channel_block;
        const std::int64_t block_bytes = plan.channel_block * static_cast<std::int64_t>(size_of(p.dtype));
        const bool bound_by_memory = reads_per_element(p) < min_reads_of_compare_bound_rows;
        for (std::int64_t sweep = bound_by_memory ? std::min(full_blocks, max_sweep_bytes / block_bytes) : 1; sweep > 1;
             --sweep)
            if (full_blocks % sweep == 0) {
                plan.channel_sweep = sweep;
                break;
            }
    }

    std::vector<PositionRun> runs;
    if (adaptive) {
        runs = adaptive_runs(axis, default_max_width_runs);
    } else {
        plan.width_runs = width_runs(axis.out, axis.in, axis.kernel, axis.stride, axis.dilation, axis.pad);
        if (!plan.width_runs.empty()) runs = max_pool_runs(axis);
    }
    const std::int64_t group = plan.vectors_per_block * lanes;
    if (!runs.empty()) plan.segments = segments_of(runs, lanes_are_outputs, group);
    if (runs.empty() || plan.segments.size() > max_segments) {
        plan.computed_windows = true;
        plan.walk = computed_windows_of(axis, adaptive);
    }
    // ncx fast rows on AVX-512 (f16 starts from its first element, which a masked or tap lane may not have):
    // windows' taps as lanes where a row has few outputs for its windows, else masked items that let border
    // outputs share vectors with interior ones (every kernel tap unrolled, a mask per tap). Taps as lanes keep
    // each lane's scan rank as its row's byte offset in the window, in 32-bit lanes.
    const bool small_plane = p.spatial_in_size() < (std::int64_t{1} << 31) / static_cast<std::int64_t>(size_of(p.dtype));
    if (isa == Isa::avx512 && lanes_are_outputs && !plan.computed_windows && !half_vectors && small_plane)
        plan.fast_segments = whole_plane_segments(p, multipliers, lanes);
    if (isa == Isa::avx512 && lanes_are_outputs && !plan.computed_windows && plan.fast_starts_from_lowest &&
        plan.fast_segments.empty()) {
        if (!half_vectors && axis.dilation == 1 && small_plane)
            plan.fast_segments = window_lane_segments(runs, plan.segments, axis.out, lanes);
        if (plan.fast_segments.empty() && !adaptive && axis.kernel <= max_unrolled_width_taps)
            plan.fast_segments = masked_fast_segments(axis, plan.width_runs, group);
    }
    // The fast copy of a float row costs a pass over the row's input (the NaN scan) before the row code runs.
    // Channels last, it pays only where windows overlap enough that compares, not memory, bound the row; where
    // each input element is read by few windows, the exact compare per tap hides behind the loads and the scan
    // is a second pass over memory (measured: the DRAM-sized stem ran 1.3x, the audio row 1.5x, C3D 1.3x
    // slower with it; Inception k3 s1 1.5x faster). Planar rows keep it: their fast copy has its own item
    // shapes (taps as lanes, masked borders), up to 4x faster than the exact copy.
    plan.scan_rows_for_nan =
        plan.is_float && (lanes_are_outputs || reads_per_element(p) >= min_reads_of_compare_bound_rows);
    if (plan.is_float && !plan.scan_rows_for_nan) plan.fast_segments.clear();
    // A row of pieces clips its segments and NaN scan to the call's outputs at run time: a few instructions per
    // segment, so only rows long enough to be worth splitting take it. The clipping computes positions
    // out * stride - pad + extent, kept small by bounding each term.
    const std::int64_t pad_end_w = adaptive ? 0 : p.pad_end[wa];
    plan.width_ranges = !lanes_are_outputs && !adaptive && !plan.computed_windows &&
                        plan.out_width >= min_ranged_outputs && axis.in < max_ranged_extent &&
                        axis.pad < max_ranged_extent && pad_end_w < max_ranged_extent &&
                        axis.stride < max_ranged_extent;
    std::int64_t longest_window = 0;
    for (const Segment& s : plan.segments) longest_window = std::max(longest_window, s.taps);
    plan.unroll_width_taps = !plan.computed_windows && longest_window <= max_unrolled_width_taps;
    // ncx rows that are one item, whose windows along h share k - 1 rows with those ring_row_interval rows on
    // (a stride that divides the dilation): a k-row window costs one input row's width taps and k - 1 merges
    // per output row instead of k rows of taps. With indices in 32-bit lanes, each row maximum's index rides
    // beside it (twice the ring's registers).
    const std::vector<Segment>& fast_row = plan.fast_segments.empty() ? plan.segments : plan.fast_segments;
    const bool ring_indices_fit = !p.has_indices || (!(is_64bit(plan.compare) || half_vectors) && !window_relative);
    const std::int64_t planar_ring_vectors_per_row = plan.vectors_per_block * (p.has_indices ? 2 : 1);
    const std::int64_t ring_vector_limit = p.has_indices ? max_ring_vectors_with_indices : max_ring_vectors;
    if (isa == Isa::avx512 && lanes_are_outputs && !adaptive && ring_indices_fit && plan.fast_starts_from_lowest &&
        p.spatial_rank == 2 && p.out[0] >= 2 && p.dilation[0] % p.stride[0] == 0 && p.kernel[0] >= 2 &&
        p.kernel[0] <= ring_vector_limit / planar_ring_vectors_per_row && plan.unroll_width_taps && fast_row.size() == 1 &&
        fast_row[0].repeat == 1 && fast_row[0].taps > 0 && !fast_row[0].taps_as_lanes && !fast_row[0].whole_plane) {
        plan.ring_rows = p.kernel[0];
        plan.ring_row_interval = p.dilation[0] / p.stride[0];
    }

    // Channels-last windows whose rows overlap along h (stride 1) and whose input is read by enough windows to
    // bound them by compares: the column ring (each output column walked down the call's rows with its window's
    // k row maxima in registers, and with indices of narrow data each maximum's index beside it). One channel
    // block per call.
    const int ring_vectors_per_row = plan.vectors_per_block * (p.has_indices ? 2 : 1);
    if (column_ring_shape && (!p.has_indices || column_ring_indices) &&
        p.kernel[0] <= max_column_ring_vectors / ring_vectors_per_row && plan.unroll_width_taps &&
        !plan.computed_windows && plan.channel_sweep == 1) {
        plan.ring_rows = p.kernel[0];
        // The next column reads most of the same input pixels again: a call's rows stop where one column's
        // input (rows x window width x block) would pass column_ring_input_bytes, so it is still in L1.
        // Divisions only: the dilated width (at most the padded input, validated below 2^63) times the block's
        // bytes can pass 2^63.
        const std::int64_t extent_w = (axis.kernel - 1) * axis.dilation + 1;
        const std::int64_t block_bytes = plan.channel_block * static_cast<std::int64_t>(size_of(p.dtype));
        plan.ring_call_rows =
            std::max<std::int64_t>(1, column_ring_input_bytes / block_bytes / extent_w - (plan.ring_rows - 1));
    }

    // Planar rows of fewer outputs than a vector, in planes that fit in registers: the whole plane per pass,
    // its outputs flat across rows (VGG pool5's 14x14 planes: rows of 7 outputs, each a call's row loop with
    // its NaN scan, half the lanes idle). f16 carries raw bits beside each lane; half vectors keep 64-bit
    // index lanes beside 32-bit data lanes: both keep the rows.
    if (isa == Isa::avx512 && lanes_are_outputs && p.dtype != DType::f16 && !half_vectors && axis.out < lanes) {
        PlanePlan plane = plane_plan(p, multipliers, lanes);
        if (!plane.gathers.empty()) {
            plan.strategy = Strategy::ncx_planes;
            plan.plane = std::move(plane);
            plan.fast_segments.clear();
            plan.ring_rows = 0;
            plan.ring_row_interval = 1;
        }
    }

    const std::int64_t elem = static_cast<std::int64_t>(size_of(p.dtype));
    const std::int64_t pixel = lanes_are_outputs ? elem : p.channels * elem;  // bytes between neighbouring positions
    auto dilation_of = [&](int a) { return adaptive ? std::int64_t{1} : p.dilation[static_cast<std::size_t>(a)]; };
    plan.src_step_w = pixel;
    plan.src_tap_stride_w = wrap_mul(plan.dilation_w, pixel);
    plan.src_out_stride_w = wrap_mul(plan.stride_w, pixel);
    plan.dst_out_stride_w = pixel;
    if (p.spatial_rank >= 2) plan.src_tap_stride_h = wrap_mul(dilation_of(w - 1), p.in[wa], pixel);
    if (p.spatial_rank >= 3) plan.src_tap_stride_d = wrap_mul(wrap_mul(dilation_of(0), p.in[1]), p.in[2], pixel);

    // The hardware prefetcher alone kept a DRAM-sized stem's planes (16x64x112x112 ncx f32) at 8.4 ms, 2x the
    // same plane count in cache; the row's own NaN scan then waited on every line.
    if (plan.strategy == Strategy::ncx_width && p.spatial_rank >= 2) {
        // An input row is at most the tensor's bytes (validated below 2^63); the stride is only bounded by 2^63,
        // so the bound is divided, never multiplied past it.
        const std::int64_t in_row_bytes = p.in[wa] * elem;
        if (p.stride[wa - 1] <= max_prefetch_bytes / in_row_bytes) {
            const std::int64_t row_bytes = p.stride[wa - 1] * in_row_bytes;
            plan.prefetch_bytes = row_bytes;
            plan.prefetch_distance = (prefetch_target_distance + row_bytes - 1) / row_bytes * row_bytes;
        }
    }

    plan.has_indices = p.has_indices;
    if (p.has_indices) {
        plan.index_dtype = p.index_dtype;
        const int sr = p.spatial_rank;
        const int index_axis = adaptive ? 2 : p.axis;
        for (int a = 0; a < sr; ++a) plan.index_mult[a] = multipliers[a];
        plan.index_mult_w = plan.index_mult[w];
        plan.index_tap_step_w = wrap_mul(plan.dilation_w, plan.index_mult[w]);
        plan.index_out_step_w = wrap_mul(plan.stride_w, plan.index_mult[w]);
        if (sr >= 2) plan.index_tap_step_h = wrap_mul(dilation_of(w - 1), plan.index_mult[w - 1]);
        if (sr >= 3) plan.index_tap_step_d = wrap_mul(dilation_of(0), plan.index_mult[0]);
        plan.channel_index_stride = index_axis <= 1 ? p.spatial_in_size() : 0;
        plan.lane_index_unit = lanes_are_outputs ? plan.index_mult_w : plan.channel_index_stride;
        // The spatial part never exceeds the spatial size; with 32-bit compare lanes it is tracked in 32-bit
        // lanes unless the spatial size does not fit.
        plan.index_lanes_64 = is_64bit(plan.compare) || half_vectors;
        plan.wide_index_math = plan.index_lanes_64 || p.index_dtype == DType::s64;
        plan.index_relative_to_window = !plan.index_lanes_64 && window_relative;
    }
    return plan;
}

std::string to_string(const KernelPlan& plan) {
    std::ostringstream s;
    s << "plan isa=" << to_string(plan.isa)
      << " strategy="
      << (plan.strategy == Strategy::nxc_channels ? "nxc_channels"
          : plan.strategy == Strategy::ncx_width  ? "ncx_width"
                                                  : "ncx_planes")
      << " dtype=" << to_string(plan.dtype) << " compare="
      << (plan.compare == CompareType::f32   ? "f32"
          : plan.compare == CompareType::f64 ? "f64"
          : plan.compare == CompareType::s32 ? "s32"
          : plan.compare == CompareType::u32 ? "u32"
          : plan.compare == CompareType::u8  ? "u8"
          : plan.compare == CompareType::s8  ? "s8"
                                             : "s64")
      << " nan=" << (plan.nan == NanPolicy::ignore ? "ignore" : "propagate") << " vector_bytes=" << plan.vector_bytes
      << " lanes=" << plan.lanes << " vectors_per_block=" << plan.vectors_per_block
      << " channel_block=" << plan.channel_block << " channel_tail=" << plan.channel_tail
      << " channel_sweep=" << plan.channel_sweep
      << " out_width=" << plan.out_width << " unroll_width_taps=" << plan.unroll_width_taps
      << " scan_rows_for_nan=" << plan.scan_rows_for_nan << " ring_rows=" << plan.ring_rows << "/" << plan.ring_row_interval << " ring_call_rows=" << plan.ring_call_rows << " fast_starts_from_lowest=" << plan.fast_starts_from_lowest
      << " prefetch=" << plan.prefetch_bytes << "@" << plan.prefetch_distance << " width_ranges=" << plan.width_ranges
      << " width_runs=";
    for (const WidthRun& r : plan.width_runs)
        s << "[" << r.out_begin << "," << r.out_end << "):taps[" << r.tap_begin << "," << r.tap_end << ")";
    if (plan.computed_windows)
        s << " computed_windows=" << plan.walk.empty_before << "+" << plan.walk.computed << "+" << plan.walk.empty_after
          << (plan.walk.adaptive ? " (adaptive)" : "");
    else s << " segments=" << plan.segments.size();
    if (!plan.fast_segments.empty())
        s << " fast_segments=" << plan.fast_segments.size()
          << (plan.fast_segments.front().taps_as_lanes || plan.fast_segments.back().taps_as_lanes ? " (taps as lanes)" : "")
          << (plan.fast_segments.front().whole_plane ? " (whole plane)" : "");
    if (plan.strategy == Strategy::ncx_planes)
        s << " plane_elements=" << plan.plane.elements << " plane_outputs=" << plan.plane.outputs
          << " plane_registers=" << plan.plane.registers << " plane_gathers=" << plan.plane.gathers.size();
    if (plan.has_indices)
        s << " indices=" << to_string(plan.index_dtype) << " index_lanes=" << (plan.index_lanes_64 ? 64 : 32)
          << " index_mult=" << plan.index_mult[0] << "," << plan.index_mult[1] << "," << plan.index_mult[2]
          << " channel_index_stride=" << plan.channel_index_stride
          << (plan.index_relative_to_window ? " index_relative_to_window" : "");
    return s.str();
}

}  // namespace pooljit::jit
