// Hostile input through the public API: every descriptor field at its extremes, invalid enum values, malformed
// problem strings, and the lifetime of a Primitive around the cache. Each invalid input must be refused with
// pooljit::Error naming the field; each valid extreme must be created cheaply (no allocation sized by the
// tensor, no work proportional to it) and, when small enough to run, agree with the reference byte for byte.
#include "tests/support/guarded_buffer.hpp"
#include "tests/support/isa_cap.hpp"
#include "tools/casegen/casegen.hpp"

#include <pooljit/pooljit.hpp>

#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <mutex>
#include <new>
#include <random>
#include <string>
#include <system_error>
#include <thread>
#include <typeinfo>
#include <utility>
#include <variant>
#include <vector>

namespace pj = pooljit;

// ---- Allocation watch -------------------------------------------------------------------------------------
// While armed, records the largest single operator new request and refuses (std::bad_alloc, without touching
// the allocator) any request above `refused_above`: a create() that sizes a heap block by the tensor shows up
// here instead of exhausting the machine (or aborting under ASan, whose allocator caps requests at 1 TiB).
namespace alloc_watch {
std::atomic<bool> armed{false};
std::atomic<std::size_t> largest{0};
constexpr std::size_t refused_above = std::size_t{64} << 20;  // 64 MiB: no create() needs that much

void* allocate(std::size_t n, std::size_t alignment) {
    if (armed.load(std::memory_order_relaxed)) {
        std::size_t seen = largest.load(std::memory_order_relaxed);
        while (n > seen && !largest.compare_exchange_weak(seen, n, std::memory_order_relaxed)) {
        }
        if (n > refused_above) throw std::bad_alloc();
    }
    if (n == 0) n = 1;
    void* p = nullptr;
    if (alignment <= alignof(std::max_align_t)) p = std::malloc(n);
    else if (::posix_memalign(&p, alignment, n) != 0) p = nullptr;
    if (p == nullptr) throw std::bad_alloc();
    return p;
}

// Arms the watch for one scope; largest() is the biggest request seen in it.
class Scope {
public:
    Scope() {
        largest.store(0);
        armed.store(true);
    }
    ~Scope() { armed.store(false); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    std::size_t largest_request() const { return largest.load(); }
};
}  // namespace alloc_watch

void* operator new(std::size_t n) { return alloc_watch::allocate(n, 0); }
void* operator new[](std::size_t n) { return alloc_watch::allocate(n, 0); }
void* operator new(std::size_t n, std::align_val_t a) { return alloc_watch::allocate(n, static_cast<std::size_t>(a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return alloc_watch::allocate(n, static_cast<std::size_t>(a)); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
    try {
        return alloc_watch::allocate(n, 0);
    } catch (...) {
        return nullptr;
    }
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
    try {
        return alloc_watch::allocate(n, 0);
    } catch (...) {
        return nullptr;
    }
}
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
    try {
        return alloc_watch::allocate(n, static_cast<std::size_t>(a));
    } catch (...) {
        return nullptr;
    }
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
    try {
        return alloc_watch::allocate(n, static_cast<std::size_t>(a));
    } catch (...) {
        return nullptr;
    }
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }

namespace {

constexpr std::int64_t i64_max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t i64_min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t two_pow(int e) { return std::int64_t{1} << e; }

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

using pooljit::test::IsaCap;

constexpr const char* isa_caps[] = {"avx512", "avx2", "ref"};

std::string describe(const pj::AnyPoolDesc& d) { return pj::to_string(d); }

// create() of an invalid descriptor throws pooljit::Error whose message contains `field`; the reference
// refuses it the same way, before touching its (null) buffers.
template <class Desc>
void expect_refused(const Desc& desc, const std::string& field, const std::string& what) {
    SCOPED_TRACE(what);
    try {
        (void)pj::Primitive::create(desc);
        ADD_FAILURE() << what << ": create() accepted it";
    } catch (const pj::Error& e) {
        EXPECT_NE(std::string(e.what()).find(field), std::string::npos)
            << what << ": the message does not name '" << field << "': " << e.what();
    } catch (const std::exception& e) {
        ADD_FAILURE() << what << ": create() threw a " << typeid(e).name() << " instead of pooljit::Error: " << e.what();
    }
    try {
        pj::reference::execute(desc, nullptr, nullptr, nullptr);
        ADD_FAILURE() << what << ": reference::execute accepted it";
    } catch (const pj::Error&) {
    } catch (const std::exception& e) {
        ADD_FAILURE() << what << ": reference::execute threw a " << typeid(e).name() << ": " << e.what();
    }
    // Printing an invalid descriptor must not crash either (logs print what they are given).
    EXPECT_NO_FATAL_FAILURE((void)pj::to_string(desc));
}

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
            p = pj::Primitive::create(desc);
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
pj::MaxPoolDesc base(pj::Layout layout = pj::Layout::ncx, pj::DType dtype = pj::DType::f32) {
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

}  // namespace

// ---- Refusals ---------------------------------------------------------------------------------------------

TEST(HostileRefused, NegativeAndExtremeValuesInEveryField) {
    struct Field {
        const char* name;  // what the message must contain
        std::function<void(pj::MaxPoolDesc&, std::int64_t)> set;
        std::vector<std::int64_t> refused;
    };
    const std::vector<std::int64_t> negative{-1, -2, i64_min, i64_min + 1};
    const std::vector<Field> fields{
        {"src.dims[0]", [](pj::MaxPoolDesc& d, std::int64_t v) { d.src.dims[0] = v; }, negative},
        {"src.dims[1]", [](pj::MaxPoolDesc& d, std::int64_t v) { d.src.dims[1] = v; }, negative},
        {"src.dims[2]", [](pj::MaxPoolDesc& d, std::int64_t v) { d.src.dims[2] = v; }, {0, -1, i64_min}},
        {"src.dims[3]", [](pj::MaxPoolDesc& d, std::int64_t v) { d.src.dims[3] = v; }, {0, -1, i64_min}},
        {"kernel[0]", [](pj::MaxPoolDesc& d, std::int64_t v) { d.kernel[0] = v; }, {0, -1, i64_min, i64_max}},
        {"kernel[1]", [](pj::MaxPoolDesc& d, std::int64_t v) { d.kernel[1] = v; }, {0, -1, i64_min, i64_max}},
        {"strides[0]", [](pj::MaxPoolDesc& d, std::int64_t v) { d.strides[0] = v; }, {0, -1, i64_min}},
        {"strides[1]", [](pj::MaxPoolDesc& d, std::int64_t v) { d.strides[1] = v; }, {0, -1, i64_min}},
        {"dilations[0]", [](pj::MaxPoolDesc& d, std::int64_t v) { d.dilations[0] = v; }, {0, -1, i64_min}},
        {"dilations[1]", [](pj::MaxPoolDesc& d, std::int64_t v) { d.dilations[1] = v; }, {0, -1, i64_min}},
        {"pads_begin[0]", [](pj::MaxPoolDesc& d, std::int64_t v) { d.pads_begin[0] = v; }, {-1, i64_min, i64_max}},
        {"pads_begin[1]", [](pj::MaxPoolDesc& d, std::int64_t v) { d.pads_begin[1] = v; }, {-1, i64_min, i64_max}},
        {"pads_end[0]", [](pj::MaxPoolDesc& d, std::int64_t v) { d.pads_end[0] = v; }, {-1, i64_min, i64_max}},
        {"pads_end[1]", [](pj::MaxPoolDesc& d, std::int64_t v) { d.pads_end[1] = v; }, {-1, i64_min, i64_max}},
        {"indices.axis", [](pj::MaxPoolDesc& d, std::int64_t v) { d.indices->axis = v; }, {4, -5, i64_min, i64_max}},
    };
    for (const Field& f : fields)
        for (const std::int64_t v : f.refused)
            for (const pj::Layout layout : {pj::Layout::ncx, pj::Layout::nxc}) {
                pj::MaxPoolDesc d = base(layout);
                f.set(d, v);
                expect_refused(d, f.name, std::string(f.name) + " = " + std::to_string(v));
            }
}

TEST(HostileRefused, ExtremeDimsBreakTheByteSizeRule) {
    struct Case {
        std::vector<std::int64_t> dims;
        const char* field;
    };
    const std::vector<Case> cases{
        {{1, 1, two_pow(40), two_pow(40)}, "src dims"},                  // 2^80 elements
        {{1, 1, two_pow(31), two_pow(30)}, "src dims"},                  // exactly 2^63 bytes of f32
        {{i64_max, 1, 3, 3}, "src dims"},
        {{1, i64_max, 3, 3}, "src dims"},
        {{1, 1, i64_max, 3}, "src dims"},
        {{1, 1, 3, i64_max}, "src dims"},
        {{0, i64_max, 3, 3}, "src dims"},                                // empty, yet absurd
        {{i64_max, 0, 3, 3}, "src dims"},
        {{two_pow(21), two_pow(21), two_pow(21), 3}, "src dims"},       // each factor fits, the product not
    };
    for (const Case& c : cases)
        for (const pj::Layout layout : {pj::Layout::ncx, pj::Layout::nxc}) {
            pj::MaxPoolDesc d = base(layout);
            d.src.dims = c.dims;
            d.kernel = {1, 1};
            d.pads_begin = d.pads_end = {};
            expect_refused(d, c.field, "src = " + describe(d));
        }
    // s64 indices are twice the size of an f32 dst: the indices tensor alone breaks the rule.
    pj::MaxPoolDesc d = base();
    d.src.dims = {1, 1, two_pow(30), two_pow(30)};
    d.kernel = {1, 1};
    d.pads_begin = d.pads_end = {};
    expect_refused(d, "indices dims", "s64 indices of 2^60 elements");
    // s32 indices whose largest value does not fit.
    d.src.dims = {1, 1, two_pow(16), two_pow(16)};
    d.indices->dtype = pj::DType::s32;
    expect_refused(d, "indices.dtype", "s32 indices of 2^32 elements");
    // Adaptive: the output size breaks the rule, not the input.
    pj::AdaptiveMaxPoolDesc a{{pj::DType::f32, pj::Layout::ncx, {1, 1, 4, 4}}, {two_pow(40), two_pow(40)}, std::nullopt};
    expect_refused(a, "dst dims", "adaptive output 2^40 x 2^40");
    a.output_size = {i64_max, 1};
    expect_refused(a, "dst dims", "adaptive output INT64_MAX");
}

TEST(HostileRefused, RanksAndVectorLengths) {
    for (const std::size_t rank : {0u, 1u, 2u, 6u, 7u, 64u}) {
        pj::MaxPoolDesc d = base();
        d.src.dims.assign(rank, 2);
        expect_refused(d, "src.dims has rank", "rank " + std::to_string(rank));
        pj::AdaptiveMaxPoolDesc a{d.src, {1, 1}, std::nullopt};
        expect_refused(a, "src.dims has rank", "adaptive rank " + std::to_string(rank));
    }
    struct Field {
        const char* name;
        std::function<std::vector<std::int64_t>&(pj::MaxPoolDesc&)> get;
        bool may_be_empty;
    };
    const std::vector<Field> fields{
        {"kernel", [](pj::MaxPoolDesc& d) -> auto& { return d.kernel; }, false},
        {"strides", [](pj::MaxPoolDesc& d) -> auto& { return d.strides; }, true},
        {"dilations", [](pj::MaxPoolDesc& d) -> auto& { return d.dilations; }, true},
        {"pads_begin", [](pj::MaxPoolDesc& d) -> auto& { return d.pads_begin; }, true},
        {"pads_end", [](pj::MaxPoolDesc& d) -> auto& { return d.pads_end; }, true},
    };
    for (const Field& f : fields) {
        for (const std::size_t length : {1u, 3u, 5u, 1000u}) {
            pj::MaxPoolDesc d = base();
            f.get(d).assign(length, 1);
            expect_refused(d, f.name, std::string(f.name) + " of length " + std::to_string(length));
        }
        pj::MaxPoolDesc d = base();
        f.get(d).clear();
        if (f.may_be_empty) EXPECT_NO_THROW((void)pj::Primitive::create(d)) << f.name << " empty means the default";
        else expect_refused(d, f.name, std::string(f.name) + " empty");
    }
    pj::AdaptiveMaxPoolDesc a{{pj::DType::f32, pj::Layout::ncx, {1, 2, 6, 6}}, {}, std::nullopt};
    expect_refused(a, "output_size", "adaptive output_size empty");
    for (const std::size_t length : {1u, 3u, 1000u}) {
        a.output_size.assign(length, 2);
        expect_refused(a, "output_size", "adaptive output_size of length " + std::to_string(length));
    }
    for (const std::int64_t v : {std::int64_t{0}, std::int64_t{-1}, i64_min}) {
        a.output_size = {2, v};
        expect_refused(a, "output_size[1]", "adaptive output_size[1] = " + std::to_string(v));
    }
    // Under valid and same_*, the pads vectors are not read at all: wrong lengths and negatives are ignored.
    for (const pj::AutoPad ap : {pj::AutoPad::valid, pj::AutoPad::same_upper, pj::AutoPad::same_lower}) {
        pj::MaxPoolDesc d = base();
        d.auto_pad = ap;
        d.pads_begin = {i64_min, -1, 5};
        d.pads_end = {i64_max};
        EXPECT_NO_THROW((void)pj::Primitive::create(d)) << describe(d);
    }
}

TEST(HostileRefused, InvalidEnumValues) {
    for (const int v : {8, 99, 255}) {
        pj::MaxPoolDesc d = base();
        d.src.dtype = static_cast<pj::DType>(v);
        expect_refused(d, "src.dtype", "src.dtype " + std::to_string(v));
        d = base();
        d.src.layout = static_cast<pj::Layout>(v);
        expect_refused(d, "src.layout", "src.layout " + std::to_string(v));
        d = base();
        d.auto_pad = static_cast<pj::AutoPad>(v);
        expect_refused(d, "auto_pad", "auto_pad " + std::to_string(v));
        d = base();
        d.rounding = static_cast<pj::Rounding>(v);
        expect_refused(d, "rounding", "rounding " + std::to_string(v));
        d = base();
        d.nan = static_cast<pj::NanPolicy>(v);
        expect_refused(d, "nan", "nan " + std::to_string(v));
        d = base();
        d.indices->dtype = static_cast<pj::DType>(v);
        expect_refused(d, "indices.dtype", "indices.dtype " + std::to_string(v));
        d = base();
        d.indices->order = static_cast<pj::StorageOrder>(v);
        expect_refused(d, "indices.order", "indices.order " + std::to_string(v));
        pj::AdaptiveMaxPoolDesc a{{static_cast<pj::DType>(v), pj::Layout::ncx, {1, 2, 6, 6}}, {3, 3}, std::nullopt};
        expect_refused(a, "src.dtype", "adaptive src.dtype " + std::to_string(v));
        a.src.dtype = pj::DType::f32;
        a.src.layout = static_cast<pj::Layout>(v);
        expect_refused(a, "src.layout", "adaptive src.layout " + std::to_string(v));
        a.src.layout = pj::Layout::ncx;
        a.index_dtype = static_cast<pj::DType>(v);
        expect_refused(a, "index_dtype", "adaptive index_dtype " + std::to_string(v));
    }
    // Valid dtypes that are not index dtypes.
    for (const pj::DType dt : {pj::DType::f32, pj::DType::u8, pj::DType::f16}) {
        pj::MaxPoolDesc d = base();
        d.indices->dtype = dt;
        expect_refused(d, "indices.dtype", std::string("indices.dtype ") + pj::to_string(dt));
        pj::AdaptiveMaxPoolDesc a{{pj::DType::f32, pj::Layout::ncx, {1, 2, 6, 6}}, {3, 3}, dt};
        expect_refused(a, "index_dtype", std::string("adaptive index_dtype ") + pj::to_string(dt));
    }
    // column_major needs axis 0 (axis -R normalizes to 0 and is fine).
    pj::MaxPoolDesc d = base();
    d.indices->order = pj::StorageOrder::column_major;
    d.indices->axis = 1;
    expect_refused(d, "indices.order", "column_major with axis 1");
    d.indices->axis = -4;
    EXPECT_NO_THROW((void)pj::Primitive::create(d));
}

TEST(HostileRefused, HugePadsKernelsAndDilations) {
    // Both pads at INT64_MAX/2: the padded size 2^63 + 2 does not fit.
    pj::MaxPoolDesc d = base();
    d.pads_begin = {1, i64_max / 2};
    d.pads_end = {1, i64_max / 2};
    expect_refused(d, "pads_begin[1]", "pads INT64_MAX/2 on both sides");
    // A dilated kernel that spans more than 64 bits.
    d = base();
    d.dilations = {1, i64_max};
    expect_refused(d, "kernel[1]", "kernel 3 with dilation INT64_MAX");
    d.kernel = {3, i64_max};
    d.dilations = {1, i64_max};
    expect_refused(d, "kernel[1]", "kernel INT64_MAX with dilation INT64_MAX");
    // Kernel one larger than the padded input.
    d = base();
    d.kernel = {3, 11};
    expect_refused(d, "kernel[1]", "kernel 11 over 8 + 1 + 1");
    // same_*: the padding a huge dilated kernel needs overflows; auto_pad ignores the explicit pads.
    for (const pj::AutoPad ap : {pj::AutoPad::same_upper, pj::AutoPad::same_lower}) {
        d = base();
        d.auto_pad = ap;
        d.kernel = {3, i64_max};
        d.dilations = {1, i64_max};
        expect_refused(d, "kernel[1]", "same_* with kernel and dilation INT64_MAX");
    }
    // Huge pads with stride 1: the output alone breaks the byte-size rule.
    d = base();
    d.pads_begin = {0, i64_max / 2};
    d.pads_end = {0, 0};
    expect_refused(d, "dst dims", "pads_begin INT64_MAX/2 with stride 1");
}

// ---- Valid extremes: created cheaply -----------------------------------------------------------------------

// Creates `desc` under every ISA cap with the allocation watch armed and a watchdog: it must succeed, give the
// expected dst dims, allocate no block larger than 64 MiB and take well under a second of real work.
template <class Desc>
void expect_created_cheaply(const Desc& desc, const std::vector<std::int64_t>& dst_dims, const std::string& what) {
    for (const char* isa : isa_caps) {
        SCOPED_TRACE(what + " (POOLJIT_MAX_ISA=" + isa + ")");
        const IsaCap cap(isa);
        pj::cache::clear();
        const Watchdog watchdog("create(" + describe(desc) + ") under POOLJIT_MAX_ISA=" + isa, std::chrono::seconds(30));
        const auto start = std::chrono::steady_clock::now();
        std::size_t largest = 0;
        std::string impl;
        try {
            const alloc_watch::Scope watch;
            const pj::Primitive p = pj::Primitive::create(desc);
            largest = watch.largest_request();
            impl = p.impl_name();
            EXPECT_EQ(p.dst_desc().dims, dst_dims) << what;
        } catch (const std::exception& e) {
            ADD_FAILURE() << what << ": create() of a valid descriptor threw (" << typeid(e).name() << "): " << e.what();
        }
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        EXPECT_LE(largest, alloc_watch::refused_above)
            << what << ": create() asked for a block of " << largest << " bytes (impl " << impl << ")";
        EXPECT_LT(seconds, 5.0) << what << ": create() took " << seconds << " s (impl " << impl << ")";
    }
    pj::cache::clear();
}

TEST(HostileValid, LargeDescriptorIsCreatedWithoutAllocatingTheTensor) {
    pj::MaxPoolDesc d;
    d.kernel = {3};
    // 1-D, 2^60 f32 elements: 2^62 bytes.
    d.src = {pj::DType::f32, pj::Layout::ncx, {1, 1, two_pow(60)}};
    expect_created_cheaply(d, {1, 1, two_pow(60) - 2}, "1-D ncx 2^60 elements");
    d.src.layout = pj::Layout::nxc;
    expect_created_cheaply(d, {1, 1, two_pow(60) - 2}, "1-D nxc 2^60 elements");
    // N x C of 2^60 with a 1x1 spatial plane.
    d.src = {pj::DType::f32, pj::Layout::nxc, {two_pow(30), two_pow(30), 1, 1}};
    d.kernel = {1, 1};
    expect_created_cheaply(d, {two_pow(30), two_pow(30), 1, 1}, "N = C = 2^30");
    d.src.layout = pj::Layout::ncx;
    expect_created_cheaply(d, {two_pow(30), two_pow(30), 1, 1}, "N = C = 2^30, ncx");
}

// The outer spatial axes (H, and D for 3-D) at the size limit: a per-output-row table sized by the output
// would be gigabytes.
TEST(HostileValid, HugeOuterAxesAreCreatedWithoutPerRowTables) {
    pj::MaxPoolDesc d;
    d.src = {pj::DType::f32, pj::Layout::nxc, {1, 16, two_pow(28), two_pow(28)}};
    d.kernel = {3, 3};
    expect_created_cheaply(d, {1, 16, two_pow(28) - 2, two_pow(28) - 2}, "nxc 1x16x2^28x2^28 k3x3");
    d.src = {pj::DType::f32, pj::Layout::ncx, {1, 1, two_pow(40), 4}};
    d.kernel = {1, 1};
    expect_created_cheaply(d, {1, 1, two_pow(40), 4}, "ncx 1x1x2^40x4 k1x1");
    d.src = {pj::DType::s8, pj::Layout::nxc, {1, 1, two_pow(60), 2, 2}};
    d.kernel = {1, 1, 1};
    expect_created_cheaply(d, {1, 1, two_pow(60), 2, 2}, "3-D s8 1x1x2^60x2x2 k1x1x1");
}

TEST(HostileValid, HugeAdaptiveOutputsAreCreatedCheaply) {
    // Regular windows over a huge width (one run), and irregular ones (more runs than any plan holds).
    pj::AdaptiveMaxPoolDesc a{{pj::DType::f32, pj::Layout::ncx, {1, 1, 1, two_pow(40)}}, {1, two_pow(40)}, std::nullopt};
    expect_created_cheaply(a, {1, 1, 1, two_pow(40)}, "adaptive width 2^40 -> 2^40");
    a.output_size = {1, two_pow(40) - 1};
    expect_created_cheaply(a, {1, 1, 1, two_pow(40) - 1}, "adaptive width 2^40 -> 2^40 - 1");
    // Output larger than the input is allowed.
    a.src.dims = {1, 1, 1, 1000};
    a.output_size = {1, two_pow(50)};
    expect_created_cheaply(a, {1, 1, 1, two_pow(50)}, "adaptive width 1000 -> 2^50");
    a.src.dims = {1, 1, two_pow(40), 2};
    a.output_size = {two_pow(40) - 1, 2};
    expect_created_cheaply(a, {1, 1, two_pow(40) - 1, 2}, "adaptive height 2^40 -> 2^40 - 1");
}

// ---- Valid extremes: executed and compared -------------------------------------------------------------------

TEST(HostileValid, KernelOneAndKernelEqualToTheInput) {
    const std::vector<std::vector<std::int64_t>> spatial_shapes{{37}, {5, 7}, {3, 4, 5}};
    for (const pj::Layout layout : {pj::Layout::ncx, pj::Layout::nxc})
        for (const pj::DType dt : {pj::DType::f32, pj::DType::f16, pj::DType::s8, pj::DType::f64})
            for (const auto& spatial : spatial_shapes) {
                pj::MaxPoolDesc d;
                d.src = {dt, layout, {2, 5}};
                d.src.dims.insert(d.src.dims.end(), spatial.begin(), spatial.end());
                d.indices = pj::IndexSpec{pj::DType::s64, 0, pj::StorageOrder::row_major};
                d.kernel.assign(spatial.size(), 1);
                expect_matches_reference(d, "kernel 1: " + describe(d));
                d.strides.assign(spatial.size(), 3);
                expect_matches_reference(d, "kernel 1 stride 3: " + describe(d));
                d.strides.clear();
                d.kernel = spatial;  // one window over the whole input
                expect_matches_reference(d, "kernel = input: " + describe(d));
                d.rounding = pj::Rounding::ceil;
                d.pads_begin.assign(spatial.size(), 0);
                d.pads_end.assign(spatial.size(), 1);  // kernel = input + pads: one window
                d.kernel = spatial;
                for (auto& k : d.kernel) k += 1;
                expect_matches_reference(d, "kernel = padded input: " + describe(d));
            }
}

TEST(HostileValid, StrideLargerThanTheInput) {
    for (const pj::Layout layout : {pj::Layout::ncx, pj::Layout::nxc})
        for (const pj::Rounding rounding : {pj::Rounding::floor, pj::Rounding::ceil, pj::Rounding::ceil_torch})
            for (const std::int64_t stride : {std::int64_t{9}, std::int64_t{1000}, two_pow(40), i64_max / 2, i64_max}) {
                pj::MaxPoolDesc d;
                d.src = {pj::DType::f32, layout, {2, 17, 6, 5}};
                d.kernel = {2, 2};
                d.strides = {stride, stride};
                d.pads_begin = {1, 0};
                d.pads_end = {0, 1};
                d.rounding = rounding;
                d.indices = pj::IndexSpec{pj::DType::s32, 0, pj::StorageOrder::row_major};
                expect_matches_reference(d, "stride " + std::to_string(stride) + ": " + describe(d));
            }
}

// Pads and dilations near 2^62 that still leave a small output: most windows lie in the padding.
TEST(HostileValid, HugePadsAndDilationsWithASmallOutput) {
    for (const pj::Layout layout : {pj::Layout::ncx, pj::Layout::nxc})
        for (const pj::Rounding rounding : {pj::Rounding::floor, pj::Rounding::ceil, pj::Rounding::ceil_torch}) {
            pj::MaxPoolDesc d;
            d.src = {pj::DType::f32, layout, {1, 3, 4}};
            d.kernel = {3};
            d.strides = {two_pow(50)};  // 2^12 + 1 outputs; the last window holds real elements
            d.pads_begin = {i64_max / 2};
            d.pads_end = {0};
            d.rounding = rounding;
            d.indices = pj::IndexSpec{pj::DType::s64, 0, pj::StorageOrder::row_major};
            expect_matches_reference(d, "pads_begin INT64_MAX/2: " + describe(d));
            d.pads_begin = {0};
            d.pads_end = {i64_max / 2};
            expect_matches_reference(d, "pads_end INT64_MAX/2: " + describe(d));
            // A two-tap window whose taps are 2^62 apart: one in the padding, one on src[0].
            d.src.dims = {1, 3, 1};
            d.kernel = {2};
            d.strides = {1};
            d.dilations = {two_pow(62)};
            d.pads_begin = {two_pow(62)};
            d.pads_end = {0};
            expect_matches_reference(d, "dilation 2^62: " + describe(d));
            // 2-D, the huge values on the outer axis.
            d.src.dims = {1, 3, 1, 4};
            d.kernel = {2, 2};
            d.strides = {1, 1};
            d.dilations = {two_pow(62), 1};
            d.pads_begin = {two_pow(62), 0};
            d.pads_end = {0, 0};
            expect_matches_reference(d, "outer dilation 2^62: " + describe(d));
            // Dilation INT64_MAX with kernel 1: the window is one element.
            d.kernel = {1, 1};
            d.dilations = {i64_max, i64_max};
            d.pads_begin = {0, 0};
            expect_matches_reference(d, "kernel 1 dilation INT64_MAX: " + describe(d));
        }
}

TEST(HostileValid, EmptyBatchOrChannels) {
    for (const auto& dims : std::vector<std::vector<std::int64_t>>{{0, 3, 8, 8}, {2, 0, 8, 8}, {0, 0, 8, 8}}) {
        pj::MaxPoolDesc d = base(pj::Layout::nxc);
        d.src.dims = dims;
        const pj::Primitive p = pj::Primitive::create(d);
        EXPECT_NO_THROW(p.execute(nullptr, nullptr, nullptr)) << "nothing to read or write";
    }
    // Null buffers for a non-empty tensor are refused, not dereferenced.
    const pj::Primitive p = pj::Primitive::create(base());
    std::vector<float> src(2 * 3 * 8 * 8), dst(src.size());
    std::vector<std::int64_t> idx(src.size());
    EXPECT_THROW(p.execute(nullptr, dst.data(), idx.data()), pj::Error);
    EXPECT_THROW(p.execute(src.data(), nullptr, idx.data()), pj::Error);
    EXPECT_THROW(p.execute(src.data(), dst.data(), nullptr), pj::Error);
}

// ---- Problem strings --------------------------------------------------------------------------------------

// At most 200 characters of `text`, for failure messages about 10^6-character lines.
std::string clip(const std::string& text) { return text.size() <= 200 ? text : text.substr(0, 200) + "..."; }

// parse_problem either returns a descriptor or throws pooljit::Error; a parsed descriptor prints to a line that
// parses and prints the same (empty strides, pads and dilations print as their defaults, so the descriptors
// themselves may differ), and create() of it either succeeds cheaply or throws pooljit::Error.
void expect_parse_is_safe(const std::string& line, const std::string& what) {
    pj::AnyPoolDesc desc;
    try {
        desc = pj::parse_problem(line);
    } catch (const pj::Error&) {
        return;
    } catch (const std::exception& e) {
        ADD_FAILURE() << what << ": parse_problem threw a " << typeid(e).name() << ": " << clip(e.what());
        return;
    }
    const std::string printed = pj::to_string(desc);
    try {
        EXPECT_EQ(pj::to_string(pj::parse_problem(printed)), printed) << what << ": printing is not a fixed point";
    } catch (const std::exception& e) {
        ADD_FAILURE() << what << ": the printed line '" << clip(printed) << "' does not parse: " << clip(e.what());
    }
    try {
        const alloc_watch::Scope watch;
        (void)pj::create(desc);
        EXPECT_LE(watch.largest_request(), alloc_watch::refused_above) << what << ": " << clip(printed);
    } catch (const pj::Error&) {
    } catch (const std::exception& e) {
        ADD_FAILURE() << what << ": create(" << clip(printed) << ") threw a " << typeid(e).name() << ": " << clip(e.what());
    }
}

TEST(HostileProblemString, MalformedLines) {
    const std::string huge_number(30, '9');
    const std::vector<std::string> lines{
        "",
        " ",
        "\n",
        "maxpool",
        "adaptivemaxpool",
        "maxpool k=3x3",
        "maxpool src=1x1x4x4",
        "maxpool src=1x1x4x4 k=",
        "maxpool src= k=3x3",
        "maxpool src=1x1x4x4 k",
        "maxpool src=1x1x4x4 =3x3",
        "maxpool src=1x1x4x4 k=3x3 k=2x2",
        "maxpool src=1x1x4x4 src=1x1x4x4 k=3x3",
        "maxpool src=1x1x4x4 k=3x3 dt=f32 dt=f16",
        "maxpool src=1x1x4x4 k==3x3",
        "maxpool src=1x1x4x4 k=3xx3",
        "maxpool src=1x1x4x4 k=x3",
        "maxpool src=1x1x4x4 k=3x",
        "maxpool src=1x1x4x4 k=3x3x",
        "maxpool src=1x1x4x4 k=+3x3",
        "maxpool src=1x1x4x4 k=0x3",
        "maxpool src=1x1x4x4 k=-3x3",
        "maxpool src=1x1x4x4 k=3.0x3",
        "maxpool src=1x1x4x4 k=0x03x3",
        "maxpool src=1x1x4x4 k=3x3 s=" + huge_number + "x1",
        "maxpool src=1x1x" + huge_number + "x4 k=3x3",
        "maxpool src=1x1x9223372036854775807x4 k=3x3",
        "maxpool src=1x1x9223372036854775808x4 k=3x3",
        "maxpool src=1x1x-9223372036854775808x4 k=3x3",
        "maxpool src=1x1x4x4 k=3x3 pb=9223372036854775807x0",
        "maxpool src=1x1x4x4 k=3x3 axis=1x2 idx=s64",
        "maxpool src=1x1x4x4 k=3x3 axis= idx=s64",
        "maxpool src=1x1x4x4 k=3x3 axis=9223372036854775807 idx=s64",
        "maxpool src=1x1x4x4 k=3x3 axis=1",
        "maxpool src=1x1x4x4 k=3x3 order=col",
        "maxpool src=1x1x4x4 k=3x3 dt=f128",
        "maxpool src=1x1x4x4 k=3x3 dt=",
        "maxpool src=1x1x4x4 k=3x3 layout=nhwc",
        "maxpool src=1x1x4x4 k=3x3 pad=same",
        "maxpool src=1x1x4x4 k=3x3 round=up",
        "maxpool src=1x1x4x4 k=3x3 nan=yes",
        "maxpool src=1x1x4x4 k=3x3 idx=u8",
        "maxpool src=1x1x4x4 k=3x3 unknown=1",
        "MAXPOOL src=1x1x4x4 k=3x3",
        "maxpool\tsrc=1x1x4x4\tk=3x3\r\n",
        std::string("maxpool src=1x1x4x4\0 k=3x3", 26),
        std::string("maxpool src=1x1x4\0x4 k=3x3", 26),
        "maxpool src=1x1x4x4 k=3x3 # comment",
        "# maxpool src=1x1x4x4 k=3x3",
        "adaptivemaxpool src=1x1x4x4 out=0x2",
        "adaptivemaxpool src=1x1x4x4 out=" + huge_number,
        "adaptivemaxpool src=1x1x4x4 out=2x2 out=2x2",
        "adaptivemaxpool src=1x1x4x4 out=2x2 k=3x3",
        "adaptivemaxpool src=1x1x4x4 out=2x2 idx=",
        "maxpool src=1x1x4x4 k=3x3 \xff\xfe=\x80",
        "\xef\xbb\xbfmaxpool src=1x1x4x4 k=3x3",
    };
    for (std::size_t i = 0; i < lines.size(); ++i) expect_parse_is_safe(lines[i], "line " + std::to_string(i));
}

TEST(HostileProblemString, MillionCharacterLines) {
    const std::size_t n = 1000000;
    std::vector<std::string> lines;
    lines.push_back("maxpool src=1x1x4x4 k=" + std::string(n, '3'));
    lines.push_back("maxpool src=1x1x4x4 k=" + std::string(n, 'x'));
    lines.push_back("maxpool " + std::string(n, ' ') + "src=1x1x4x4 k=3x3");
    lines.push_back(std::string(n, 'm'));
    std::string many_dims = "maxpool k=1x1 src=1";
    while (many_dims.size() < n) many_dims += "x1";
    lines.push_back(many_dims);
    std::string many_tokens = "maxpool src=1x1x4x4 k=3x3";
    while (many_tokens.size() < n) many_tokens += " s=1x1";
    lines.push_back(many_tokens);
    std::string many_keys = "maxpool src=1x1x4x4 k=3x3";
    for (int i = 0; many_keys.size() < n; ++i) many_keys += " key" + std::to_string(i) + "=1";
    lines.push_back(many_keys);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const Watchdog watchdog("parse of a 10^6-character line", std::chrono::seconds(30));
        expect_parse_is_safe(lines[i], "long line " + std::to_string(i));
    }
}

TEST(HostileProblemString, RandomBytesAndMutations) {
    std::mt19937_64 rng(2024);
    const std::string valid[] = {
        "maxpool dt=f32 layout=nxc src=2x5x9x9 k=3x3 s=2x2 d=1x1 pb=1x1 pe=1x1 pad=explicit round=floor nan=propagate idx=s64 axis=0 order=row",
        "adaptivemaxpool dt=f16 layout=ncx src=1x3x12x12 out=5x5 idx=s32",
    };
    const std::string alphabet = "maxpoldtsrcke=x0123456789 -_\t\n";
    for (int i = 0; i < 3000; ++i) {
        std::string line;
        const int kind = static_cast<int>(rng() % 4);
        if (kind == 0) {  // random bytes
            line.resize(rng() % 200);
            for (char& c : line) c = static_cast<char>(rng());
        } else if (kind == 1) {  // random text from the problem-string alphabet
            line = rng() % 2 ? "maxpool " : "adaptivemaxpool ";
            const std::size_t length = rng() % 120;
            for (std::size_t j = 0; j < length; ++j) line += alphabet[rng() % alphabet.size()];
        } else {  // a valid line with a few bytes replaced, inserted or deleted
            line = valid[rng() % 2];
            const int edits = 1 + static_cast<int>(rng() % 4);
            for (int e = 0; e < edits && !line.empty(); ++e) {
                const std::size_t at = rng() % line.size();
                switch (rng() % 3) {
                    case 0: line[at] = alphabet[rng() % alphabet.size()]; break;
                    case 1: line.insert(at, 1, static_cast<char>(rng())); break;
                    default: line.erase(at, 1); break;
                }
            }
        }
        expect_parse_is_safe(line, "random line " + std::to_string(i));
        if (HasFailure()) {
            ADD_FAILURE() << "first failing random line (" << line.size() << " bytes): '" << clip(line) << "'";
            return;
        }
    }
}

// ---- W^X -------------------------------------------------------------------------------------------------

// After compiling kernels of every strategy on both ISAs, no mapping of the process is writable and
// executable at once (Xbyak writes the code read-write, then flips it to read-execute).
TEST(HostileWX, NoMappingIsWritableAndExecutable) {
    std::vector<pj::Primitive> keep;  // the code stays mapped while its primitives live
    for (const char* isa : {"avx512", "avx2"}) {
        const IsaCap cap(isa);
        for (const pj::Layout layout : {pj::Layout::ncx, pj::Layout::nxc}) {
            keep.push_back(pj::Primitive::create(base(layout)));
            keep.push_back(pj::Primitive::create(
                pj::AdaptiveMaxPoolDesc{{pj::DType::f16, layout, {1, 5, 9, 7}}, {4, 3}, pj::DType::s32}));
        }
    }
    std::FILE* maps = std::fopen("/proc/self/maps", "r");
    ASSERT_NE(maps, nullptr);
    char line[4096];
    int mappings = 0;
    while (std::fgets(line, sizeof line, maps) != nullptr) {
        ++mappings;
        char perms[8] = {};
        if (std::sscanf(line, "%*s %7s", perms) != 1) continue;
        EXPECT_FALSE(perms[1] == 'w' && perms[2] == 'x') << "writable and executable: " << line;
    }
    std::fclose(maps);
    EXPECT_GT(mappings, 0);
    for (const pj::Primitive& p : keep) EXPECT_FALSE(p.empty());
}

// ---- Lifetime ---------------------------------------------------------------------------------------------

class HostileLifetime : public ::testing::Test {
protected:
    void SetUp() override {
        pj::cache::set_capacity(1024);
        pj::cache::clear();
    }
    void TearDown() override {
        pj::cache::set_capacity(1024);
        pj::cache::clear();
    }

    static pj::MaxPoolDesc jit_case(std::int64_t channels) {
        pj::MaxPoolDesc d = base(pj::Layout::nxc);
        d.src.dims = {2, channels, 9, 9};
        d.strides = {2, 2};
        return d;
    }

    static void expect_runs_like_reference(const pj::Primitive& p, const pj::MaxPoolDesc& d, const std::string& what) {
        const std::vector<std::uint8_t> src = pj::casegen::adversarial_data(p.src_desc(), 5);
        std::vector<std::uint8_t> dst(pj::casegen::byte_size(p.dst_desc())), want(dst.size());
        std::vector<std::uint8_t> idx(pj::casegen::byte_size(p.indices_desc())), want_idx(idx.size());
        p.execute(src.data(), dst.data(), idx.data());
        pj::reference::execute(d, src.data(), want.data(), want_idx.data());
        EXPECT_EQ(dst, want) << what;
        EXPECT_EQ(idx, want_idx) << what;
    }
};

TEST_F(HostileLifetime, PrimitiveOutlivesClear) {
    const pj::MaxPoolDesc d = jit_case(19);
    const pj::Primitive p = pj::Primitive::create(d);
    const pj::Primitive copy = p;
    pj::cache::clear();
    EXPECT_EQ(pj::cache::stats().entries, 0u);
    expect_runs_like_reference(p, d, "after clear()");
    expect_runs_like_reference(copy, d, "a copy, after clear()");
    // A new create compiles again and agrees with the old primitive.
    const pj::Primitive again = pj::Primitive::create(d);
    expect_runs_like_reference(again, d, "recreated after clear()");
    pj::cache::clear();
    expect_runs_like_reference(p, d, "after a second clear()");
}

TEST_F(HostileLifetime, PrimitiveOutlivesEviction) {
    pj::cache::set_capacity(1);
    const pj::MaxPoolDesc d = jit_case(19);
    const pj::Primitive p = pj::Primitive::create(d);
    const std::uint64_t evictions_before = pj::cache::stats().evictions;
    std::vector<pj::Primitive> others;
    for (std::int64_t c = 20; c < 26; ++c) others.push_back(pj::Primitive::create(jit_case(c)));
    EXPECT_GT(pj::cache::stats().evictions, evictions_before) << "capacity 1 must evict";
    EXPECT_LE(pj::cache::stats().entries, 1u);
    expect_runs_like_reference(p, d, "after its entry was evicted");
    others.clear();  // the evicted code of the others goes away with their last handle
    expect_runs_like_reference(p, d, "after the others were destroyed");
    pj::cache::set_capacity(0);
    expect_runs_like_reference(p, d, "after caching was disabled");
    const pj::Primitive uncached = pj::Primitive::create(d);
    expect_runs_like_reference(uncached, d, "created with caching disabled");
}

TEST_F(HostileLifetime, PrimitiveOutlivesMovesAndReassignment) {
    const pj::MaxPoolDesc d = jit_case(21);
    pj::Primitive p = pj::Primitive::create(d);
    pj::Primitive moved = std::move(p);
    EXPECT_TRUE(p.empty());  // NOLINT(bugprone-use-after-move): a moved-from handle is empty
    EXPECT_THROW(p.execute(nullptr, nullptr, nullptr), pj::Error);
    expect_runs_like_reference(moved, d, "moved");
    const pj::Primitive& same = moved;
    moved = same;  // self-assignment keeps the code
    expect_runs_like_reference(moved, d, "self-assigned");
}

TEST(HostileEmptyPrimitive, EveryAccessorThrowsError) {
    const pj::Primitive p;
    EXPECT_TRUE(p.empty());
    std::vector<float> buffer(64);
    EXPECT_THROW(p.execute(buffer.data(), buffer.data(), buffer.data()), pj::Error);
    EXPECT_THROW(p.execute(nullptr, nullptr, nullptr), pj::Error);
    EXPECT_THROW((void)p.impl_name(), pj::Error);
    EXPECT_THROW((void)p.problem(), pj::Error);
    EXPECT_THROW((void)p.src_desc(), pj::Error);
    EXPECT_THROW((void)p.dst_desc(), pj::Error);
    EXPECT_THROW((void)p.indices_desc(), pj::Error);
    EXPECT_THROW((void)p.has_indices(), pj::Error);
    EXPECT_THROW((void)p.problem_string(), pj::Error);
    try {
        p.execute(buffer.data(), buffer.data());
    } catch (const pj::Error& e) {
        EXPECT_NE(std::string(e.what()).find("empty"), std::string::npos) << e.what();
    }
}

TEST(HostileThreads, NegativeThreadCountIsRefused) {
    EXPECT_THROW(pj::set_num_threads(-1), pj::Error);
    EXPECT_THROW(pj::set_num_threads(std::numeric_limits<int>::min()), pj::Error);
    pj::MaxPoolDesc d = base(pj::Layout::nxc);
    d.src.dims = {4, 35, 17, 17};
    for (const int threads : {1, 3, 64}) {
        pj::set_num_threads(threads);
        expect_matches_reference(d, "set_num_threads(" + std::to_string(threads) + ")");
    }
    pj::set_num_threads(0);
}

// set_num_threads(0) "restores the default (all cores, or POOLJIT_NUM_THREADS)". Meaningful in a fresh process
// (ctest runs each test in its own): the environment is read at the first num_threads().
TEST(HostileThreads, ZeroRestoresTheDefault) {
    ::setenv("POOLJIT_NUM_THREADS", "1", 1);
    const int before = pj::num_threads();
    pj::set_num_threads(3);
    EXPECT_EQ(pj::num_threads(), 3);
    pj::set_num_threads(0);
    EXPECT_EQ(pj::num_threads(), before) << "set_num_threads(0) must bring back POOLJIT_NUM_THREADS=1";
    ::unsetenv("POOLJIT_NUM_THREADS");
}

// A thread count far beyond the machine is refused with Error or capped; either way execute stays correct.
TEST(HostileThreads, HugeThreadCountIsRefusedOrCapped) {
    pj::MaxPoolDesc d = base(pj::Layout::nxc);
    d.src.dims = {4, 35, 17, 17};
    for (const int threads : {4096, 1 << 24, std::numeric_limits<int>::max()}) {
        try {
            pj::set_num_threads(threads);
        } catch (const pj::Error&) {
            continue;
        }
        expect_matches_reference(d, "set_num_threads(" + std::to_string(threads) + ")");
    }
    pj::set_num_threads(0);
}
