// pooljit public types: data types, layouts, descriptors and the canonical Problem.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace pooljit {

// Every invalid descriptor, problem string or call argument throws this. The message names the field, the
// value and the rule, e.g. "MaxPool: strides[1] = 0, must be >= 1".
class Error : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

enum class DType : std::uint8_t { f32, f64, f16, bf16, s8, u8, s32, s64 };

// ncx: NCW / NCHW / NCDHW. nxc: NWC / NHWC / NDHWC. Both dense; dims are always given in logical N, C, spatial order.
enum class Layout : std::uint8_t { ncx, nxc };

enum class AutoPad : std::uint8_t { explicit_pads, valid, same_upper, same_lower };

// floor and ceil as in OpenVINO / oneDNN Graph; ceil_torch is ceil without windows that start in the right
// padding (PyTorch, ONNX ceil_mode=1, OpenVINO-14 ceil_torch).
enum class Rounding : std::uint8_t { floor, ceil, ceil_torch };

enum class NanPolicy : std::uint8_t { propagate, ignore };

// ONNX storage_order: only how the spatial part of an index is numbered.
enum class StorageOrder : std::uint8_t { row_major, column_major };

struct TensorDesc {
    DType dtype = DType::f32;
    Layout layout = Layout::ncx;
    std::vector<std::int64_t> dims;  // logical N, C, spatial...

    friend bool operator==(const TensorDesc&, const TensorDesc&) = default;
};

struct IndexSpec {
    DType dtype = DType::s64;  // s32 or s64
    std::int64_t axis = 0;     // OpenVINO MaxPool-8 axis, in [-R, R-1]
    StorageOrder order = StorageOrder::row_major;

    friend bool operator==(const IndexSpec&, const IndexSpec&) = default;
};

struct MaxPoolDesc {
    TensorDesc src;
    std::vector<std::int64_t> kernel;      // rank-2 entries, never empty
    std::vector<std::int64_t> strides;     // empty: all 1
    std::vector<std::int64_t> pads_begin;  // empty: all 0; not read under valid / same_*
    std::vector<std::int64_t> pads_end;    // empty: all 0; not read under valid / same_*
    std::vector<std::int64_t> dilations;   // empty: all 1
    AutoPad auto_pad = AutoPad::explicit_pads;
    Rounding rounding = Rounding::floor;
    std::optional<IndexSpec> indices;      // absent: no indices output
    NanPolicy nan = NanPolicy::propagate;

    friend bool operator==(const MaxPoolDesc&, const MaxPoolDesc&) = default;
};

struct AdaptiveMaxPoolDesc {
    TensorDesc src;
    std::vector<std::int64_t> output_size;  // rank-2 entries, each >= 1
    std::optional<DType> index_dtype;       // absent: no indices output

    friend bool operator==(const AdaptiveMaxPoolDesc&, const AdaptiveMaxPoolDesc&) = default;
};

enum class OpKind : std::uint8_t { max_pool, adaptive_max_pool };

inline constexpr int max_spatial_rank = 3;

// The resolved configuration: validated, pads explicit, output dims known. Spatial arrays hold
// `spatial_rank` meaningful entries; the rest are neutral (dims 1, kernel/stride/dilation 1, pads 0), so a
// kernel may always loop over three spatial axes. For adaptive_max_pool, kernel/stride/dilation/pads are
// neutral and the windows come from in/out.
struct Problem {
    using Spatial = std::array<std::int64_t, max_spatial_rank>;

    OpKind op = OpKind::max_pool;
    DType dtype = DType::f32;
    Layout layout = Layout::ncx;
    int spatial_rank = 1;
    std::int64_t batch = 0;
    std::int64_t channels = 0;
    Spatial in{1, 1, 1};
    Spatial out{1, 1, 1};
    Spatial kernel{1, 1, 1};
    Spatial stride{1, 1, 1};
    Spatial dilation{1, 1, 1};
    Spatial pad_begin{0, 0, 0};
    Spatial pad_end{0, 0, 0};
    NanPolicy nan = NanPolicy::propagate;
    bool has_indices = false;
    DType index_dtype = DType::s64;
    int axis = 0;  // normalized to [0, rank)
    StorageOrder order = StorageOrder::row_major;

    int rank() const { return spatial_rank + 2; }
    std::int64_t spatial_in_size() const { return in[0] * in[1] * in[2]; }
    std::int64_t spatial_out_size() const { return out[0] * out[1] * out[2]; }
    TensorDesc src_desc() const;
    TensorDesc dst_desc() const;
    TensorDesc indices_desc() const;  // dims empty when !has_indices
    // The number that flat logical NCX indices are taken modulo: prod(src dims[axis:]) (OpenVINO axis).
    std::int64_t index_modulus() const;

    friend bool operator==(const Problem&, const Problem&) = default;
};

// Validation and shape inference. Throws Error naming the field, the value and the rule.
Problem resolve(const MaxPoolDesc& desc);
Problem resolve(const AdaptiveMaxPoolDesc& desc);

// Element size in bytes and short name ("f32", "bf16", ...).
std::size_t size_of(DType dtype);
const char* to_string(DType dtype);
const char* to_string(Layout layout);

}  // namespace pooljit
