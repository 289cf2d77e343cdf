// Helpers shared by the runtime tests: small descriptors, environment scopes, and running a primitive
// against the reference.
#pragma once

#include "tools/casegen/casegen.hpp"

#include <pooljit/pooljit.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace pooljit::test {

// A channels-last f32 max pool with indices: the configuration the AVX-512 JIT serves. `variant` changes the
// channel count so that tests get distinct cache keys.
inline MaxPoolDesc jit_friendly(std::int64_t batch = 2, std::int64_t variant = 0) {
    MaxPoolDesc d;
    d.src = {DType::f32, Layout::nxc, {batch, 19 + variant, 9, 9}};
    d.kernel = {3, 3};
    d.strides = {2, 2};
    d.pads_begin = {1, 1};
    d.pads_end = {1, 1};
    d.indices = IndexSpec{DType::s64, 0, StorageOrder::row_major};
    return d;
}

// Sets (or unsets, with nullptr) an environment variable for one scope and restores the old value.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        if (value != nullptr) ::setenv(name, value, 1);
        else ::unsetenv(name);
    }
    ~ScopedEnv() {
        if (old_) ::setenv(name_.c_str(), old_->c_str(), 1);
        else ::unsetenv(name_.c_str());
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    std::string name_;
    std::optional<std::string> old_;
};

// Runs the primitive and the reference on the same adversarial data; the outputs must agree byte for byte.
inline void expect_matches_reference(const Primitive& p, const MaxPoolDesc& desc, std::uint64_t seed = 7) {
    const std::vector<std::uint8_t> src = casegen::adversarial_data(p.src_desc(), seed);
    std::vector<std::uint8_t> dst(casegen::byte_size(p.dst_desc()), 0xAB), want(dst.size(), 0xCD);
    std::vector<std::uint8_t> idx(p.has_indices() ? casegen::byte_size(p.indices_desc()) : 0, 0xAB),
        want_idx(idx.size(), 0xCD);
    p.execute(src.data(), dst.data(), p.has_indices() ? idx.data() : nullptr);
    reference::execute(desc, src.data(), want.data(), p.has_indices() ? want_idx.data() : nullptr);
    const auto dst_difference = casegen::first_difference(p.dst_desc(), dst.data(), want.data());
    EXPECT_FALSE(dst_difference) << p.problem_string() << ": dst differs at element " << dst_difference->element
                                 << ": got " << dst_difference->got << ", want " << dst_difference->want;
    if (p.has_indices()) {
        const auto idx_difference = casegen::first_difference(p.indices_desc(), idx.data(), want_idx.data());
        EXPECT_FALSE(idx_difference) << p.problem_string() << ": indices differ at element " << idx_difference->element;
    }
}

inline bool is_known_impl(const std::string& name) { return name.starts_with("jit:") || name == "ref"; }

}  // namespace pooljit::test
