// What a Primitive handle shares: the resolved problem, its tensor descriptors and the chosen implementation.
#pragma once

#include "jit/kernel.hpp"

#include <pooljit/pooljit.hpp>

#include <memory>

#include <string>

namespace pooljit::detail {

struct PrimitiveState {
    Problem problem;
    TensorDesc src, dst, indices;
    std::string impl_name;
    std::string problem_string;
    std::string dispatch_log;  // why each implementation before the chosen one declined
    jit::KernelPlan plan;      // meaningful when kernel is set
    std::shared_ptr<const jit::CompiledKernel> kernel;  // null: the reference interpreter runs
};

}  // namespace pooljit::detail
