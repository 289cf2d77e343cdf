// Concurrency stress: eight threads creating primitives (the same keys and different ones) under a cache small
// enough to evict all the time, executing them on their own buffers, one primitive shared by eight threads,
// the thread count changed while others execute, and warmup racing create. Every output is compared byte for
// byte with the reference, computed before the threads start. Built for ThreadSanitizer too
// (tools/sanitize.sh): POOLJIT_STRESS_ITERATIONS (default 1500) sets the iterations per thread.
#include "tools/casegen/casegen.hpp"

#include <pooljit/pooljit.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <variant>
#include <vector>

namespace pj = pooljit;

namespace {

constexpr int thread_count = 8;

int iterations() {
    if (const char* env = std::getenv("POOLJIT_STRESS_ITERATIONS")) {
        const int n = std::atoi(env);
        if (n > 0) return n;
    }
    return 1500;
}

// One configuration with its input and the reference's outputs.
struct Case {
    pj::AnyPoolDesc desc;
    pj::TensorDesc dst, indices;
    std::vector<std::uint8_t> src, want, want_indices;
};

Case make_case(const pj::AnyPoolDesc& desc, std::uint64_t seed) {
    Case c;
    c.desc = desc;
    const pj::Problem p = std::visit([](const auto& d) { return pj::resolve(d); }, desc);
    c.dst = p.dst_desc();
    c.indices = p.indices_desc();
    c.src = pj::casegen::adversarial_data(p.src_desc(), seed);
    c.want.assign(pj::casegen::byte_size(c.dst), 0);
    if (p.has_indices) c.want_indices.assign(pj::casegen::byte_size(c.indices), 0);  // empty dims: no tensor
    std::visit([&](const auto& d) {
        pj::reference::execute(d, c.src.data(), c.want.data(), c.want_indices.empty() ? nullptr : c.want_indices.data());
    }, desc);
    return c;
}

// Configurations from casegen (each also with one more image: the same cache key) plus a few that the JIT
// serves with several tiles, so that the executor splits them over oneTBB's threads.
std::vector<Case> make_cases(int distinct, std::uint64_t seed) {
    std::vector<Case> cases;
    pj::casegen::Generator gen(seed);
    for (int i = 0; i < distinct; ++i) {
        pj::AnyPoolDesc desc = gen.any();
        cases.push_back(make_case(desc, seed + static_cast<std::uint64_t>(i)));
        if (auto* mp = std::get_if<pj::MaxPoolDesc>(&desc)) {
            mp->src.dims[0] += 1;
            cases.push_back(make_case(desc, seed + 1000 + static_cast<std::uint64_t>(i)));
        }
    }
    for (const pj::Layout layout : {pj::Layout::nxc, pj::Layout::ncx}) {
        pj::MaxPoolDesc d;
        d.src = {pj::DType::f32, layout, {2, 37, 23, 23}};
        d.kernel = {3, 3};
        d.strides = {2, 2};
        d.pads_begin = {1, 1};
        d.pads_end = {1, 1};
        d.indices = pj::IndexSpec{pj::DType::s64, 0, pj::StorageOrder::row_major};
        cases.push_back(make_case(d, 77));
    }
    return cases;
}

// Failures seen by worker threads, reported by the main thread (the first few in full).
class Failures {
public:
    void add(const std::string& what) {
        const std::lock_guard lock(mutex_);
        if (messages_.size() < 10) messages_.push_back(what);
        ++count_;
    }
    void report() const {
        const std::lock_guard lock(mutex_);
        for (const std::string& m : messages_) ADD_FAILURE() << m;
        EXPECT_EQ(count_, 0) << count_ << " failures in worker threads";
    }

private:
    mutable std::mutex mutex_;
    std::vector<std::string> messages_;
    int count_ = 0;
};

// Per-thread output buffers, filled with a pattern before each call so stale results cannot pass.
struct Buffers {
    std::vector<std::uint8_t> dst, indices;
};

void execute_and_check(const pj::Primitive& p, const Case& c, Buffers& b, std::uint8_t fill, Failures& failures,
                       const char* where) {
    b.dst.assign(c.want.size(), fill);
    b.indices.assign(c.want_indices.size(), fill);
    try {
        p.execute(c.src.data(), b.dst.data(), p.has_indices() ? b.indices.data() : nullptr);
    } catch (const std::exception& e) {
        failures.add(std::string(where) + ": execute threw: " + e.what() + " for " + p.problem_string());
        return;
    }
    // Elements against the reference; a view's gaps must keep this run's fill.
    const auto differs = [&](const pj::TensorDesc& t, const std::vector<std::uint8_t>& got, const std::vector<std::uint8_t>& want) {
        return !t.dims.empty() && !got.empty() &&
               (pj::casegen::first_difference(t, got.data(), want.data()) || pj::casegen::first_gap_write(t, got.data(), fill));
    };
    if (differs(c.dst, b.dst, c.want)) failures.add(std::string(where) + ": dst differs from the reference for " + p.problem_string());
    if (p.has_indices() && differs(c.indices, b.indices, c.want_indices))
        failures.add(std::string(where) + ": indices differ from the reference for " + p.problem_string());
}

void run_threads(int count, const std::function<void(int)>& body) {
    std::vector<std::thread> threads;
    threads.reserve(static_cast<std::size_t>(count));
    for (int t = 0; t < count; ++t) threads.emplace_back(body, t);
    for (std::thread& t : threads) t.join();
}

class Stress : public ::testing::Test {
protected:
    // set_num_threads(0) goes back to POOLJIT_NUM_THREADS, which the first ThreadSanitizer run of
    // tools/sanitize.sh sets to 1 to keep oneTBB out of the picture.
    void TearDown() override {
        pj::cache::set_capacity(1024);
        pj::cache::clear();
        pj::set_num_threads(0);
    }
};

}  // namespace

// Eight threads create and execute configurations drawn from one pool; the cache holds 3 of its ~20 keys, so
// creates hit, miss, wait for each other's compiles and evict entries that other threads' primitives still
// use. Thread 0 also resizes and clears the cache and reads its statistics as it goes.
TEST_F(Stress, ConcurrentCreateAndExecuteWithEviction) {
    const std::vector<Case> cases = make_cases(9, 1234);
    pj::cache::set_capacity(3);
    pj::cache::clear();
    pj::cache::reset_stats();
    const int n = iterations();
    Failures failures;
    std::atomic<std::uint64_t> creates{0};
    run_threads(thread_count, [&](int t) {
        std::mt19937_64 rng(static_cast<std::uint64_t>(t) * 7919 + 1);
        Buffers buffers;
        for (int i = 0; i < n; ++i) {
            // Half the time the thread's "own" case, half a shared one: both distinct and equal keys race.
            const std::size_t which = rng() % 2 ? static_cast<std::size_t>(t) % cases.size() : rng() % cases.size();
            const Case& c = cases[which];
            pj::Primitive p;
            try {
                p = pj::create(c.desc);
            } catch (const std::exception& e) {
                failures.add("create threw: " + std::string(e.what()) + " for " + pj::to_string(c.desc));
                continue;
            }
            creates.fetch_add(1, std::memory_order_relaxed);
            if (p.dst_desc() != c.dst) failures.add("dst_desc differs for " + p.problem_string());
            execute_and_check(p, c, buffers, static_cast<std::uint8_t>(i), failures, "create+execute");
            if (t == 0) {
                if (i % 7 == 3) pj::cache::set_capacity(2 + static_cast<std::size_t>(i % 3));
                if (i % 11 == 5) pj::cache::clear();
                const pj::cache::Stats s = pj::cache::stats();
                if (s.entries > 4) failures.add("cache holds " + std::to_string(s.entries) + " entries, capacity <= 4");
            }
        }
    });
    failures.report();
    const pj::cache::Stats s = pj::cache::stats();
    EXPECT_EQ(s.hits + s.misses, creates.load());
    EXPECT_GT(s.evictions, 0u) << "capacity 3 must evict";
    EXPECT_LE(s.entries, 4u);
}

// One primitive, eight threads executing it at once on separate output buffers (the input is shared).
TEST_F(Stress, OneSharedPrimitiveFromEightThreads) {
    const std::vector<Case> cases = make_cases(4, 99);
    const int n = iterations();
    for (const Case& c : cases) {
        const pj::Primitive shared = pj::create(c.desc);
        Failures failures;
        run_threads(thread_count, [&](int t) {
            Buffers buffers;
            for (int i = 0; i < n / 4 + 1; ++i)
                execute_and_check(shared, c, buffers, static_cast<std::uint8_t>(t + i), failures, "shared primitive");
        });
        SCOPED_TRACE(shared.problem_string() + " on " + shared.impl_name());
        failures.report();
    }
}

// Executions on several threads while another keeps changing the thread count (set_num_threads is global).
TEST_F(Stress, SetNumThreadsWhileOthersExecute) {
    const std::vector<Case> cases = make_cases(4, 555);
    std::vector<pj::Primitive> primitives;
    for (const Case& c : cases) primitives.push_back(pj::create(c.desc));
    const int n = iterations();
    Failures failures;
    std::atomic<int> executing{thread_count - 1};
    run_threads(thread_count, [&](int t) {
        if (t == 0) {
            const int counts[] = {2, 1, 0, 2, 3, 8};
            for (int i = 0; executing.load() > 0; ++i) {
                pj::set_num_threads(counts[i % 6]);
                if (pj::num_threads() < 0) failures.add("num_threads() < 0");
                std::this_thread::yield();
            }
            return;
        }
        Buffers buffers;
        for (int i = 0; i < n / 2 + 1; ++i) {
            const std::size_t which = static_cast<std::size_t>(t + i) % cases.size();
            execute_and_check(primitives[which], cases[which], buffers, static_cast<std::uint8_t>(i), failures,
                              "while set_num_threads changes");
        }
        executing.fetch_sub(1);
    });
    failures.report();
}

// cache::warmup of a list while other threads create the same descriptors and execute them.
TEST_F(Stress, WarmupRacesCreate) {
    const std::vector<Case> cases = make_cases(6, 4321);
    std::vector<pj::AnyPoolDesc> descs;
    for (const Case& c : cases) descs.push_back(c.desc);
    pj::cache::set_capacity(1024);
    pj::cache::clear();
    const int rounds = std::max(1, iterations() / 50);
    Failures failures;
    for (int round = 0; round < rounds; ++round) {
        pj::cache::clear();
        run_threads(thread_count, [&](int t) {
            if (t == 0) {
                try {
                    pj::cache::warmup(descs);
                } catch (const std::exception& e) {
                    failures.add(std::string("warmup threw: ") + e.what());
                }
                return;
            }
            Buffers buffers;
            for (std::size_t k = 0; k < cases.size(); ++k) {
                const Case& c = cases[(k + static_cast<std::size_t>(t)) % cases.size()];
                try {
                    execute_and_check(pj::create(c.desc), c, buffers, static_cast<std::uint8_t>(k), failures, "beside warmup");
                } catch (const std::exception& e) {
                    failures.add(std::string("create threw beside warmup: ") + e.what());
                }
            }
        });
    }
    failures.report();
}
