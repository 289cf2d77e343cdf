// The reference interpreter: the oracle for every test. Written to be obviously right, not fast: one output
// element at a time, one tap at a time, padding skipped (never read as a value).
#include "runtime/dtype.hpp"
#include "runtime/float_environment.hpp"

#include <pooljit/pooljit.hpp>

#include <cmath>
#include <algorithm>
#include <cstring>
#include <string>

namespace pooljit::reference {
namespace {

// A window along one spatial axis: input positions start + t * step for t in [tap_begin, tap_end), all real.
// Taps in the padding are excluded up front (a huge kernel over a small input costs its real taps only).
// Descriptors may hold values near INT64_MAX, so the bounds are computed in 128 bits.
struct AxisWindow {
    std::int64_t start, step, tap_begin, tap_end;
};

__extension__ typedef __int128 i128;

AxisWindow window_of(const Problem& p, int axis, std::int64_t o) {
    const auto a = static_cast<std::size_t>(axis);
    const i128 in = p.in[a];
    if (p.op == OpKind::adaptive_max_pool) {
        const i128 out = p.out[a];
        const auto begin = static_cast<std::int64_t>(o * in / out);
        const auto end = static_cast<std::int64_t>(((o + 1) * in + out - 1) / out);  // exclusive
        return {begin, 1, 0, end - begin};
    }
    const i128 first = static_cast<i128>(o) * p.stride[a] - p.pad_begin[a];
    const i128 d = p.dilation[a];
    i128 begin = 0;
    if (first < 0) begin = (-first + d - 1) / d;
    i128 end = 0;
    if (in - first > 0) end = std::min<i128>(p.kernel[a], (in - first + d - 1) / d);
    if (begin > end) begin = end;
    return {static_cast<std::int64_t>(first), p.dilation[a], static_cast<std::int64_t>(begin),
            static_cast<std::int64_t>(end)};
}

template <DType D>
void run(const Problem& p, const void* src_v, void* dst_v, void* idx_v) {
    using T = typename dtype_traits<D>::storage;
    const auto* src = static_cast<const T*>(src_v);
    auto* dst = static_cast<T*>(dst_v);
    const std::int64_t C = p.channels;
    const std::int64_t in_size = p.spatial_in_size();
    const std::int64_t modulus = p.index_modulus();

    auto store_index = [&](std::int64_t at, std::int64_t value) {  // at: an element offset of the indices
        if (!p.has_indices) return;
        if (p.index_dtype == DType::s32) {
            const auto v32 = static_cast<std::int32_t>(value);
            std::memcpy(static_cast<char*>(idx_v) + at * 4, &v32, 4);
        } else {
            std::memcpy(static_cast<char*>(idx_v) + at * 8, &value, 8);
        }
    };

    for (std::int64_t n = 0; n < p.batch; ++n) {
        for (std::int64_t c = 0; c < C; ++c) {
            for (std::int64_t o0 = 0; o0 < p.out[0]; ++o0) {
                for (std::int64_t o1 = 0; o1 < p.out[1]; ++o1) {
                    for (std::int64_t o2 = 0; o2 < p.out[2]; ++o2) {
                        const AxisWindow w0 = window_of(p, 0, o0), w1 = window_of(p, 1, o1), w2 = window_of(p, 2, o2);
                        bool found = false, found_nan = false;
                        T best{};
                        std::int64_t best_i[3] = {0, 0, 0};
                        for (std::int64_t t0 = w0.tap_begin; t0 < w0.tap_end; ++t0) {
                            const std::int64_t i0 = w0.start + t0 * w0.step;
                            if (i0 < 0 || i0 >= p.in[0]) continue;
                            for (std::int64_t t1 = w1.tap_begin; t1 < w1.tap_end; ++t1) {
                                const std::int64_t i1 = w1.start + t1 * w1.step;
                                if (i1 < 0 || i1 >= p.in[1]) continue;
                                for (std::int64_t t2 = w2.tap_begin; t2 < w2.tap_end; ++t2) {
                                    const std::int64_t i2 = w2.start + t2 * w2.step;
                                    if (i2 < 0 || i2 >= p.in[2]) continue;
                                    const T v = src[p.offset(p.src_strides, n, c, {i0, i1, i2})];
                                    const auto cv = to_compare<D>(v);
                                    bool take;
                                    if constexpr (std::is_floating_point_v<decltype(cv)>) {
                                        if (std::isnan(cv)) {
                                            if (p.nan == NanPolicy::ignore) continue;
                                            take = !found_nan;  // the first NaN wins and nothing replaces it
                                            found_nan = true;
                                        } else {
                                            take = !found_nan && (!found || cv > to_compare<D>(best));
                                        }
                                    } else {
                                        take = !found || cv > to_compare<D>(best);
                                    }
                                    if (take) {
                                        best = v;
                                        best_i[0] = i0;
                                        best_i[1] = i1;
                                        best_i[2] = i2;
                                    }
                                    found = true;
                                }
                            }
                        }
                        const Problem::Spatial o{o0, o1, o2};
                        const std::int64_t at = p.offset(p.indices_strides, n, c, o);
                        dst[p.offset(p.dst_strides, n, c, o)] = found ? best : empty_window_value<D>();
                        if (!found) {
                            store_index(at, -1);
                            continue;
                        }
                        const std::int64_t spatial_flat = (best_i[0] * p.in[1] + best_i[1]) * p.in[2] + best_i[2];
                        if (p.op == OpKind::adaptive_max_pool) {
                            store_index(at, spatial_flat);
                        } else if (p.order == StorageOrder::column_major) {
                            // Only the spatial part is column-major: the first spatial axis varies fastest.
                            const auto sr = static_cast<std::size_t>(p.spatial_rank);
                            std::int64_t column = 0, scale = 1;
                            for (std::size_t a = 0; a < sr; ++a) {
                                column += best_i[a] * scale;
                                scale *= p.in[a];
                            }
                            store_index(at, (n * C + c) * in_size + column);
                        } else {
                            store_index(at, ((n * C + c) * in_size + spatial_flat) % modulus);
                        }
                    }
                }
            }
        }
    }
    // A blocked destination's padded lanes (channels C to the next multiple of the block) are written as 0, and
    // their indices too, as oneDNN keeps its padded area zero.
    const std::int64_t padded = (C + p.block - 1) / p.block * p.block;
    for (std::int64_t n = 0; n < p.batch; ++n)
        for (std::int64_t c = C; c < padded; ++c)
            for (std::int64_t o0 = 0; o0 < p.out[0]; ++o0)
                for (std::int64_t o1 = 0; o1 < p.out[1]; ++o1)
                    for (std::int64_t o2 = 0; o2 < p.out[2]; ++o2) {
                        const Problem::Spatial o{o0, o1, o2};
                        dst[p.offset(p.dst_strides, n, c, o)] = T{};
                        store_index(p.offset(p.indices_strides, n, c, o), 0);
                    }
}

}  // namespace

void execute(const Problem& problem, const void* src, void* dst, void* indices) {
    // A Problem normally comes from resolve(); a hand-made one is checked for what indexing relies on.
    if (problem.spatial_rank < 1 || problem.spatial_rank > max_spatial_rank || problem.axis < 0 ||
        problem.axis >= problem.rank())
        throw Error("reference::execute: the Problem is not resolved (spatial_rank " +
                    std::to_string(problem.spatial_rank) + ", axis " + std::to_string(problem.axis) +
                    "); create it with pooljit::resolve");
    const bool empty = problem.batch == 0 || problem.channels == 0;
    if (!empty && (src == nullptr || dst == nullptr))
        throw Error(std::string("reference::execute: ") + (src == nullptr ? "src" : "dst") + " = nullptr, must point to the tensor");
    if (!empty && problem.has_indices && indices == nullptr)
        throw Error("reference::execute: indices = nullptr, the problem has an indices output");
    const detail::ExactFloatCompares exact;  // a caller's DAZ would make a denormal compare as 0
    dispatch_dtype(problem.dtype, [&](auto d) { run<decltype(d)::value>(problem, src, dst, indices); });
}

void execute(const MaxPoolDesc& desc, const void* src, void* dst, void* indices) {
    execute(resolve(desc), src, dst, indices);
}

void execute(const AdaptiveMaxPoolDesc& desc, const void* src, void* dst, void* indices) {
    execute(resolve(desc), src, dst, indices);
}

}  // namespace pooljit::reference
