// The planner's view of memory: which facts of a dense tensor the strides of a problem's src, dst and indices
// keep (MemoryFacts), and so which code serves a view. Dense tensors keep every fact and get the code they always
// had; a view that breaks one gets the code that does not need it, never the reference.
#include "jit/plan/plan.hpp"
#include "jit/plan/plan_rows.hpp"

#include <algorithm>
#include <vector>

namespace pooljit::jit {
namespace {

struct Tensor {
    const Problem::Strides* strides;
    const Problem::Spatial* dims;
};

}  // namespace

MemoryFacts memory_facts(const Problem& p) {
    std::vector<Tensor> tensors{{&p.src_strides, &p.in}, {&p.dst_strides, &p.out}};
    if (p.has_indices) tensors.push_back({&p.indices_strides, &p.out});
    const auto sr = static_cast<std::size_t>(p.spatial_rank);
    const std::size_t w = sr - 1;
    const auto all = [&](auto&& fact) {
        for (const Tensor& t : tensors)
            if (!fact(*t.strides, *t.dims)) return false;
        return true;
    };
    MemoryFacts m;
    // An axis of one position has no step to keep: any stride serves it.
    m.rows_contiguous = p.block == 1 && all([&](const Problem::Strides& s, const Problem::Spatial& d) {
                            return d[w] == 1 || s.spatial[w] == 1;
                        });
    m.planes_contiguous = m.rows_contiguous && all([&](const Problem::Strides& s, const Problem::Spatial& d) {
                              std::int64_t span = d[w];  // elements of the plane inside axis a
                              for (std::size_t a = w; a-- > 0;) {
                                  if (d[a] != 1 && s.spatial[a] != span) return false;
                                  span *= d[a];
                              }
                              return true;
                          });
    // The walk steps along the outermost axis: the next channel's plane is one more step of it (a plane of one
    // row included, whose row stride is then the step between planes).
    m.planes_stack = m.rows_contiguous && all([&](const Problem::Strides& s, const Problem::Spatial& d) {
                         return p.channels <= 1 || s.c == d[0] * s.spatial[0];
                     });
    if (p.block > 1) m.channel_run = p.block;
    else if (p.channels <= 1 || all([](const Problem::Strides& s, const Problem::Spatial&) { return s.c == 1; }))
        m.channel_run = std::max<std::int64_t>(p.channels, 1);
    else m.channel_run = 1;
    return m;
}

std::vector<PlanePiece> plane_pieces(const PlaneRows& rows, std::int64_t first, std::int64_t count) {
    std::vector<PlanePiece> pieces;
    for (std::int64_t e = first; e < first + count;) {
        const std::int64_t n = std::min(first + count - e, rows.width - e % rows.width);
        const std::int64_t offset = rows.offset(e);
        if (!pieces.empty() && pieces.back().offset + pieces.back().lanes == offset)
            pieces.back().lanes += static_cast<int>(n);
        else pieces.push_back({static_cast<int>(e - first), static_cast<int>(n), offset});
        e += n;
    }
    return pieces;
}

bool set_plane_rows(const Problem& p, PlanePlan& plane) {
    const auto sr = static_cast<std::size_t>(p.spatial_rank);
    const std::size_t w = sr - 1;
    const auto rows_of = [&](const Problem::Spatial& dims, const Problem::Strides& s, PlaneRows& rows) {
        if (dims[w] > 1 && s.spatial[w] != 1) return false;
        rows.width = dims[w];
        rows.rows_h = sr >= 2 ? dims[w - 1] : 1;
        rows.step_h = sr >= 2 ? s.spatial[w - 1] : rows.width;
        rows.step_d = sr >= 3 ? s.spatial[w - 2] : rows.rows_h * rows.step_h;
        // Every piece's byte offset is a 32-bit displacement (a plane in registers has at most a few thousand
        // elements, so the products below stay small).
        constexpr std::int64_t max_offset = std::int64_t{1} << 27;
        if (rows.step_h >= max_offset || rows.step_d >= max_offset || rows.width >= max_offset) return false;
        const std::int64_t last = (rows.rows_h - 1) * rows.step_h + (sr >= 3 ? (dims[0] - 1) * rows.step_d : 0) + rows.width;
        return last < max_offset;
    };
    if (!rows_of(p.in, p.src_strides, plane.src_rows) || !rows_of(p.out, p.dst_strides, plane.dst_rows)) return false;
    if (!p.has_indices) return true;
    // Indices store a vector's lanes at once (in halves for s64 from 32-bit lanes): their plane's rows follow one
    // another.
    PlaneRows& rows = plane.indices_rows;
    return rows_of(p.out, p.indices_strides, rows) && rows.step_h == rows.width && rows.step_d == rows.rows_h * rows.width;
}

bool planar_lanes(const Problem& p, const MemoryFacts& m) {
    if (p.layout == Layout::ncx) return m.rows_contiguous;
    if (m.channel_run > 1 || p.channels <= 1) return false;
    return m.rows_contiguous;
}

IsaForm rules_isa_form(const Problem& p, const CpuTraits& traits, bool blocks_folded) {
    const MemoryFacts m = memory_facts(p);
    const bool compare_bound = reads_per_element(p) >= 4.0;
    if (planar_lanes(p, m)) {
        // The AVX-512 form's plan, made once for the rules below that ask about it, and handed to create().
        std::optional<KernelPlan> avx512_plan;
        bool avx512_planned = false;
        const auto plan_avx512 = [&]() -> const KernelPlan* {
            if (!avx512_planned) {
                avx512_planned = true;
                try {
                    PlanOptions options;
                    options.core = traits;
                    avx512_plan = make_plan(p, Isa::avx512, options);
                } catch (const Error&) {  // the AVX-512 form does not plan it: the rules below
                }
            }
            return avx512_plan ? &*avx512_plan : nullptr;
        };
        const auto form = [&](Isa isa, const char* reason) {
            IsaForm f{isa, reason, {}};
            if (isa == Isa::avx512) f.avx512_plan = std::move(avx512_plan);
            return f;
        };
        // u8/s8 rows the 256-bit form compares in byte lanes (byte rows, byte bands by shuffles, or flat planes: the
        // same 256-bit code in both forms), where the AVX-512 form widens bytes to 32-bit lanes or gathers small
        // planes by permutes (its bands against the 256-bit form's not measured on a core without byte permutes).
        // Intel Xeon (Emerald Rapids), u8 ncx: VGG pool5 4.4 us against 13.6, GoogLeNet 32 against 91, MobileNet
        // 31 against 44, the stem 36 against 44. On cores that split 512-bit operations, after small planes.
        const auto takes_byte_rows = [&] {
            if ((p.dtype != DType::u8 && p.dtype != DType::s8) || p.has_indices) return false;
            try {
                const KernelPlan avx2 = make_plan(p, Isa::avx2);
                return (avx2.separable.enabled() && lane_bytes(avx2.compare) == 1) || avx2.flat_planes.enabled() ||
                       avx2.byte_bands.enabled();
            } catch (const Error&) {  // the AVX2 form does not plan it: the rules below
                return false;
            }
        };
        // Small u8/s8 planes that the AVX-512 form holds in registers in byte lanes (byte permutes): 64 outputs a
        // vector, where the 256-bit form's byte pairs and rows run a loop per row of a few outputs.
        const auto takes_byte_planes = [&] {
            if ((p.dtype != DType::u8 && p.dtype != DType::s8) || p.has_indices || !traits.byte_permutes) return false;
            const KernelPlan* avx512 = plan_avx512();
            return avx512 != nullptr && avx512->strategy == Strategy::ncx_planes && lane_bytes(avx512->compare) == 1 &&
                   !avx512->flat_planes.enabled() && !avx512->byte_bands.enabled();
        };
        if (takes_byte_planes()) return form(Isa::avx512, "small planes of bytes held in registers in byte lanes (byte permutes)");
        // 2-D u8/s8 max pools in byte bands (byte permutes): a vector of outputs from its rows' maxima and a permute
        // a width tap, where the 256-bit form's byte pairs, rows and flat planes pack pairs, buffer a pass or leave
        // short rows' lanes idle. Xeon 2, u8 ncx, one thread, the rules before and after: the stem 29.7 us ->
        // 18.1, GoogLeNet 32.4 -> 15.6, Inception 11.1 -> 7.3, SPPF 26.8 -> 14.7, the dilated 3x3 p1 23.1 -> 10.0.
        // Not measured on cores that split 512-bit operations: taken there too (the permutes are single operations
        // of 512 bits on Zen 4 and Zen 5 as well).
        const auto takes_byte_bands = [&] {
            if ((p.dtype != DType::u8 && p.dtype != DType::s8) || p.has_indices || !traits.byte_permutes) return false;
            const KernelPlan* avx512 = plan_avx512();
            return avx512 != nullptr && avx512->byte_bands.enabled();
        };
        if (takes_byte_bands()) return form(Isa::avx512, "2-D planar bytes in bands gathered by byte permutes");
        // 2-D byte pairs whose windows start in the padding before the row or overhang its end, in rows of at
        // least half a zmm of outputs: the AVX-512 form's masked loads leave the lanes outside the row empty where
        // the 256-bit form shifts or blends the empty value in (Xeon 2, u8 ncx, the forms forced by wisdom, 4
        // alternating rounds: the stem 30.7 us against 36.5, its ceil twin 29.9 against 38.1, 1x32x150x150 k3 s2
        // p1 27.5 against 33.5; GoogLeNet's 14-output rows 41.1 against 33.0; windows inside the row level).
        const auto takes_edge_byte_pairs = [&] {
            if ((p.dtype != DType::u8 && p.dtype != DType::s8) || p.has_indices || p.spatial_rank != 2 || p.out[1] < 32)
                return false;
            const KernelPlan* avx512 = plan_avx512();
            if (avx512 == nullptr || !avx512->separable.byte_pairs) return false;
            // Byte pairs: stride 2, at most 4 taps, no dilation along the width (no overflow below).
            return p.pad_begin[1] > 0 || (p.out[1] - 1) * p.stride[1] - p.pad_begin[1] + p.kernel[1] > p.in[1];
        };
        if (!traits.splits_512_bit_ops) {
            // Blocked bytes folded: as planar rows (rows of W x B bytes, width taps a block apart) the AVX-512
            // form's byte rows and bands hold 64 outputs a vector where the 256-bit form's byte rows hold 32 (u8
            // 1x256x40x40 k9 p4 nCx16c, one thread, Xeon 2, forced in one process: 109 us against 143); as pixels in
            // lanes a zmm holds 4 or 8 pixels where a ymm holds 2 or 4 (Xeon 2, one thread, medians of 3 runs: the
            // stem nCx16c 11.6 us against 15.1, nCx8c 11.6 against 19.8, SPP k9 nCx8c 37.0 against 53.1).
            if (blocks_folded) return form(Isa::avx512, "blocked bytes folded: 64 byte lanes a vector");
            if (takes_edge_byte_pairs())
                return form(Isa::avx512, "2-D byte pairs past the row's edges: masked loads leave those lanes empty");
            if (takes_byte_rows()) return form(Isa::avx2, "planar bytes in the 256-bit form's byte rows or flat planes");
            return form(Isa::avx512, "planar rows: opmasks for border items and gathers");
        }
        // Small planes in registers, gathered by two-register permutes, are AVX-512's alone.
        const std::int64_t w_out = p.out[static_cast<std::size_t>(p.spatial_rank - 1)];
        const bool small_planes = w_out < 16 && p.spatial_out_size() >= 36 && p.spatial_in_size() <= 256 &&
                                  p.dtype != DType::f16;
        if (small_planes && p.dtype != DType::bf16)
            return form(Isa::avx512, "small planes of many outputs held in registers (AVX-512's permutes)");
        // bf16 small planes keep them only where the 256-bit form's rows are runs of unequal windows (uneven
        // adaptive windows: several segments a row, several runs of rows, each a call): adaptive 1x512x13x13 to
        // 7x7 22.8 us against 40.7; where its windows are even, one run a plane, the 256-bit form ran faster
        // (to 6x6 9.0 against 10.4, VGG pool5 11.0 against 14.3).
        if (small_planes) {
            bool uneven = false;
            try {
                const KernelPlan avx2 = make_plan(p, Isa::avx2);
                uneven = avx2.computed_windows || avx2.segments.size() > 1 || avx2.row_runs_h.size() > 1;
            } catch (const Error&) {  // the AVX2 form does not plan it: the rules below
            }
            if (uneven)
                return form(Isa::avx512, "bf16 small planes of uneven windows held in registers (AVX-512's permutes)");
        }
        // Zen 4, u8 ncx: the stem 33 against 46 us, SPPF 80 against 94, k3 s1 over 28x28 22 against 24.
        if (takes_byte_rows())
            return form(Isa::avx2, "the core runs 512-bit operations in halves: planar bytes in the 256-bit form's byte rows or flat planes");
        // f32 windows of 5 rows or more (SPP, SPPF): the 256-bit form's separable rows (ncx SPP k9 352-377 us
        // against 481, SPPF 132 against 142; Zen 4). s32 SPPF ran 1.07x faster on AVX-512.
        if (compare_bound && p.dtype == DType::f32 && p.spatial_rank == 2 && p.op == OpKind::max_pool &&
            p.kernel[0] >= 5)
            return form(Isa::avx2, "the core runs 512-bit operations in halves: compare-bound f32 planar windows of 5 "
                               "rows or more in the 256-bit form's separable rows");
        if (compare_bound && p.dtype != DType::bf16)
            return form(Isa::avx512, "compare-bound planar rows: masked border items and rings in 32 registers");
        return form(Isa::avx2, "the core runs 512-bit operations in halves: memory-bound planar rows (and bf16) run "
                           "the 256-bit form as fast, their stride-2 taps paired");
    }
    // Channels last: the AVX-512 form's call holds a block of channels; where they fill at most half a zmm
    // (32 bytes of compare lanes: u8 in byte lanes up to 32 channels, f32 up to 8), a ymm holds them whole.
    // Lanes as the planner takes them (choose_lanes): bytes compare in byte lanes unless indices need 32-bit
    // lanes or the consecutive channels are runs shorter than the 256-bit form's min_byte_lane_run (blocks of 8
    // or 16 take byte lanes, and so the 256-bit form: a block of at most half a zmm).
    const std::int64_t run = std::min(std::max<std::int64_t>(p.channels, 1), m.channel_run);
    const bool byte_lanes = (p.dtype == DType::u8 || p.dtype == DType::s8) && !p.has_indices &&
                            !(m.channel_run < p.channels && m.channel_run < min_byte_lane_run(32));
    const std::int64_t lane_bytes = byte_lanes ? 1 : jit::lane_bytes(compare_type_of(p.dtype));
    if (run * lane_bytes <= 32) return {Isa::avx2, "a channel block fills at most half a 512-bit vector", {}};
    // Byte lanes of 33 to 63 channels, where the core splits: one masked zmm load a pixel against a ymm and a
    // partial one; the 256-bit form ran 1.14-1.29x faster at 40 and 48 channels, 1.01-1.12x at 56 and 60 (u8,
    // k3 s2 p1, k3 s1 p1, k2 s2; Zen 4). 32-bit lanes of 10 to 14 channels ran level (0.84-1.21x either way).
    if (traits.splits_512_bit_ops && byte_lanes && run < 64)
        return {Isa::avx2, "the core runs 512-bit operations in halves: byte lanes of fewer channels than a zmm", {}};
    // bf16 in a column ring (compare-bound, windows of fewer than 5 rows) widens every tap it loads; the 256-bit
    // form's separable pixels widen each element once (Inception k3 s1 bf16 nxc 24.8 us against 31.4, Zen 4).
    if (traits.splits_512_bit_ops && p.dtype == DType::bf16 && p.op == OpKind::max_pool && compare_bound &&
        p.spatial_rank == 2 && window_spans_at_least(p, 0, 2) && !window_spans_at_least(p, 0, 5))
        return {Isa::avx2, "the core runs 512-bit operations in halves: bf16 compare-bound channels-last rows in the "
                           "256-bit form's separable pixels", {}};
    // Compare-bound 2-D rows whose windows span 5 rows or more: the 256-bit form's separable pixels.
    if (traits.splits_512_bit_ops && p.spatial_rank == 2 && p.op == OpKind::max_pool && p.kernel[0] >= 5 &&
        compare_bound)
        return {Isa::avx2, "the core runs 512-bit operations in halves; compare-bound channels-last rows of "
                           "windows of 5 rows or more take separable pixels", {}};
    return {Isa::avx512, "channels last", {}};
}

}  // namespace pooljit::jit
