#include "jit/plan.hpp"

#include <pooljit/types.hpp>

#include <algorithm>
#include <limits>
#include <sstream>

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
// Vectors of channels per block: enough independent dependency chains to hide the compare latency,
// few enough to keep accumulators, raw bits and indices in registers (16 ymm on AVX2, 32 zmm on AVX-512).
constexpr int max_vectors_per_block_avx512 = 4;
constexpr int max_vectors_per_block_avx2 = 2;

}  // namespace

KernelPlan make_plan(const Problem& p, Isa isa) {
    if (p.op != OpKind::max_pool) throw Error("planner: the adaptive strategy is not built yet");
    if (p.layout != Layout::nxc) throw Error("planner: the ncx strategy is not built yet");
    KernelPlan plan;
    plan.isa = isa;
    plan.strategy = Strategy::nxc_channels;  // ncx_width: planned in the ncx emitter's issue
    plan.dtype = p.dtype;
    plan.compare = compare_type_of(p.dtype);
    plan.nan = p.nan;
    plan.is_float = plan.compare == CompareType::f32 || plan.compare == CompareType::f64;
    plan.vector_bytes = isa == Isa::avx512 ? 64 : 32;
    plan.lanes = plan.vector_bytes / (is_64bit(plan.compare) ? 8 : 4);

    const std::int64_t lanes = plan.lanes;
    const std::int64_t vectors_needed = (p.channels + lanes - 1) / lanes;
    const int max_vectors = isa == Isa::avx512 ? max_vectors_per_block_avx512 : max_vectors_per_block_avx2;
    plan.vectors_per_block = static_cast<int>(std::clamp<std::int64_t>(vectors_needed, 1, max_vectors));
    plan.channel_block = std::min<std::int64_t>(plan.vectors_per_block * lanes, std::max<std::int64_t>(p.channels, 1));
    plan.channel_tail = p.channels % plan.channel_block;

    const int w = p.spatial_rank - 1;  // innermost spatial axis
    const auto wa = static_cast<std::size_t>(w);
    plan.out_width = p.out[wa];
    plan.in_width = p.in[wa];
    plan.kernel_w = p.kernel[wa];
    plan.stride_w = p.stride[wa];
    plan.dilation_w = p.dilation[wa];
    plan.pad_w = p.pad_begin[wa];
    plan.width_runs = width_runs(plan.out_width, plan.in_width, plan.kernel_w, plan.stride_w, plan.dilation_w, plan.pad_w);
    if (plan.width_runs.empty())
        throw Error("planner: more than " + std::to_string(default_max_width_runs) +
                    " distinct border windows along the width (a window far wider than the input)");
    plan.unroll_width_taps = plan.kernel_w <= max_unrolled_width_taps;

    const std::int64_t elem = static_cast<std::int64_t>(size_of(p.dtype));
    const std::int64_t pixel = p.channels * elem;  // bytes between neighbouring positions in nxc
    plan.src_step_w = pixel;
    plan.src_tap_stride_w = plan.dilation_w * pixel;
    plan.src_out_stride_w = plan.stride_w * pixel;
    plan.dst_out_stride_w = pixel;
    if (p.spatial_rank >= 2) {
        const auto ha = static_cast<std::size_t>(w - 1);
        plan.src_tap_stride_h = p.dilation[ha] * p.in[wa] * pixel;
    }
    if (p.spatial_rank >= 3) plan.src_tap_stride_d = p.dilation[0] * p.in[1] * p.in[2] * pixel;

    plan.has_indices = p.has_indices;
    if (p.has_indices) {
        plan.index_dtype = p.index_dtype;
        const int sr = p.spatial_rank;
        for (int a = 0; a < sr; ++a) {
            std::int64_t m = 1;
            if (p.order == StorageOrder::column_major) {
                for (int b = 0; b < a; ++b) m *= p.in[static_cast<std::size_t>(b)];
            } else {
                for (int b = a + 1; b < sr; ++b) m *= p.in[static_cast<std::size_t>(b)];
                // axis >= 2 takes the index modulo the trailing spatial dims from spatial axis (axis - 2) on:
                // the terms of earlier axes are multiples of the modulus.
                if (a < p.axis - 2) m = 0;
            }
            plan.index_mult[a] = m;
        }
        plan.index_mult_w = plan.index_mult[w];
        plan.index_tap_step_w = plan.dilation_w * plan.index_mult[w];
        plan.index_out_step_w = plan.stride_w * plan.index_mult[w];
        if (sr >= 2) plan.index_tap_step_h = p.dilation[static_cast<std::size_t>(w - 1)] * plan.index_mult[w - 1];
        if (sr >= 3) plan.index_tap_step_d = p.dilation[0] * plan.index_mult[0];
        plan.channel_index_stride = p.axis <= 1 ? p.spatial_in_size() : 0;
        // The spatial part never exceeds the spatial size; with 32-bit compare lanes it is tracked in 32-bit
        // lanes unless the spatial size does not fit.
        plan.index_lanes_64 = is_64bit(plan.compare) || p.spatial_in_size() - 1 > std::numeric_limits<std::int32_t>::max();
        plan.wide_index_math = plan.index_lanes_64 || p.index_dtype == DType::s64;
    }
    return plan;
}

std::string to_string(const KernelPlan& plan) {
    std::ostringstream s;
    s << "plan isa=" << to_string(plan.isa)
      << " strategy=" << (plan.strategy == Strategy::nxc_channels ? "nxc_channels" : "ncx_width")
      << " dtype=" << to_string(plan.dtype) << " compare="
      << (plan.compare == CompareType::f32   ? "f32"
          : plan.compare == CompareType::f64 ? "f64"
          : plan.compare == CompareType::s32 ? "s32"
          : plan.compare == CompareType::u32 ? "u32"
                                             : "s64")
      << " nan=" << (plan.nan == NanPolicy::ignore ? "ignore" : "propagate") << " vector_bytes=" << plan.vector_bytes
      << " lanes=" << plan.lanes << " vectors_per_block=" << plan.vectors_per_block
      << " channel_block=" << plan.channel_block << " channel_tail=" << plan.channel_tail
      << " out_width=" << plan.out_width << " unroll_width_taps=" << plan.unroll_width_taps << " width_runs=";
    for (const WidthRun& r : plan.width_runs)
        s << "[" << r.out_begin << "," << r.out_end << "):taps[" << r.tap_begin << "," << r.tap_end << ")";
    if (plan.has_indices)
        s << " indices=" << to_string(plan.index_dtype) << " index_lanes=" << (plan.index_lanes_64 ? 64 : 32)
          << " index_mult=" << plan.index_mult[0] << "," << plan.index_mult[1] << "," << plan.index_mult[2]
          << " channel_index_stride=" << plan.channel_index_stride;
    return s.str();
}

}  // namespace pooljit::jit
