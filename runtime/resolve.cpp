// Validation and shape inference: descriptor -> canonical Problem (DESIGN.md section 3).
#include "runtime/dtype.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <utility>
#include <vector>
#include <string>

namespace pooljit {
namespace {

__extension__ typedef __int128 i128;
constexpr i128 max_bytes = std::numeric_limits<std::int64_t>::max();  // 63-bit byte sizes

std::string str(i128 v) {
    if (v >= std::numeric_limits<std::int64_t>::min() && v <= std::numeric_limits<std::int64_t>::max())
        return std::to_string(static_cast<std::int64_t>(v));
    return v < 0 ? "-huge" : "huge";
}

class Checker {
public:
    explicit Checker(const char* op) : op_(op) {}

    [[noreturn]] void fail(const std::string& what) const { throw Error(std::string(op_) + ": " + what); }

    void check_dtype(const char* field, DType dtype) const {
        if (static_cast<unsigned>(dtype) > static_cast<unsigned>(DType::s64))
            fail(std::string(field) + " = " + std::to_string(static_cast<int>(dtype)) +
                 ", must be one of f32, f64, f16, bf16, s8, u8, s32, s64");
    }

    template <typename E>
    void check_enum(const char* field, E value, E last, const char* allowed) const {
        if (static_cast<unsigned>(value) > static_cast<unsigned>(last))
            fail(std::string(field) + " = " + std::to_string(static_cast<int>(value)) + ", must be one of " + allowed);
    }

    // Checks src rank, dims and enums; returns the spatial rank.
    int check_src(const TensorDesc& src) const {
        check_dtype("src.dtype", src.dtype);
        check_enum("src.layout", src.layout, Layout::nCx16c, "ncx, nxc, nCx8c, nCx16c");
        const auto rank = src.dims.size();
        if (rank < 3 || rank > 5)
            fail("src.dims has rank " + std::to_string(rank) + ", must be 3, 4 or 5 (N, C and 1 to 3 spatial dims)");
        for (std::size_t i = 0; i < rank; ++i) {
            const std::int64_t minimum = i < 2 ? 0 : 1;
            if (src.dims[i] < minimum)
                fail("src.dims[" + std::to_string(i) + "] = " + std::to_string(src.dims[i]) + ", must be >= " +
                     std::to_string(minimum) + (i < 2 ? " (N and C may be 0)" : " (spatial dims)"));
        }
        return static_cast<int>(rank) - 2;
    }

    // An attribute vector: empty is allowed when `may_be_empty`, otherwise exactly `spatial_rank` entries.
    void check_length(const char* field, const std::vector<std::int64_t>& v, int spatial_rank, bool may_be_empty) const {
        if (v.empty() && may_be_empty) return;
        if (static_cast<int>(v.size()) != spatial_rank)
            fail(std::string(field) + " has " + std::to_string(v.size()) + " entries, must have " +
                 std::to_string(spatial_rank) + " (one per spatial axis of src.dims)" +
                 (may_be_empty ? " or be empty" : ""));
    }

    void check_min(const char* field, const std::vector<std::int64_t>& v, std::int64_t minimum) const {
        for (std::size_t i = 0; i < v.size(); ++i)
            if (v[i] < minimum)
                fail(std::string(field) + "[" + std::to_string(i) + "] = " + std::to_string(v[i]) + ", must be >= " +
                     std::to_string(minimum));
    }

    // prod(dims) * element size must fit in 63 bits; checked without wrapping, and also when a zero dim
    // makes the product small (the other factors still describe an absurd tensor).
    void check_bytes(const char* tensor, const Problem::Spatial& spatial, int spatial_rank, std::int64_t n,
                     std::int64_t c, DType dtype) const {
        std::vector<std::int64_t> dims{n, c};
        for (int i = 0; i < spatial_rank; ++i) dims.push_back(spatial[static_cast<std::size_t>(i)]);
        i128 bytes = static_cast<i128>(size_of(dtype));
        for (std::int64_t d : dims) {
            bytes *= d == 0 ? 1 : d;
            if (bytes > max_bytes) {
                std::string shape;
                for (std::int64_t x : dims) shape += (shape.empty() ? "" : "x") + std::to_string(x);
                fail(std::string(tensor) + " dims = " + shape + " of " + to_string(dtype) +
                     ": the byte size must fit in 63 bits (<= 2^63-1)");
            }
        }
    }

private:
    const char* op_;
};

// A dtype as the user wrote it: its name, or its number when it is not one of the enumerators.
std::string dtype_value(DType d) {
    return static_cast<unsigned>(d) <= static_cast<unsigned>(DType::s64) ? to_string(d)
                                                                           : std::to_string(static_cast<int>(d));
}

std::int64_t ceil_div(i128 a, i128 b) { return static_cast<std::int64_t>((a + b - 1) / b); }

std::string joined(const std::vector<std::int64_t>& v) {
    std::string s;
    for (std::int64_t x : v) s += (s.empty() ? "" : "x") + std::to_string(x);
    return s;
}

// One tensor's memory: its logical dims (N, C, spatial), its layout's channel block, and the strides a user gave
// (empty: dense in the layout).
struct TensorMemory {
    const char* tensor;         // "src", "dst", "indices": names the tensor in messages
    const char* strides_field;  // "src.strides", "dst_strides", "indices_strides"
    std::int64_t n, c;
    const Problem::Spatial* spatial;
    int spatial_rank;
    std::int64_t block;
    DType dtype;
    bool distinct_addresses;  // outputs: no two elements (padded lanes of a block included) share an address
};

// The dense element strides of a layout, in 128 bits: padded channels count (nCx8c / nCx16c).
using StrideArray = std::array<i128, 2 + max_spatial_rank>;  // N, C, spatial; unused entries 0

StrideArray dense_strides(const TensorMemory& m, Layout layout) {
    const auto sr = static_cast<std::size_t>(m.spatial_rank);
    StrideArray s{};
    i128 inner = layout == Layout::nxc ? m.c : m.block;  // elements of one spatial position (of one block)
    for (std::size_t a = sr; a-- > 0;) {
        s[2 + a] = inner;
        inner *= (*m.spatial)[a];
    }
    const i128 blocks = (static_cast<i128>(m.c) + m.block - 1) / m.block;
    if (layout == Layout::ncx) {
        s[1] = inner;
        s[0] = inner * m.c;
    } else if (layout == Layout::nxc) {
        s[1] = 1;
        s[0] = inner;
    } else {
        s[1] = inner;  // between channel blocks
        s[0] = inner * blocks;
    }
    return s;
}

// A tensor's axes as (extent, stride); the channels of a block are an axis of their own (stride 1). An empty
// axis counts as one element: an empty tensor's strides are bounded as one image's, since its code is planned
// (and may be shared through the cache) with them. `empty`: some axis has no element.
struct TensorAxes {
    std::array<std::pair<i128, i128>, 3 + max_spatial_rank> axes{};
    std::size_t count = 0;
    bool empty = false;
};

TensorAxes tensor_axes(const TensorMemory& m, const StrideArray& s) {
    TensorAxes t;
    const auto at_least_one = [&](i128 v) {
        if (v < 1) t.empty = true;
        return v < 1 ? i128{1} : v;
    };
    t.axes[t.count++] = {at_least_one(m.n), s[0]};
    if (m.block > 1) {
        t.axes[t.count++] = {at_least_one((static_cast<i128>(m.c) + m.block - 1) / m.block), s[1]};
        t.axes[t.count++] = {m.block, 1};  // padded lanes included: a destination's are written (as 0)
    } else {
        t.axes[t.count++] = {at_least_one(m.c), s[1]};
    }
    for (std::size_t a = 0; a < static_cast<std::size_t>(m.spatial_rank); ++a)
        t.axes[t.count++] = {at_least_one((*m.spatial)[a]), s[2 + a]};
    return t;
}

// The bytes from the first element to the end of the last (max_bytes + 1 where that passes 63 bits).
i128 extent_bytes(const TensorMemory& m, const TensorAxes& t) {
    i128 last = 0;
    for (std::size_t i = 0; i < t.count; ++i) {
        last += (t.axes[i].first - 1) * t.axes[i].second;
        if (last > max_bytes) return max_bytes + 1;
    }
    return std::min<i128>((last + 1) * static_cast<i128>(size_of(m.dtype)), max_bytes + 1);
}

// Resolves one tensor's strides: the given ones checked (one per dim, none negative) or the dense ones; the
// extent (its last element, padded lanes of a block included) in 63 bits of bytes; and, for an output, every
// element at an address of its own. No heap allocation unless it fails: a create that hits the cache pays this.
Problem::Strides resolve_strides(const Checker& check, Layout layout, const TensorMemory& m,
                                 const std::vector<std::int64_t>& given) {
    const auto sr = static_cast<std::size_t>(m.spatial_rank);
    if (given.empty() && m.block == 1) {
        // Dense ncx or nxc: its extent is its byte size, which check_problem_sizes bounded; every stride is a
        // partial product of it.
        const StrideArray dense = dense_strides(m, layout);
        Problem::Strides out;
        out.n = static_cast<std::int64_t>(dense[0]);
        out.c = static_cast<std::int64_t>(dense[1]);
        for (std::size_t a = 0; a < sr; ++a) out.spatial[a] = static_cast<std::int64_t>(dense[2 + a]);
        return out;
    }
    StrideArray s{};
    if (given.empty()) {
        s = dense_strides(m, layout);
    } else {
        if (given.size() != sr + 2)
            check.fail(std::string(m.strides_field) + " has " + std::to_string(given.size()) + " entries, must have " +
                       std::to_string(sr + 2) + " (one per dim: N, C, spatial) or be empty (dense)");
        for (std::size_t i = 0; i < given.size(); ++i) {
            if (given[i] < 0)
                check.fail(std::string(m.strides_field) + "[" + std::to_string(i) + "] = " + std::to_string(given[i]) +
                           ", must be >= 0");
            s[i] = given[i];
        }
    }
    TensorAxes axes = tensor_axes(m, s);
    if (extent_bytes(m, axes) > max_bytes)
        check.fail(std::string(m.tensor) + " of dims " + joined({m.n, m.c}) + "x" +
                   joined(std::vector<std::int64_t>(m.spatial->begin(), m.spatial->begin() + m.spatial_rank)) +
                   (given.empty() ? " (dense)" : " with " + std::string(m.strides_field) + " = " + joined(given)) +
                   ": its last element's byte offset must fit in 63 bits (<= 2^63-1)");
    if (m.distinct_addresses && !given.empty() && !axes.empty) {  // no element, no two at one address
        // Ordered by stride, each axis must step past everything the smaller ones reach: then no two elements
        // share an address. (A view that interleaves its axes may be refused though it has no such pair.)
        std::stable_sort(axes.axes.begin(), axes.axes.begin() + static_cast<std::ptrdiff_t>(axes.count),
                         [](const auto& a, const auto& b) { return a.second < b.second; });
        i128 reach = 0;  // the largest offset the smaller axes reach
        for (std::size_t i = 0; i < axes.count; ++i) {
            const auto [extent, stride] = axes.axes[i];
            if (extent <= 1) continue;
            if (stride <= reach)
                check.fail(std::string(m.strides_field) + " = " + joined(given) + ": two elements of " + m.tensor +
                           " would share an address (ordered by stride, each stride must exceed the largest "
                           "offset the smaller ones reach; a " + m.tensor + " view writes every element once)");
            reach += (extent - 1) * stride;
        }
    }
    Problem::Strides out;
    out.n = static_cast<std::int64_t>(s[0]);
    out.c = static_cast<std::int64_t>(s[1]);
    for (std::size_t a = 0; a < sr; ++a) out.spatial[a] = static_cast<std::int64_t>(s[2 + a]);
    return out;
}

// src, dst and indices memory, after the dims and the indices' type are known.
void resolve_memory(const Checker& check, Problem& p, Layout layout, const std::vector<std::int64_t>& src_strides,
                    const std::vector<std::int64_t>& dst_strides, const std::vector<std::int64_t>& indices_strides) {
    p.layout = layout;
    p.block = channel_block_of(layout);
    const auto memory = [&](const char* tensor, const char* field, const Problem::Spatial& spatial, DType dtype,
                            bool output) {
        return TensorMemory{tensor, field, p.batch, p.channels, &spatial, p.spatial_rank, p.block, dtype, output};
    };
    p.src_strides = resolve_strides(check, layout, memory("src", "src.strides", p.in, p.dtype, false), src_strides);
    p.dst_strides = resolve_strides(check, layout, memory("dst", "dst_strides", p.out, p.dtype, true), dst_strides);
    if (!indices_strides.empty() && !p.has_indices)
        check.fail("indices_strides = " + joined(indices_strides) + ", but there is no indices output");
    if (p.has_indices) {
        const bool own = !indices_strides.empty();
        p.indices_strides = resolve_strides(
            check, layout, memory("indices", own ? "indices_strides" : "dst_strides", p.out, p.index_dtype, true),
            own ? indices_strides : dst_strides);
    }
}

void check_problem_sizes(const Checker& check, const Problem& p) {
    check.check_bytes("src", p.in, p.spatial_rank, p.batch, p.channels, p.dtype);
    check.check_bytes("dst", p.out, p.spatial_rank, p.batch, p.channels, p.dtype);
    if (!p.has_indices) return;
    check.check_bytes("indices", p.out, p.spatial_rank, p.batch, p.channels, p.index_dtype);
    if (p.index_dtype == DType::s32) {
        // The largest index is prod(src dims[axis:]) - 1 (for adaptive pooling: the spatial size - 1).
        const i128 largest = static_cast<i128>(p.index_modulus()) - 1;
        if (largest > std::numeric_limits<std::int32_t>::max())
            check.fail(std::string(p.op == OpKind::adaptive_max_pool ? "index_dtype" : "indices.dtype") +
                       " = s32, but the largest possible index " + str(largest) +
                       " exceeds INT32_MAX (2147483647); use s64");
    }
}

// A tensor's strides as a user gives them: empty where they are the layout's dense ones.
std::vector<std::int64_t> user_strides(const Problem& p, const Problem::Strides& s, const Problem::Spatial& spatial,
                                       DType dtype) {
    const TensorMemory m{"", "", p.batch, p.channels, &spatial, p.spatial_rank, p.block, dtype, false};
    const StrideArray dense = dense_strides(m, p.layout);
    std::vector<std::int64_t> given{s.n, s.c};
    for (int a = 0; a < p.spatial_rank; ++a) given.push_back(s.spatial[static_cast<std::size_t>(a)]);
    for (std::size_t i = 0; i < given.size(); ++i)
        if (dense[i] != given[i]) return given;
    return {};
}

}  // namespace

TensorDesc Problem::src_desc() const {
    TensorDesc d{dtype, layout, {batch, channels}, user_strides(*this, src_strides, in, dtype)};
    for (int i = 0; i < spatial_rank; ++i) d.dims.push_back(in[i]);
    return d;
}

TensorDesc Problem::dst_desc() const {
    TensorDesc d{dtype, layout, {batch, channels}, user_strides(*this, dst_strides, out, dtype)};
    for (int i = 0; i < spatial_rank; ++i) d.dims.push_back(out[i]);
    return d;
}

TensorDesc Problem::indices_desc() const {
    if (!has_indices) return TensorDesc{index_dtype, layout, {}, {}};
    TensorDesc d = dst_desc();
    d.dtype = index_dtype;
    d.strides = user_strides(*this, indices_strides, out, index_dtype);
    return d;
}

std::int64_t Problem::index_modulus() const {
    if (op == OpKind::adaptive_max_pool) return spatial_in_size();
    std::int64_t m = 1;
    const std::int64_t dims[5] = {batch, channels, in[0], in[1], in[2]};
    for (int i = axis; i < rank(); ++i) m *= dims[i];
    return m;
}

// A TensorDesc's memory for strides_of and byte_extent: its dtype and layout checked, and its dense size (C padded
// to the block, an empty axis as one element) bounded to 63 bits, so that dense strides stay inside it.
TensorMemory tensor_memory(const Checker& check, const TensorDesc& desc, Problem::Spatial& spatial) {
    check.check_enum("dtype", desc.dtype, DType::s64, "f32, f64, f16, bf16, s8, u8, s32, s64");
    const std::size_t sr = desc.dims.size() - 2;
    spatial = {1, 1, 1};
    for (std::size_t a = 0; a < sr; ++a) spatial[a] = desc.dims[a + 2];
    const std::int64_t block = channel_block_of(desc.layout);
    const i128 padded_c = (static_cast<i128>(desc.dims[1]) + block - 1) / block * block;
    check.check_bytes("tensor", spatial, static_cast<int>(sr), desc.dims[0],
                      padded_c > max_bytes ? max_bytes : static_cast<std::int64_t>(padded_c), desc.dtype);
    return TensorMemory{"tensor", "strides", desc.dims[0], desc.dims[1], &spatial, static_cast<int>(sr), block,
                        desc.dtype, false};
}

std::vector<std::int64_t> strides_of(const TensorDesc& desc) {
    const Checker check("TensorDesc");
    Problem::Spatial spatial{};
    check.check_enum("layout", desc.layout, Layout::nCx16c, "ncx, nxc, nCx8c, nCx16c");
    if (desc.dims.size() < 2 || desc.dims.size() > 2 + max_spatial_rank)
        check.fail("dims has rank " + std::to_string(desc.dims.size()) + ", must be 2 to 5 (N, C and up to 3 spatial dims)");
    check.check_min("dims", desc.dims, 0);
    if (!desc.strides.empty() && desc.strides.size() != desc.dims.size())
        check.fail("strides has " + std::to_string(desc.strides.size()) + " entries, must have " +
                   std::to_string(desc.dims.size()) + " (one per dim) or be empty (dense)");
    check.check_min("strides", desc.strides, 0);
    if (!desc.strides.empty()) return desc.strides;
    const TensorMemory m = tensor_memory(check, desc, spatial);
    const StrideArray dense = dense_strides(m, desc.layout);
    std::vector<std::int64_t> out;
    for (std::size_t i = 0; i < desc.dims.size(); ++i) {
        if (dense[i] > max_bytes) check.fail("dims = " + joined(desc.dims) + ": a dense stride overflows 63 bits");
        out.push_back(static_cast<std::int64_t>(dense[i]));
    }
    return out;
}

std::size_t byte_extent(const TensorDesc& desc) {
    const std::vector<std::int64_t> given = strides_of(desc);
    for (std::int64_t d : desc.dims)
        if (d == 0) return 0;
    const Checker check("TensorDesc");
    Problem::Spatial spatial{};
    const TensorMemory m = tensor_memory(check, desc, spatial);
    StrideArray s{};
    for (std::size_t i = 0; i < given.size(); ++i) s[i] = given[i];
    const i128 bytes = extent_bytes(m, tensor_axes(m, s));
    if (bytes > max_bytes)
        check.fail("dims = " + joined(desc.dims) + (desc.strides.empty() ? "" : " with strides = " + joined(desc.strides)) +
                   ": the tensor's last byte must fit in 63 bits (<= 2^63-1)");
    return static_cast<std::size_t>(bytes);
}

Problem resolve(const MaxPoolDesc& desc) {
    const Checker check("MaxPool");
    const int sr = check.check_src(desc.src);
    check.check_enum("auto_pad", desc.auto_pad, AutoPad::same_lower, "explicit, valid, same_upper, same_lower");
    check.check_enum("rounding", desc.rounding, Rounding::ceil_torch, "floor, ceil, ceil_torch");
    check.check_enum("nan", desc.nan, NanPolicy::ignore, "propagate, ignore");

    if (desc.kernel.empty())
        check.fail("kernel is empty, must have " + std::to_string(sr) + " entries (one per spatial axis of src.dims)");
    check.check_length("kernel", desc.kernel, sr, false);
    check.check_length("strides", desc.strides, sr, true);
    check.check_length("dilations", desc.dilations, sr, true);
    check.check_min("kernel", desc.kernel, 1);
    check.check_min("strides", desc.strides, 1);
    check.check_min("dilations", desc.dilations, 1);
    const bool explicit_pads = desc.auto_pad == AutoPad::explicit_pads;
    if (explicit_pads) {
        check.check_length("pads_begin", desc.pads_begin, sr, true);
        check.check_length("pads_end", desc.pads_end, sr, true);
        check.check_min("pads_begin", desc.pads_begin, 0);
        check.check_min("pads_end", desc.pads_end, 0);
    }

    Problem p;
    p.op = OpKind::max_pool;
    p.dtype = desc.src.dtype;
    p.layout = desc.src.layout;
    p.spatial_rank = sr;
    p.batch = desc.src.dims[0];
    p.channels = desc.src.dims[1];
    p.nan = desc.nan;

    for (int i = 0; i < sr; ++i) {
        const auto is = static_cast<std::size_t>(i);
        const std::int64_t in = desc.src.dims[is + 2];
        const std::int64_t k = desc.kernel[is];
        const std::int64_t s = desc.strides.empty() ? 1 : desc.strides[is];
        const std::int64_t d = desc.dilations.empty() ? 1 : desc.dilations[is];
        const i128 ek = static_cast<i128>(k - 1) * d + 1;
        i128 pb = 0, pe = 0;
        std::int64_t out = 0;
        if (desc.auto_pad == AutoPad::same_upper || desc.auto_pad == AutoPad::same_lower) {
            out = ceil_div(in, s);
            const i128 need = static_cast<i128>(out - 1) * s + ek - in;
            const i128 total = need > 0 ? need : 0;
            const i128 smaller = total / 2;
            pb = desc.auto_pad == AutoPad::same_upper ? smaller : total - smaller;
            pe = total - pb;
            if (in + pb + pe > max_bytes)
                check.fail("kernel[" + std::to_string(i) + "] = " + std::to_string(k) + " with dilations[" +
                           std::to_string(i) + "] = " + std::to_string(d) + " needs a padding that overflows 64 bits");
        } else {
            if (explicit_pads) {
                pb = desc.pads_begin.empty() ? 0 : desc.pads_begin[is];
                pe = desc.pads_end.empty() ? 0 : desc.pads_end[is];
            }
            const i128 padded = in + pb + pe;
            if (padded > max_bytes)
                check.fail("pads_begin[" + std::to_string(i) + "] = " + str(pb) + " and pads_end[" + std::to_string(i) +
                           "] = " + str(pe) + " with src.dims[" + std::to_string(i + 2) + "] = " + std::to_string(in) +
                           ": the padded size must fit in 63 bits");
            // Under ceil rounding a window may reach up to s - 1 elements past the padded input (ONNX, PyTorch
            // and OpenVINO accept it; its taps past the end are skipped like padding): the span is then negative.
            const bool ceil_rounding = desc.rounding != Rounding::floor;
            const std::string axis = "[" + std::to_string(i) + "]";
            const auto kernel_span = [&] {
                return "kernel" + axis + " = " + std::to_string(k) + " with dilations" + axis + " = " +
                       std::to_string(d) + " spans " + str(ek);
            };
            const auto padded_input = [&] {
                return "src.dims[" + std::to_string(i + 2) + "] = " + std::to_string(in) + " + pads " + str(pb) +
                       " + " + str(pe);
            };
            if (!ceil_rounding && ek > padded)
                check.fail(kernel_span() + ", must not exceed the padded input " + str(padded) + " (" +
                           padded_input() + ") under floor rounding");
            if (ceil_rounding && ek >= padded + s)
                check.fail(kernel_span() + ", must be less than the padded input + stride " + str(padded + s) +
                           " (" + padded_input() + ", strides" + axis + " = " + std::to_string(s) + ") under " +
                           (desc.rounding == Rounding::ceil ? "ceil" : "ceil_torch") + " rounding");
            // Under floor the span is at most the padded size; under ceil a stride near 2^63 would let it pass
            // 63 bits, which the planner's window arithmetic does not expect.
            if (ek > max_bytes) check.fail(kernel_span() + ", must fit in 63 bits");
            const i128 span = padded - ek;
            // span > -s here, so span + s - 1 >= 0 and the division of non-negatives is a true ceiling.
            i128 o = ceil_rounding ? (span + s - 1) / s + 1 : span / s + 1;
            if (desc.rounding == Rounding::ceil_torch && (o - 1) * s >= in + pb) o -= 1;
            if (o > max_bytes) check.fail("output size on spatial axis " + std::to_string(i) + " overflows 64 bits");
            out = static_cast<std::int64_t>(o);
        }
        if (out < 1)
            check.fail("output size on spatial axis " + std::to_string(i) + " = " + std::to_string(out) +
                       ", must be >= 1");
        p.in[is] = in;
        p.out[is] = out;
        p.kernel[is] = k;
        p.stride[is] = s;
        p.dilation[is] = d;
        p.pad_begin[is] = static_cast<std::int64_t>(pb);
        p.pad_end[is] = static_cast<std::int64_t>(pe);
    }

    if (desc.indices) {
        const IndexSpec& ix = *desc.indices;
        if (!is_index_dtype(ix.dtype))
            check.fail("indices.dtype = " + dtype_value(ix.dtype) + ", must be s32 or s64");
        check.check_enum("indices.order", ix.order, StorageOrder::column_major, "row_major, column_major");
        const std::int64_t rank = sr + 2;
        if (ix.axis < -rank || ix.axis > rank - 1)
            check.fail("indices.axis = " + std::to_string(ix.axis) + ", must be in [" + std::to_string(-rank) + ", " +
                       std::to_string(rank - 1) + "] for a rank-" + std::to_string(rank) + " input");
        const int axis = static_cast<int>(ix.axis < 0 ? ix.axis + rank : ix.axis);
        if (ix.order == StorageOrder::column_major && axis != 0)
            check.fail("indices.order = column_major requires indices.axis = 0, got axis = " + std::to_string(ix.axis));
        p.has_indices = true;
        p.index_dtype = ix.dtype;
        p.axis = axis;
        p.order = ix.order;
    }
    check_problem_sizes(check, p);
    resolve_memory(check, p, desc.src.layout, desc.src.strides, desc.dst_strides, desc.indices_strides);
    return p;
}

Problem resolve(const AdaptiveMaxPoolDesc& desc) {
    const Checker check("AdaptiveMaxPool");
    const int sr = check.check_src(desc.src);
    if (desc.output_size.empty())
        check.fail("output_size is empty, must have " + std::to_string(sr) + " entries (one per spatial axis of src.dims)");
    check.check_length("output_size", desc.output_size, sr, false);
    check.check_min("output_size", desc.output_size, 1);

    Problem p;
    p.op = OpKind::adaptive_max_pool;
    p.dtype = desc.src.dtype;
    p.layout = desc.src.layout;
    p.spatial_rank = sr;
    p.batch = desc.src.dims[0];
    p.channels = desc.src.dims[1];
    for (int i = 0; i < sr; ++i) {
        const auto is = static_cast<std::size_t>(i);
        p.in[is] = desc.src.dims[is + 2];
        p.out[is] = desc.output_size[is];
    }
    if (desc.index_dtype) {
        if (!is_index_dtype(*desc.index_dtype))
            check.fail("index_dtype = " + dtype_value(*desc.index_dtype) + ", must be s32 or s64");
        p.has_indices = true;
        p.index_dtype = *desc.index_dtype;
    }
    check_problem_sizes(check, p);
    resolve_memory(check, p, desc.src.layout, desc.src.strides, desc.dst_strides, desc.indices_strides);
    return p;
}

}  // namespace pooljit
