// Separable rows with indices (planar 2-D, 32-bit index lanes beside 32-bit compare lanes): the passes of
// emit_separable, each maximum's index lanes carried beside it. Every input row of a group is converted into its
// padded row as there. A row maximum then takes its taps first to last, a later one only where it is greater,
// and with it that tap's index from the index row: a constant of the plan in the code's data, one 32-bit lane
// per lane of the padded row, holding the width part of its position's index (w x index_mult_w); the row's own
// part is added as the maxima are stored, beside their values. Each output row merges its rows of maxima first
// to last the same way. So ties keep the earlier row and, within it, the earlier tap: the first maximum in scan
// order (kh, kw).
//
// Padding holds the empty value, which a later real tap replaces only where it is greater, so a window that
// starts in the padding and whose real taps all hold the empty value keeps its padded first tap. The index row
// gives a position before the input the index of its window's first real tap: the first real position at a
// whole number of dilations on, w mod dilation, the same for every window through it (the planner takes rows
// whose every window along the width has a real tap). Positions after the input come after a window's real taps
// and are never taken.
#include "jit/emit/window_emitter.hpp"
#include "jit/isa/vec_avx2.hpp"
#include "jit/isa/vec_avx512.hpp"

#include <utility>
#include <vector>

namespace pooljit::jit {

namespace {
// `vectors` in blocks of at most `V`: `blocks` whole ones, then the last ones (fewer than 2V) in two blocks as
// even as may be, so that no block holds one or two chains where the others hold V (each chain a maximum's
// compare and blends in turn: the chains in flight, not the instructions, bound the time).
std::pair<std::int64_t, std::vector<int>> balanced_blocks(std::int64_t vectors, int V) {
    if (vectors % V == 0 || vectors < V) return {vectors / V, vectors % V == 0 ? std::vector<int>{} : std::vector<int>{static_cast<int>(vectors)}};
    const std::int64_t last = V + vectors % V;
    return {vectors / V - 1, {static_cast<int>((last + 1) / 2), static_cast<int>(last / 2)}};
}
}  // namespace

// The index row: lane b of the padded row (phase b / phase_lanes) holds the width part of its position's index.
template <typename Ops>
std::vector<std::int32_t> WindowEmitter<Ops>::separable_index_row() const {
    const SeparableRows& sep = plan_.separable;
    std::vector<std::int32_t> row(static_cast<std::size_t>(sep.row_lanes()));
    for (std::int64_t b = 0; b < sep.row_lanes(); ++b) {
        const int phase = static_cast<int>(b / sep.phase_lanes);
        const std::int64_t lane = b % sep.phase_lanes - sep.lead_lanes[static_cast<std::size_t>(phase)];
        const std::int64_t padded = sep.phases == 1 ? lane : 2 * lane + phase;  // phase p holds positions of parity p
        std::int64_t w = padded - sep.pad_lanes;
        if (w < 0) w = (w % plan_.dilation_w + plan_.dilation_w) % plan_.dilation_w;
        w = std::min(w, plan_.in_width - 1);
        row[static_cast<std::size_t>(b)] = static_cast<std::int32_t>(w * plan_.index_mult_w);
    }
    return row;
}

template <typename Ops>
void WindowEmitter<Ops>::emit_separable_indices(Label& other_calls, Label& done) {
    const SeparableRows& sep = plan_.separable;
    const std::int64_t lb = lane_bytes(plan_.compare), L = plan_.lanes, vb = Ops::vector_bytes;
    if (nxc_ || !plan_.has_indices || plan_.spatial_rank != 2 || plan_.stride_w > 2 || sep.row_step < 1 ||
        lb != 4 || plan_.index_lanes_64 || plan_.index_relative_to_window || L * lb != vb)
        throw Error("jit: separable rows with indices are planar 2-D rows of 32-bit lanes, at most stride 2 along the width");
    // A row of maxima: its value vectors, then as many index vectors.
    const std::int64_t values_bytes = sep.maxima_vectors * vb, maxima_bytes = 2 * values_bytes;
    const std::vector<int> accs = separable_accumulators(), idxs = separable_index_registers();
    const int V = static_cast<int>(accs.size());
    if (V < 2) throw Error("jit: separable rows need two accumulators");
    const auto acc = [&](int i) { return vec(accs[static_cast<std::size_t>(i)]); };
    const auto idx = [&](int i) { return vec(idxs[static_cast<std::size_t>(i)]); };
    // chan_base holds the input row's index part during the row passes, the channel part at the stores.
    const Vmm fresh = vec(regs_.fresh), row_part = vec(regs_.chan_base), scratch = vec(regs_.scratch);

    // Registers: as emit_separable; tap_index_ the input row's index part (row passes); tap_count_ the index row
    // beside window_ (row passes) or rows left to merge (merges); item_count_ blocks left (row passes) or output
    // rows left (merges); dst_ and indices_ the outputs from slot_sep_dst and slot_sep_indices, big_offset_ the
    // lane table. The call's row slots are left as they were, for the row code.
    const Reg64 &rows = tap_ptr_, &maxima = window_index_, &group = h_index_, &index_row = tap_count_;
    Label leave;
    begin_separable_call(other_calls, sep.buffered_rows() * sep.row_lanes() * lb);
    for (const auto& [from, to] : {std::pair{slot_row_dst, slot_sep_dst}, std::pair{slot_row_indices, slot_sep_indices},
                                   std::pair{slot_index_base, slot_sep_index_base},
                                   std::pair{slot_channel_index_base, slot_sep_channel_base}}) {
        mov(scratch_, ptr[rsp + from]);
        mov(ptr[rsp + to], scratch_);
    }

    Label group_loop;
    begin_separable_group(group_loop);
    convert_separable_rows(leave);

    // The maxima of each output's width taps, row by row, V output vectors at a time (window_ in the padded
    // row, index_row beside it in the index row, h_ptr_ over the rows of maxima), with their indices plus the
    // row's part.
    {
        const auto reduce_block = [&](int outputs) {
            for (std::int64_t t = 0; t < plan_.kernel_w; ++t) {
                const std::int64_t lane = t * plan_.dilation_w;
                const int phase = static_cast<int>(lane % sep.phases);
                for (int v = 0; v < outputs; ++v) {
                    const auto offset = static_cast<std::int32_t>(
                        (separable_phase_lane(phase, lane / sep.phases) + std::int64_t{v} * L) * lb);
                    if (t == 0) {
                        vmovups(acc(v), ptr[window_ + offset]);
                        vmovups(idx(v), ptr[index_row + offset]);
                        continue;
                    }
                    vmovups(fresh, ptr[window_ + offset]);
                    ops_.compute_take_fast(fresh, acc(v));
                    ops_.take_fast(acc(v), fresh);
                    ops_.blend_take_index_from(idx(v), ptr[index_row + offset]);
                }
            }
            for (int v = 0; v < outputs; ++v) {
                ops_.add_lanes(idx(v), row_part, false);
                vmovups(ptr[h_ptr_ + static_cast<std::int32_t>(v * vb)], acc(v));
                vmovups(ptr[h_ptr_ + static_cast<std::int32_t>(values_bytes + v * vb)], idx(v));
            }
        };
        // Each row of maxima also asks for the lines of an output row of the group (past its last, the next
        // group's), to be written (PREFETCHW, a NOP on CPUs without it: Intel before Broadwell): the merges'
        // stores then find their lines in the cache, where a burst of stores that missed filled the store queue
        // and held up the merges (a cold dilated 3x3 over 56x56 with s64 indices spent a third of its time after
        // the index stores).
        const auto prefetch_row = [&](const Reg64& row, std::int64_t bytes) {
            for (std::int64_t offset = 0; offset < bytes; offset += 64) prefetchw(ptr[row + static_cast<std::int32_t>(offset)]);
        };
        mov(dst_, ptr[rsp + slot_sep_dst]);
        mov(scratch_, ptr[rsp + slot_sep_indices]);
        mov(ptr[rsp + slot_sep_prefetch_indices], scratch_);
        Label maxima_row;
        mov(tap_index_, ptr[rsp + slot_sep_index_base]);
        separable_group_input_rows(h_count_);
        mov(indices_, rows);
        mov(h_ptr_, maxima);
        place(maxima_row);
        mov(window_, indices_);
        prefetch_row(dst_, plan_.out_width * elem());
        add(dst_, ptr[rsp + slot_dst_row_step]);
        mov(scratch_, ptr[rsp + slot_sep_prefetch_indices]);
        prefetch_row(scratch_, plan_.out_width * index_elem());
        add(scratch_, ptr[rsp + slot_indices_row_step]);
        mov(ptr[rsp + slot_sep_prefetch_indices], scratch_);
        lea(index_row, ptr[rip + separable_index_row_]);
        ops_.broadcast_gpr(row_part, tap_index_, false);
        // `vectors` output vectors, then the three pointers past them.
        const auto reduce_and_step = [&](int vectors) {
            reduce_block(vectors);
            for (const Reg64& r : {window_, index_row, h_ptr_}) add(r, static_cast<std::int32_t>(vectors * vb));
        };
        const auto [blocks, tails] = balanced_blocks(sep.maxima_vectors, V);
        repeat(blocks, [&] { reduce_and_step(V); });  // (item_count_ counts)
        std::int64_t done_vectors = 0;
        for (const int vectors : tails) {
            reduce_and_step(vectors);
            done_vectors += vectors;
        }
        add(h_ptr_, static_cast<std::int32_t>(maxima_bytes - blocks * V * vb - done_vectors * vb));
        add(indices_, static_cast<std::int32_t>(sep.row_lanes() * lb));
        add_imm(tap_index_, plan_.index_tap_step_h);
        dec(h_count_);
        jnz(maxima_row, T_NEAR);
    }

    // Output rows of the group: row i merges rows of maxima i * row_step .. i * row_step + taps_h - 1 first to
    // last, V vectors at a time (h_ptr_ the row's first row of maxima, window_ the row being merged).
    {
        const std::int64_t entry = plan_.wide_index_math ? 8 : 4;
        const auto merge_block = [&](int vectors, std::int64_t first_vector) {
            const auto value_at = [&](const Reg64& row, int v) {
                return ptr[row + static_cast<std::int32_t>((first_vector + v) * vb)];
            };
            const auto index_at = [&](const Reg64& row, int v) {
                return ptr[row + static_cast<std::int32_t>(values_bytes + (first_vector + v) * vb)];
            };
            Label merge_loop, merged;
            for (int v = 0; v < vectors; ++v) {
                vmovups(acc(v), value_at(h_ptr_, v));
                vmovups(idx(v), index_at(h_ptr_, v));
            }
            mov(window_, h_ptr_);
            mov(tap_count_, ptr[rsp + slot_taps_h]);
            dec(tap_count_);
            jz(merged, T_NEAR);
            place(merge_loop);
            add(window_, static_cast<std::int32_t>(maxima_bytes));
            for (int v = 0; v < vectors; ++v) {
                vmovups(fresh, value_at(window_, v));
                ops_.compute_take_fast(fresh, acc(v));
                ops_.take_fast(acc(v), fresh);
                ops_.blend_take_index_from(idx(v), index_at(window_, v));
            }
            dec(tap_count_);
            jnz(merge_loop, T_NEAR);
            place(merged);
            lea(big_offset_, ptr[rip + lane_table(0)]);
            for (int v = 0; v < vectors; ++v) {
                const std::int64_t first_lane = (first_vector + v) * L;
                const int valid = static_cast<int>(std::min<std::int64_t>(L, plan_.out_width - first_lane));
                ops_.store_value(ptr[dst_ + static_cast<std::int32_t>(first_lane * elem())], acc(v), scratch, valid);
                const LaneAddress table = [&, entry](int lane) {
                    return ptr[big_offset_ + static_cast<std::int32_t>(lane * entry)];
                };
                const LaneAddress out = [&, first_lane](int lane) {
                    return ptr[indices_ + static_cast<std::int32_t>((first_lane + lane) * index_elem())];
                };
                ops_.store_indices(out, table, idx(v), row_part, vec(regs_.minus_one), scratch, valid, false);
            }
        };
        Label output_row;
        mov(h_ptr_, maxima);  // the group's next output row's first row of maxima
        mov(item_count_, group);
        place(output_row);
        load_separable_output_row(row_part);
        const auto [blocks, tails] = balanced_blocks(sep.maxima_vectors, V);
        std::int64_t first = 0;
        for (std::int64_t b = 0; b < blocks; ++b, first += V) merge_block(V, first);
        for (const int vectors : tails) {
            merge_block(vectors, first);
            first += vectors;
        }
        next_separable_output_row();
        add(h_ptr_, static_cast<std::int32_t>(sep.row_step * maxima_bytes));
        dec(item_count_);
        jnz(output_row, T_NEAR);
    }

    close_separable_index_group(group, group_loop, done, leave, other_calls);
}

template std::vector<std::int32_t> WindowEmitter<Avx512Ops>::separable_index_row() const;
template void WindowEmitter<Avx512Ops>::emit_separable_indices(Label&, Label&);
template std::vector<std::int32_t> WindowEmitter<Avx2Ops>::separable_index_row() const;
template void WindowEmitter<Avx2Ops>::emit_separable_indices(Label&, Label&);

}  // namespace pooljit::jit
