// pooljit as PyTorch operators (torch.ops.pooljit.*): max_pool1d/2d/3d, their _with_indices forms and
// adaptive_max_pool1d/2d/3d, with PyTorch's signatures and semantics (ceil_mode is pooljit's ceil_torch, indices
// are flat spatial positions within each (n, c) plane, an unbatched input has no N). A tensor is taken as it
// comes, contiguous, channels_last, sliced or as_strided: its sizes and strides become a pooljit view, with no
// .contiguous() copy. The output has the input's memory format, as PyTorch's CPU operators give it.
#include <pooljit/pooljit.hpp>

#include <torch/library.h>
#include <ATen/ATen.h>

#include <cstdint>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

namespace pj = pooljit;

namespace {

pj::DType dtype_of(const at::Tensor& t) {
    switch (t.scalar_type()) {
        case at::kFloat: return pj::DType::f32;
        case at::kDouble: return pj::DType::f64;
        case at::kHalf: return pj::DType::f16;
        case at::kBFloat16: return pj::DType::bf16;
        case at::kChar: return pj::DType::s8;
        case at::kByte: return pj::DType::u8;
        case at::kInt: return pj::DType::s32;
        case at::kLong: return pj::DType::s64;
        default: TORCH_CHECK(false, "pooljit: unsupported dtype ", t.scalar_type());
    }
}

// A tensor as a pooljit view: its sizes as logical N, C, spatial dims and its strides in elements.
pj::TensorDesc view_of(const at::Tensor& t) {
    return {dtype_of(t), pj::Layout::ncx, t.sizes().vec(), t.strides().vec()};
}

// PyTorch's int[] arguments: one value for every axis, or one per axis; stride empty means the kernel size.
std::vector<std::int64_t> per_axis(at::IntArrayRef v, std::int64_t rank, const char* name, std::int64_t fallback) {
    if (v.empty()) return std::vector<std::int64_t>(static_cast<std::size_t>(rank), fallback);
    if (v.size() == 1) return std::vector<std::int64_t>(static_cast<std::size_t>(rank), v[0]);
    TORCH_CHECK(static_cast<std::int64_t>(v.size()) == rank, "pooljit: ", name, " must have 1 or ", rank, " entries");
    return v.vec();
}

// An output of `sizes` in the memory format PyTorch's CPU operators give (1.13): channels_last in, channels_last
// out for 2-D pools, and for the 1-D ones it runs as 2-D pools of one row (`via_2d`: max_pool1d_with_indices and
// adaptive_max_pool1d, whose outputs keep a channels-last input's order); contiguous otherwise (max_pool1d and
// the 3-D pools).
at::Tensor output_like(const at::Tensor& input, at::IntArrayRef sizes, at::ScalarType type, bool via_2d) {
    if (input.dim() == 3 && via_2d) {
        std::vector<std::int64_t> rows = sizes.vec();
        rows.insert(rows.end() - 1, 1);
        const auto format = input.unsqueeze(-2).suggest_memory_format();
        return at::empty(rows, input.options().dtype(type).memory_format(format)).squeeze(-2);
    }
    const auto format = input.dim() == 4 ? input.suggest_memory_format() : at::MemoryFormat::Contiguous;
    return at::empty(sizes, input.options().dtype(type).memory_format(format));
}

// Runs the pool on `input` (batched: N, C, spatial), writing values and, with indices, their positions.
std::tuple<at::Tensor, at::Tensor> run(const at::Tensor& input, pj::AnyPoolDesc desc, bool with_indices, bool via_2d) {
    TORCH_CHECK(input.device().is_cpu(), "pooljit: the input must be a CPU tensor");
    std::vector<std::int64_t> out_sizes;
    std::visit([&](auto& d) { out_sizes = pj::resolve(d).dst_desc().dims; }, desc);
    at::Tensor out = output_like(input, out_sizes, input.scalar_type(), via_2d);
    at::Tensor indices = with_indices ? output_like(input, out_sizes, at::kLong, via_2d) : at::Tensor();
    std::visit(
        [&](auto& d) {
            d.dst_strides = out.strides().vec();
            if (with_indices) d.indices_strides = indices.strides().vec();
        },
        desc);
    // pooljit's own cache holds the compiled code: a create with the key cached is a lookup (under a microsecond).
    const pj::Primitive p = pj::create(desc);
    p.execute(input.data_ptr(), out.data_ptr(), with_indices ? indices.data_ptr() : nullptr);
    return {out, indices};
}

// PyTorch accepts inputs without N (C, spatial...): pooled as a batch of one, returned without N.
std::tuple<at::Tensor, at::Tensor> batched(const at::Tensor& input, std::int64_t rank,
                                           const std::function<std::tuple<at::Tensor, at::Tensor>(const at::Tensor&)>& f) {
    TORCH_CHECK(input.dim() == rank + 1 || input.dim() == rank + 2, "pooljit: expected a ", rank + 1, "-D or ",
                rank + 2, "-D input, got ", input.dim(), "-D");
    if (input.dim() == rank + 2) return f(input);
    auto [out, indices] = f(input.unsqueeze(0));
    return {out.squeeze(0), indices.defined() ? indices.squeeze(0) : indices};
}

std::tuple<at::Tensor, at::Tensor> max_pool(const at::Tensor& input, at::IntArrayRef kernel_size,
                                            at::IntArrayRef stride, at::IntArrayRef padding, at::IntArrayRef dilation,
                                            bool ceil_mode, std::int64_t rank, bool with_indices) {
    return batched(input, rank, [&](const at::Tensor& x) {
        pj::MaxPoolDesc d;
        d.src = view_of(x);
        d.kernel = per_axis(kernel_size, rank, "kernel_size", 1);
        d.strides = stride.empty() ? d.kernel : per_axis(stride, rank, "stride", 1);
        d.pads_begin = per_axis(padding, rank, "padding", 0);
        d.pads_end = d.pads_begin;
        d.dilations = per_axis(dilation, rank, "dilation", 1);
        d.rounding = ceil_mode ? pj::Rounding::ceil_torch : pj::Rounding::floor;
        // PyTorch's indices: the flat position within each (n, c) plane, OpenVINO's axis 2.
        if (with_indices) d.indices = pj::IndexSpec{pj::DType::s64, 2, pj::StorageOrder::row_major};
        return run(x, d, with_indices, with_indices);
    });
}

std::tuple<at::Tensor, at::Tensor> adaptive_max_pool(const at::Tensor& input, at::IntArrayRef output_size,
                                                     std::int64_t rank) {
    return batched(input, rank, [&](const at::Tensor& x) {
        pj::AdaptiveMaxPoolDesc d;
        d.src = view_of(x);
        d.output_size = per_axis(output_size, rank, "output_size", 1);
        d.index_dtype = pj::DType::s64;
        return run(x, d, true, true);
    });
}

template <std::int64_t Rank>
at::Tensor max_pool_values(const at::Tensor& input, at::IntArrayRef kernel_size, at::IntArrayRef stride,
                           at::IntArrayRef padding, at::IntArrayRef dilation, bool ceil_mode) {
    return std::get<0>(max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, Rank, false));
}

template <std::int64_t Rank>
std::tuple<at::Tensor, at::Tensor> max_pool_with_indices(const at::Tensor& input, at::IntArrayRef kernel_size,
                                                         at::IntArrayRef stride, at::IntArrayRef padding,
                                                         at::IntArrayRef dilation, bool ceil_mode) {
    return max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, Rank, true);
}

template <std::int64_t Rank>
std::tuple<at::Tensor, at::Tensor> adaptive(const at::Tensor& input, at::IntArrayRef output_size) {
    return adaptive_max_pool(input, output_size, Rank);
}

// PyTorch's schemas: int[N] arguments take one int for every axis or N of them.
std::string pool_schema(const char* name, int rank, const char* returns) {
    const std::string n = std::to_string(rank);
    return std::string(name) + "(Tensor self, int[" + n + "] kernel_size, int[" + n + "] stride=[], int[" + n +
           "] padding=0, int[" + n + "] dilation=1, bool ceil_mode=False) -> " + returns;
}

std::string adaptive_schema(const char* name, int rank) {
    return std::string(name) + "(Tensor self, int[" + std::to_string(rank) + "] output_size) -> (Tensor, Tensor)";
}

}  // namespace

TORCH_LIBRARY(pooljit, m) {
    m.def(pool_schema("max_pool1d", 1, "Tensor").c_str(), &max_pool_values<1>);
    m.def(pool_schema("max_pool2d", 2, "Tensor").c_str(), &max_pool_values<2>);
    m.def(pool_schema("max_pool3d", 3, "Tensor").c_str(), &max_pool_values<3>);
    m.def(pool_schema("max_pool1d_with_indices", 1, "(Tensor, Tensor)").c_str(), &max_pool_with_indices<1>);
    m.def(pool_schema("max_pool2d_with_indices", 2, "(Tensor, Tensor)").c_str(), &max_pool_with_indices<2>);
    m.def(pool_schema("max_pool3d_with_indices", 3, "(Tensor, Tensor)").c_str(), &max_pool_with_indices<3>);
    m.def(adaptive_schema("adaptive_max_pool1d", 1).c_str(), &adaptive<1>);
    m.def(adaptive_schema("adaptive_max_pool2d", 2).c_str(), &adaptive<2>);
    m.def(adaptive_schema("adaptive_max_pool3d", 3).c_str(), &adaptive<3>);
}
