// pooljit-bench --sppf: YOLOv5's SPPF block (three k5 s1 p2 max pools in a chain, the input and the three outputs
// concatenated along C), timed three ways in one run: the chain in place (each pool reads one channel slice of
// the concat buffer and writes the next), three pools on dense tensors alone, and those plus the concatenation's
// copy that dense pools leave to the caller.
#pragma once

#include <pooljit/pooljit.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

namespace pooljit_bench {

struct SppfOptions {
    std::vector<std::int64_t> dims;  // N, C, H, W of the block's input (C of the 4C concat buffer)
    pooljit::DType dtype = pooljit::DType::f32;
    pooljit::Layout layout = pooljit::Layout::nxc;
    double min_time_s = 0.05;
    int repetitions = 5;
    std::size_t buffer_offset = 0;
};

// Prints the three medians and their ratios; returns 1 when the chain's output differs from the dense pools'.
int run_sppf(const SppfOptions& options, double copy_gbps, std::FILE* out);

}  // namespace pooljit_bench
