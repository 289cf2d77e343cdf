// Width runs as one line, "[out_begin,out_end):taps[tap_begin,tap_end) " per run: what the planner tests compare
// and print.
#pragma once

#include "jit/plan/plan.hpp"

#include <string>
#include <vector>

namespace pooljit::testing {

inline std::string runs_string(const std::vector<jit::WidthRun>& runs) {
    std::string s;
    for (const jit::WidthRun& r : runs)
        s += "[" + std::to_string(r.out_begin) + "," + std::to_string(r.out_end) + "):taps[" + std::to_string(r.tap_begin) +
             "," + std::to_string(r.tap_end) + ") ";
    return s;
}

}  // namespace pooljit::testing
