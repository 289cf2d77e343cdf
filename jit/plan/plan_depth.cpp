// Windows one plane deep: the rule that plans a 3-D planar problem as the 2-D problem of its planes, and the
// transform itself (jit/plan/plan.hpp, folds_depth and depth_folded).
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

}  // namespace pooljit::jit
