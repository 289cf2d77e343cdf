// The computed-window walk, for windows too irregular for segments (adaptive pooling with uneven windows, or
// windows far wider than the input): each output's first tap, tap count and position are computed at run time,
// one output per item, with the runs of empty outputs at either end stored without computing anything.
#include "jit/emit/window_emitter.hpp"
#include "jit/isa/vec_avx2.hpp"
#include "jit/isa/vec_avx512.hpp"

namespace pooljit::jit {

// rax = (rax - 1) / divisor + 1 for rax >= 1 (unsigned: the ceiling of the original rax / divisor).
// Clobbers rdx and scratch; dst_ (rdx) is saved by the caller.
template <typename Ops>
void WindowEmitter<Ops>::ceil_div_rax(std::uint64_t divisor) {
    if (divisor == 1) return;
    dec(rax);
    xor_(edx, edx);
    mov(scratch_, divisor);
    div(scratch_);
    inc(rax);
}

// The window of the output at slot_walk_position, into window_, window_index_ and slot_item_taps; jumps to
// `empty` when it has no real tap. Max pooling (position p = o * stride in padded coordinates, below
// pad + in): first tap kb = p >= pad ? 0 : ceil((pad - p) / d), end ke = min(k, ceil((pad + in - p) / d)).
// Adaptive (position o): [o*in/out, ceil((o+1)*in/out)) from 128-bit products.
template <typename Ops>
void WindowEmitter<Ops>::compute_window(Label& empty) {
    const ComputedWindows& w = plan_.walk;
    mov(ptr[rsp + slot_saved_dst], dst_);  // mul and div use rdx
    if (w.adaptive) {
        mov(rax, ptr[rsp + slot_walk_position]);
        mov(scratch_, w.in);
        mul(scratch_);
        mov(scratch_, w.out);
        div(scratch_);
        mov(window_index_, rax);  // first position
        mov(rax, ptr[rsp + slot_walk_position]);
        inc(rax);
        mov(scratch_, w.in);
        mul(scratch_);
        mov(scratch_, w.out - 1);
        add(rax, scratch_);
        adc(rdx, 0);
        mov(scratch_, w.out);
        div(scratch_);
        sub(rax, window_index_);  // taps (never 0: adaptive windows are never empty)
        mov(ptr[rsp + slot_item_taps], rax);
        mov(rax, window_index_);
    } else {
        Label starts_inside, first_found;
        mov(window_, ptr[rsp + slot_walk_position]);
        mov(rax, w.pad);
        cmp(window_, rax);
        jae(starts_inside, T_NEAR);
        sub(rax, window_);
        ceil_div_rax(w.dilation);
        jmp(first_found, T_NEAR);
        place(starts_inside);
        xor_(eax, eax);
        place(first_found);
        mov(window_index_, rax);  // kb
        mov(rax, w.pad + w.in);
        sub(rax, window_);
        ceil_div_rax(w.dilation);
        mov(scratch_, w.kernel);
        cmp(rax, scratch_);
        cmova(rax, scratch_);  // ke
        mov(dst_, ptr[rsp + slot_saved_dst]);
        sub(rax, window_index_);
        jbe(empty, T_NEAR);  // ke <= kb
        mov(ptr[rsp + slot_item_taps], rax);
        // first position = p + kb * d - pad
        mov(rax, window_index_);
        mul_imm(rax, static_cast<std::int64_t>(w.dilation));
        add(rax, window_);
        mov(scratch_, w.pad);
        sub(rax, scratch_);
    }
    mov(dst_, ptr[rsp + slot_saved_dst]);
    mov(window_index_, rax);
    mul_imm(window_index_, plan_.index_mult_w);
    add(window_index_, ptr[rsp + slot_index_base]);
    mul_imm(rax, plan_.src_step_w);
    lea(window_, ptr[row_src_ + rax]);
}

// Computed windows: empty outputs before and after, one output per item in between.
template <typename Ops>
void WindowEmitter<Ops>::emit_computed_walk() {
    const ComputedWindows& w = plan_.walk;
    const ItemShape s = single_output_shape();
    const auto store_empties = [&](std::int64_t count) {
        repeat(count, [&] {
            for_each_channel_block([&] { store_empty_item(s); });
            advance_outputs(s.outputs);
        });
    };
    store_empties(w.empty_before);
    if (w.computed > 0) {
        Label item_loop, empty_item, next_item;
        mov(scratch_, w.adaptive ? static_cast<std::uint64_t>(w.empty_before) : w.first_padded_position);
        mov(ptr[rsp + slot_walk_position], scratch_);
        mov(scratch_, w.computed);
        mov(ptr[rsp + slot_items_left], scratch_);
        place(item_loop);
        compute_window(empty_item);
        for_each_channel_block([&] { emit_item(s, -1); });
        jmp(next_item, T_NEAR);
        place(empty_item);
        for_each_channel_block([&] { store_empty_item(s); });
        place(next_item);
        advance_outputs(s.outputs);
        mov(scratch_, w.adaptive ? std::uint64_t{1} : w.stride);
        add(ptr[rsp + slot_walk_position], scratch_);
        dec(qword[rsp + slot_items_left]);
        jnz(item_loop, T_NEAR);
    }
    store_empties(w.empty_after);
}

// For the two traits compile() picks; emit_window.cpp instantiates the rest of the class.
template void WindowEmitter<Avx512Ops>::emit_computed_walk();
template void WindowEmitter<Avx2Ops>::emit_computed_walk();

}  // namespace pooljit::jit
