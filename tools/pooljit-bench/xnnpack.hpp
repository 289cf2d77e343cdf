// The second peer measured beside pooljit: XNNPACK's max_pooling2d_nhwc operator (f32, f16, u8, s8) on the
// same bytes with the same thread count, where it computes exactly pooljit's problem; its output is compared
// with pooljit's. Built only with XNNPACK (POOLJIT_HAVE_XNNPACK); otherwise nothing is timed.
#pragma once

#include "timing.hpp"

#include <pooljit/types.hpp>

#include <cstddef>
#include <limits>
#include <string>

namespace pooljit_bench {

struct XnnpackResult {
    // "xnn:<dtype>" when timed; "n/a:<why>" when XNNPACK cannot compute exactly this problem (ncx, not 2-D,
    // indices, a data type it lacks, a window it would read differently); "-" not timed.
    std::string status = "-";
    double us = std::numeric_limits<double>::quiet_NaN();
    std::string mismatch;  // non-empty: XNNPACK's output differs from pooljit's; where first, and how many
    std::string error;
    bool timed() const { return us == us; }
};

bool xnnpack_built();
// One line for the header: the package version, the operator and its thread pool; "XNNPACK: not built".
std::string xnnpack_description();
// Runs XNNPACK on a pthreadpool of `threads` threads (1: on the calling thread, no pool).
void xnnpack_set_threads(int threads);
// Times XNNPACK on `problem`, reading a copy of `src` (the bytes pooljit read), after comparing its output with
// `pooljit_dst` (`dst_bytes` bytes: pooljit's output for `src`). Its input and output start `buffer_offset` bytes
// past a 64-byte boundary, as pooljit's do.
XnnpackResult xnnpack_time(const pooljit::Problem& problem, const void* src, const void* pooljit_dst,
                           std::size_t dst_bytes, const TimingPlan& plan, std::size_t buffer_offset);

}  // namespace pooljit_bench
