#include "machine.hpp"

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <thread>
#include <vector>

#include <unistd.h>

namespace pooljit_bench {
namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

// Runs work(i) on `threads` new threads released together; returns the seconds from the first thread's start
// to the last thread's end. Each thread reads the clock itself: the releasing thread may be descheduled
// while the others work, so its own clock would see only part of the span.
double run_together(int threads, const std::function<void(int)>& work) {
    std::barrier start(threads);
    std::vector<Clock::time_point> begins(static_cast<std::size_t>(threads)), ends(begins.size());
    std::vector<std::thread> pool;
    pool.reserve(begins.size());
    for (int i = 0; i < threads; ++i) {
        pool.emplace_back([&, i] {
            start.arrive_and_wait();
            begins[static_cast<std::size_t>(i)] = Clock::now();
            work(i);
            ends[static_cast<std::size_t>(i)] = Clock::now();
        });
    }
    for (std::thread& t : pool) t.join();
    const auto first = *std::min_element(begins.begin(), begins.end());
    const auto last = *std::max_element(ends.begin(), ends.end());
    return std::chrono::duration<double>(last - first).count();
}

std::atomic<std::uint64_t> spin_sink{0};

void spin(std::uint64_t iterations) {
    std::uint64_t x = 1;
    for (std::uint64_t i = 0; i < iterations; ++i) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        asm volatile("" : "+r"(x));  // keeps the chain: the compiler may not fold or vectorize it
    }
    spin_sink.fetch_xor(x, std::memory_order_relaxed);
}

}  // namespace

std::string cpu_model_name() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("model name", 0) == 0) {
            const auto colon = line.find(':');
            if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
        }
    }
    return "unknown CPU";
}

int online_cpus() {
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? static_cast<int>(n) : 1;
}

CopyProbe::CopyProbe(std::size_t buffer_bytes)
    : bytes_(buffer_bytes),
      src_(new unsigned char[buffer_bytes]),
      dst_(new unsigned char[buffer_bytes]) {
    // First touch outside the timing: page faults are not bandwidth.
    std::memset(src_.get(), 0x5A, bytes_);
    std::memset(dst_.get(), 0, bytes_);
}

double CopyProbe::gbps(int threads, int samples) {
    threads = std::max(threads, 1);
    const std::size_t slice = (bytes_ / static_cast<std::size_t>(threads) + 63) / 64 * 64;
    const auto copy_slice = [&](int i) {
        const std::size_t begin = std::min(bytes_, slice * static_cast<std::size_t>(i));
        const std::size_t end = std::min(bytes_, begin + slice);
        std::memcpy(dst_.get() + begin, src_.get() + begin, end - begin);
    };
    run_together(threads, copy_slice);  // warm-up
    std::vector<double> seconds;
    for (int s = 0; s < std::max(samples, 1); ++s) seconds.push_back(run_together(threads, copy_slice));
    return 2.0 * static_cast<double>(bytes_) / median(seconds) / 1e9;
}

double spin_capacity(int threads, double target_ms, int samples) {
    threads = std::max(threads, 1);
    // Calibrate the loop length to the target duration on one thread (the fastest of three: preemption only
    // lengthens a run). The chain costs at least 4 cycles an iteration (imul + add): 2^20 iterations take at
    // least 0.7 ms even at 6 GHz, which bounds the count should the calibration itself be mismeasured.
    constexpr std::uint64_t calibration_iterations = 1u << 20;
    double calibration_s = 1e9;
    for (int i = 0; i < 3; ++i) {
        calibration_s = std::min(calibration_s, run_together(1, [](int) { spin(calibration_iterations); }));
    }
    const double most_iterations = static_cast<double>(calibration_iterations) * target_ms / 0.7;
    const auto iterations = static_cast<std::uint64_t>(std::min(
        most_iterations, static_cast<double>(calibration_iterations) * (target_ms / 1e3) / calibration_s));
    const auto work = [iterations](int) { spin(std::max<std::uint64_t>(iterations, 1)); };
    std::vector<double> capacities;
    for (int s = 0; s < std::max(samples, 1); ++s) {
        // Interleaved pairs: a capacity change during the run affects both figures of a pair alike.
        const double one = run_together(1, work);
        const double many = run_together(threads, work);
        capacities.push_back(threads * one / many);
    }
    return median(capacities);
}

}  // namespace pooljit_bench
