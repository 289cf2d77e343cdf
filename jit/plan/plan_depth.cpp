// Problems planned as others that address the same elements (jit/plan/plan.hpp): windows one plane deep, a 3-D
// planar problem as the 2-D problem of its planes (folds_depth, depth_folded); and blocked u8/s8 rows at stride 1,
// each channel block's rows as planar rows of bytes (folds_blocks, blocks_folded).
#include "jit/plan/plan.hpp"

#include "jit/plan/plan_rows.hpp"
#include "jit/plan/planner.hpp"

#include <limits>

namespace pooljit::jit {
namespace {

// The 2-byte channel volume from which memory-bound 3-D rows stay unfolded (folds_depth).
constexpr double min_unfolded_volume_bytes = 64 * 1024;

}  // namespace

bool folds_depth(const Problem& p) {
    if (p.spatial_rank != 3 || p.layout != Layout::ncx || p.block != 1 || p.has_indices) return false;
    const bool one_plane_windows = p.op == OpKind::adaptive_max_pool
                                       ? p.out[0] == p.in[0]
                                       : p.kernel[0] == 1 && p.stride[0] == 1 && p.pad_begin[0] == 0 && p.pad_end[0] == 0;
    if (!one_plane_windows || p.out[0] != p.in[0]) return false;
    // Data of 4 or 8 bytes in rows bound by memory keep their 3-D rows: plain items with the NaN watch, which
    // ran 5970 us against 6900 as 2-D separable rows (f32 1x64x32x112x112 k1x3x3 s1x2x2 same_upper, Zen 4).
    // 2-byte data too where a channel's volume passes 64 KiB: Zen 3, one thread, bf16 k1x3x3 s1x2x2, unfolded
    // against folded, lowest of 4 alternating rounds: 1x64x32x112x112 (784 KiB a channel) 5770 us against 8619,
    // 1x32x16x112x112 (392 KiB) 1128 against 1677, 1x32x8x112x112 (196 KiB) 524 against 601, 1x64x16x56x56
    // (98 KiB) 667 against 806, k1x2x2 s1x2x2 over 392 KiB 568 against 1156; 1x16x8x56x56 (49 KiB) ran 0.97-1.30x
    // the folded time in three runs, so smaller volumes fold. f16 ran level (0.95-1.04x).
    const double volume_bytes = static_cast<double>(p.in[0]) * static_cast<double>(p.in[1]) *
                                static_cast<double>(p.in[2]) * static_cast<double>(size_of(p.dtype));
    if ((size_of(p.dtype) >= 4 || (size_of(p.dtype) == 2 && volume_bytes >= min_unfolded_volume_bytes)) &&
        reads_per_element(p) < min_reads_of_compare_bound_rows)
        return false;
    // Channels D planes apart in both tensors, so that channel c's plane d is folded channel c * D + d.
    if (p.src_strides.c != wrap_mul(p.in[0], p.src_strides.spatial[0]) ||
        p.dst_strides.c != wrap_mul(p.out[0], p.dst_strides.spatial[0]))
        return false;
    // C x D channels fit: they are at most the elements of the tensor, unless a plane is empty.
    return p.in[1] >= 1 && p.in[2] >= 1 && p.out[1] >= 1 && p.out[2] >= 1 &&
           (p.channels == 0 || p.in[0] <= std::numeric_limits<std::int64_t>::max() / p.channels);
}

Problem depth_folded(const Problem& p) {
    Problem q = p;
    q.spatial_rank = 2;
    q.channels = p.channels * p.in[0];
    const auto shift = [](Problem::Spatial& a, std::int64_t neutral) { a = {a[1], a[2], neutral}; };
    for (Problem::Spatial* a : {&q.in, &q.out, &q.kernel, &q.stride, &q.dilation}) shift(*a, 1);
    shift(q.pad_begin, 0);
    shift(q.pad_end, 0);
    for (Problem::Strides* s : {&q.src_strides, &q.dst_strides}) {
        s->c = s->spatial[0];
        shift(s->spatial, 0);
    }
    q.indices_strides = {};
    return q;
}

// 3-D blocked windows one plane deep whose blocks keep their D planes together (a block's stride D planes): the
// lane-axis problem takes each block's planes as channels of its own.
static bool blocks_one_plane_deep(const Problem& p) {
    return p.spatial_rank == 3 && p.kernel[0] == 1 && p.stride[0] == 1 && p.pad_begin[0] == 0 && p.pad_end[0] == 0 &&
           p.out[0] == p.in[0] && p.src_strides.c == wrap_mul(p.in[0], p.src_strides.spatial[0]) &&
           p.dst_strides.c == wrap_mul(p.out[0], p.dst_strides.spatial[0]) && p.channels / p.block + 1 <= std::numeric_limits<std::int64_t>::max() / p.in[0];
}

// The lane-axis fold (blocked_byte_pixels): at stride 2 along the width, and at stride 1 where every width tap
// lies within the two chunks of 256-bit vectors on either side of its output (|offset| <= 2 x 32 / B pixels: the
// shifted taps of the narrower form), for 1-D and 2-D windows and 3-D ones one plane deep. Other windows at stride
// 1 keep the fold into planar rows of bytes.
static bool folds_as_lanes(const Problem& p) {
    const auto w = static_cast<std::size_t>(p.spatial_rank - 1);
    if (p.block != 8 && p.block != 16) return false;
    if (p.spatial_rank == 3 && !blocks_one_plane_deep(p)) return false;
    if (p.stride[w] == 2) return true;
    // A window of the whole row (a global pool along it), at any stride.
    if (p.out[w] == 1 && p.dilation[w] == 1 && p.pad_begin[w] >= 0 && p.kernel[w] - p.pad_begin[w] >= p.in[w]) return true;
    if (p.stride[w] != 1 || p.kernel[w] > 64 || p.dilation[w] > 64 || p.pad_begin[w] > 64) return false;
    const std::int64_t reach = 2 * (32 / p.block);
    return p.pad_begin[w] <= reach && (p.kernel[w] - 1) * p.dilation[w] - p.pad_begin[w] <= reach;
}

// The lane-axis problem: one more spatial axis, the block's lanes, which no window crosses; 3-D windows one plane
// deep lose their depth axis first, each block's D planes D channels (a plane's stride apart).
static Problem lanes_folded(const Problem& p) {
    Problem q = p;
    const std::int64_t b = p.block;
    q.layout = Layout::ncx;
    q.block = 1;
    q.channels = (p.channels + b - 1) / b;  // a partial last block computes its padded lanes too
    if (p.spatial_rank == 3) {
        q.channels *= p.in[0];
        q.src_strides.c = p.src_strides.spatial[0];
        q.dst_strides.c = p.dst_strides.spatial[0];
        for (Problem::Spatial* a : {&q.in, &q.out, &q.kernel, &q.stride, &q.dilation, &q.pad_begin, &q.pad_end})
            *a = {(*a)[1], (*a)[2], 1};
        q.pad_begin[2] = q.pad_end[2] = 0;
        for (Problem::Strides* st : {&q.src_strides, &q.dst_strides}) st->spatial = {st->spatial[1], st->spatial[2], 0};
        q.spatial_rank = 2;
    }
    const auto lanes = static_cast<std::size_t>(q.spatial_rank);
    q.spatial_rank += 1;
    q.in[lanes] = q.out[lanes] = b;
    q.kernel[lanes] = q.stride[lanes] = q.dilation[lanes] = 1;
    q.pad_begin[lanes] = q.pad_end[lanes] = 0;
    q.src_strides.spatial[lanes] = 1;
    q.dst_strides.spatial[lanes] = 1;
    q.indices_strides = {};
    return q;
}

bool folds_blocks(const Problem& p, bool bands) {
    if (p.block <= 1 || p.has_indices || p.op != OpKind::max_pool || (p.dtype != DType::u8 && p.dtype != DType::s8))
        return false;
    if (p.channels == 0) return false;
    // Pixels one block apart in both tensors. Output pixel x's lane c is the maximum of the same taps as the
    // lane-axis problem's output (x, c) (blocked_byte_pixels), or at stride 1 as planar output x * B + c of rows of
    // W x B bytes whose width taps are B bytes apart.
    const auto w = static_cast<std::size_t>(p.spatial_rank - 1);
    if (p.src_strides.spatial[w] != p.block || p.dst_strides.spatial[w] != p.block) return false;
    // Folded into lanes, a partial last block computes its padded lanes too, from the source's, and its planes'
    // kernel entry stores them as 0; into planar rows of bytes, whole blocks only (that code has no such entry).
    if (folds_as_lanes(p)) return blocked_pixels_fit(lanes_folded(p));
    if (p.channels % p.block != 0) return false;
    // At stride 1, 2-D and 3-D: a 1-D row of one output window (s8 1x1024x1024 k1024 nCx16c, the row a block's
    // 16 KiB) ran 46.3 us folded against 29.8 (Xeon 2).
    if (p.stride[w] != 1 || p.spatial_rank < 2) return false;
    // The width's fields times the block fit with room (the row's bytes are at most the tensor's extent, but a
    // dilation or a pad may be larger).
    const std::int64_t limit = std::numeric_limits<std::int64_t>::max() / p.block / 4;
    for (const std::int64_t v : {p.in[w], p.out[w], p.dilation[w], p.pad_begin[w], p.pad_end[w]})
        if (v > limit) return false;
    if (p.kernel[w] > 1 && p.dilation[w] > limit / (p.kernel[w] - 1)) return false;
    // Against the channels-last code in byte lanes (Xeon 2, one thread, u8, the fold turned off in one build,
    // alternating, 2 runs): 2-D windows ran 1.7-6.1x faster folded, but for a window of the whole row
    // (16x2048x7x7 k7), folded 1.15-1.59x faster in the AVX-512 form's byte bands and 1.4-2.1x slower in the
    // 256-bit form's rows, so it folds only where bands may serve it; 3-D windows fold only one plane deep (then
    // as 2-D planes: k1x3x3 over 16x56x56 1.6-4.2x faster), deeper ones ran up to 2.7x slower folded (k3x3x3
    // over 8x28x28 nCx16c 287 us against 203, k2x2x2 s2x2x1 49 against 32).
    if (p.out[w] == 1 && !bands) return false;
    return p.spatial_rank == 2 || folds_depth(blocks_folded(p));
}

Problem blocks_folded(const Problem& p) {
    Problem q = p;
    const auto w = static_cast<std::size_t>(p.spatial_rank - 1);
    const std::int64_t b = p.block;
    if (folds_as_lanes(p)) return lanes_folded(p);
    q.layout = Layout::ncx;
    q.block = 1;
    q.channels = p.channels / b;  // the channel blocks, each a planar channel
    q.in[w] *= b;
    q.out[w] *= b;
    q.dilation[w] *= b;
    q.pad_begin[w] *= b;
    q.pad_end[w] *= b;
    // Channel blocks keep their stride (Strides::c is the block's in the blocked layouts); a block's row is
    // contiguous.
    q.src_strides.spatial[w] = 1;
    q.dst_strides.spatial[w] = 1;
    q.indices_strides = {};
    return q;
}

Problem folded_problem(const Problem& problem, bool blocks, bool depth) {
    Problem p = blocks ? blocks_folded(problem) : problem;
    return depth ? depth_folded(p) : p;
}

Folds folds_of(const Problem& problem, bool bands) {
    Folds f;
    f.blocks = folds_blocks(problem, bands);
    f.depth = folds_depth(f.blocks ? blocks_folded(problem) : problem);
    if (f.blocks && problem.channels % problem.block != 0) {
        f.block_tail = problem.channels % problem.block;
        f.block_planes = problem.spatial_rank == 3 ? problem.in[0] : 1;
        if (f.depth) f.block_planes *= blocks_folded(problem).in[0];  // its rows then planes too
    }
    return f;
}

void set_folds(PlanOptions& options, const Folds& folds) {
    options.blocks_folded = folds.blocks;
    options.depth_folded = folds.depth;
    options.folded_block_tail = folds.block_tail;
    options.folded_block_planes = folds.block_planes;
}

}  // namespace pooljit::jit
