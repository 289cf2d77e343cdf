// --interleave: every problem's execution timed one call at a time, the problems in turn, so that each meets
// the machine as the others do. On a host whose speed drifts (a VM's neighbours come and go), the medians of
// repetitions taken one problem after another moved by up to 1.5x between runs minutes apart; the lowest of
// calls in turn keeps the ratios between problems (a partial channel vector against the rounded-up one, two
// shapes of an A/B) within a few per cent.
#pragma once

#include "problems.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace pooljit_bench {

struct InterleavedTime {
    double lowest_us = 0;  // the fastest call
    double tenth_us = 0;   // the call at the tenth percentile
};

// `rounds` calls of each case's pooljit execute, the cases in turn, on the data the table times (seed +
// position) in tensors `buffer_offset` bytes past a 64-byte boundary.
std::vector<InterleavedTime> time_interleaved(const std::vector<Case>& cases, int rounds, std::uint64_t seed,
                                              std::size_t buffer_offset);

void print_interleaved(std::FILE* out, const std::vector<Case>& cases, const std::vector<InterleavedTime>& times,
                       int rounds, std::size_t label_width);

}  // namespace pooljit_bench
