// What a Primitive handle shares: the resolved problem, its tensor descriptors and the chosen implementation.
#pragma once

#include <pooljit/pooljit.hpp>

#include <string>

namespace pooljit::detail {

struct PrimitiveState {
    Problem problem;
    TensorDesc src, dst, indices;
    std::string impl_name;
    std::string problem_string;
};

}  // namespace pooljit::detail
