// The geometry the planner's choices are made of: runs of equal windows along the width, the segments and
// items they become, computed windows, the special item shapes of planar fast rows, planes in registers, and
// index multipliers. Pure functions of the problem; the choices themselves are in plan.cpp and the files it
// names.
#include "jit/plan/plan_rows.hpp"

#include <pooljit/types.hpp>

#include <algorithm>
#include <limits>
#include <vector>

namespace pooljit::jit {
namespace {

// Each segment is straight-line code: beyond this many the row computes its windows at run time instead.
constexpr std::size_t max_segments = 2 * default_max_width_runs;
// Adaptive rows are scanned output by output for runs of equal windows up to this many outputs; longer
// irregular rows compute their windows at run time (planning stays O(1) in the row length).
constexpr std::int64_t max_scanned_outputs = std::int64_t{1} << 16;
// Planes in registers: the permutes of a plane's code.
constexpr std::int64_t max_plane_gathers = 256;
// A gather feeds the lanes whose windows read its register pair; with few outputs and large windows most of its
// lanes idle, and the rows' own items (a window's taps as lanes) win. Measured: adaptive 13x13 -> 3x3 (7
// permutes per output) ran 2.8x faster in registers, 13x13 -> 2x2 (18 per output) 1.3x slower.
constexpr std::int64_t max_plane_gathers_per_output = 8;

}  // namespace

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


// Adaptive windows along one axis: [o*in/out, ceil((o+1)*in/out)).
WindowTaps adaptive_window(std::int64_t o, std::int64_t in, std::int64_t out) {
    const auto begin = static_cast<std::int64_t>(static_cast<i128>(o) * in / out);
    const auto end = static_cast<std::int64_t>((static_cast<i128>(o + 1) * in + out - 1) / out);
    return {begin, end};
}

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

void mark_room_around_first_loads(std::vector<Segment>& segments, const WidthAxis& a, std::int64_t lanes) {
    for (Segment& s : segments) {
        if (s.taps <= 0 || s.masked || s.taps_as_lanes || s.whole_plane || s.whole_register_loads || s.lane_step != 2 ||
            s.outputs_per_item < 2 || s.first_position < 0 || s.item_step < 0 || s.repeat < 1)
            continue;
        const i128 last_item = static_cast<i128>(s.first_position) + static_cast<i128>(s.repeat - 1) * s.item_step;
        const i128 first_vector_lanes = std::min(s.outputs_per_item, lanes);
        s.element_before_later_loads = true;
        s.element_before_first_load = s.first_position >= 1;
        s.element_after_first_load = last_item + 2 * (first_vector_lanes - 1) + 1 < a.in;
    }
}

void mark_whole_register_loads(std::vector<Segment>& segments, const WidthAxis& a, std::int64_t lanes,
                               std::int64_t register_lanes) {
    if (lanes != register_lanes) return;  // half vectors beside 64-bit index lanes keep their exact loads
    std::vector<Segment> marked;
    marked.reserve(segments.size() + 1);
    for (Segment& s : segments) {
        const bool shaped = s.taps > 0 && !s.masked && !s.whole_plane &&
                            (s.taps_as_lanes || s.outputs_per_item == 1 || s.lane_step == 1 || s.lane_step == 2);  // else gathered
        if (!shaped || s.first_position < 0) {
            marked.push_back(s);
            continue;
        }
        const i128 last_vector_lane = (s.outputs_per_item - 1) / lanes * lanes;
        // The last element the first item's last vector reads at full width, from its first tap's position:
        // one register of lanes, or two of a pair; then the item's later taps.
        // Taps as lanes: one register from the window's first tap, once a row.
        const i128 reach = s.taps_as_lanes ? register_lanes - 1
                           : (s.outputs_per_item == 1 || s.lane_step == 1 ? last_vector_lane + register_lanes - 1
                                                                          : 2 * last_vector_lane + 2 * register_lanes - 1) +
                                 static_cast<i128>(s.taps - 1) * a.dilation;
        const i128 room = static_cast<i128>(a.in) - 1 - s.first_position - reach;  // >= 0: the first item fits
        // Items whose whole registers stay inside the row: all of them, or the first ones of a loop of items
        // (the rest become a segment of their own, with exact loads).
        const i128 fitting = room < 0 ? 0 : s.repeat == 1 || s.item_step <= 0 ? s.repeat : std::min<i128>(s.repeat, room / s.item_step + 1);
        if (fitting == 0) {
            marked.push_back(s);
            continue;
        }
        Segment whole = s;
        whole.repeat = static_cast<std::int64_t>(fitting);
        whole.whole_register_loads = true;
        marked.push_back(whole);
        if (whole.repeat == s.repeat) continue;
        Segment rest = s;
        rest.out_begin = s.out_begin + whole.repeat * s.outputs_per_item;
        rest.repeat = s.repeat - whole.repeat;
        rest.first_position = wrap_add(s.first_position, wrap_mul(whole.repeat, s.item_step));
        marked.push_back(rest);
    }
    segments = std::move(marked);
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
// one vector: one item reads the plane as a contiguous span. With indices,
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
    }
    if (elements < lanes) return {};
    Segment seg{0, 1, 1, elements, 0, 0, 0};
    seg.whole_plane = true;
    return {seg};
}

// ncx planes of at most max_registers vectors whose rows leave most lanes of a vector idle: the plane is
// loaded into registers whole and the outputs, flat across rows, take each window's taps by permutes. Per
// output vector and tap ordinal (each lane's taps in scan order), the registers its lanes read are paired, one
// permute per pair. Empty when the plane does not fit or would need more than max_plane_gathers permutes.
PlanePlan plane_plan(const Problem& p, const std::int64_t (&multipliers)[3], std::int64_t lanes, std::int64_t max_registers) {
    const bool adaptive = p.op == OpKind::adaptive_max_pool;
    const int sr = p.spatial_rank;
    const std::int64_t elements = p.spatial_in_size(), outputs = p.spatial_out_size();
    if (lanes > 64 || (p.has_indices && lanes > 16)) return {};  // PlaneGather's lanes
    if (elements > max_registers * lanes || outputs < 2) return {};
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
    if (!set_plane_rows(p, plane)) return {};
    plane.elements = elements;
    plane.outputs = outputs;
    plane.registers = static_cast<int>((elements + lanes - 1) / lanes);
    plane.gathers.reserve(static_cast<std::size_t>(lower_bound));
    int lane_shift = 0;  // lanes is a power of two
    while ((std::int64_t{1} << lane_shift) < lanes) ++lane_shift;
    std::int64_t coord[3] = {0, 0, 0};
    for (std::int64_t v = 0; v < vectors; ++v) {
        const std::int64_t count = std::min(lanes, outputs - v * lanes);
        Window windows[64];
        std::int64_t most = 0;
        for (std::int64_t j = 0; j < count; ++j, next_output(coord)) {
            windows[j] = window_at(coord);
            most = std::max(most, windows[j].count);
        }
        for (std::int64_t t = 0; t < most; ++t) {
            std::int64_t elements_now[64], indices_now[64], registers[64];
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
                    g.source[static_cast<std::size_t>(j)] = static_cast<std::uint8_t>(reg == g.first ? lane : lanes + lane);
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

bool window_spans_at_least(const Problem& p, std::size_t a, std::int64_t rows) {
    if (rows <= 1) return true;
    const std::int64_t steps = p.kernel[a] - 1, dilation = std::max<std::int64_t>(p.dilation[a], 1);
    const std::int64_t gap = rows - 1;  // steps * dilation >= gap, as steps >= ceil(gap / dilation)
    return steps > 0 && steps >= gap / dilation + (gap % dilation != 0);
}

std::vector<RowRun> row_runs_of(const std::vector<OuterTaps>& taps_h) {
    std::vector<RowRun> runs;
    for (std::size_t o = 0; o < taps_h.size(); ++o) {
        const OuterTaps& t = taps_h[o];
        if (!runs.empty()) {
            RowRun& run = runs.back();
            const OuterTaps& first = taps_h[static_cast<std::size_t>(run.begin)];
            const OuterTaps& last = taps_h[o - 1];
            const std::int64_t step = t.first_position - last.first_position;
            if (t.count == first.count && (run.end - run.begin == 1 || step == run.position_step)) {
                run.position_step = step;
                ++run.end;
                continue;
            }
        }
        const auto row = static_cast<std::int64_t>(o);
        runs.push_back({row, row + 1, 0});
    }
    return runs;
}

std::int64_t stacked_plane_step(const Problem& p, const KernelPlan& plan) {
    if (p.spatial_rank != 2 || plan.row_runs_h.size() != 1) return 0;
    const std::size_t h = 0, w = 1;
    const RowRun& run = plan.row_runs_h.front();
    const std::int64_t step = p.out[h] == 1 ? p.in[h] : run.position_step;
    const bool whole_planes = run.begin == 0 && run.end == p.out[h] && plan.taps_h.front().first_position == 0 &&
                              step > 0 && step <= p.in[h] && p.in[h] % step == 0 && p.in[h] / step == p.out[h];
    const bool planes_numbered_in_turn = !p.has_indices || (p.op == OpKind::max_pool && p.axis <= 1 &&
                                                            plan.index_mult[h] == p.in[w] && plan.index_mult[w] == 1);
    return whole_planes && planes_numbered_in_turn ? step : 0;
}

}  // namespace pooljit::jit
