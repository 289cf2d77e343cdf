// Timing through Google Benchmark: each measurement is one dynamically registered benchmark, run with
// repetitions and read back through a reporter that keeps the median of the repetitions.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <string>

namespace pooljit_bench {

struct TimingPlan {
    double min_time_s = 0.05;     // per repetition, when iterations == 0
    int repetitions = 5;
    std::int64_t iterations = 0;  // fixed iterations per repetition; 0: enough to fill min_time_s
    bool manual_time = false;     // the body reports each iteration's time with state.SetIterationTime()
};

struct Timing {
    double median_us = std::numeric_limits<double>::quiet_NaN();
    int repetitions = 0;
    std::int64_t iterations = 0;  // per repetition
    std::string error;            // set when the body skipped with an error
    bool ok() const { return error.empty() && median_us == median_us; }
};

// Call once before any measure(): sets up Google Benchmark without handing it our command line.
void init_timing(const char* argv0);

// Runs `body` (a Google Benchmark function: `for (auto _ : state) ...`) under `plan`, wall-clock time.
Timing measure(const std::string& name, const TimingPlan& plan, std::function<void(benchmark::State&)> body);

// `base`, capped for an operation that takes `one_run_us` once: a slow execution (the reference, a DRAM-sized
// layer on it) is timed with single-iteration repetitions, and fewer of them, so one problem never takes
// more than a few seconds.
TimingPlan capped_plan(const TimingPlan& base, double one_run_us);

// Wraps an operation so that an exception ends the benchmark with an error instead of escaping it.
std::function<void(benchmark::State&)> timed_loop(std::function<void()> operation);

}  // namespace pooljit_bench
