// The main of every GoogleTest program: runs the tests, and fails the program when a test's creates were demoted
// (an implementation that the CPU and POOLJIT_MAX_ISA allowed declined because its planner or emitter threw,
// and the next one served). create() keeps that fallback for users; in the tests it is a bug.
#include "runtime/cache.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

class DemotionWatch : public ::testing::EmptyTestEventListener {
public:
    void OnTestStart(const ::testing::TestInfo&) override { before_ = pooljit::detail::demotions_since_start(); }
    void OnTestEnd(const ::testing::TestInfo& test) override {
        const std::uint64_t demoted = pooljit::detail::demotions_since_start() - before_;
        if (demoted > 0)
            failed_.push_back(std::string(test.test_suite_name()) + "." + test.name() + ": " + std::to_string(demoted) +
                              " demoted creates");
    }
    const std::vector<std::string>& failed() const { return failed_; }

private:
    std::uint64_t before_ = 0;
    std::vector<std::string> failed_;
};

}  // namespace

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    auto* watch = new DemotionWatch;  // owned by the listener list
    ::testing::UnitTest::GetInstance()->listeners().Append(watch);
    int status = RUN_ALL_TESTS();
    for (const std::string& line : watch->failed()) {
        std::fprintf(stderr, "FAILED (demotion, see POOLJIT_VERBOSE=1): %s\n", line.c_str());
        status = 1;
    }
    return status;
}
