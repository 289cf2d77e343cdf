// Separable rows (KernelPlan::separable): planar 2-D calls without indices whose windows along h share input
// rows. Per pass over a group of output rows, each input row the group reads is converted once into a padded
// row of compare lanes (the empty value, the max's identity, on both sides); then the maxima of every output's
// width taps are taken from each padded row with plain loads (no border items, no gathers) into a buffer of row
// maxima; then each output row merges its taps_h buffered rows in row order. The rows of a group are converted
// before any is read back: a tap's unaligned load of a row just stored spans two stores still in flight, which
// cannot be forwarded and waited for them to reach the cache (a fifth of Inception's time). Rows first, each
// merge keeping the earlier on ties (vmax keeps its second operand), then the rows in order: the window's first
// maximum in scan order (kh, kw), as the rings (output rows one row of maxima apart merge in pairs that share
// all but one row, paired_output_rows). At stride 2 along the width the padded row is converted into
// its even and odd lanes (one shuffle pair per two input vectors), so that every width tap is one load, not a
// pair of loads and a shuffle: unaligned loads that split cache lines bounded the stem's width pass. Float input is watched for NaN while it is converted; a group that saw one sends the
// whole call to the row code, which applies the NaN policy (rows already stored are stored again, the same).
#include "jit/emit/window_emitter.hpp"
#include "jit/isa/vec_avx2.hpp"
#include "jit/isa/vec_avx512.hpp"

#include <algorithm>
#include <vector>

namespace pooljit::jit {

template <typename Ops>
std::int64_t WindowEmitter<Ops>::separable_buffer_bytes() const {
    const SeparableRows& sep = plan_.separable;
    if (!sep.enabled() || sep.byte_pairs) return 0;  // byte pairs read the input rows themselves
    const std::int64_t maxima_bytes = sep.maxima_vectors * Ops::vector_bytes;
    if (nxc_)  // one padded row of pixels, in whole cache lines, then the rows of maxima
        return separable_pixels_padded_bytes() + sep.buffered_rows() * maxima_bytes;
    // Planar: each buffered row's padded input, then its maxima (with indices, an index vector beside each).
    const std::int64_t maxima_row_bytes = plan_.has_indices ? 2 * maxima_bytes : maxima_bytes;
    return sep.buffered_rows() * (sep.row_lanes() * lane_bytes(plan_.compare) + maxima_row_bytes);
}

template <typename Ops>
int WindowEmitter<Ops>::frame_size() const {
    if (plan_.vertical_rows.enabled()) return vertical_rows_frame_bytes();
    if (!plan_.separable.enabled() && !tap_passes_with_indices()) return frame_bytes;
    // The slots, the buffers and room to align them to a cache line; a multiple of 16 plus 8 keeps rsp
    // 16-byte aligned after the six pushes.
    const std::int64_t buffers =
        std::max(tap_passes_with_indices() ? tap_pass_buffer_bytes() : std::int64_t{0}, separable_buffer_bytes());
    const std::int64_t bytes = separable_area + buffers + 64;
    return static_cast<int>((bytes + 15) / 16 * 16 + 8);
}

// Accumulators for separable rows and pixels: the block's, then the plan's maxima in flight beyond them.
template <typename Ops>
std::vector<int> WindowEmitter<Ops>::separable_accumulators() const {
    std::vector<int> accs;
    for (int v = 0; v < plan_.vectors_per_block; ++v) accs.push_back(regs_.acc[v]);
    for (int r = 0; r < plan_.separable.accumulators - plan_.vectors_per_block; ++r) accs.push_back(regs_.separable[r]);
    return accs;
}

// Separable pixels with indices: the index register beside each of separable_accumulators().
template <typename Ops>
std::vector<int> WindowEmitter<Ops>::separable_index_registers() const {
    std::vector<int> idx;
    const int vectors = plan_.vectors_per_block, extras = plan_.separable.accumulators - vectors;
    for (int v = 0; v < vectors; ++v) idx.push_back(regs_.idx[v]);
    for (int r = 0; r < extras; ++r) idx.push_back(regs_.separable[extras + r]);
    return idx;
}

// The start of a separable call (rows or pixels), in the registers both keep: calls the buffers serve (real taps
// along h, output rows row_step tap strides apart or one row; others go to `other_calls`); tap_ptr_ the padded
// row(s) on the stack, aligned to a cache line, and window_index_ the rows of maxima padded_bytes after them;
// d_ptr_ the call's rows left; row_src_ and dst_ its first rows; the NaN watch of float input cleared.
template <typename Ops>
void WindowEmitter<Ops>::begin_separable_call(Label& other_calls, std::int64_t padded_bytes) {
    mov(scratch_, ptr[rsp + slot_taps_h]);
    test(scratch_, scratch_);
    jz(other_calls, T_NEAR);
    Label one_row;
    mov(scratch_, ptr[rsp + slot_rows]);
    cmp(scratch_, 1);
    je(one_row, T_NEAR);
    mov(scratch_, ptr[rsp + slot_src_row_step]);
    mov(big_offset_, wrap_mul(plan_.separable.row_step, plan_.src_tap_stride_h));
    cmp(scratch_, big_offset_);
    jne(other_calls, T_NEAR);
    if (plan_.has_indices) {
        // The bytes cannot tell a source whose rows alias (a 0 stride along h) stepped by other rows; the
        // index base can.
        mov(scratch_, ptr[rsp + slot_index_base_row_step]);
        mov(big_offset_, wrap_mul(plan_.separable.row_step, plan_.index_tap_step_h));
        cmp(scratch_, big_offset_);
        jne(other_calls, T_NEAR);
    }
    place(one_row);

    lea(tap_ptr_, ptr[rsp + separable_area + 63]);
    and_(tap_ptr_, -64);
    lea(window_index_, ptr[tap_ptr_ + static_cast<std::int32_t>(padded_bytes)]);
    mov(d_ptr_, ptr[rsp + slot_rows]);
    mov(row_src_, ptr[rsp + slot_row_src]);
    mov(dst_, ptr[rsp + slot_row_dst]);
    if (plan_.is_float) ops_.begin_nan_watch(vec(regs_.plane_sum));
}

// A group's start: h_index_ its output rows, group_rows or the call's rows left (d_ptr_) if fewer.
template <typename Ops>
void WindowEmitter<Ops>::begin_separable_group(Label& group_loop) {
    place(group_loop);
    mov(h_index_, plan_.separable.group_rows);
    cmp(d_ptr_, h_index_);
    cmovl(h_index_, d_ptr_);
}

// r <- the input rows of the group (h_index_ output rows): (group - 1) * row_step + taps_h, one tap stride apart.
template <typename Ops>
void WindowEmitter<Ops>::separable_group_input_rows(const Reg64& r) {
    mov(r, h_index_);
    dec(r);
    mul_imm(r, plan_.separable.row_step);
    add(r, ptr[rsp + slot_taps_h]);
}

// After an input row of the group: row_src_ one tap stride on while h_count_ lasts; after the last, a float
// group that saw a NaN leaves for the row code (other_calls).
template <typename Ops>
void WindowEmitter<Ops>::close_separable_input_rows(Label& input_row, Label& other_calls) {
    add_imm(row_src_, plan_.src_tap_stride_h);
    dec(h_count_);
    jnz(input_row, T_NEAR);
    if (!plan_.is_float) return;
    const Vmm sum = vec(regs_.plane_sum);
    ops_.jump_if_nan_seen(&sum, 1, other_calls);
}

// Output rows in pairs (SeparableRows::paired_output_rows): `merge_pair` merges rows i and i + 1 from
// `first_maxima` (row i's first row of maxima) and leaves dst_ on row i + 2; pairs run while two of `rows_left`
// are left and the call's windows take two rows or more. Then the rows left (if any) go to `single_rows`, one
// at a time.
template <typename Ops>
void WindowEmitter<Ops>::separable_output_pairs(const Reg64& rows_left, const Reg64& first_maxima, std::int64_t maxima_bytes,
                                                Label& single_rows, Label& done, const std::function<void()>& merge_pair) {
    Label output_pair;
    cmp(qword[rsp + slot_taps_h], 2);
    jl(single_rows, T_NEAR);
    cmp(rows_left, 2);
    jl(single_rows, T_NEAR);
    place(output_pair);
    merge_pair();
    add(first_maxima, static_cast<std::int32_t>(2 * maxima_bytes));
    sub(rows_left, 2);
    cmp(rows_left, 2);
    jge(output_pair, T_NEAR);
    test(rows_left, rows_left);
    jz(done, T_NEAR);
}

// After a group: done when no rows are left; else the next group starts group * row_step input rows after this
// one's first, and the group's input rows took row_src_ (group - 1) * row_step + taps_h rows on: back taps_h -
// row_step rows (forward where taps_h is fewer).
template <typename Ops>
void WindowEmitter<Ops>::next_separable_group(Label& group_loop, Label& done) {
    sub(d_ptr_, h_index_);
    jz(done, T_NEAR);
    mov(scratch_, ptr[rsp + slot_taps_h]);
    sub(scratch_, static_cast<std::int32_t>(plan_.separable.row_step));
    mul_imm(scratch_, plan_.src_tap_stride_h);
    sub(row_src_, scratch_);
    jmp(group_loop, T_NEAR);
}

// Every input row of the group converted into its padded row (tap_ptr_ the first; separable rows with and
// without indices): the padding before, the input in whole vectors
// stored aligned (each phase's lead lanes put the input's first element in it at a vector's start: unaligned
// 64-byte stores each split a cache line, and made the conversion of u8 rows the stem's bottleneck), then
// the padding after, from the input's end in each phase to the buffer's end. At stride 2, two input vectors
// at a time give a vector of each phase. Floats are noted for NaN a few vectors at a time, summed among
// themselves first: one running sum's add per vector was a chain of the add's latency. A float group that saw
// a NaN leaves for `nan_exit`.
template <typename Ops>
void WindowEmitter<Ops>::convert_separable_rows(Label& nan_exit) {
    const SeparableRows& sep = plan_.separable;
    const std::int64_t lb = lane_bytes(plan_.compare), L = plan_.lanes, vb = Ops::vector_bytes;
    const std::int64_t row_bytes = sep.row_lanes() * lb;
    const std::vector<int> accs = separable_accumulators();
    const int V = static_cast<int>(accs.size());
    const bool watch = plan_.is_float;
    const Vmm fresh = vec(regs_.fresh), empty = vec(regs_.empty_value);
    const Reg64& rows = tap_ptr_;
    const auto acc = [&](int i) { return vec(accs[static_cast<std::size_t>(i)]); };
    const auto phase_lane = [&](int phase, std::int64_t lane) { return separable_phase_lane(phase, lane); };
    {
        const int evens = sep.phase_of_evens(), odds = 1 - evens;
        const std::int64_t in = plan_.in_width, per_step = L * sep.phases;  // input elements a converted vector takes
        const std::int64_t full = in / per_step, rest = in % per_step;
        const int unroll = static_cast<int>(std::min<std::int64_t>({4 / sep.phases, V / sep.phases, std::max<std::int64_t>(full, 1)}));
        // `count` steps (the last with `last_valid` input elements) from window_, stored from h_ptr_ (plus each
        // phase's offset); the loaded vectors' sum into the watch.
        const auto convert = [&](int count, std::int64_t last_valid) {
            std::vector<int> loaded;
            for (int i = 0; i < count; ++i) {
                const std::int64_t valid = i == count - 1 ? last_valid : per_step;
                const auto from = static_cast<std::int32_t>(i * per_step * elem()), to = static_cast<std::int32_t>(i * vb);
                if (sep.phases == 1) {
                    ops_.load_value(acc(i), ptr[window_ + from], static_cast<int>(valid));
                    vmovups(ptr[h_ptr_ + to], acc(i));
                    loaded.push_back(i);
                    continue;
                }
                const Vmm lo = acc(2 * i), hi = acc(2 * i + 1);
                if (sep.widened_pairs && valid > L) {  // bf16: the load's even and odd elements are the phases
                    ops_.load_widened_pair(lo, hi, ptr[window_ + from], static_cast<int>(valid));
                    loaded.push_back(2 * i);
                    loaded.push_back(2 * i + 1);
                    vmovups(ptr[h_ptr_ + static_cast<std::int32_t>(phase_lane(evens, sep.input_start(evens)) * lb) + to], lo);
                    vmovups(ptr[h_ptr_ + static_cast<std::int32_t>(phase_lane(odds, sep.input_start(odds)) * lb) + to], hi);
                    continue;
                }
                ops_.load_value(lo, ptr[window_ + from], static_cast<int>(std::min(valid, L)));
                loaded.push_back(2 * i);
                if (valid > L) {
                    ops_.load_value(hi, ptr[window_ + from + static_cast<std::int32_t>(L * elem())], static_cast<int>(valid - L));
                    loaded.push_back(2 * i + 1);
                } else {
                    vmovaps(hi, empty);
                }
                if (lb == 1) {  // byte lanes: both phases at once (lo and hi are not needed after)
                    const Vmm odd = vec(regs_.scratch);
                    ops_.split_byte_phases(fresh, odd, lo, hi);
                    vmovups(ptr[h_ptr_ + static_cast<std::int32_t>(phase_lane(evens, sep.input_start(evens)) * lb) + to], fresh);
                    vmovups(ptr[h_ptr_ + static_cast<std::int32_t>(phase_lane(odds, sep.input_start(odds)) * lb) + to], odd);
                    continue;
                }
                ops_.deinterleave_even(fresh, lo, hi);
                vmovups(ptr[h_ptr_ + static_cast<std::int32_t>(phase_lane(evens, sep.input_start(evens)) * lb) + to], fresh);
                ops_.deinterleave_odd(fresh, lo, hi);
                vmovups(ptr[h_ptr_ + static_cast<std::int32_t>(phase_lane(odds, sep.input_start(odds)) * lb) + to], fresh);
            }
            if (!watch) return;
            const int n = static_cast<int>(loaded.size());
            for (int width = 1; width < n; width *= 2)
                for (int i = 0; i + width < n; i += 2 * width)
                    ops_.note_nan(acc(loaded[static_cast<std::size_t>(i)]), acc(loaded[static_cast<std::size_t>(i + width)]));
            ops_.note_nan(vec(regs_.plane_sum), acc(loaded[0]));
        };
        Label input_row;
        separable_group_input_rows(h_count_);
        mov(indices_, rows);
        place(input_row);
        for (int phase = 0; phase < sep.phases; ++phase)
            for (std::int64_t lane = 0; lane < phase_lane(phase, sep.input_start(phase)) - phase * sep.phase_lanes; lane += L)
                vmovups(ptr[indices_ + static_cast<std::int32_t>((phase * sep.phase_lanes + lane) * lb)], empty);
        mov(window_, row_src_);
        if (sep.phases == 1) lea(h_ptr_, ptr[indices_ + static_cast<std::int32_t>(phase_lane(0, sep.pad_lanes) * lb)]);
        else mov(h_ptr_, indices_);
        if (full >= unroll) {
            Label convert_loop;
            mov(tap_count_, full / unroll);
            place(convert_loop);
            convert(unroll, per_step);
            add(window_, static_cast<std::int32_t>(unroll * per_step * elem()));
            add(h_ptr_, static_cast<std::int32_t>(unroll * vb));
            dec(tap_count_);
            jnz(convert_loop, T_NEAR);
        }
        const int left = static_cast<int>(full % unroll);
        if (left > 0 || rest > 0) convert(left + (rest > 0 ? 1 : 0), rest > 0 ? rest : per_step);
        // After the input: over the partial vector's other lanes, then to the last lane a tap reads.
        const std::int64_t reach = sep.maxima_vectors * L + (plan_.kernel_w - 1) * plan_.dilation_w / sep.phases;
        for (int phase = 0; phase < sep.phases; ++phase) {
            const std::int64_t base = phase * sep.phase_lanes, end = phase_lane(phase, sep.input_start(phase) + sep.input_count(phase, in)) - base;
            const std::int64_t aligned_end = (end + L - 1) / L * L, read_end = phase_lane(phase, reach) - base;
            if (end < aligned_end) vmovups(ptr[indices_ + static_cast<std::int32_t>((base + end) * lb)], empty);
            for (std::int64_t lane = aligned_end; lane < read_end; lane += L)
                vmovups(ptr[indices_ + static_cast<std::int32_t>((base + lane) * lb)], empty);
        }
        add(indices_, static_cast<std::int32_t>(row_bytes));
        close_separable_input_rows(input_row, nan_exit);
    }

}

// Separable code with indices (rows and pixels): the output row slots (slot_sep_dst, slot_sep_indices,
// slot_sep_channel_base) one output row on.
template <typename Ops>
void WindowEmitter<Ops>::next_separable_output_row() {
    for (const auto& [slot, step] : {std::pair{slot_sep_dst, slot_dst_row_step}, std::pair{slot_sep_indices, slot_indices_row_step},
                                     std::pair{slot_sep_channel_base, slot_channel_index_base_row_step}}) {
        mov(scratch_, ptr[rsp + step]);
        add(ptr[rsp + slot], scratch_);
    }
}

// Separable code with indices, at an output row: dst_ and indices_ its first outputs, `channel_part` (lanes of
// the index width) its channel part.
template <typename Ops>
void WindowEmitter<Ops>::load_separable_output_row(const Vmm& channel_part) {
    mov(dst_, ptr[rsp + slot_sep_dst]);
    mov(indices_, ptr[rsp + slot_sep_indices]);
    mov(scratch_, ptr[rsp + slot_sep_channel_base]);
    ops_.broadcast_gpr(channel_part, scratch_, plan_.wide_index_math);
}

// Separable code with indices, after a group of `group` output rows: the next group's first input row is group
// x row_step tap strides on (its index base too), then the next group or `done`. Then `leave`: to the row code
// (`other_calls`, a group that saw a NaN) with the constants that maxima in flight may have taken
// (separable_alias_registers) and no mask known to be in a register.
template <typename Ops>
void WindowEmitter<Ops>::close_separable_index_group(const Reg64& group, Label& group_loop, Label& done, Label& leave,
                                                     Label& other_calls) {
    mov(scratch_, group);
    mul_imm(scratch_, wrap_mul(plan_.separable.row_step, plan_.index_tap_step_h));
    add(ptr[rsp + slot_sep_index_base], scratch_);
    next_separable_group(group_loop, done);
    place(leave);
    load_constants();
    jmp(other_calls, T_NEAR);
    ops_.forget_mask();
}

template <typename Ops>
void WindowEmitter<Ops>::emit_separable(Label& other_calls, Label& done) {
    const SeparableRows& sep = plan_.separable;
    if (nxc_ || plan_.has_indices || plan_.spatial_rank != 2 || plan_.stride_w > 2 || sep.row_step < 1)
        throw Error("jit: separable rows are planar 2-D values of at most stride 2 along the width");
    const std::int64_t lb = lane_bytes(plan_.compare), L = plan_.lanes, vb = Ops::vector_bytes;
    if (L * lb != vb) throw Error("jit: separable rows fill whole registers with compare lanes");
    const std::int64_t row_bytes = sep.row_lanes() * lb, maxima_bytes = sep.maxima_vectors * vb;
    const std::vector<int> accs = separable_accumulators();
    const int V = static_cast<int>(accs.size());
    if (V < 2) throw Error("jit: separable rows need two accumulators");
    const Vmm fresh = vec(regs_.fresh);

    // Registers: row_src_ the input row being converted; dst_ the output row; tap_ptr_ the padded rows;
    // window_index_ the rows of maxima; d_ptr_ rows left in the call; h_index_ rows of this group; h_count_,
    // tap_count_ and item_count_ loop counters; window_, h_ptr_ and indices_ moving pointers.
    const Reg64 &rows = tap_ptr_, &maxima = window_index_, &group = h_index_;
    begin_separable_call(other_calls, sep.buffered_rows() * row_bytes);

    Label group_loop;
    begin_separable_group(group_loop);

    convert_separable_rows(other_calls);
    const auto acc = [&](int i) { return vec(accs[static_cast<std::size_t>(i)]); };
    const auto phase_lane = [&](int phase, std::int64_t lane) { return separable_phase_lane(phase, lane); };

    // The maxima of each output's width taps, row by row, V output vectors at a time (window_ in the padded
    // row, h_ptr_ over the rows of maxima, which follow each other). Tap t of an output reads lane
    // t * dilation of its window in the padded row: at stride 2, lane (t * dilation) / 2 of phase
    // (t * dilation) % 2 from the output's own lane.
    {
        // Taps last to first, each later one a memory operand of the max that keeps it on ties: the first
        // maximum in scan order, one instruction a tap.
        const auto reduce_block = [&](int outputs) {
            for (std::int64_t t = plan_.kernel_w - 1; t >= 0; --t) {
                const std::int64_t lane = t * plan_.dilation_w;
                const int phase = static_cast<int>(lane % sep.phases);
                for (int v = 0; v < outputs; ++v) {
                    const auto offset = static_cast<std::int32_t>((phase_lane(phase, lane / sep.phases) + std::int64_t{v} * L) * lb);
                    if (t == plan_.kernel_w - 1) vmovups(acc(v), ptr[window_ + offset]);
                    else ops_.max_fast_earlier(acc(v), ptr[window_ + offset], fresh);
                }
            }
            for (int v = 0; v < outputs; ++v) vmovups(ptr[h_ptr_ + static_cast<std::int32_t>(v * vb)], acc(v));
        };
        Label maxima_row;
        separable_group_input_rows(h_count_);
        mov(indices_, rows);
        mov(h_ptr_, maxima);
        place(maxima_row);
        mov(window_, indices_);
        const std::int64_t blocks = sep.maxima_vectors / V, tail = sep.maxima_vectors % V;
        if (blocks > 0) {
            Label block_loop;
            mov(tap_count_, blocks);
            place(block_loop);
            reduce_block(V);
            add(window_, static_cast<std::int32_t>(V * vb));
            add(h_ptr_, static_cast<std::int32_t>(V * vb));
            dec(tap_count_);
            jnz(block_loop, T_NEAR);
        }
        if (tail > 0) {
            reduce_block(static_cast<int>(tail));
            add(h_ptr_, static_cast<std::int32_t>(tail * vb));
        }
        add(indices_, static_cast<std::int32_t>(row_bytes));
        dec(h_count_);
        jnz(maxima_row, T_NEAR);
    }

    // Output rows of the group: row i merges maxima rows i * row_step .. i * row_step + taps_h - 1, in order.
    {
        const auto store_row = [&](const Reg64& row_dst, int vectors, std::int64_t first_vector, int first_acc) {
            for (int v = 0; v < vectors; ++v) {
                const std::int64_t first_lane = (first_vector + v) * L;
                const int valid_lanes = static_cast<int>(std::min<std::int64_t>(L, plan_.out_width - first_lane));
                ops_.store_value(ptr[row_dst + static_cast<std::int32_t>(first_lane * elem())], acc(first_acc + v),
                                 vec(regs_.scratch), valid_lanes);
            }
        };
        // window_ <- h_ptr_ + (taps_h + delta) rows of maxima.
        const auto row_of_maxima = [&](int delta) {
            mov(window_, ptr[rsp + slot_taps_h]);
            if (delta != 0) add(window_, delta);
            mul_imm(window_, maxima_bytes);
            add(window_, h_ptr_);
        };
        // The rows last to first, as the taps of a row of maxima: the earliest row keeps a tie.
        const auto merge_block = [&](int vectors, std::int64_t first_vector) {
            const auto column = static_cast<std::int32_t>(first_vector * vb);
            Label merge_loop, merged;
            mov(tap_count_, ptr[rsp + slot_taps_h]);
            dec(tap_count_);
            row_of_maxima(-1);
            for (int v = 0; v < vectors; ++v) vmovups(acc(v), ptr[window_ + column + static_cast<std::int32_t>(v * vb)]);
            test(tap_count_, tap_count_);
            jz(merged, T_NEAR);
            place(merge_loop);
            sub(window_, static_cast<std::int32_t>(maxima_bytes));
            for (int v = 0; v < vectors; ++v)
                ops_.max_fast_earlier(acc(v), ptr[window_ + column + static_cast<std::int32_t>(v * vb)], fresh);
            dec(tap_count_);
            jnz(merge_loop, T_NEAR);
            place(merged);
            store_row(dst_, vectors, first_vector, 0);
        };
        // Output rows i and i + 1 (paired_output_rows): rows i + taps_h - 1 down to i + 1 merged once (shared, the
        // first `vectors` accumulators), then row i before them (a copy of shared, the next `vectors`) and row i +
        // taps_h after them, each keeping the earlier on ties. dst_ is row i's outputs, indices_ row i + 1's.
        const auto merge_pair_block = [&](int vectors, std::int64_t first_vector) {
            const auto at_column = [&](const Reg64& row, int v) {
                return ptr[row + static_cast<std::int32_t>(first_vector * vb + v * vb)];
            };
            Label merge_loop, merged;
            mov(tap_count_, ptr[rsp + slot_taps_h]);
            sub(tap_count_, 2);
            row_of_maxima(-1);
            for (int v = 0; v < vectors; ++v) vmovups(acc(v), at_column(window_, v));
            test(tap_count_, tap_count_);  // a window of two rows shares one
            jz(merged, T_NEAR);
            place(merge_loop);
            sub(window_, static_cast<std::int32_t>(maxima_bytes));
            for (int v = 0; v < vectors; ++v) ops_.max_fast_earlier(acc(v), at_column(window_, v), fresh);
            dec(tap_count_);
            jnz(merge_loop, T_NEAR);
            place(merged);
            for (int v = 0; v < vectors; ++v) {
                vmovaps(acc(vectors + v), acc(v));
                ops_.max_fast_earlier(acc(vectors + v), at_column(h_ptr_, v), fresh);
            }
            store_row(dst_, vectors, first_vector, vectors);
            row_of_maxima(0);
            for (int v = 0; v < vectors; ++v) {
                vmovups(fresh, at_column(window_, v));
                ops_.max_fast(acc(v), fresh);
            }
            store_row(indices_, vectors, first_vector, 0);
        };
        // Straight code for the row's vectors, V at most at a time (V / 2 a row for pairs).
        const auto along_row = [&](std::int64_t step, const auto& merge) {
            for (std::int64_t first = 0; first < sep.maxima_vectors; first += step)
                merge(static_cast<int>(std::min<std::int64_t>(step, sep.maxima_vectors - first)), first);
        };
        Label output_row, rows_done;
        mov(h_ptr_, maxima);  // the group's next output row's first row of maxima
        mov(item_count_, group);
        if (sep.paired_output_rows)
            separable_output_pairs(item_count_, h_ptr_, maxima_bytes, output_row, rows_done, [&] {
                mov(indices_, dst_);
                add(indices_, ptr[rsp + slot_dst_row_step]);
                along_row(V / 2, merge_pair_block);
                lea(dst_, ptr[indices_]);
                add(dst_, ptr[rsp + slot_dst_row_step]);
            });
        place(output_row);
        along_row(V, merge_block);
        add(dst_, ptr[rsp + slot_dst_row_step]);
        add(h_ptr_, static_cast<std::int32_t>(sep.row_step * maxima_bytes));
        dec(item_count_);
        jnz(output_row, T_NEAR);
        place(rows_done);
    }

    next_separable_group(group_loop, done);
}

// Planar byte rows (the plan's byte lanes exist only here): every call goes through the separable code. A call
// whose rows are not the buffers' (rows that step otherwise) runs as calls of one row each, in order; a call of
// windows that lie in the padding along h stores the empty value (the lowest) over its rows.
template <typename Ops>
void WindowEmitter<Ops>::emit_byte_rows(Label& done) {
    if (plan_.separable.byte_pairs) return emit_byte_pairs(done);
    Label body, other_calls, separable_done, empty_rows;
    mov(qword[rsp + slot_items_left], 0);  // single rows left after this one
    place(body);
    emit_separable(other_calls, separable_done);
    place(separable_done);
    cmp(qword[rsp + slot_items_left], 0);
    je(done, T_NEAR);
    dec(qword[rsp + slot_items_left]);
    mov(scratch_, ptr[rsp + slot_src_row_step]);
    add(ptr[rsp + slot_row_src], scratch_);
    mov(scratch_, ptr[rsp + slot_dst_row_step]);
    add(ptr[rsp + slot_row_dst], scratch_);
    jmp(body, T_NEAR);

    place(other_calls);
    cmp(qword[rsp + slot_taps_h], 0);
    je(empty_rows, T_NEAR);
    mov(scratch_, ptr[rsp + slot_rows]);
    dec(scratch_);
    mov(ptr[rsp + slot_items_left], scratch_);
    mov(qword[rsp + slot_rows], 1);
    jmp(body, T_NEAR);

    place(empty_rows);
    const std::int64_t L = plan_.lanes, full = plan_.out_width / L, rest = plan_.out_width % L;
    const Vmm empty = vec(regs_.empty_value);
    mov(d_ptr_, ptr[rsp + slot_rows]);
    mov(dst_, ptr[rsp + slot_row_dst]);
    Label empty_row;
    place(empty_row);
    mov(window_, dst_);
    if (full > 0) {
        Label vectors;
        mov(tap_count_, full);
        place(vectors);
        vmovups(ptr[window_], empty);
        add(window_, static_cast<std::int32_t>(Ops::vector_bytes));
        dec(tap_count_);
        jnz(vectors, T_NEAR);
    }
    if (rest > 0) ops_.store_value(ptr[window_], empty, vec(regs_.scratch), static_cast<int>(rest));
    add(dst_, ptr[rsp + slot_dst_row_step]);
    dec(d_ptr_);
    jnz(empty_row, T_NEAR);
    jmp(done, T_NEAR);
}

// Byte pairs (SeparableRows::byte_pairs): windows at stride 2 along the width with up to 4 contiguous width taps,
// and window_rows rows (1 in 1-D) in each of window_planes planes (3-D), 4 rows in all at most. A row's windows
// read from 2 * o - pad_w to their last tap inside the row; 1-D and 2-D windows may overhang the row's end (the
// bytes past it in a load's register take the empty value) and the last row (calls of fewer rows), as they may
// start in the padding. Each output row, a
// vector of outputs at a time: for each pair of width taps (2j, 2j + 1) the window rows' maximum of 2 * lanes
// elements from the outputs' first tap 2j, each byte pair's maximum in its even byte (a word shift right by 8 and a
// byte max; a lone last tap takes the even byte as loaded), merged over the pairs; the even bytes packed. No load
// passes the row's end or starts before the row: where the first outputs' windows start in the padding, on AVX2 the
// load starts at the row and the rows' maximum moves up by the padding's bytes, the empty value shifted in; with
// opmasks the load leaves the lanes outside the row out, holding the empty value. 1-D
// and 2-D calls take the rows their windows have (fewer at a border: a body for each count); 3-D calls have every
// row and plane. Rows step by the call's steps, whatever rows they are.
template <typename Ops>
void WindowEmitter<Ops>::emit_byte_pairs(Label& done) {
    const SeparableRows& sep = plan_.separable;
    const std::int64_t L = plan_.lanes, vb = Ops::vector_bytes, out = plan_.out_width, in = plan_.in_width;
    const std::int64_t kw = plan_.kernel_w, rows = sep.window_rows, planes = sep.window_planes,
                       last_group = (kw - 1) / 2 * 2, pad = plan_.pad_w;
    if (pad < 0 || pad > kw - 1 || (pad > 0 && planes > 1))
        throw Error("jit: byte pairs start at most a window's taps but one before the row, in 1-D and 2-D");
    const std::vector<int> accs = separable_accumulators();
    const Vmm acc_lo = vec(accs.at(0)), acc_hi = vec(accs.at(1)), fresh = vec(regs_.fresh), t = vec(regs_.scratch);
    const Vmm empty = vec(regs_.empty_value);
    Label missing_taps;
    // The body of calls whose windows have `rows_now` rows.
    const auto body = [&](std::int64_t rows_now) {
        // One half (`half` 0 or 1) of tap group `group` over the window rows into `acc`; first: acc is set, not
        // merged. Its bytes start at `x` in the row (2 * o - pad + group + half * lanes; ignored in the loop, where
        // every load is whole), `valid` of them inside the row, `needed` for the outputs. Bytes before the row
        // (`lead`): the loads start at the row and the maximum moves up by them, the empty value below; a short
        // load inside the row (shifted_pair_loads) reads the whole register, from the row's start or ending at the
        // half's last byte, and moves the bytes into place. Bytes past the row's end that windows read (a window
        // overhanging the row, on a trait without opmasks) take the empty value. `reach`: a row before the call's
        // last, whose short loads read a whole register where it ends within sep.row_read_reach of the row.
        const auto half_of_group = [&](const Vmm& acc, std::int64_t group, int half, std::int64_t x, int valid,
                                       int needed, bool exact, bool first, bool reach) {
            const int lead = exact ? static_cast<int>(std::max<std::int64_t>(0, -x)) : 0;
            // Opmasks: the bytes before the row and past its end are lanes the load leaves out, holding the empty
            // value; the load starts at the window's first tap.
            const bool masked_edges = Ops::caps.opmasks && exact && (lead > 0 || valid < needed);
            int loaded = valid - lead, back = 0;
            const int whole = loaded <= 16 ? 16 : static_cast<int>(L);
            if (exact && reach && loaded < L && x + lead + whole <= sep.row_read_reach) {
                loaded = whole;
            } else if (exact && sep.shifted_pair_loads) {
                if (lead > 0) {
                    if (L <= in) loaded = static_cast<int>(L);  // from the row's start
                } else if (valid < L && x + valid - L >= 0) {
                    back = static_cast<int>(L) - valid;
                    loaded = static_cast<int>(L);
                }
            }
            const auto at = static_cast<std::int32_t>(group + half * vb + (masked_edges ? 0 : lead - back));
            const std::uint64_t inside = (valid >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << valid) - 1) &
                                         ~((std::uint64_t{1} << lead) - 1);
            const auto load = [&](const Vmm& into, const Xbyak::Address& from) {
                if constexpr (Ops::caps.opmasks) {
                    if (masked_edges) return ops_.load_byte_lanes_over(into, from, inside, empty);
                }
                ops_.load_value(into, from, loaded);
            };
            // The group's maximum builds in acc itself on the first group.
            const Vmm w = first ? acc : fresh;
            // One window row a load: addressed from window_ where every row's offset fits a displacement (2-D rows
            // of a pitch under 2^31 / 4), else walked in h_ptr_.
            const bool displaced = planes == 1 && rows_now <= 4 && plan_.src_tap_stride_h >= 0 &&
                                   plan_.src_tap_stride_h <= (std::int64_t{1} << 28);
            if (!displaced) mov(h_ptr_, window_);
            for (std::int64_t i = 0; i < planes * rows_now; ++i) {
                const Vmm into = i == 0 ? w : t;
                if (displaced) {
                    load(into, ptr[window_ + static_cast<std::int32_t>(i * plan_.src_tap_stride_h + at)]);
                } else {
                    // Row r of plane d: the next row, or the first row of the next plane.
                    if (i % rows_now != 0) add_imm(h_ptr_, plan_.src_tap_stride_h);
                    else if (i > 0) add_imm(h_ptr_, plan_.src_tap_stride_d - (rows_now - 1) * plan_.src_tap_stride_h);
                    load(into, ptr[h_ptr_ + at]);
                }
                if (i > 0) ops_.max_fast(w, t);
            }
            if (!masked_edges) {
                if (lead > 0) ops_.shift_bytes_up(w, lead, empty, t);
                if (back > 0) ops_.shift_bytes_down(w, back, t);
                if (exact && valid < needed) ops_.fill_bytes_from(w, valid, empty, t);
            }
            if (group + 1 < kw) {  // the pair's second tap: each word's odd byte onto its even one
                ops_.shift_words_right_8(t, w);
                ops_.max_fast(w, t);
            }
            if (!first) ops_.max_fast(acc, fresh);
        };
        // `outputs` outputs from window_ (their first tap's position in the window's first row, 2 * o - pad) to
        // indices_; `first_output`: the first one, or -1 in the loop (full vectors, every load whole and inside).
        // `reach`: a row before the call's last (sep.row_read_reach, sep.rows_store_whole).
        const auto chunk = [&](std::int64_t outputs, std::int64_t first_output, bool reach) {
            const bool exact = first_output >= 0;
            // Outputs from the low register's bytes alone: its even bytes, no second register to pack.
            const bool low_only = 2 * outputs <= L;
            for (std::int64_t group = 0; group <= last_group; group += 2) {
                // Bytes the group reads: 2 * outputs from its first tap, never past the row's end nor before its start.
                const std::int64_t x = exact ? 2 * first_output - pad + group : 0;
                const std::int64_t bytes = exact ? std::min(2 * outputs, in - x) : 2 * outputs;
                if (bytes <= 0) continue;  // a later group wholly past the row's end (overhanging windows): empty
                const int lo_valid = static_cast<int>(std::min(bytes, L)), hi_valid = static_cast<int>(bytes - lo_valid);
                // Bytes the outputs use: a lone last tap leaves the last output's odd byte unused.
                const std::int64_t used = 2 * outputs - (group + 1 < kw ? 0 : 1);
                const int lo_needed = static_cast<int>(std::min(used, L)), hi_needed = static_cast<int>(std::min(used - lo_needed, L));
                half_of_group(acc_lo, group, 0, x, lo_valid, lo_needed, exact, group == 0, reach);
                if (hi_valid > 0) half_of_group(acc_hi, group, 1, x + L, hi_valid, hi_needed, exact, group == 0, reach);
                else if (group == 0 && !low_only) vmovaps(acc_hi, acc_lo);  // lanes past the outputs: never stored
            }
            if (low_only) ops_.even_bytes_low(fresh, acc_lo, static_cast<int>(outputs));
            else ops_.even_bytes(fresh, acc_lo, acc_hi);
            // A row before the call's last may store a whole xmm or ymm into the next output row (rows that abut),
            // which the call stores after this one.
            std::int64_t stored = outputs;
            if (exact && reach && sep.rows_store_whole && outputs < L) {
                const std::int64_t whole = outputs <= 8 ? 8 : outputs <= 16 ? 16 : L;
                if (first_output + whole <= 2 * out) stored = whole;
            }
            ops_.store_value(ptr[indices_], fresh, t, static_cast<int>(stored));
        };
        // Whole vectors from the first chunk that starts inside the row, while every group's loads of 2 * lanes
        // bytes stay in it; the chunks before and after straight, exact.
        const std::int64_t chunks = (out + L - 1) / L, first_full = pad > 0 ? 1 : 0;
        std::int64_t full = 0;  // chunks c in [first_full, first_full + full): 2cL - pad + last_group + 2L <= in
        if (in + pad - last_group - 2 * L >= 0)
            full = std::max<std::int64_t>(0, std::min(out / L, (in + pad - last_group - 2 * L) / (2 * L) + 1) - first_full);
        // One output row from row_src_ to dst_.
        const auto output_row = [&](bool reach) {
            mov(window_, row_src_);
            if (pad > 0) sub(window_, static_cast<std::int32_t>(pad));  // (the padding's address: never loaded)
            mov(indices_, dst_);
            for (std::int64_t c = 0; c < first_full; ++c) {
                chunk(std::min(L, out - c * L), c * L, reach);
                add(window_, static_cast<std::int32_t>(2 * vb));
                add(indices_, static_cast<std::int32_t>(vb));
            }
            if (full > 0) {
                Label vectors;
                mov(tap_count_, full);
                place(vectors);
                chunk(L, -1, reach);
                add(window_, static_cast<std::int32_t>(2 * vb));
                add(indices_, static_cast<std::int32_t>(vb));
                dec(tap_count_);
                jnz(vectors, T_NEAR);
            }
            for (std::int64_t c = first_full + full; c < chunks; ++c) {
                chunk(std::min(L, out - c * L), c * L, reach);
                if (c + 1 < chunks) {
                    add(window_, static_cast<std::int32_t>(2 * vb));
                    add(indices_, static_cast<std::int32_t>(vb));
                }
            }
        };
        Label row_loop;
        mov(d_ptr_, ptr[rsp + slot_rows]);
        mov(row_src_, ptr[rsp + slot_row_src]);
        mov(dst_, ptr[rsp + slot_row_dst]);
        // Rows that reach past their own bytes loop over all but the call's last, which is exact.
        const bool reach = sep.row_read_reach > 0;
        Label last_row;
        if (reach) {
            dec(d_ptr_);
            jz(last_row, T_NEAR);
        }
        place(row_loop);
        output_row(reach);
        add(row_src_, ptr[rsp + slot_src_row_step]);
        add(dst_, ptr[rsp + slot_dst_row_step]);
        dec(d_ptr_);
        jnz(row_loop, T_NEAR);
        if (reach) {
            place(last_row);
            output_row(false);
        }
        jmp(done, T_NEAR);
    };
    if (planes > 1) {
        cmp(qword[rsp + slot_taps_h], static_cast<std::int32_t>(rows));
        jne(missing_taps, T_NEAR);
        cmp(qword[rsp + slot_taps_d], static_cast<std::int32_t>(planes));
        jne(missing_taps, T_NEAR);
        body(rows);
    } else {
        // Calls of fewer rows (windows starting above the first row or passing the last: the counts the plan's
        // row table holds) branch to their own body.
        for (std::int64_t r = 1; r < rows; ++r) {
            const auto has_count = [&](const OuterTaps& taps) { return taps.count == r; };
            if (std::none_of(plan_.taps_h.begin(), plan_.taps_h.end(), has_count)) continue;
            Label next;
            cmp(qword[rsp + slot_taps_h], static_cast<std::int32_t>(r));
            jne(next, T_NEAR);
            body(r);
            place(next);
        }
        cmp(qword[rsp + slot_taps_h], static_cast<std::int32_t>(rows));
        jne(missing_taps, T_NEAR);
        body(rows);
    }
    place(missing_taps);
    ud2();  // the planner takes byte pairs only where every window has a real row (3-D: all its rows and planes)
}

template void WindowEmitter<Avx512Ops>::emit_byte_pairs(Label&);
template void WindowEmitter<Avx2Ops>::emit_byte_pairs(Label&);
template void WindowEmitter<Avx512Ops>::emit_byte_rows(Label&);
template void WindowEmitter<Avx2Ops>::emit_byte_rows(Label&);
template std::int64_t WindowEmitter<Avx512Ops>::separable_buffer_bytes() const;
template int WindowEmitter<Avx512Ops>::frame_size() const;
template std::vector<int> WindowEmitter<Avx512Ops>::separable_accumulators() const;
template std::vector<int> WindowEmitter<Avx512Ops>::separable_index_registers() const;
template void WindowEmitter<Avx512Ops>::begin_separable_call(Label&, std::int64_t);
template void WindowEmitter<Avx512Ops>::begin_separable_group(Label&);
template void WindowEmitter<Avx512Ops>::separable_group_input_rows(const Reg64&);
template void WindowEmitter<Avx512Ops>::next_separable_group(Label&, Label&);
template void WindowEmitter<Avx512Ops>::close_separable_input_rows(Label&, Label&);
template void WindowEmitter<Avx512Ops>::separable_output_pairs(const Reg64&, const Reg64&, std::int64_t, Label&, Label&,
                                                               const std::function<void()>&);
template void WindowEmitter<Avx512Ops>::emit_separable(Label&, Label&);
template void WindowEmitter<Avx512Ops>::convert_separable_rows(Label&);
template void WindowEmitter<Avx512Ops>::next_separable_output_row();
template void WindowEmitter<Avx512Ops>::load_separable_output_row(const Vmm&);
template void WindowEmitter<Avx512Ops>::close_separable_index_group(const Reg64&, Label&, Label&, Label&, Label&);
template std::int64_t WindowEmitter<Avx2Ops>::separable_buffer_bytes() const;
template int WindowEmitter<Avx2Ops>::frame_size() const;
template std::vector<int> WindowEmitter<Avx2Ops>::separable_accumulators() const;
template std::vector<int> WindowEmitter<Avx2Ops>::separable_index_registers() const;
template void WindowEmitter<Avx2Ops>::begin_separable_call(Label&, std::int64_t);
template void WindowEmitter<Avx2Ops>::begin_separable_group(Label&);
template void WindowEmitter<Avx2Ops>::separable_group_input_rows(const Reg64&);
template void WindowEmitter<Avx2Ops>::next_separable_group(Label&, Label&);
template void WindowEmitter<Avx2Ops>::close_separable_input_rows(Label&, Label&);
template void WindowEmitter<Avx2Ops>::separable_output_pairs(const Reg64&, const Reg64&, std::int64_t, Label&, Label&,
                                                             const std::function<void()>&);
template void WindowEmitter<Avx2Ops>::emit_separable(Label&, Label&);
template void WindowEmitter<Avx2Ops>::convert_separable_rows(Label&);
template void WindowEmitter<Avx2Ops>::next_separable_output_row();
template void WindowEmitter<Avx2Ops>::load_separable_output_row(const Vmm&);
template void WindowEmitter<Avx2Ops>::close_separable_index_group(const Reg64&, Label&, Label&, Label&, Label&);

}  // namespace pooljit::jit
