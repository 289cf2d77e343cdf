// Tap passes (channels last, calls that sweep many channel blocks over wide pixels): an item's window is
// computed in passes of at most KernelPlan::tap_pass_taps width taps of one input row, each pass over every
// block of the call, the partial maxima kept in the output between passes. The taps of a pass are that many
// address-ordered streams through the call's channels; block by block they were a pixel's width apart.
// Without indices and from the lowest value only (the fast copy, or integer rows), so the fold over the taps
// is the same sequence of maxima as block by block: the same bits.
#include "jit/emit/window_emitter.hpp"
#include "jit/isa/vec_avx2.hpp"
#include "jit/isa/vec_avx512.hpp"

namespace pooljit::jit {

// One output pixel of the call: every swept block, block by block or in tap passes.
template <typename Ops>
void WindowEmitter<Ops>::emit_swept_item(const ItemShape& s, std::int64_t taps) {
    if (plan_.tap_pass_taps > 0 && sweep_ > 1 && !exact_row() && taps > 0) emit_tap_passes(s, taps);
    else for_each_channel_block([&] { emit_item(s, taps); });
}

// The window's outer rows loop at run time as in emit_window_taps; within each, its width taps in passes.
// Registers: without indices the index registers are free, so tap_index_ holds the pass's first tap and
// h_index_ the destination block of emit_tap_pass.
template <typename Ops>
void WindowEmitter<Ops>::emit_tap_passes(const ItemShape& s, std::int64_t taps) {
    if (plan_.has_indices) throw Error("jit: tap passes are for values without indices");
    // Every block's maximum starts as the lowest value, in the output.
    for_each_channel_block([&] { store_empty_item(s); });
    const bool h_axis = plan_.spatial_rank >= 2;
    const std::int64_t per_pass = plan_.tap_pass_taps, full_passes = taps / per_pass, rest = taps % per_pass;
    Label d_loop, h_loop, pass_loop;
    mov(d_ptr_, window_);
    start_outer_d_count();
    place(d_loop);
    mov(h_ptr_, d_ptr_);
    if (h_axis) mov(h_count_, ptr[rsp + slot_taps_h]);
    place(h_loop);
    mov(tap_index_, h_ptr_);
    if (full_passes > 1) {
        mov(qword[rsp + slot_passes_left], static_cast<std::int32_t>(full_passes));
        place(pass_loop);
    }
    if (full_passes > 0) {
        emit_tap_pass(s, per_pass);
        add_imm(tap_index_, wrap_mul(per_pass, plan_.src_tap_stride_w));
    }
    if (full_passes > 1) {
        dec(qword[rsp + slot_passes_left]);
        jnz(pass_loop, T_NEAR);
    }
    if (rest > 0) emit_tap_pass(s, rest);
    close_outer_rows(h_loop, d_loop);
}

// `taps` width taps from tap_index_ merged into every block's partial maximum: loaded from the output,
// merged, stored back.
template <typename Ops>
void WindowEmitter<Ops>::emit_tap_pass(const ItemShape& s, std::int64_t taps) {
    const std::int64_t block_bytes = block_lanes_ * elem();
    const Reg64& block_dst = h_index_;
    Label block_loop;
    mov(tap_ptr_, tap_index_);
    mov(block_dst, dst_);
    mov(tap_count_, ptr[rsp + slot_sweep_blocks]);
    place(block_loop);
    // Widened pairs (bf16) hold their partial maxima as even and odd elements: loaded and stored the same way.
    for (int v = 0; v < vectors(s); ++v) {
        const Address partial = at(block_dst, std::int64_t{v} * plan_.lanes * elem());
        if (widened_pair(s, v)) {
            ops_.load_widened_pair(vec(regs_.acc[v]), vec(regs_.acc[v + 1]), partial, pair_valid(s, v));
            ++v;
            continue;
        }
        ops_.load_value(vec(regs_.acc[v]), partial, valid(s, v));
    }
    for (std::int64_t t = 0; t < taps; ++t) merge_tap(s, tap_ptr_, wrap_mul(t, plan_.src_tap_stride_w), true);
    for (int v = 0; v < vectors(s); ++v) {
        const Address partial = at(block_dst, std::int64_t{v} * plan_.lanes * elem());
        if (widened_pair(s, v)) {
            ops_.store_widened_pair(partial, vec(regs_.acc[v]), vec(regs_.acc[v + 1]), valid(s, v) + valid(s, v + 1));
            ++v;
            continue;
        }
        ops_.store_value(partial, vec(regs_.acc[v]), vec(regs_.scratch), valid(s, v));
    }
    add_imm(tap_ptr_, block_bytes);
    add_imm(block_dst, block_bytes);
    dec(tap_count_);
    jnz(block_loop, T_NEAR);
}

// For the two traits compile() picks; emit_window.cpp instantiates the rest of the class.
template void WindowEmitter<Avx512Ops>::emit_swept_item(const ItemShape&, std::int64_t);
template void WindowEmitter<Avx512Ops>::emit_tap_passes(const ItemShape&, std::int64_t);
template void WindowEmitter<Avx512Ops>::emit_tap_pass(const ItemShape&, std::int64_t);
template void WindowEmitter<Avx2Ops>::emit_swept_item(const ItemShape&, std::int64_t);
template void WindowEmitter<Avx2Ops>::emit_tap_passes(const ItemShape&, std::int64_t);
template void WindowEmitter<Avx2Ops>::emit_tap_pass(const ItemShape&, std::int64_t);

}  // namespace pooljit::jit
