// What a vector trait computes in: the element type in memory, the type its compares happen in, the lanes of a
// vector and the index lanes. A trait is built from these facts alone, never from a plan.
#pragma once

#include <pooljit/types.hpp>

namespace pooljit::jit {

// The type that comparisons happen in. Narrow types are widened to 32-bit lanes on load and narrowed back
// on store: bf16 by a 16-bit shift (exact, NaN payloads included), f16 through F16C (exact but for NaN: rows that
// may hold one carry each lane's raw bits beside the compared value, so a selected signalling NaN keeps its
// bits), s8/u8 by sign/zero extension.
// u8 and s8 (AVX-512, channels last, no indices) compare in their own bytes, 64 lanes per vector.
enum class CompareType { f32, f64, s32, u32, s64, u8, s8 };

// Bytes per compare lane.
inline int lane_bytes(CompareType c) {
    switch (c) {
        case CompareType::f64: case CompareType::s64: return 8;
        case CompareType::u8: case CompareType::s8: return 1;
        default: return 4;
    }
}

struct LaneFormat {
    DType dtype = DType::f32;                // elements in memory
    CompareType compare = CompareType::f32;  // what the lanes hold between load and store
    int lanes = 16;                          // compare lanes per vector
    NanPolicy nan = NanPolicy::propagate;    // which side of a compare keeps a NaN
    DType index_dtype = DType::s64;          // the indices output's elements
    bool index_lanes_64 = false;             // index lanes of 64 bits (the spatial part can exceed INT32_MAX)
};

}  // namespace pooljit::jit
