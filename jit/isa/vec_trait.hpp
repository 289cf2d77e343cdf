// What every ISA trait (vec_avx512.hpp, vec_avx2.hpp) is given by the emitter, and the helpers they share.
// A trait spells each vector operation the emitters need by meaning: load with widening, compare-and-take,
// blends, narrowing stores, index stores. Partial vectors are always described by their count of valid lanes.
#pragma once

#include "jit/isa/lanes.hpp"

#include <xbyak/xbyak.h>

#include <cstdint>
#include <functional>

namespace pooljit::jit {

struct TraitResources {
    int take = -1;           // lanes where a fresh value replaces the accumulator
    int lane_mask = -1;      // transient lane masks (NaN lanes, compare scratch) on ISAs without opmasks
    int tail_mask = -1;      // the valid lanes of a partial vector on ISAs without opmasks
    int tap_index = -1;      // the current tap's index, broadcast, on ISAs without GPR broadcasts
    int wide_mask = -1;      // a lane mask widened to 64-bit lanes
    Xbyak::Reg64 scratch;    // a GPR the trait may clobber; never part of an address handed to the trait
};

// Addresses of lane `lane` of something (an index table, the indices output), for traits that split vectors.
using LaneAddress = std::function<Xbyak::Address(int lane)>;

// Copies `bytes` bytes between memory operands through a GPR, widest moves first (partial vectors on ISAs
// without masked narrow loads). The addresses must not use `through`.
inline void copy_bytes(Xbyak::CodeGenerator& g, const Xbyak::RegExp& to, const Xbyak::RegExp& from, int bytes,
                       const Xbyak::Reg64& through) {
    int done = 0;
    for (const int width : {8, 4, 2, 1}) {
        while (bytes - done >= width) {
            switch (width) {
                case 8: g.mov(through, g.qword[from + done]); g.mov(g.qword[to + done], through); break;
                case 4: g.mov(through.cvt32(), g.dword[from + done]); g.mov(g.dword[to + done], through.cvt32()); break;
                case 2: g.mov(through.cvt16(), g.word[from + done]); g.mov(g.word[to + done], through.cvt16()); break;
                default: g.mov(through.cvt8(), g.byte[from + done]); g.mov(g.byte[to + done], through.cvt8()); break;
            }
            done += width;
        }
    }
}

// sum += addend in f32 or f64 lanes (the NaN watch's running sums, either ISA).
template <typename Vmm>
void add_float_lanes(Xbyak::CodeGenerator& g, CompareType compare, const Vmm& sum, const Vmm& addend) {
    if (compare == CompareType::f64) g.vaddpd(sum, sum, addend);
    else g.vaddps(sum, sum, addend);
}

// dst <- first > second ? first : second, lane by lane: the second on ties and where either is NaN (integer
// maxima are the same either way). s64 is vpmaxsq, an AVX-512 instruction: the AVX2 trait compares and blends.
template <typename Vmm>
void max_keeping_second(Xbyak::CodeGenerator& g, CompareType compare, const Vmm& dst, const Vmm& first,
                        const Xbyak::Operand& second) {
    switch (compare) {
        case CompareType::f32: g.vmaxps(dst, first, second); break;
        case CompareType::f64: g.vmaxpd(dst, first, second); break;
        case CompareType::s32: g.vpmaxsd(dst, first, second); break;
        case CompareType::u32: g.vpmaxud(dst, first, second); break;
        case CompareType::s64: g.vpmaxsq(dst, first, second); break;
        case CompareType::u8: g.vpmaxub(dst, first, second); break;
        case CompareType::s8: g.vpmaxsb(dst, first, second); break;
    }
}

// v <- the empty-window value as a compare value (f16 and bf16: f32's -inf), in every lane.
template <typename Ops, typename Vmm>
void broadcast_empty_value(Ops& ops, const Vmm& v, const LaneFormat& format) {
    switch (format.dtype) {
        case DType::f32: case DType::bf16: case DType::f16: ops.broadcast_constant32(v, 0xFF800000u); break;
        case DType::s8: ops.broadcast_constant32(v, format.compare == CompareType::s8 ? 0x80808080u : 0xFFFFFF80u); break;
        case DType::u8: ops.broadcast_constant32(v, 0u); break;
        case DType::s32: ops.broadcast_constant32(v, 0x80000000u); break;
        case DType::f64: ops.broadcast_constant64(v, 0xFFF0000000000000ull); break;
        case DType::s64: ops.broadcast_constant64(v, 0x8000000000000000ull); break;
    }
}

}  // namespace pooljit::jit
