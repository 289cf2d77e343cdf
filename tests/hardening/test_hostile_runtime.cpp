// Hostile use of the runtime around a created primitive: no mapping writable and executable once kernels of
// every strategy are compiled, no Xbyak symbol that another library in the process could take over, a Primitive that outlives clear(), eviction, moves and self-assignment, an
// empty Primitive, and absurd thread counts. Misuse (an empty or moved-from handle, a negative thread count)
// must be refused with pooljit::Error; a live primitive must keep agreeing with the reference byte for byte
// whatever happens to the cache or the thread count.
#include "tests/hardening/hostile_util.hpp"
#include "tests/support/isa_cap.hpp"
#include "tools/casegen/casegen.hpp"

#include <pooljit/pooljit.hpp>

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace pj = pooljit;

using pooljit::test::IsaCap;
using pooljit::test::hostile::base;
using pooljit::test::hostile::expect_matches_reference;

// ---- W^X -------------------------------------------------------------------------------------------------

// After compiling kernels of every strategy on both ISAs, no mapping of the process is writable and
// executable at once (the code is emitted into heap memory, copied into read-write pages, then those are flipped
// to read-execute: jit/isa/code_pages.hpp).
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

// ---- Symbols ---------------------------------------------------------------------------------------------

// Xbyak is header-only, so its code is compiled into pooljit. Exported, its functions could be interposed:
// a process that loads another library built with another Xbyak first would have pooljit's calls bind to that
// one's encoder. The library exports its API and none of Xbyak's inline members.
TEST(HostileSymbols, XbyakStaysInsideTheLibrary) {
    Dl_info info{};
    ASSERT_NE(dladdr(reinterpret_cast<void*>(&pj::cache::clear), &info), 0);
    ASSERT_NE(info.dli_fname, nullptr);
    void* library = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    ASSERT_NE(library, nullptr) << info.dli_fname;
    EXPECT_NE(dlsym(library, "_ZN7pooljit5cache5clearEv"), nullptr);  // pooljit::cache::clear(): the API is there
    for (const char* xbyak : {"_ZN5Xbyak9CodeArray2dbEi",                         // CodeArray::db(int)
                              "_ZN5Xbyak13CodeGenerator3vexERKNS_3RegES3_PKNS_7OperandEiib",  // vex(...)
                              "_ZN5Xbyak12LabelManager12defineClabelERNS_5LabelE"})       // defineClabel
        EXPECT_EQ(dlsym(library, xbyak), nullptr) << xbyak << " is exported from " << info.dli_fname;
    dlclose(library);
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
