// The executor's work shares (runtime/shared_units.hpp): every unit runs exactly once, whichever threads come,
// in whatever order, and a share's own runner takes its units in order.
#include "runtime/shared_units.hpp"

#include <gtest/gtest.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/info.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

namespace pj = pooljit;

namespace {

std::vector<int> runs_per_unit(std::int64_t units, const std::vector<std::atomic<int>>& counts) {
    std::vector<int> out;
    for (std::int64_t u = 0; u < units; ++u) out.push_back(counts[static_cast<std::size_t>(u)].load());
    return out;
}

}  // namespace

// Shares run on an arena of as many threads as the host has, up to one a share: with more shares than threads,
// the runners that come first steal from the shares of those that come late.
TEST(SharedUnits, EveryUnitRunsOnceWhicheverThreadsCome) {
    for (const int threads : {1, 2, 3, 7, 16, 100}) {  // 100: beyond the shares held in the object
        for (const std::int64_t units : {0, 1, 2, 5, 16, 63, 1000}) {
            for (int round = 0; round < 20; ++round) {
                std::vector<std::atomic<int>> counts(static_cast<std::size_t>(units));
                pj::detail::SharedUnits shared(units, threads);
                tbb::task_arena arena(std::min(threads, tbb::info::default_concurrency()));
                arena.execute([&] {
                    tbb::parallel_for(tbb::blocked_range<int>(0, threads, 1), [&](const tbb::blocked_range<int>& r) {
                        for (int t = r.begin(); t != r.end(); ++t)
                            shared.run(t, [&](std::int64_t u) { counts[static_cast<std::size_t>(u)].fetch_add(1); });
                    });
                });
                EXPECT_EQ(runs_per_unit(units, counts), std::vector<int>(static_cast<std::size_t>(units), 1))
                    << units << " units, " << threads << " threads, round " << round;
            }
        }
    }
}

// One runner that comes first takes the whole work, its own share first, in order, then the others' from their
// backs; the runners that come after it find nothing left.
TEST(SharedUnits, AFirstRunnerTakesItsShareInOrderThenTheOthersFromTheirBacks) {
    const std::int64_t units = 12;
    pj::detail::SharedUnits shared(units, 3);  // shares [0, 4), [4, 8), [8, 12)
    std::vector<std::int64_t> order;
    shared.run(1, [&](std::int64_t u) { order.push_back(u); });
    EXPECT_EQ(order, (std::vector<std::int64_t>{4, 5, 6, 7, 11, 10, 9, 8, 3, 2, 1, 0}));
    for (const int late : {0, 2}) shared.run(late, [&](std::int64_t u) { ADD_FAILURE() << "unit " << u << " ran twice"; });
}

// A runner that starts while a thief works on its share from the back: the two meet and no unit is lost.
TEST(SharedUnits, OwnerAndThiefMeetInTheMiddle) {
    for (int round = 0; round < 200; ++round) {
        const std::int64_t units = 64;
        std::vector<std::atomic<int>> counts(units);
        pj::detail::SharedUnits shared(units, 2);
        tbb::task_arena arena(std::min(2, tbb::info::default_concurrency()));
        arena.execute([&] {
            tbb::parallel_for(tbb::blocked_range<int>(0, 2, 1), [&](const tbb::blocked_range<int>& r) {
                for (int t = r.begin(); t != r.end(); ++t)
                    shared.run(t, [&](std::int64_t u) { counts[static_cast<std::size_t>(u)].fetch_add(1); });
            });
        });
        EXPECT_EQ(runs_per_unit(units, counts), std::vector<int>(units, 1)) << "round " << round;
    }
}
