// Tap passes (channels last, calls that sweep many channel blocks over wide pixels): an item's window is
// computed in passes of at most KernelPlan::tap_pass_taps width taps of one input row, each pass over every
// block of the call, the partial maxima kept in the output between passes (with indices, each block's index
// lanes in a buffer on the stack, stored as indices after the last pass). The taps of a pass are that many
// address-ordered streams through the call's channels; block by block they were a pixel's width apart.
// From the lowest value only (the fast copy, or integer rows), so the fold over the taps is the same sequence of
// maxima and strict compares as block by block: the same bits, and the same index.
#include "jit/emit/window_emitter.hpp"
#include "jit/isa/vec_avx2.hpp"
#include "jit/isa/vec_avx512.hpp"
#include "jit/plan/planner.hpp"

namespace pooljit::jit {

// One output pixel of the call: every swept block, block by block or in tap passes.
template <typename Ops>
void WindowEmitter<Ops>::emit_swept_item(const ItemShape& s, std::int64_t taps) {
    if (plan_.tap_pass_taps > 0 && sweep_ > 1 && !exact_row() && taps > 0) emit_tap_passes(s, taps);
    else for_each_channel_block([&] { emit_item(s, taps); });
}

// The window's outer rows loop at run time as in emit_window_taps; within each, its width taps in passes.
// Registers: the index registers of the row code are free here (with indices, the tap indices go through the
// stack slots), so tap_index_ holds the pass's first tap and h_index_ the destination block of emit_tap_pass.
template <typename Ops>
void WindowEmitter<Ops>::emit_tap_passes(const ItemShape& s, std::int64_t taps) {
    static_assert(slot_pass_tap_indices + 4 * max_unrolled_width_taps <= separable_area + tap_pass_slot_bytes);
    const bool indices = plan_.has_indices;
    if (indices && (plan_.index_lanes_64 || plan_.index_relative_to_window || lane_bytes(plan_.compare) != 4 ||
                    plan_.tap_pass_taps > max_unrolled_width_taps))
        throw Error("jit: tap passes carry 32-bit spatial index lanes beside 32-bit compare lanes");
    // Every block's maximum starts as the lowest value, in the output.
    if (indices) start_tap_pass_indices(s);
    else for_each_channel_block([&] { store_empty_item(s); });
    const bool h_axis = plan_.spatial_rank >= 2, d_axis = plan_.spatial_rank >= 3;
    const std::int64_t per_pass = plan_.tap_pass_taps, full_passes = taps / per_pass, rest = taps % per_pass;
    // With indices: the index of the pass's first tap, of its row's and of its plane's (emit_window_taps' walk).
    const auto step_slot = [&](int slot, std::int64_t step) {
        mov(scratch_, ptr[rsp + slot]);
        add_imm(scratch_, step);
        mov(ptr[rsp + slot], scratch_);
    };
    const auto copy_slot = [&](int to, int from) {
        mov(scratch_, ptr[rsp + from]);
        mov(ptr[rsp + to], scratch_);
    };
    Label d_loop, h_loop, pass_loop;
    mov(d_ptr_, window_);
    if (indices) mov(ptr[rsp + slot_d_index], window_index_);
    start_outer_d_count();
    place(d_loop);
    mov(h_ptr_, d_ptr_);
    if (indices) copy_slot(slot_pass_row_index, slot_d_index);
    if (h_axis) mov(h_count_, ptr[rsp + slot_taps_h]);
    place(h_loop);
    mov(tap_index_, h_ptr_);
    if (indices) copy_slot(slot_pass_index, slot_pass_row_index);
    if (full_passes > 1) {
        mov(qword[rsp + slot_passes_left], static_cast<std::int32_t>(full_passes));
        place(pass_loop);
    }
    if (full_passes > 0) {
        emit_tap_pass(s, per_pass);
        add_imm(tap_index_, wrap_mul(per_pass, plan_.src_tap_stride_w));
        if (indices) step_slot(slot_pass_index, wrap_mul(per_pass, plan_.index_tap_step_w));
    }
    if (full_passes > 1) {
        dec(qword[rsp + slot_passes_left]);
        jnz(pass_loop, T_NEAR);
    }
    if (rest > 0) emit_tap_pass(s, rest);
    if (!indices) {
        close_outer_rows(h_loop, d_loop);
        return;
    }
    if (h_axis) {
        add_imm(h_ptr_, plan_.src_tap_stride_h);
        step_slot(slot_pass_row_index, plan_.index_tap_step_h);
        dec(h_count_);
        jnz(h_loop, T_NEAR);
    }
    if (d_axis) {
        add_imm(d_ptr_, plan_.src_tap_stride_d);
        step_slot(slot_d_index, plan_.index_tap_step_d);
        dec(qword[rsp + slot_d_count]);
        jnz(d_loop, T_NEAR);
    }
    store_tap_pass_indices(s);
}

// The stack area of tap passes with indices: their slots, then the index lanes of every block a call sweeps, an
// index vector beside each compare vector.
template <typename Ops>
std::int64_t WindowEmitter<Ops>::tap_pass_buffer_bytes() const {
    return tap_pass_slot_bytes + plan_.channel_sweep * plan_.vectors_per_block * Ops::vector_bytes;
}

// Tap passes with indices: the buffer, aligned to a cache line, in slot_pass_buffer and the end of this call's
// blocks in slot_pass_buffer_end; every block's maximum starts as the lowest value in the output and its index
// lanes as the window's first tap's (kept where every element is the lowest, as init_lowest's).
template <typename Ops>
void WindowEmitter<Ops>::start_tap_pass_indices(const ItemShape& s) {
    const std::int64_t block_bytes = std::int64_t{vectors(s)} * Ops::vector_bytes;
    lea(tap_ptr_, ptr[rsp + separable_area + tap_pass_slot_bytes + 63]);
    and_(tap_ptr_, -64);
    mov(ptr[rsp + slot_pass_buffer], tap_ptr_);
    mov(scratch_, ptr[rsp + slot_sweep_blocks]);
    mul_imm(scratch_, block_bytes);
    add(scratch_, tap_ptr_);
    mov(ptr[rsp + slot_pass_buffer_end], scratch_);
    ops_.broadcast_gpr(vec(regs_.fresh), window_index_, false);
    for_each_channel_block([&] {
        for (int v = 0; v < vectors(s); ++v) {
            const std::int64_t first_lane = std::int64_t{v} * plan_.lanes;
            ops_.store_value(at(dst_, first_lane * elem()), vec(regs_.empty_value), vec(regs_.scratch), valid(s, v));
            vmovups(ptr[tap_ptr_ + v * Ops::vector_bytes], vec(regs_.fresh));
        }
        add_imm(tap_ptr_, block_bytes);
    });
}

// After the last pass: each block's index lanes from the buffer to the indices output, as store_item's.
template <typename Ops>
void WindowEmitter<Ops>::store_tap_pass_indices(const ItemShape& s) {
    mov(tap_ptr_, ptr[rsp + slot_pass_buffer]);
    for_each_channel_block([&] {
        for (int v = 0; v < vectors(s); ++v) {
            vmovups(vec(regs_.idx[v]), ptr[tap_ptr_ + v * Ops::vector_bytes]);
            store_lane_indices(s, v, vec(regs_.chan_base), false);
        }
        add_imm(tap_ptr_, std::int64_t{vectors(s)} * Ops::vector_bytes);
    });
}

// `taps` width taps from tap_index_ merged into every block's partial maximum: loaded from the output,
// merged, stored back (with indices, each tap's index from the pass's slots, each block's index lanes from the
// buffer and back).
template <typename Ops>
void WindowEmitter<Ops>::emit_tap_pass(const ItemShape& s, std::int64_t taps) {
    const bool indices = plan_.has_indices;
    const std::int64_t block_bytes = block_lanes_ * elem(), index_bytes = std::int64_t{vectors(s)} * Ops::vector_bytes;
    const Reg64& block_dst = h_index_;
    Label block_loop;
    if (indices) {
        // The pass's tap indices, 32-bit (the plan's indices lie below 2^31), and the first block's index lanes.
        for (std::int64_t t = 0; t < taps; ++t) {
            mov(scratch_, ptr[rsp + slot_pass_index]);
            add_imm(scratch_, wrap_mul(t, plan_.index_tap_step_w));
            mov(dword[rsp + slot_pass_tap_indices + 4 * static_cast<int>(t)], scratch_.cvt32());
        }
        mov(tap_count_, ptr[rsp + slot_pass_buffer]);
    }
    mov(tap_ptr_, tap_index_);
    mov(block_dst, dst_);
    if (!indices) mov(tap_count_, ptr[rsp + slot_sweep_blocks]);
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
        if (indices) vmovups(vec(regs_.idx[v]), ptr[tap_count_ + v * Ops::vector_bytes]);
    }
    for (std::int64_t t = 0; t < taps; ++t) {
        if (indices) {
            ops_.prepare_tap_index_from(dword[rsp + slot_pass_tap_indices + 4 * static_cast<int>(t)]);
            merge_tap(s, tap_ptr_, wrap_mul(t, plan_.src_tap_stride_w), true, -1, true);
        } else {
            merge_tap(s, tap_ptr_, wrap_mul(t, plan_.src_tap_stride_w), true);
        }
    }
    for (int v = 0; v < vectors(s); ++v) {
        const Address partial = at(block_dst, std::int64_t{v} * plan_.lanes * elem());
        if (widened_pair(s, v)) {
            ops_.store_widened_pair(partial, vec(regs_.acc[v]), vec(regs_.acc[v + 1]), valid(s, v) + valid(s, v + 1));
            ++v;
            continue;
        }
        ops_.store_value(partial, vec(regs_.acc[v]), vec(regs_.scratch), valid(s, v));
        if (indices) vmovups(ptr[tap_count_ + v * Ops::vector_bytes], vec(regs_.idx[v]));
    }
    add_imm(tap_ptr_, block_bytes);
    add_imm(block_dst, block_bytes);
    if (indices) {
        add_imm(tap_count_, index_bytes);
        cmp(tap_count_, ptr[rsp + slot_pass_buffer_end]);
        jb(block_loop, T_NEAR);
    } else {
        dec(tap_count_);
        jnz(block_loop, T_NEAR);
    }
}

// For the two traits compile() picks; emit_window.cpp instantiates the rest of the class.
template void WindowEmitter<Avx512Ops>::emit_swept_item(const ItemShape&, std::int64_t);
template void WindowEmitter<Avx512Ops>::emit_tap_passes(const ItemShape&, std::int64_t);
template void WindowEmitter<Avx512Ops>::emit_tap_pass(const ItemShape&, std::int64_t);
template std::int64_t WindowEmitter<Avx512Ops>::tap_pass_buffer_bytes() const;
template void WindowEmitter<Avx512Ops>::start_tap_pass_indices(const ItemShape&);
template void WindowEmitter<Avx512Ops>::store_tap_pass_indices(const ItemShape&);
template void WindowEmitter<Avx2Ops>::emit_swept_item(const ItemShape&, std::int64_t);
template void WindowEmitter<Avx2Ops>::emit_tap_passes(const ItemShape&, std::int64_t);
template void WindowEmitter<Avx2Ops>::emit_tap_pass(const ItemShape&, std::int64_t);
template std::int64_t WindowEmitter<Avx2Ops>::tap_pass_buffer_bytes() const;
template void WindowEmitter<Avx2Ops>::start_tap_pass_indices(const ItemShape&);
template void WindowEmitter<Avx2Ops>::store_tap_pass_indices(const ItemShape&);

}  // namespace pooljit::jit
