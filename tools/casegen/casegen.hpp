// casegen: the one generator of pooling configurations and adversarial data. It feeds the unit and
// differential tests and pooljit-fuzz. Public API only; deterministic for a given seed.
#pragma once

#include <pooljit/pooljit.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace pooljit::casegen {

// Size limits that keep one case small enough to run through the scalar reference quickly.
struct Bounds {
    std::int64_t max_batch = 3;
    std::int64_t max_channels = 40;
    std::int64_t max_spatial = 14;       // per spatial axis, for 2-D and 3-D
    std::int64_t max_spatial_1d = 260;   // 1-D inputs may be long (long windows, ONNX's 200-tap kernel)
    std::int64_t max_kernel = 6;         // per axis, for 2-D and 3-D
    std::int64_t max_src_elements = 1 << 15;
};

// Which generic field an invalid descriptor breaks, and the text its Error must contain.
struct InvalidCase {
    AnyPoolDesc desc;
    std::string expected_field;
};

class Generator {
public:
    explicit Generator(std::uint64_t seed, Bounds bounds = {});

    MaxPoolDesc max_pool();
    AdaptiveMaxPoolDesc adaptive_max_pool();
    AnyPoolDesc any();         // mostly max_pool, sometimes adaptive
    InvalidCase invalid();     // a descriptor that create() must refuse with pooljit::Error

    std::mt19937_64& rng() { return rng_; }

private:
    std::int64_t uniform(std::int64_t lo, std::int64_t hi);  // inclusive
    bool chance(double p);
    TensorDesc source(int spatial_rank);
    MaxPoolDesc max_pool_attempt();
    std::vector<std::int64_t> view_strides(const TensorDesc& t, bool source);
    void add_views(MaxPoolDesc& d, const Problem& p);

    std::mt19937_64 rng_;
    Bounds bounds_;
};

// Dense bytes for a tensor, drawn to stress the kernels: ties, +-inf, NaN (several payloads), -0, denormals,
// integer extremes, and whole regions of the lowest value (-inf, INT8_MIN, ...) so that entire windows hold it.
std::vector<std::uint8_t> adversarial_data(const TensorDesc& desc, std::uint64_t seed);

// Dense bytes for a tensor as a network would hand them over: finite values only (no NaN, no infinity), about
// half of them zero (post-ReLU activations), the rest integers in [-127, 255] that every data type holds exactly
// (clamped to the type's range). What pooljit-bench times; adversarial_data is what it checks.
std::vector<std::uint8_t> activation_data(const TensorDesc& desc, std::uint64_t seed);

// Dense bytes without NaN (so rows take the kernels' fast code) and full of ties: each element is one of the
// type's lowest value, -1, -0, +0, 1 and 2 (integers: -0 is 0), so windows hold repeated maxima, +0 beside -0,
// and windows of nothing but the lowest value.
std::vector<std::uint8_t> tie_data(const TensorDesc& desc, std::uint64_t seed);

// What the differential tests and the fuzzer run: adversarial_data for even seeds, tie_data for odd ones, so that
// both the exact (NaN) code and the fast code of the kernels meet ties and signed zeros.
std::vector<std::uint8_t> differential_data(const TensorDesc& desc, std::uint64_t seed);

// Bytes of the buffer that holds a tensor: a dense one's element count x element size, a view's extent from its
// first element to past its last, a blocked layout's padded lanes included (pooljit::byte_extent). Throws Error
// on overflow.
std::size_t byte_size(const TensorDesc& desc);

// The element offset of every logical element (N, C, spatial... order) of a tensor, padded lanes of a block
// excluded.
std::vector<std::int64_t> element_offsets(const TensorDesc& desc);

// Which bytes of the buffer a tensor owns: its elements' and, blocked, its padded lanes' (which an output
// writes as 0). The rest of a view's buffer (its gaps) belongs to someone else.
std::vector<bool> owned_bytes(const TensorDesc& desc);

// The first byte of `got` outside the tensor's owned bytes that is not `poison`, the byte the buffer was filled
// with before a run: a write into a gap.
std::optional<std::size_t> first_gap_write(const TensorDesc& desc, const void* got, std::uint8_t poison);

// ---- Comparing outputs and shrinking failing cases (pooljit-fuzz, pooljit-warmup --verify) ----------------

// One element's bits as hex, most significant byte first ("0x7fc00001"), and its value in words ("nan",
// "-inf", "-0", "3.5", "-128"). `element` points at size_of(dtype) bytes in native (little-endian) order.
std::string hex_bits(DType dtype, const void* element);
std::string element_value(DType dtype, const void* element);

// Where two tensors first differ.
struct Difference {
    std::size_t element = 0;                // the element's offset in memory, in elements
    std::vector<std::int64_t> coordinates;  // the same element as logical N, C, spatial... coordinates
    std::string got, want;                  // hex_bits of the two elements
    std::string got_value, want_value;      // element_value of the two elements
};

// The first element, in logical order, where `got` and `want`, two tensors described by `desc`, differ in their
// bytes (a blocked tensor's padded lanes are compared too, at coordinates past C); nullopt when every element's
// bytes are equal. Comparing bytes makes -0 != +0 and tells NaN payloads apart. Gaps are not compared.
std::optional<Difference> first_difference(const TensorDesc& desc, const void* got, const void* want);

// Descriptors one step simpler than `desc`, biggest reductions first: batch and channels to 1, spatial dims
// halved, kernel, strides and dilations to 1, pads to 0, then each of them one smaller; auto_pad replaced by
// the explicit pads it resolves to; indices, NaN policy and rounding set to their defaults. Every candidate
// is valid (resolve() accepts it) and differs from `desc`.
std::vector<AnyPoolDesc> shrink_candidates(const AnyPoolDesc& desc);

// Greedy shrinking: replaces `desc` by the first candidate for which still_fails() holds, and repeats until
// no candidate fails or still_fails() has been called max_calls times. Returns the smallest failing case found.
AnyPoolDesc shrink(AnyPoolDesc desc, const std::function<bool(const AnyPoolDesc&)>& still_fails, int max_calls = 3000);

}  // namespace pooljit::casegen
