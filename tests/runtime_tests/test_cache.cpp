// The primitive cache: hits and misses, the batch size outside the key, LRU eviction, capacity, concurrent
// creators compiling once, failures left uncached, the ISA cap in the key, primitives outliving their entry,
// and warmup.
#include "runtime_test_util.hpp"

#include "jit/isa/isa.hpp"
#include "runtime/cache.hpp"
#include "runtime/dispatch.hpp"

#include <pooljit/pooljit.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <latch>
#include <string>
#include <thread>
#include <vector>

namespace pj = pooljit;
using pj::test::jit_friendly;
using pj::test::ScopedEnv;

namespace {

class RuntimeCache : public ::testing::Test {
protected:
    void SetUp() override {
        pj::detail::set_compiler_for_testing(nullptr);
        pj::cache::set_capacity(1024);
        pj::cache::clear();
        pj::cache::reset_stats();
    }
    void TearDown() override {
        pj::detail::set_compiler_for_testing(nullptr);
        pj::cache::set_capacity(1024);
    }
};

}  // namespace

TEST_F(RuntimeCache, SecondCreateIsAHit) {
    ScopedEnv no_cap("POOLJIT_MAX_ISA", nullptr);
    const pj::Primitive first = pj::Primitive::create(jit_friendly());
    pj::cache::Stats s = pj::cache::stats();
    EXPECT_EQ(s.misses, 1u);
    EXPECT_EQ(s.hits, 0u);
    EXPECT_EQ(s.entries, 1u);
    EXPECT_GT(s.compile_microseconds, 0.0);

    const pj::Primitive second = pj::Primitive::create(jit_friendly());
    s = pj::cache::stats();
    EXPECT_EQ(s.misses, 1u);
    EXPECT_EQ(s.hits, 1u);
    EXPECT_EQ(s.entries, 1u);
    EXPECT_EQ(first.impl_name(), second.impl_name());
}

TEST_F(RuntimeCache, OtherBatchSizeSharesTheEntry) {
    const pj::MaxPoolDesc small = jit_friendly(1), large = jit_friendly(5);
    const pj::Primitive p1 = pj::Primitive::create(small);
    const pj::Primitive p5 = pj::Primitive::create(large);
    const pj::cache::Stats s = pj::cache::stats();
    EXPECT_EQ(s.misses, 1u);
    EXPECT_EQ(s.hits, 1u);
    EXPECT_EQ(s.entries, 1u);
    EXPECT_EQ(p5.dst_desc().dims[0], 5);
    pj::test::expect_matches_reference(p1, small);
    pj::test::expect_matches_reference(p5, large);
}

TEST_F(RuntimeCache, KeyIgnoresOnlyTheBatch) {
    const pj::Problem a = pj::resolve(jit_friendly(1)), b = pj::resolve(jit_friendly(7));
    EXPECT_EQ(pj::detail::make_cache_key(a), pj::detail::make_cache_key(b));
    EXPECT_EQ(pj::detail::hash_of(pj::detail::make_cache_key(a)), pj::detail::hash_of(pj::detail::make_cache_key(b)));

    pj::MaxPoolDesc other_nan = jit_friendly(1);
    other_nan.nan = pj::NanPolicy::ignore;
    const pj::Problem c = pj::resolve(other_nan);
    EXPECT_FALSE(pj::detail::make_cache_key(a) == pj::detail::make_cache_key(c));
    EXPECT_NE(pj::detail::hash_of(pj::detail::make_cache_key(a)), pj::detail::hash_of(pj::detail::make_cache_key(c)));
}

TEST_F(RuntimeCache, LeastRecentlyUsedIsEvicted) {
    pj::cache::set_capacity(2);
    const pj::MaxPoolDesc a = jit_friendly(2, 0), b = jit_friendly(2, 1), c = jit_friendly(2, 2);
    (void)pj::Primitive::create(a);
    (void)pj::Primitive::create(b);
    (void)pj::Primitive::create(a);  // a is now more recent than b
    (void)pj::Primitive::create(c);  // evicts b
    pj::cache::Stats s = pj::cache::stats();
    EXPECT_EQ(s.misses, 3u);
    EXPECT_EQ(s.hits, 1u);
    EXPECT_EQ(s.evictions, 1u);
    EXPECT_EQ(s.entries, 2u);

    (void)pj::Primitive::create(a);
    EXPECT_EQ(pj::cache::stats().hits, 2u) << "a was used more recently than b and must have stayed";
    (void)pj::Primitive::create(b);
    s = pj::cache::stats();
    EXPECT_EQ(s.misses, 4u) << "b was the least recently used entry and must have been evicted";
    EXPECT_EQ(s.evictions, 2u);
}

TEST_F(RuntimeCache, ZeroCapacityCachesNothing) {
    pj::cache::set_capacity(0);
    EXPECT_EQ(pj::cache::capacity(), 0u);
    const pj::Primitive p = pj::Primitive::create(jit_friendly());
    const pj::Primitive q = pj::Primitive::create(jit_friendly());
    const pj::cache::Stats s = pj::cache::stats();
    EXPECT_EQ(s.misses, 2u);
    EXPECT_EQ(s.hits, 0u);
    EXPECT_EQ(s.entries, 0u);
    pj::test::expect_matches_reference(q, jit_friendly());
}

TEST_F(RuntimeCache, ShrinkingEvictsTheOldest) {
    for (int v = 0; v < 3; ++v) (void)pj::Primitive::create(jit_friendly(2, v));
    pj::cache::set_capacity(1);
    pj::cache::Stats s = pj::cache::stats();
    EXPECT_EQ(s.entries, 1u);
    EXPECT_EQ(s.evictions, 2u);
    (void)pj::Primitive::create(jit_friendly(2, 2));
    EXPECT_EQ(pj::cache::stats().hits, 1u) << "the most recent entry stays";
}

TEST_F(RuntimeCache, ClearDropsEntriesButKeepsCounters) {
    (void)pj::Primitive::create(jit_friendly());
    pj::cache::clear();
    pj::cache::Stats s = pj::cache::stats();
    EXPECT_EQ(s.entries, 0u);
    EXPECT_EQ(s.misses, 1u);
    EXPECT_EQ(s.evictions, 0u);
    (void)pj::Primitive::create(jit_friendly());
    EXPECT_EQ(pj::cache::stats().misses, 2u);
    pj::cache::reset_stats();
    s = pj::cache::stats();
    EXPECT_EQ(s.misses, 0u);
    EXPECT_EQ(s.compile_microseconds, 0.0);
    EXPECT_EQ(s.entries, 1u);
}

TEST_F(RuntimeCache, ConcurrentCreatorsCompileOnce) {
    constexpr int thread_count = 16;
    std::latch start(thread_count);
    std::vector<std::string> impl_names(thread_count);
    std::vector<std::thread> threads;
    for (int t = 0; t < thread_count; ++t)
        threads.emplace_back([&, t] {
            start.arrive_and_wait();  // all threads ask at the same moment
            impl_names[static_cast<std::size_t>(t)] = pj::Primitive::create(jit_friendly()).impl_name();
        });
    for (std::thread& t : threads) t.join();
    const pj::cache::Stats s = pj::cache::stats();
    EXPECT_EQ(s.misses, 1u);
    EXPECT_EQ(s.hits, thread_count - 1u);
    EXPECT_EQ(s.entries, 1u);
    for (const std::string& name : impl_names) EXPECT_EQ(name, impl_names[0]);
}

namespace {
std::atomic<int> failing_compiles{0};
std::shared_ptr<const pj::detail::Implementation> slow_failing_compiler(const pj::Problem&) {
    failing_compiles.fetch_add(1);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // long enough for every thread to wait on it
    throw pj::Error("injected compile failure");
}
}  // namespace

TEST_F(RuntimeCache, WaitersGetTheCompileFailureAndNothingIsCached) {
    pj::detail::set_compiler_for_testing(&slow_failing_compiler);
    failing_compiles = 0;
    constexpr int thread_count = 8;
    std::latch start(thread_count);
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < thread_count; ++t)
        threads.emplace_back([&] {
            start.arrive_and_wait();
            try {
                (void)pj::Primitive::create(jit_friendly());
            } catch (const pj::Error& e) {
                if (std::string(e.what()) == "injected compile failure") failures.fetch_add(1);
            }
        });
    for (std::thread& t : threads) t.join();
    EXPECT_EQ(failures.load(), thread_count);
    // A thread arriving after the failure compiles again (and fails again), so at least one compile ran.
    EXPECT_GE(failing_compiles.load(), 1);
    pj::cache::Stats s = pj::cache::stats();
    EXPECT_EQ(s.entries, 0u);
    EXPECT_EQ(s.misses, static_cast<std::uint64_t>(failing_compiles.load()));

    pj::detail::set_compiler_for_testing(nullptr);
    const pj::Primitive p = pj::Primitive::create(jit_friendly());
    s = pj::cache::stats();
    EXPECT_EQ(s.entries, 1u);
    pj::test::expect_matches_reference(p, jit_friendly());
}

TEST_F(RuntimeCache, InvalidDescriptorCachesNothing) {
    (void)pj::Primitive::create(jit_friendly());
    const pj::cache::Stats before = pj::cache::stats();
    pj::MaxPoolDesc bad = jit_friendly();
    bad.strides = {2, 0};
    EXPECT_THROW((void)pj::Primitive::create(bad), pj::Error);
    {
        ScopedEnv bogus("POOLJIT_MAX_ISA", "sse9");
        EXPECT_THROW((void)pj::Primitive::create(jit_friendly(2, 3)), pj::Error);
    }
    const pj::cache::Stats after = pj::cache::stats();
    EXPECT_EQ(after.entries, before.entries);
    EXPECT_EQ(after.misses, before.misses);
    EXPECT_EQ(after.hits, before.hits);
}

TEST_F(RuntimeCache, IsaCapIsPartOfTheKey) {
    if (!pj::jit::cpu_features().avx512) GTEST_SKIP() << "needs an AVX-512 machine: without it both caps mean avx2";
    std::string uncapped, capped;
    {
        ScopedEnv no_cap("POOLJIT_MAX_ISA", nullptr);
        uncapped = pj::Primitive::create(jit_friendly()).impl_name();
    }
    {
        ScopedEnv avx2("POOLJIT_MAX_ISA", "avx2");
        capped = pj::Primitive::create(jit_friendly()).impl_name();
        EXPECT_NE(capped, "jit:avx512");
    }
    pj::cache::Stats s = pj::cache::stats();
    EXPECT_EQ(s.misses, 2u);
    EXPECT_EQ(s.hits, 0u);
    EXPECT_EQ(s.entries, 2u);
    EXPECT_TRUE(pj::test::is_known_impl(uncapped)) << uncapped;
    EXPECT_TRUE(pj::test::is_known_impl(capped)) << capped;
    {
        ScopedEnv avx2("POOLJIT_MAX_ISA", "avx2");
        EXPECT_EQ(pj::Primitive::create(jit_friendly()).impl_name(), capped);
    }
    {
        ScopedEnv no_cap("POOLJIT_MAX_ISA", nullptr);
        EXPECT_EQ(pj::Primitive::create(jit_friendly()).impl_name(), uncapped);
    }
    s = pj::cache::stats();
    EXPECT_EQ(s.misses, 2u);
    EXPECT_EQ(s.hits, 2u);
}

// POOLJIT_CPU_MASK makes the host look smaller: AVX-512 hidden, create() serves AVX2 code under no cap (its own
// cache entry); AVX2 hidden too, the reference. It never adds a feature, and an unknown name is an error.
TEST_F(RuntimeCache, CpuMaskOnlyTakesFeaturesAway) {
    // From the host as it is, whatever mask the run was started under (tools/test.sh's masked run).
    ScopedEnv no_mask("POOLJIT_CPU_MASK", nullptr);
    const pj::jit::CpuFeatures unmasked = pj::jit::cpu_features();
    ScopedEnv no_cap("POOLJIT_MAX_ISA", nullptr);
    const std::string native = pj::Primitive::create(jit_friendly()).impl_name();
    {
        ScopedEnv mask("POOLJIT_CPU_MASK", "avx512");
        EXPECT_FALSE(pj::jit::cpu_features().avx512);
        EXPECT_FALSE(pj::jit::cpu_features().avx512_bf16);
        EXPECT_EQ(pj::jit::cpu_features().avx2, unmasked.avx2);
        EXPECT_EQ(pj::Primitive::create(jit_friendly()).impl_name(), unmasked.avx2 ? "jit:avx2" : "ref");
    }
    {
        ScopedEnv mask("POOLJIT_CPU_MASK", "avx2");
        EXPECT_FALSE(pj::jit::cpu_features().avx2);
        EXPECT_FALSE(pj::jit::cpu_features().avx512);
        EXPECT_EQ(pj::Primitive::create(jit_friendly()).impl_name(), "ref");
        ScopedEnv cap("POOLJIT_MAX_ISA", "avx512");  // a cap cannot raise it either
        EXPECT_EQ(pj::Primitive::create(jit_friendly()).impl_name(), "ref");
    }
    {
        ScopedEnv mask("POOLJIT_CPU_MASK", "avx512_vbmi,");  // an empty item is no name
        EXPECT_EQ(pj::jit::cpu_features().avx512, unmasked.avx512);
        EXPECT_FALSE(pj::jit::cpu_features().avx512_vbmi);
        EXPECT_EQ(pj::Primitive::create(jit_friendly()).impl_name(), native);
    }
    {
        ScopedEnv mask("POOLJIT_CPU_MASK", "avx512,sse9");
        try {
            (void)pj::Primitive::create(jit_friendly());
            ADD_FAILURE() << "an unknown feature name was accepted";
        } catch (const pj::Error& e) {
            EXPECT_NE(std::string(e.what()).find("POOLJIT_CPU_MASK = avx512,sse9: 'sse9'"), std::string::npos) << e.what();
        }
    }
    EXPECT_EQ(pj::Primitive::create(jit_friendly()).impl_name(), native);
}

// AVX512_VBMI decides the code of small u8/s8 planes (byte lanes gathered by byte permutes, or 32-bit lanes):
// hiding it with POOLJIT_CPU_MASK gives a key of its own, and each key's code matches the reference.
TEST_F(RuntimeCache, BytePermutesArePartOfTheKey) {
    ScopedEnv no_mask("POOLJIT_CPU_MASK", nullptr);
    ScopedEnv no_cap("POOLJIT_MAX_ISA", nullptr);
    pj::MaxPoolDesc d;
    d.src = {pj::DType::u8, pj::Layout::ncx, {2, 5, 14, 14}};
    d.kernel = {2, 2};
    d.strides = {2, 2};
    const pj::Problem problem = pj::resolve(d);
    const bool vbmi = pj::jit::cpu_features().avx512_vbmi;
    EXPECT_EQ(pj::detail::make_cache_key(problem).byte_permutes, vbmi);
    pj::test::expect_matches_reference(pj::Primitive::create(d), d);
    {
        ScopedEnv mask("POOLJIT_CPU_MASK", "avx512_vbmi");
        EXPECT_FALSE(pj::detail::make_cache_key(problem).byte_permutes);
        pj::test::expect_matches_reference(pj::Primitive::create(d), d);
    }
    // Without the feature, hiding it changes nothing: the second create finds the first one's key.
    EXPECT_EQ(pj::cache::stats().misses, vbmi ? 2u : 1u);
    EXPECT_EQ(pj::cache::stats().hits, vbmi ? 0u : 1u);
}

TEST_F(RuntimeCache, PrimitiveOutlivesClearAndEviction) {
    const pj::MaxPoolDesc d = jit_friendly(3, 0);
    const pj::Primitive cleared = pj::Primitive::create(d);
    pj::cache::clear();
    pj::test::expect_matches_reference(cleared, d);

    pj::cache::set_capacity(1);
    const pj::MaxPoolDesc e = jit_friendly(3, 1);
    const pj::Primitive evicted = pj::Primitive::create(e);
    (void)pj::Primitive::create(jit_friendly(3, 2));  // takes the only slot
    EXPECT_EQ(pj::cache::stats().evictions, 1u);
    pj::test::expect_matches_reference(evicted, e, 11);
}

TEST_F(RuntimeCache, WarmupMakesLaterCreatesHits) {
    const pj::AnyPoolDesc adaptive = pj::parse_problem("adaptivemaxpool dt=bf16 layout=ncx src=1x3x10x10 out=4x4 idx=s32");
    pj::MaxPoolDesc planar = jit_friendly();
    planar.src.layout = pj::Layout::ncx;
    std::vector<pj::AnyPoolDesc> descs;
    for (const pj::AnyPoolDesc& d : {pj::AnyPoolDesc(jit_friendly(2, 0)), pj::AnyPoolDesc(jit_friendly(2, 1)),
                                     adaptive, pj::AnyPoolDesc(planar)})
        descs.push_back(d);
    descs.emplace_back(jit_friendly(4, 0));  // differs from the first only in N: a hit
    pj::cache::warmup(descs);
    pj::cache::Stats s = pj::cache::stats();
    EXPECT_EQ(s.misses, 4u);
    EXPECT_EQ(s.hits, 1u);
    EXPECT_EQ(s.entries, 4u);
    for (const pj::AnyPoolDesc& d : descs) (void)pj::create(d);
    s = pj::cache::stats();
    EXPECT_EQ(s.misses, 4u);
    EXPECT_EQ(s.hits, 6u);
}

TEST_F(RuntimeCache, WarmupThrowsTheFirstFailureAfterTryingAll) {
    pj::MaxPoolDesc bad_stride = jit_friendly(2, 5);
    bad_stride.strides = {0, 1};
    pj::MaxPoolDesc bad_kernel = jit_friendly(2, 6);
    bad_kernel.kernel = {3};
    const std::vector<pj::AnyPoolDesc> descs{jit_friendly(2, 0), bad_stride, jit_friendly(2, 1), bad_kernel,
                                             jit_friendly(2, 2)};
    try {
        pj::cache::warmup(descs);
        FAIL() << "warmup must rethrow the failure";
    } catch (const pj::Error& e) {
        EXPECT_NE(std::string(e.what()).find("strides"), std::string::npos) << e.what();
    }
    EXPECT_EQ(pj::cache::stats().entries, 3u) << "every valid descriptor is compiled despite the failures";
}

TEST_F(RuntimeCache, CapacityComesFromTheEnvironment) {
    {
        ScopedEnv capacity("POOLJIT_CACHE_CAPACITY", "3");
        pj::detail::reread_capacity_for_testing();
        EXPECT_EQ(pj::cache::capacity(), 3u);
    }
    {
        ScopedEnv capacity("POOLJIT_CACHE_CAPACITY", "many");
        pj::detail::reread_capacity_for_testing();
        try {
            (void)pj::Primitive::create(jit_friendly());
            FAIL() << "an invalid POOLJIT_CACHE_CAPACITY must be reported";
        } catch (const pj::Error& e) {
            EXPECT_NE(std::string(e.what()).find("POOLJIT_CACHE_CAPACITY = many"), std::string::npos) << e.what();
        }
        EXPECT_EQ(pj::cache::stats().misses, 0u);
    }
    {
        ScopedEnv capacity("POOLJIT_CACHE_CAPACITY", "-1");
        pj::detail::reread_capacity_for_testing();
        EXPECT_THROW((void)pj::cache::capacity(), pj::Error);
    }
    {
        ScopedEnv capacity("POOLJIT_CACHE_CAPACITY", nullptr);
        pj::detail::reread_capacity_for_testing();
        EXPECT_EQ(pj::cache::capacity(), 1024u);
    }
}
