// What the machine can do, measured in the same run as the benchmarks: the copy bandwidth that bounds a
// memory-bound layer (DESIGN.md section 7), and the parallel capacity of the vCPUs, which a virtual machine
// may time-slice onto fewer physical cores than it reports.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace pooljit_bench {

std::string cpu_model_name();
int online_cpus();

// A large memcpy between two buffers of `buffer_bytes`, touched once before any timing.
class CopyProbe {
public:
    explicit CopyProbe(std::size_t buffer_bytes);
    // GB/s counting bytes read plus written (2 x buffer_bytes per copy), median of `samples` copies; with
    // threads > 1 the buffer is cut into equal slices copied at once by that many std::threads.
    double gbps(int threads, int samples);
    std::size_t buffer_bytes() const { return bytes_; }

private:
    std::size_t bytes_;
    std::unique_ptr<unsigned char[]> src_;
    std::unique_ptr<unsigned char[]> dst_;
};

// Runs the same fixed busy loop (a dependent multiply chain: no memory traffic) on 1 thread and on `threads`
// threads at once, each lasting about `target_ms`; returns threads * t1 / tN, the median over `samples` pairs.
// About `threads` means that many real cores; about 1.0 means the threads were time-sliced onto one.
double spin_capacity(int threads, double target_ms, int samples);

}  // namespace pooljit_bench
