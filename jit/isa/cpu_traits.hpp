// What this CPU's cores do with the ISAs, measured on the CPU itself (a capability, never a CPU name): the
// planner's rules pick a strategy's form by these, where one answer is right on one class of cores and wrong on
// another.
#pragma once

namespace pooljit::jit {

struct CpuTraits {
    // 512-bit vector operations run as two 256-bit halves (Zen 4): a zmm add retires at half the rate of a ymm
    // add, so AVX-512 code gains opmasks and registers but no throughput a byte.
    bool splits_512_bit_ops = false;
    // The measurement behind it: zmm adds' time over ymm adds' (0 where not measured).
    double zmm_over_ymm = 0;
    // AVX512_VBMI (after POOLJIT_CPU_MASK, read at each call): vpermi2b picks bytes from two registers, so u8/s8
    // planes in registers keep byte lanes. Not measured: a feature, part of the cache key.
    bool byte_permutes = false;

    friend bool operator==(const CpuTraits&, const CpuTraits&) = default;
};

// Measured once, at first need, where the CPU (after POOLJIT_CPU_MASK) runs AVX-512: independent vaddps chains
// on zmm and on ymm registers, a few hundred microseconds. POOLJIT_SPLIT_512=0|1 overrides the measurement (tests,
// and hosts whose measurement a neighbour's load disturbs); it is read once. byte_permutes is read at each call.
CpuTraits cpu_traits();

}  // namespace pooljit::jit
