// Test helpers: dense tensors of any pooljit dtype built from doubles, read back, and moved between layouts.
#pragma once

#include "runtime/dtype.hpp"

#include <pooljit/types.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace pooljit::test {

inline constexpr DType all_dtypes[] = {DType::f32, DType::f64, DType::f16, DType::bf16,
                                       DType::s8,  DType::u8,  DType::s32, DType::s64};

inline std::int64_t element_count(const std::vector<std::int64_t>& dims) {
    std::int64_t n = 1;
    for (std::int64_t d : dims) n *= d;
    return n;
}

// True when `value` survives the round trip through `dtype` unchanged (NaN counts as representable in the floating
// types). -inf is representable only in the floating types; see encode() for what it means for integers.
inline bool representable(DType dtype, double value) {
    if (std::isnan(value)) return is_floating(dtype);
    switch (dtype) {
        case DType::f64: return true;
        case DType::f32: return static_cast<double>(static_cast<float>(value)) == value;
        case DType::f16: {
            const auto f = static_cast<float>(value);
            return static_cast<double>(f) == value && f16_to_f32(f32_to_f16(f)) == f;
        }
        case DType::bf16: {
            const auto f = static_cast<float>(value);
            return static_cast<double>(f) == value && bf16_to_f32(f32_to_bf16(f)) == f;
        }
        default: break;
    }
    if (!std::isfinite(value) || std::trunc(value) != value) return false;
    return dispatch_dtype(dtype, [&](auto tag) -> bool {
        using T = typename dtype_traits<decltype(tag)::value>::storage;
        // max() + 1 is a power of two, exact in double even for s64, whose max() itself is not.
        return value >= static_cast<double>(std::numeric_limits<T>::lowest()) &&
               value < static_cast<double>(std::numeric_limits<T>::max()) + 1.0;
    });
}

inline bool all_representable(DType dtype, const std::vector<double>& values) {
    for (double v : values)
        if (!representable(dtype, v)) return false;
    return true;
}

// Writes `value` as one element of `dtype` at `out`. -inf means "empty window": -inf for the floating types and
// the type's lowest value for integers (DESIGN.md section 3). Any other value must be representable.
inline void encode(DType dtype, double value, std::byte* out) {
    const bool empty_window = std::isinf(value) && value < 0;
    if (!empty_window && !representable(dtype, value))
        throw std::invalid_argument("test data: " + std::to_string(value) + " is not representable in " +
                                    to_string(dtype));
    dispatch_dtype(dtype, [&](auto tag) {
        constexpr DType D = decltype(tag)::value;
        using T = typename dtype_traits<D>::storage;
        T v{};
        if (empty_window) v = empty_window_value<D>();
        else if constexpr (D == DType::f16) v = f32_to_f16(static_cast<float>(value));
        else if constexpr (D == DType::bf16) v = f32_to_bf16(static_cast<float>(value));
        else v = static_cast<T>(value);
        std::memcpy(out, &v, sizeof(T));
    });
}

inline std::vector<std::byte> to_bytes(DType dtype, const std::vector<double>& values) {
    const std::size_t size = size_of(dtype);
    std::vector<std::byte> bytes(values.size() * size);
    for (std::size_t i = 0; i < values.size(); ++i) encode(dtype, values[i], bytes.data() + i * size);
    return bytes;
}

// Element `i` of a dense `dtype` buffer, as a double (exact for every dtype but s64 values beyond 2^53).
inline double decode(DType dtype, const std::byte* data, std::size_t i) {
    return dispatch_dtype(dtype, [&](auto tag) -> double {
        constexpr DType D = decltype(tag)::value;
        using T = typename dtype_traits<D>::storage;
        T v{};
        std::memcpy(&v, data + i * sizeof(T), sizeof(T));
        return static_cast<double>(to_compare<D>(v));
    });
}

inline std::vector<double> from_bytes(DType dtype, const std::vector<std::byte>& bytes) {
    const std::size_t n = bytes.size() / size_of(dtype);
    std::vector<double> values(n);
    for (std::size_t i = 0; i < n; ++i) values[i] = decode(dtype, bytes.data(), i);
    return values;
}

// Index tensors (s32 or s64) read back exactly.
inline std::vector<std::int64_t> indices_from_bytes(DType dtype, const std::vector<std::byte>& bytes) {
    std::vector<std::int64_t> out(bytes.size() / size_of(dtype));
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (dtype == DType::s32) {
            std::int32_t v;
            std::memcpy(&v, bytes.data() + i * 4, 4);
            out[i] = v;
        } else if (dtype == DType::s64) {
            std::memcpy(&out[i], bytes.data() + i * 8, 8);
        } else {
            throw std::invalid_argument(std::string("test data: ") + to_string(dtype) + " is not an index dtype");
        }
    }
    return out;
}

inline std::vector<std::byte> indices_to_bytes(DType dtype, const std::vector<std::int64_t>& values) {
    std::vector<double> as_double(values.begin(), values.end());
    return to_bytes(dtype, as_double);
}

// Moves a dense tensor between the ncx and nxc layouts. `dims` are logical (N, C, spatial...); elements are
// `element_size` bytes. Converting a layout to itself copies.
inline std::vector<std::byte> convert_layout(const std::vector<std::byte>& data, std::size_t element_size,
                                             const std::vector<std::int64_t>& dims, Layout from, Layout to) {
    if (dims.size() < 2) throw std::invalid_argument("convert_layout: dims need N and C");
    const auto count = static_cast<std::size_t>(element_count(dims));
    if (data.size() != count * element_size) throw std::invalid_argument("convert_layout: buffer size does not match dims");
    if (from == to) return data;
    const auto n = static_cast<std::size_t>(dims[0]);
    const auto c = static_cast<std::size_t>(dims[1]);
    const std::size_t spatial = (n == 0 || c == 0) ? 0 : count / (n * c);
    std::vector<std::byte> out(data.size());
    for (std::size_t in = 0; in < n; ++in)
        for (std::size_t ic = 0; ic < c; ++ic)
            for (std::size_t is = 0; is < spatial; ++is) {
                const std::size_t ncx = (in * c + ic) * spatial + is;
                const std::size_t nxc = (in * spatial + is) * c + ic;
                const std::size_t src_i = from == Layout::ncx ? ncx : nxc;
                const std::size_t dst_i = from == Layout::ncx ? nxc : ncx;
                std::memcpy(out.data() + dst_i * element_size, data.data() + src_i * element_size, element_size);
            }
    return out;
}

// Same, for a vector of plain values.
template <typename T>
std::vector<T> convert_layout(const std::vector<T>& values, const std::vector<std::int64_t>& dims, Layout from,
                              Layout to) {
    std::vector<std::byte> bytes(values.size() * sizeof(T));
    if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
    bytes = convert_layout(bytes, sizeof(T), dims, from, to);
    std::vector<T> out(values.size());
    if (!out.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
    return out;
}

inline std::string dims_string(const std::vector<std::int64_t>& dims) {
    std::string s;
    for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? "x" : "") + std::to_string(dims[i]);
    return s;
}

}  // namespace pooljit::test
