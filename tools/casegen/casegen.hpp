// casegen: the one generator of pooling configurations and adversarial data. It feeds the unit and
// differential tests and pooljit-fuzz. Public API only; deterministic for a given seed.
#pragma once

#include <pooljit/pooljit.hpp>

#include <cstdint>
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

    std::mt19937_64 rng_;
    Bounds bounds_;
};

// Dense bytes for a tensor, drawn to stress the kernels: ties, +-inf, NaN (several payloads), -0, denormals,
// integer extremes, and whole regions of the lowest value (-inf, INT8_MIN, ...) so that entire windows hold it.
std::vector<std::uint8_t> adversarial_data(const TensorDesc& desc, std::uint64_t seed);

// Bytes of a dense tensor (element count x element size). Throws Error on overflow.
std::size_t byte_size(const TensorDesc& desc);

}  // namespace pooljit::casegen
