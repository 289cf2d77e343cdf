// What each ISA's trait can do, as the planner asks it: the planner chooses strategies from these capabilities
// and never from the ISA's name, so a new ISA (AVX-512 FP16, AVX10/256) is one new trait (vec_*.hpp) and one
// new row here. Each trait names its row (Ops::caps) and the emitters check the plan against it.
#pragma once

#include "jit/isa/isa.hpp"

namespace pooljit::jit {

struct IsaCaps {
    Isa isa = Isa::ref;
    int vector_bytes = 0;      // bytes of one vector register
    int vector_registers = 0;  // vector registers the code may use
    // Lane masks live in mask registers (AVX-512 opmasks): a load, merge or compare can touch any chosen lanes,
    // and masks cost no vector registers. Without them, masks are vectors (compare results and blends), and a
    // trait keeps a few vector registers for them.
    bool opmasks = false;
    // One instruction picks lanes from two registers by a table (vpermi2d/q): planes in registers.
    bool two_source_permutes = false;
    // Max of 8-bit lanes across a whole vector (vpmaxub/vpmaxsb): u8/s8 compared in their own bytes.
    bool byte_max = false;
    // Loads and stores of some 8- and 16-bit elements of a vector that touch no others (AVX-512BW masked moves).
    // Without them a partial vector of narrow elements goes through a stack area, element by element.
    bool masked_narrow_memory = false;
    // bf16 items load two vectors' elements at once and split them into the even and the odd elements as f32
    // (a shift, an and), storing them back with a shift and a word blend (load_widened_pair, store_widened_pair).
    bool widened_pairs = false;
    // Planar items at lane stride 2 of bf16, u8 or s8 load their span once and widen its even elements in
    // place (a shift, or a zero-extension of words and an and), with no deinterleave (load_even_elements).
    bool even_element_loads = false;
    // Planar items at lane stride 2 merge two neighbouring width taps from one pair of loads: the first tap's
    // lanes are the pair's even elements, the second's its odd ones (deinterleave_even, deinterleave_odd).
    bool paired_tap_loads = false;
    // bf16 lanes at stride 2 load each span as one word load under an opmask and shift each dword's even element
    // up in place (load_even_words): masked items too, since the opmask leaves out the words outside the input.
    bool even_word_loads = false;
    // Separable pixels of bf16 keep their buffers in widened pairs (load_widened_pair, store_widened_pair over
    // rows of pixels): built on the AVX2 trait, where the rules plan separable pixels. The AVX-512 rules keep the
    // column ring, and its pair stores do not serve the pixel rows (a chosen reuse=separable faulted there).
    bool widened_pair_pixels = false;
};

// The AVX-512 trait (vec_avx512.hpp): F, BW, VL, DQ on 32 zmm registers. Widened pairs and even-word loads: one
// masked word load and a shift (built on a Zen 4 host). Paired tap loads in plain items (their deinterleaves are
// two-register permutes; Xeon 2, 5 alternating rounds: VGG pool3 ncx f32 154 -> 145 us, 3-D k2 s2 602 -> 531).
// Even-element loads are not built for it: its planar rows at stride 2 are masked items, each tap under its own
// opmask.
inline constexpr IsaCaps avx512_caps{Isa::avx512, 64, 32, true, true, true, true, true, false, true, true, false};
// The AVX2 trait (vec_avx2.hpp): AVX2, FMA, F16C on 16 ymm registers.
inline constexpr IsaCaps avx2_caps{Isa::avx2, 32, 16, false, false, true, false, true, true, true, false, true};

// The capabilities of a JIT ISA; throws pooljit::Error for ref.
const IsaCaps& caps_of(Isa isa);

}  // namespace pooljit::jit
