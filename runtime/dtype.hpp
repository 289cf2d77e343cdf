// Element types: sizes, names, and the exact conversions between f16 / bf16 bits and float.
#pragma once

#include <pooljit/types.hpp>

#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string_view>

namespace pooljit {

std::optional<DType> dtype_from_string(std::string_view name);
bool is_floating(DType dtype);
bool is_index_dtype(DType dtype);

// f16 -> f32 is exact for every f16 value, denormals and NaN payloads included.
float f16_to_f32(std::uint16_t bits);
// Round to nearest even; used only to make test data, never on a selected element.
std::uint16_t f32_to_f16(float value);
inline float bf16_to_f32(std::uint16_t bits) { return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16); }
std::uint16_t f32_to_bf16(float value);

// Storage and comparison types per DType. f16 and bf16 are stored as their bits and compared as float, which
// holds every one of their values exactly.
struct F16 { std::uint16_t bits; };
struct BF16 { std::uint16_t bits; };

template <DType D> struct dtype_traits;
template <> struct dtype_traits<DType::f32>  { using storage = float;         using compare = float; };
template <> struct dtype_traits<DType::f64>  { using storage = double;        using compare = double; };
template <> struct dtype_traits<DType::f16>  { using storage = std::uint16_t; using compare = float; };
template <> struct dtype_traits<DType::bf16> { using storage = std::uint16_t; using compare = float; };
template <> struct dtype_traits<DType::s8>   { using storage = std::int8_t;   using compare = std::int8_t; };
template <> struct dtype_traits<DType::u8>   { using storage = std::uint8_t;  using compare = std::uint8_t; };
template <> struct dtype_traits<DType::s32>  { using storage = std::int32_t;  using compare = std::int32_t; };
template <> struct dtype_traits<DType::s64>  { using storage = std::int64_t;  using compare = std::int64_t; };

template <DType D>
typename dtype_traits<D>::compare to_compare(typename dtype_traits<D>::storage v) {
    if constexpr (D == DType::f16) return f16_to_f32(v);
    else if constexpr (D == DType::bf16) return bf16_to_f32(v);
    else return v;
}

// The value an empty window produces: -inf for floating types, the lowest value for integers.
template <DType D>
typename dtype_traits<D>::storage empty_window_value() {
    if constexpr (D == DType::f16) return std::uint16_t{0xFC00};
    else if constexpr (D == DType::bf16) return std::uint16_t{0xFF80};
    else if constexpr (D == DType::f32 || D == DType::f64) return -std::numeric_limits<typename dtype_traits<D>::storage>::infinity();
    else return std::numeric_limits<typename dtype_traits<D>::storage>::lowest();
}

// Calls f(std::integral_constant<DType, D>{}) for the runtime dtype.
template <typename F>
decltype(auto) dispatch_dtype(DType dtype, F&& f) {
    switch (dtype) {
        case DType::f32: return f(std::integral_constant<DType, DType::f32>{});
        case DType::f64: return f(std::integral_constant<DType, DType::f64>{});
        case DType::f16: return f(std::integral_constant<DType, DType::f16>{});
        case DType::bf16: return f(std::integral_constant<DType, DType::bf16>{});
        case DType::s8: return f(std::integral_constant<DType, DType::s8>{});
        case DType::u8: return f(std::integral_constant<DType, DType::u8>{});
        case DType::s32: return f(std::integral_constant<DType, DType::s32>{});
        case DType::s64: return f(std::integral_constant<DType, DType::s64>{});
    }
    throw Error("dtype = " + std::to_string(static_cast<int>(dtype)) + ", must be one of f32, f64, f16, bf16, s8, u8, s32, s64");
}

}  // namespace pooljit
