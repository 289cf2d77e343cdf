#include "sppf.hpp"

#include "buffers.hpp"
#include "timing.hpp"

#include <casegen/casegen.hpp>
#include <fmt/core.h>

#include <cstring>
#include <string>

namespace pj = pooljit;

namespace pooljit_bench {
namespace {

pj::MaxPoolDesc sppf_pool(const SppfOptions& o) {
    pj::MaxPoolDesc d;
    d.src = {o.dtype, o.layout, o.dims};
    d.kernel = {5, 5};
    d.strides = {1, 1};
    d.pads_begin = {2, 2};
    d.pads_end = {2, 2};
    return d;
}

// The concatenation of `parts` dense tensors of dims N x C x H x W into `concat` (N x 4C x H x W) in the layout:
// what a caller of dense pools copies. Channels last, each pixel takes a slice of each part; planar, each image
// takes each part's planes whole.
void concatenate(const std::vector<const std::uint8_t*>& parts, std::uint8_t* concat, const SppfOptions& o) {
    const std::size_t elem = pj::size_of(o.dtype);
    const auto n = static_cast<std::size_t>(o.dims[0]), c = static_cast<std::size_t>(o.dims[1]);
    const auto pixels = static_cast<std::size_t>(o.dims[2] * o.dims[3]);
    const std::size_t k = parts.size();
    if (o.layout == pj::Layout::nxc) {
        const std::size_t slice = c * elem;
        for (std::size_t p = 0; p < n * pixels; ++p)
            for (std::size_t i = 0; i < k; ++i) std::memcpy(concat + (p * k + i) * slice, parts[i] + p * slice, slice);
    } else {
        const std::size_t block = c * pixels * elem;
        for (std::size_t b = 0; b < n; ++b)
            for (std::size_t i = 0; i < k; ++i) std::memcpy(concat + (b * k + i) * block, parts[i] + b * block, block);
    }
}

}  // namespace

int run_sppf(const SppfOptions& o, double copy_gbps, std::FILE* out) {
    // The concat buffer: 4C channels; slice i holds channels [iC, (i+1)C).
    pj::TensorDesc concat_desc{o.dtype, o.layout, {o.dims[0], 4 * o.dims[1], o.dims[2], o.dims[3]}};
    const std::vector<std::int64_t> concat_strides = pj::strides_of(concat_desc);
    const std::int64_t slice_step = o.layout == pj::Layout::nxc ? o.dims[1] : o.dims[1] * concat_strides[1];
    const std::size_t elem = pj::size_of(o.dtype);

    pj::MaxPoolDesc in_place = sppf_pool(o);
    in_place.src.strides = concat_strides;
    in_place.dst_strides = concat_strides;
    const pj::Primitive chained = pj::Primitive::create(in_place);
    const pj::Primitive dense = pj::Primitive::create(sppf_pool(o));

    const std::size_t concat_bytes = pj::casegen::byte_size(concat_desc);
    const std::size_t part_bytes = pj::casegen::byte_size(dense.src_desc());
    const std::vector<std::uint8_t> input = pj::casegen::activation_data(dense.src_desc(), 1);
    TensorBuffer concat(concat_bytes, o.buffer_offset), concat_dense(concat_bytes, o.buffer_offset);
    TensorBuffer x(input.data(), part_bytes, o.buffer_offset), y1(part_bytes, o.buffer_offset),
        y2(part_bytes, o.buffer_offset), y3(part_bytes, o.buffer_offset);
    // The block's input sits in slice 0, where the layer before wrote it.
    {
        const std::vector<std::int64_t> in_offsets = pj::casegen::element_offsets(dense.src_desc());
        pj::TensorDesc slice_desc = dense.src_desc();
        slice_desc.strides = concat_strides;
        const std::vector<std::int64_t> out_offsets = pj::casegen::element_offsets(slice_desc);
        for (std::size_t e = 0; e < in_offsets.size(); ++e)
            std::memcpy(concat.data() + static_cast<std::size_t>(out_offsets[e]) * elem,
                        x.data() + static_cast<std::size_t>(in_offsets[e]) * elem, elem);
    }
    const auto slice = [&](int i) { return concat.data() + static_cast<std::size_t>(i * slice_step) * elem; };
    const auto chain = [&] {
        for (int i = 0; i < 3; ++i) chained.execute(slice(i), slice(i + 1));
    };
    const auto pools = [&] {
        dense.execute(x.data(), y1.data());
        dense.execute(y1.data(), y2.data());
        dense.execute(y2.data(), y3.data());
    };
    const auto pools_and_copy = [&] {
        pools();
        concatenate({x.data(), y1.data(), y2.data(), y3.data()}, concat_dense.data(), o);
    };

    // Both ways give the same concat buffer.
    chain();
    pools_and_copy();
    const int status = std::memcmp(concat.data(), concat_dense.data(), concat_bytes) == 0 ? 0 : 1;

    TimingPlan plan;
    plan.min_time_s = o.min_time_s;
    plan.repetitions = o.repetitions;
    // Interleaved, the lowest-noise order for a shared machine: each way once, then again.
    const Timing t_chain = measure("sppf.chain_in_place", plan, timed_loop(chain));
    const Timing t_pools = measure("sppf.dense_pools", plan, timed_loop(pools));
    const Timing t_copy = measure("sppf.dense_pools_and_concat", plan, timed_loop(pools_and_copy));
    // The three pools read C and write C channels each; the copy reads and writes the 4C buffer.
    const double pool_bytes = 3.0 * 2.0 * static_cast<double>(part_bytes);
    fmt::print(out, "SPPF {} {} {} (3 x k5 s1 p2, concat of 4 x {} channels), copy bandwidth {:.1f} GB/s\n",
               pj::to_string(o.dtype), pj::to_string(o.layout), fmt::format("{}x{}x{}x{}", o.dims[0], o.dims[1], o.dims[2], o.dims[3]),
               o.dims[1], copy_gbps);
    fmt::print(out, "  chain in place (3 pools on slices of the concat buffer): {:9.1f} us\n", t_chain.median_us);
    fmt::print(out, "  3 dense pools alone:                                     {:9.1f} us   in place / dense: {:.3f}\n",
               t_pools.median_us, t_chain.median_us / t_pools.median_us);
    fmt::print(out, "  3 dense pools + the concatenation's copy:                {:9.1f} us   in place / dense + copy: {:.3f}\n",
               t_copy.median_us, t_chain.median_us / t_copy.median_us);
    fmt::print(out, "  pools' bytes {:.2f} MB ({:.0f}% of the copy bound in place); outputs {}\n", pool_bytes / 1e6,
               100.0 * pool_bytes / (t_chain.median_us * 1e-6) / 1e9 / copy_gbps,
               status == 0 ? "identical" : "DIFFER (the chain and the dense pools disagree)");
    return status;
}

}  // namespace pooljit_bench
