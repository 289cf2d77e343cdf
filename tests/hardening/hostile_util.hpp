// What the hostile-input tests (test_hostile_*.cpp) share: a watchdog for calls that must return quickly, the
// descriptor they start from, and the byte-for-byte comparison with the reference against guard pages.
#pragma once

#include "tests/support/guarded_buffer.hpp"
#include "tests/support/isa_cap.hpp"
#include "tools/casegen/casegen.hpp"

#include <pooljit/pooljit.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace pooljit::test::hostile {

namespace pj = ::pooljit;

// Ends the test process (ctest runs one test per process) when a call does not return in time: a create()
// that loops over the tensor's extent would otherwise hang the suite.
class Watchdog {
public:
    Watchdog(std::string what, std::chrono::seconds limit) : what_(std::move(what)) {
        thread_ = std::thread([this, limit] {
            std::unique_lock lock(mutex_);
            if (!cv_.wait_for(lock, limit, [this] { return done_; })) {
                std::fprintf(stderr, "FAILED: %s did not return within %lld s\n", what_.c_str(),
                             static_cast<long long>(limit.count()));
                std::fflush(stderr);
                std::_Exit(3);
            }
        });
    }
    ~Watchdog() {
        {
            const std::lock_guard lock(mutex_);
            done_ = true;
        }
        cv_.notify_one();
        thread_.join();
    }
    Watchdog(const Watchdog&) = delete;
    Watchdog& operator=(const Watchdog&) = delete;

private:
    std::string what_;
    std::mutex mutex_;
    std::condition_variable cv_;
    bool done_ = false;
    std::thread thread_;
};

inline constexpr const char* isa_caps[] = {"avx512", "avx2", "ref"};

// Against guard pages (tests/support/guarded_buffer.hpp): an access outside the tensor faults.
class GuardedBuffer : public pooljit::test::GuardedBuffer {
public:
    GuardedBuffer(std::size_t bytes, bool guard_after)
        : pooljit::test::GuardedBuffer(bytes, guard_after ? pooljit::test::GuardSide::after_end
                                                          : pooljit::test::GuardSide::before_start) {}
};

// Runs `desc` on every ISA cap against the reference on adversarial data, dst and indices byte for byte, with
// src, dst and indices between guard pages (once against the end, once against the start).
template <class Desc>
void expect_matches_reference(const Desc& desc, const std::string& what) {
    for (const char* isa : isa_caps) {
        SCOPED_TRACE(what + " (POOLJIT_MAX_ISA=" + isa + ")");
        const IsaCap cap(isa);
        pj::Primitive p;
        try {
            p = pooljit::test::create_for_cap(desc, isa);
        } catch (const std::exception& e) {
            ADD_FAILURE() << what << ": create() refused a valid descriptor: " << e.what();
            return;
        }
        const std::vector<std::uint8_t> src = pj::casegen::adversarial_data(p.src_desc(), 11);
        const std::size_t dst_bytes = pj::casegen::byte_size(p.dst_desc());
        const std::size_t idx_bytes = p.has_indices() ? pj::casegen::byte_size(p.indices_desc()) : 0;
        std::vector<std::uint8_t> want(dst_bytes, 0xCD), want_idx(idx_bytes, 0xCD);
        pj::reference::execute(desc, src.data(), want.data(), p.has_indices() ? want_idx.data() : nullptr);
        for (const bool guard_after : {true, false}) {
            const GuardedBuffer guarded_src(src.size(), guard_after), dst(dst_bytes, guard_after), idx(idx_bytes, guard_after);
            if (!src.empty()) std::memcpy(guarded_src.data(), src.data(), src.size());
            std::memset(dst.data(), 0xAB, dst_bytes);
            std::memset(idx.data(), 0xAB, idx_bytes);
            p.execute(guarded_src.data(), dst.data(), p.has_indices() ? idx.data() : nullptr);
            const std::vector<std::uint8_t> got = dst.bytes(), got_idx = idx.bytes();
            const auto dst_diff = pj::casegen::first_difference(p.dst_desc(), got.data(), want.data());
            EXPECT_FALSE(dst_diff) << p.problem_string() << " on " << p.impl_name() << ": dst differs at element "
                                   << dst_diff->element << ": got " << dst_diff->got << ", want " << dst_diff->want;
            if (p.has_indices()) {
                const auto idx_diff = pj::casegen::first_difference(p.indices_desc(), got_idx.data(), want_idx.data());
                EXPECT_FALSE(idx_diff) << p.problem_string() << " on " << p.impl_name() << ": indices differ at element "
                                       << idx_diff->element << ": got " << idx_diff->got << ", want " << idx_diff->want;
            }
        }
    }
}

// A descriptor every test starts from: valid, small, with indices.
inline pj::MaxPoolDesc base(pj::Layout layout = pj::Layout::ncx, pj::DType dtype = pj::DType::f32) {
    pj::MaxPoolDesc d;
    d.src = {dtype, layout, {2, 3, 8, 8}};
    d.kernel = {3, 3};
    d.strides = {1, 1};
    d.pads_begin = {1, 1};
    d.pads_end = {1, 1};
    d.dilations = {1, 1};
    d.indices = pj::IndexSpec{pj::DType::s64, 0, pj::StorageOrder::row_major};
    return d;
}

}  // namespace pooljit::test::hostile
