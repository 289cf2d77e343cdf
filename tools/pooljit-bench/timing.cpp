#include "timing.hpp"

#include <algorithm>
#include <exception>
#include <vector>

namespace pooljit_bench {
namespace {

// Keeps the median aggregate (or the single run when there is one repetition) and the iterations of one
// repetition, and prints nothing: the tool prints its own table.
class MedianReporter : public benchmark::BenchmarkReporter {
public:
    bool ReportContext(const Context&) override { return true; }

    void ReportRuns(const std::vector<Run>& runs) override {
        for (const Run& run : runs) {
            if (run.error_occurred) {
                result.error = run.error_message.empty() ? "failed" : run.error_message;
                continue;
            }
            if (run.run_type == Run::RT_Iteration) {
                result.iterations = static_cast<std::int64_t>(run.iterations);
                result.repetitions = static_cast<int>(std::max<std::int64_t>(run.repetitions, 1));
                if (run.repetitions <= 1) result.median_us = run.GetAdjustedRealTime();
            } else if (run.aggregate_name == "median") {
                result.median_us = run.GetAdjustedRealTime();  // every benchmark here is in microseconds
            }
        }
    }

    Timing result;
};

}  // namespace

void init_timing(const char* argv0) {
    int argc = 1;
    char* argv[] = {const_cast<char*>(argv0), nullptr};
    benchmark::Initialize(&argc, argv);
}

Timing measure(const std::string& name, const TimingPlan& plan, std::function<void(benchmark::State&)> body) {
    benchmark::ClearRegisteredBenchmarks();
    auto* b = benchmark::RegisterBenchmark(name.c_str(), std::move(body));
    b->Unit(benchmark::kMicrosecond)->Repetitions(std::max(plan.repetitions, 1));
    if (plan.manual_time) {
        b->UseManualTime();
    } else {
        b->UseRealTime();  // execute() may run on worker threads: CPU time of this thread would mislead
    }
    if (plan.iterations > 0) {
        b->Iterations(plan.iterations);
    } else {
        b->MinTime(plan.min_time_s);
    }
    MedianReporter reporter;
    // The filter matches every name: exactly one benchmark is registered.
    benchmark::RunSpecifiedBenchmarks(&reporter, ".");
    benchmark::ClearRegisteredBenchmarks();
    return reporter.result;
}

TimingPlan capped_plan(const TimingPlan& base, double one_run_us) {
    TimingPlan plan = base;
    if (one_run_us > 500e3) {
        plan.iterations = 1;
        plan.repetitions = 1;
    } else if (one_run_us > 50e3) {
        plan.iterations = 1;
        plan.repetitions = std::min(base.repetitions, 3);
    }
    return plan;
}

std::function<void(benchmark::State&)> timed_loop(std::function<void()> operation) {
    return [operation = std::move(operation)](benchmark::State& state) {
        for (auto _ : state) {
            try {
                operation();
            } catch (const std::exception& e) {
                state.SkipWithError(e.what());
                break;
            }
        }
    };
}

}  // namespace pooljit_bench
