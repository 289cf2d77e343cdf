// The NaN scan: one pass over a row's input that sends rows holding a NaN to the exact copy of the row code,
// so the fast copy can compare as if no NaN were present.
#include "jit/emit/window_emitter.hpp"
#include "jit/isa/vec_avx2.hpp"
#include "jit/isa/vec_avx512.hpp"

namespace pooljit::jit {

// Jumps to `has_nan` when any element of the input rows this call reads (every real d and h tap row, the
// whole width, or with width ranges the positions the call's windows reach; with rows >= 0, the `rows` h tap
// rows from `first_row` on, 2-D only) is NaN: a running sum per accumulator register turns NaN (so does +inf
// meeting -inf, or an overflow, which only costs the exact path). Elements no window reads may also send the
// row there.
template <typename Ops>
void WindowEmitter<Ops>::emit_nan_scan(Label& has_nan, std::int64_t first_row, std::int64_t rows) {
    if (rows != -1 && plan_.spatial_rank != 2) throw Error("jit: a NaN scan of some rows is for 2-D rows");
    const bool h_axis = plan_.spatial_rank >= 2;
    // nxc: one position (the call's channels: its blocks of vectors_per_block vectors) per step along the width;
    // ncx: vectors_per_block vectors of consecutive elements per step, then a partial step.
    const std::int64_t step_lanes = nxc_ ? block_lanes_ * sweep_ : std::int64_t{plan_.vectors_per_block} * plan_.lanes;
    const std::int64_t full_steps = nxc_ ? plan_.in_width : plan_.in_width / step_lanes;
    const std::int64_t rest = nxc_ ? 0 : plan_.in_width % step_lanes;
    const std::int64_t step_bytes = nxc_ ? plan_.src_step_w : step_lanes * elem();
    const int sums = plan_.vectors_per_block;
    // A call of some outputs of the row scans the positions their windows reach (below).
    const bool ranged = plan_.width_ranges && rows == -1;
    // Planar 16-bit floats whose plan says so test the elements as stored, 16 or 32 bytes at a time
    // (note_raw_half_nan; KernelPlan::scan_half_floats_as_stored).
    const bool raw = plan_.scan_half_floats_as_stored;
    const std::int64_t raw_bytes = (step_bytes % 32 == 0) ? 32 : 16;
    if (raw && (nxc_ || ranged || full_steps == 0 || step_bytes % 16 != 0))
        throw Error("jit: a scan of 16-bit floats as stored takes planar rows of whole steps of 16 or 32 bytes");
    Vmm sum_regs[max_vectors];
    for (int v = 0; v < sums; ++v) {
        sum_regs[v] = vec(regs_.acc[v]);
        ops_.begin_nan_watch(sum_regs[v]);
    }
    const auto add_step = [&](const Reg64& base, std::int64_t lanes) {
        if (raw) {
            for (std::int64_t at = 0, c = 0; at < step_bytes; at += raw_bytes, ++c)
                ops_.note_raw_half_nan(sum_regs[c % sums], vec(regs_.fresh), ptr[base + static_cast<std::int32_t>(at)],
                                       static_cast<int>(raw_bytes));
            return;
        }
        const ItemShape shape{lanes, 1, 1};
        for (int v = 0; v < vectors(shape); ++v) {
            load_item_vector(shape, v, base, 0, vec(regs_.fresh), false);
            ops_.note_nan(sum_regs[v % sums], vec(regs_.fresh));
        }
    };
    Label d_loop, h_loop, w_loop, scanned;
    mov(d_ptr_, row_src_);
    if (rows >= 0) add_imm(d_ptr_, wrap_mul(first_row, plan_.src_tap_stride_h));
    // A call of some outputs of the row scans the positions their windows reach:
    // [max(0, out_begin * stride - pad), min(in, (out_end - 1) * stride - pad + extent)).
    if (ranged) {
        if (!nxc_) throw Error("jit: width ranges are for channels-last rows");
        const std::int64_t extent = (plan_.kernel_w - 1) * plan_.dilation_w + 1;
        mov(scratch_, ptr[rsp + slot_out_begin]);
        mul_imm(scratch_, plan_.stride_w);
        add_imm(scratch_, -plan_.pad_w);
        xor_(tap_ptr_, tap_ptr_);
        cmp(scratch_, tap_ptr_);
        cmovl(scratch_, tap_ptr_);
        mov(tap_count_, ptr[rsp + slot_out_end]);
        dec(tap_count_);
        mul_imm(tap_count_, plan_.stride_w);
        add_imm(tap_count_, extent - plan_.pad_w);
        mov(tap_ptr_, plan_.in_width);
        cmp(tap_count_, tap_ptr_);
        cmovg(tap_count_, tap_ptr_);
        sub(tap_count_, scratch_);
        jle(scanned, T_NEAR);
        mov(ptr[rsp + slot_scan_steps], tap_count_);
        mul_imm(scratch_, plan_.src_step_w);
        add(d_ptr_, scratch_);
    }
    start_outer_d_count();
    place(d_loop);
    mov(h_ptr_, d_ptr_);
    if (h_axis && rows == scan_call_input_rows) {
        mov(h_count_, ptr[rsp + slot_rows]);
        add_imm(h_count_, plan_.ring_rows - 1);
    } else if (h_axis && rows >= 0) mov(h_count_, rows);
    else if (h_axis) mov(h_count_, ptr[rsp + slot_taps_h]);
    place(h_loop);
    mov(tap_ptr_, h_ptr_);
    if (full_steps > 0) {
        if (ranged) mov(tap_count_, ptr[rsp + slot_scan_steps]);
        else mov(tap_count_, full_steps);
        place(w_loop);
        add_step(tap_ptr_, step_lanes);
        add_imm(tap_ptr_, step_bytes);
        dec(tap_count_);
        jnz(w_loop, T_NEAR);
    }
    // The rest of a planar row ends the row: a whole step back from its end, where the row holds one (its
    // elements read twice change no sum's NaN), instead of a partial vector.
    if (rest > 0 && full_steps > 0) {
        add_imm(tap_ptr_, -(step_lanes - rest) * elem());
        add_step(tap_ptr_, step_lanes);
    } else if (rest > 0) {
        add_step(tap_ptr_, rest);
    }
    close_outer_rows(h_loop, d_loop);
    place(scanned);
    if (raw) return ops_.jump_if_raw_nan_seen(sum_regs, sums, has_nan);
    ops_.jump_if_nan_seen(sum_regs, sums, has_nan);
}

// For the two traits compile() picks; emit_window.cpp instantiates the rest of the class.
template void WindowEmitter<Avx512Ops>::emit_nan_scan(Label&, std::int64_t, std::int64_t);
template void WindowEmitter<Avx2Ops>::emit_nan_scan(Label&, std::int64_t, std::int64_t);

}  // namespace pooljit::jit
