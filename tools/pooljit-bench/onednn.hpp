// The peer measured beside pooljit: oneDNN's pooling_v2_forward (max) on the same problem, same layout, same
// data type, same thread count. Built only with oneDNN (POOLJIT_HAVE_DNNL); otherwise every answer is "n/a".
#pragma once

#include "timing.hpp"

#include <pooljit/types.hpp>

#include <limits>
#include <string>

namespace pooljit_bench {

struct PeerTiming {
    std::string impl = "-";  // oneDNN's impl_info_str(), "n/a:<why>" when it cannot run the problem, "-" not timed
    double us = std::numeric_limits<double>::quiet_NaN();
    std::string error;
};

struct PeerResult {
    PeerTiming inference;  // prop_kind::forward_inference: no workspace
    PeerTiming training;   // prop_kind::forward_training with its workspace; only when the problem has indices
};

bool onednn_built();
// One line for the header: version, CPU runtime and how its thread count was set; "oneDNN: not built".
std::string onednn_description();
// Sets oneDNN's thread count (its OpenMP or TBB runtime) to `threads`.
void onednn_set_threads(int threads);
// Times oneDNN on `problem`, reading `src` (the same bytes pooljit reads).
PeerResult onednn_time(const pooljit::Problem& problem, const void* src, const TimingPlan& plan);

}  // namespace pooljit_bench
