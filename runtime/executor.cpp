#include "runtime/executor.hpp"

#include <algorithm>

namespace pooljit {
namespace {

// The real taps of output o along one axis: how many, and the input position of the first.
struct AxisTaps {
    std::int64_t count = 1, first_position = 0;
};

AxisTaps real_taps(const Problem& p, std::size_t a, std::int64_t o) {
    const jit::WindowTaps t = jit::window_taps(o, p.in[a], p.kernel[a], p.stride[a], p.dilation[a], p.pad_begin[a]);
    if (t.begin == t.end) return {0, 0};
    return {t.end - t.begin, o * p.stride[a] - p.pad_begin[a] + t.begin * p.dilation[a]};
}

void execute_nxc_rows(const Problem& p, const jit::KernelPlan& plan, const jit::CompiledKernel& kernel,
                      const void* src, void* dst, void* indices) {
    const int sr = p.spatial_rank;
    const auto w = static_cast<std::size_t>(sr - 1);
    const bool has_h = sr >= 2, has_d = sr >= 3;
    const std::size_t h = has_h ? w - 1 : 0, d = 0;
    const std::int64_t C = p.channels;
    const std::int64_t in_d = has_d ? p.in[d] : 1, in_h = has_h ? p.in[h] : 1;
    const std::int64_t out_d = has_d ? p.out[d] : 1, out_h = has_h ? p.out[h] : 1;
    const std::int64_t elem = static_cast<std::int64_t>(size_of(p.dtype));
    const std::int64_t index_elem = static_cast<std::int64_t>(size_of(p.index_dtype));
    const std::int64_t spatial = p.spatial_in_size();
    const jit::KernelFn full = kernel.full_block(), tail = kernel.tail_block();

    for (std::int64_t n = 0; n < p.batch; ++n) {
        for (std::int64_t c0 = 0; c0 < C; c0 += plan.channel_block) {
            const jit::KernelFn fn = c0 + plan.channel_block > C ? tail : full;
            std::int64_t channel_index_base = 0;
            if (p.axis == 0) channel_index_base = (n * C + c0) * spatial;
            else if (p.axis == 1) channel_index_base = c0 * spatial;
            for (std::int64_t od = 0; od < out_d; ++od) {
                const AxisTaps td = has_d ? real_taps(p, d, od) : AxisTaps{};
                for (std::int64_t oh = 0; oh < out_h; ++oh) {
                    const AxisTaps th = has_h ? real_taps(p, h, oh) : AxisTaps{};
                    const std::int64_t src_pos = ((n * in_d + td.first_position) * in_h + th.first_position) * p.in[w];
                    const std::int64_t dst_pos = ((n * out_d + od) * out_h + oh) * p.out[w];
                    jit::KernelArgs args;
                    args.src = static_cast<const std::uint8_t*>(src) + (src_pos * C + c0) * elem;
                    args.dst = static_cast<std::uint8_t*>(dst) + (dst_pos * C + c0) * elem;
                    args.indices = indices ? static_cast<std::uint8_t*>(indices) + (dst_pos * C + c0) * index_elem : nullptr;
                    args.taps_d = td.count;
                    args.taps_h = th.count;
                    args.index_base = (has_d ? td.first_position * plan.index_mult[d] : 0) +
                                      (has_h ? th.first_position * plan.index_mult[h] : 0);
                    args.channel_index_base = channel_index_base;
                    fn(&args);
                }
            }
        }
    }
}

}  // namespace

void execute_problem(const Problem& p, const detail::Implementation& impl, const void* src, void* dst, void* indices) {
    if (!impl.kernel) {
        reference::execute(p, src, dst, indices);
        return;
    }
    execute_nxc_rows(p, impl.plan, *impl.kernel, src, dst, indices);
}

}  // namespace pooljit
