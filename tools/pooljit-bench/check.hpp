// --check: pooljit against the reference interpreter on the benchmark's own input, bit for bit on dst and
// exactly on indices, with guard bytes that catch a write past the end of either tensor.
#pragma once

#include "problems.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace pooljit_bench {

// Empty when pooljit and the reference agree; otherwise one line per difference found.
std::vector<std::string> check_against_reference(const Case& c, const pooljit::Primitive& primitive,
                                                 const std::vector<std::uint8_t>& src);

}  // namespace pooljit_bench
