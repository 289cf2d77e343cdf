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

// ncx: NCW / NCHW / NCDHW. nxc: NWC / NHWC / NDHWC. nCx8c / nCx16c: channels in blocks of 8 or 16, each block
// a channels-last tensor (oneDNN aBcd8b / aBcd16b and their 1-D and 3-D forms, ONNX Runtime's NCHWc), C padded
// up to a multiple of the block. dims are always given in logical N, C, spatial order.
enum class Layout : std::uint8_t { ncx, nxc, nCx8c, nCx16c };

// Channels of one block of a layout: 8 or 16 for the blocked layouts, 1 for ncx and nxc.
inline std::int64_t channel_block_of(Layout layout) {
    return layout == Layout::nCx8c ? 8 : layout == Layout::nCx16c ? 16 : 1;
}

enum class AutoPad : std::uint8_t { explicit_pads, valid, same_upper, same_lower };

// floor and ceil as in OpenVINO / oneDNN Graph; ceil_torch is ceil without windows that start in the right
// padding (PyTorch, ONNX ceil_mode=1, OpenVINO-14 ceil_torch).
enum class Rounding : std::uint8_t { floor, ceil, ceil_torch };

enum class NanPolicy : std::uint8_t { propagate, ignore };

// ONNX storage_order: only how the spatial part of an index is numbered.
enum class StorageOrder : std::uint8_t { row_major, column_major };

// A tensor: its element type, layout and logical dims, and optionally its element strides, one per logical dim
// (N, C, spatial...). Empty strides: dense in the layout. In nCx8c / nCx16c, element (n, c, x...) sits at
// n*s[0] + (c / block)*s[1] + sum(x_i*s[2+i]) + c % block (the block stays contiguous); in ncx and nxc at
// n*s[0] + c*s[1] + sum(x_i*s[2+i]). A view of a larger buffer (a channel slice, a row pitch, a batch stride)
// is a tensor with strides; a source may read an element twice (a 0 stride), a destination may not.
struct TensorDesc {
    DType dtype = DType::f32;
    Layout layout = Layout::ncx;
    std::vector<std::int64_t> dims;     // logical N, C, spatial...
    std::vector<std::int64_t> strides = {};  // in elements, one per dim; empty: dense in the layout

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
    // The outputs as views: strides over the output dims, in the layout of src. Empty: dense. The indices take
    // dst's strides unless they have their own. Bytes between the elements of a view are never written.
    std::vector<std::int64_t> dst_strides = {};
    std::vector<std::int64_t> indices_strides = {};

    friend bool operator==(const MaxPoolDesc&, const MaxPoolDesc&) = default;
};

struct AdaptiveMaxPoolDesc {
    TensorDesc src;
    std::vector<std::int64_t> output_size;  // rank-2 entries, each >= 1
    std::optional<DType> index_dtype;       // absent: no indices output
    std::vector<std::int64_t> dst_strides = {};      // as MaxPoolDesc's
    std::vector<std::int64_t> indices_strides = {};  // as MaxPoolDesc's

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
    // Element strides of a resolved tensor: N, C (between channel blocks in nCx8c / nCx16c) and each spatial
    // axis (0 on the neutral ones). Dense tensors have their dense strides filled in.
    struct Strides {
        std::int64_t n = 0, c = 0;
        Spatial spatial{0, 0, 0};
        friend bool operator==(const Strides&, const Strides&) = default;
    };

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
    // Memory: channels of a block (8, 16 in the blocked layouts, else 1) and each tensor's element strides.
    std::int64_t block = 1;
    Strides src_strides, dst_strides, indices_strides;

    int rank() const { return spatial_rank + 2; }
    std::int64_t spatial_in_size() const { return in[0] * in[1] * in[2]; }
    std::int64_t spatial_out_size() const { return out[0] * out[1] * out[2]; }
    // The tensors as a user describes them: strides empty where they are the layout's dense ones.
    TensorDesc src_desc() const;
    TensorDesc dst_desc() const;
    TensorDesc indices_desc() const;  // dims empty when !has_indices
    // Element offset of logical element (n, c, spatial position x) of a tensor with these strides.
    std::int64_t offset(const Strides& s, std::int64_t n, std::int64_t c, const Spatial& x) const {
        const std::int64_t channel = block > 1 ? (c / block) * s.c + c % block : c * s.c;
        return n * s.n + channel + x[0] * s.spatial[0] + x[1] * s.spatial[1] + x[2] * s.spatial[2];
    }
    // The number that flat logical NCX indices are taken modulo: prod(src dims[axis:]) (OpenVINO axis).
    std::int64_t index_modulus() const;

    friend bool operator==(const Problem&, const Problem&) = default;
};

// A plan's choices where more than one answer is valid (DESIGN.md section 5, "Measured choice"): each field at
// its `rules` value (0 for the numbers) lets the planner's rules decide; another value asks for that answer.
// create() uses the rules, or a wisdom entry for this CPU and problem; pooljit::tune() times the alternatives.
// A choice changes speed, never results. A choice the planner cannot honour for a problem (a ring where windows
// do not overlap, AVX-512 on a CPU without it) is refused by name, never half taken.
struct PlanChoice {
    enum class Isa : std::uint8_t { rules, avx512, avx2 };    // the code's ISA form
    enum class Nan : std::uint8_t { rules, scan, watch };     // float rows: a NaN scan first, or a watch inside
    enum class Reuse : std::uint8_t { rules, none, ring, separable };  // overlapping windows' rows: kept how
    enum class Switch : std::uint8_t { rules, on, off };

    Isa isa = Isa::rules;
    Nan nan = Nan::rules;
    Reuse reuse = Reuse::rules;
    Switch planes = Switch::rules;  // small planar planes held whole in registers
    Switch pairs = Switch::rules;   // bf16 vectors loaded two at a time, split into even and odd elements
    Switch masked = Switch::rules;  // planar rows' border outputs in the interior's vectors, under opmasks
    Switch tap_pairs = Switch::rules;  // planar lanes at stride 2: two neighbouring width taps from one pair of loads
    Switch ranks = Switch::rules;   // taps-as-lanes items keep each lane's scan rank (opmasks), or the maximum alone
    Switch bands = Switch::rules;   // planar bytes in bands of outputs gathered by byte permutes (AVX512_VBMI)
    Switch vertical = Switch::rules;  // channels-last integer rows: the window's rows merged first, flat, on the stack
    Switch ranges = Switch::rules;  // a global channels-last window run as ranges of its pixels on the threads, then merged
    std::int32_t sweep_bytes = 0;   // channels-last calls sweep channel blocks spanning at most this (1: none)
    std::int32_t separable_kib = 0; // planar separable rows' stack buffers
    std::int32_t prefetch_kib = 0;  // planar rows' prefetch distance (-1: none)
    std::int32_t chunk_kib = 0;     // channels-last calls' input rows when the blocks go innermost
    std::int32_t threads = 0;       // threads execute uses at most
    std::int32_t grain = 0;         // tasks per thread the executor makes

    bool is_rules() const { return *this == PlanChoice{}; }
    friend bool operator==(const PlanChoice&, const PlanChoice&) = default;
};

// Validation and shape inference. Throws Error naming the field, the value and the rule.
Problem resolve(const MaxPoolDesc& desc);
Problem resolve(const AdaptiveMaxPoolDesc& desc);

// Element size in bytes and short name ("f32", "bf16", ...).
std::size_t size_of(DType dtype);
const char* to_string(DType dtype);
const char* to_string(Layout layout);

}  // namespace pooljit
