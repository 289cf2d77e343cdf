// The channels-last emitter: lanes are channels. One call computes one output row along the innermost axis
// for one block of channels; the runtime passes the row's real taps along the outer axes (KernelArgs), and
// the plan's width runs say, at compile time, which taps along the row are real for each output.
#include "jit/emit_nxc.hpp"

#include "jit/vec_avx512.hpp"

#include <pooljit/types.hpp>

#include <cstddef>
#include <limits>

namespace pooljit::jit {
namespace {

using namespace Xbyak;
using namespace Xbyak::util;

bool fits_i32(std::int64_t v) {
    return v >= std::numeric_limits<std::int32_t>::min() && v <= std::numeric_limits<std::int32_t>::max();
}

// Registers by role. Vector numbers are handed out once, so no number means two things.
struct VectorRoles {
    int acc[4], raw[4], idx[4];
    int fresh, fresh_raw, chan_base, scratch, empty_value, minus_one;

    explicit VectorRoles(int vectors) {
        int next = 0;
        for (int v = 0; v < 4; ++v) acc[v] = v < vectors ? next++ : -1;
        for (int v = 0; v < 4; ++v) raw[v] = v < vectors ? next++ : -1;
        for (int v = 0; v < 4; ++v) idx[v] = v < vectors ? next++ : -1;
        fresh = next++;
        fresh_raw = next++;
        chan_base = next++;
        scratch = next++;
        empty_value = next++;
        minus_one = next++;
    }
};

template <typename Ops>
class NxcEmitter : public CodeGenerator {
public:
    using Vmm = typename Ops::Vmm;

    NxcEmitter(const KernelPlan& plan, std::int64_t block_channels)
        : CodeGenerator(4096, AutoGrow), plan_(plan), ops_(*this, plan), block_channels_(block_channels),
          vectors_(static_cast<int>((block_channels + plan.lanes - 1) / plan.lanes)),
          last_lanes_(static_cast<int>(block_channels - (vectors_ - 1) * plan.lanes)), regs_(vectors_) {
        generate();
        readyRE();  // W^X: written as RW, then flipped to read-exec before anyone can call it
    }

    KernelFn entry() const { return getCode<KernelFn>(); }

private:
    // General-purpose registers by role.
    const Reg64 args_ = rdi, big_offset_ = rsi;  // rsi: scratch for offsets beyond 32 bits, and tables
    const Reg64 dst_ = rdx, indices_ = rcx;
    const Reg64 tap_ptr_ = r8, tap_count_ = r9, ow_count_ = r10, window_ = r11, tap_index_ = rax;
    const Reg64 window_index_ = rbx, d_ptr_ = r12, h_ptr_ = r13, d_count_ = r14, h_count_ = r15, h_index_ = rbp;
    // Stack slots.
    static constexpr int slot_d_index = 0, slot_args = 8, frame_bytes = 16;

    std::int64_t elem() const { return static_cast<std::int64_t>(size_of(plan_.dtype)); }
    std::int64_t index_elem() const { return static_cast<std::int64_t>(size_of(plan_.index_dtype)); }
    bool f16() const { return plan_.dtype == DType::f16; }
    bool tail(int v) const { return v == vectors_ - 1 && last_lanes_ < plan_.lanes; }
    Vmm vec(int i) const { return Vmm(i); }
    Vmm value_reg(int v) const { return vec(f16() ? regs_.raw[v] : regs_.acc[v]); }

    Address at(const Reg64& base, std::int64_t offset) {
        if (fits_i32(offset)) return ptr[base + static_cast<std::int32_t>(offset)];
        mov(big_offset_, offset);
        return ptr[base + big_offset_];
    }

    void add_imm(const Reg64& r, std::int64_t v) {
        if (v == 0) return;
        if (fits_i32(v)) add(r, static_cast<std::int32_t>(v));
        else {
            mov(big_offset_, v);
            add(r, big_offset_);
        }
    }

    // Loads every vector of the block at `base` into fresh (and raw) registers and merges it into the
    // accumulators; `index` holds the tap's spatial index.
    void merge_tap(const Reg64& base, std::int64_t offset) {
        for (int v = 0; v < vectors_; ++v) {
            const std::int64_t off = offset + static_cast<std::int64_t>(v) * plan_.lanes * elem();
            ops_.load_value(vec(regs_.fresh), at(base, off), tail(v));
            if (f16()) ops_.load_raw(vec(regs_.fresh_raw), at(base, off), tail(v));
            ops_.compute_take(vec(regs_.fresh), vec(regs_.acc[v]));
            ops_.blend_take(vec(regs_.acc[v]), vec(regs_.fresh));
            if (f16()) ops_.blend_take(vec(regs_.raw[v]), vec(regs_.fresh_raw));
            if (plan_.has_indices) ops_.blend_take_index(vec(regs_.idx[v]), tap_index_);
        }
    }

    void init_from_first_tap(const Reg64& base, std::int64_t offset) {
        for (int v = 0; v < vectors_; ++v) {
            const std::int64_t off = offset + static_cast<std::int64_t>(v) * plan_.lanes * elem();
            ops_.load_value(vec(regs_.acc[v]), at(base, off), tail(v));
            if (f16()) ops_.load_raw(vec(regs_.raw[v]), at(base, off), tail(v));
            if (plan_.has_indices) ops_.broadcast_index(vec(regs_.idx[v]), tap_index_);
        }
    }

    void store_block(bool fix_nan_lanes) {
        for (int v = 0; v < vectors_; ++v) {
            const bool fix = fix_nan_lanes && plan_.is_float && plan_.nan == NanPolicy::ignore;
            if (fix) {
                ops_.find_nan_lanes(vec(regs_.acc[v]));
                ops_.move_under_fix(value_reg(v), vec(regs_.empty_value), plan_.compare == CompareType::f64);
            }
            const std::int64_t off = static_cast<std::int64_t>(v) * plan_.lanes * elem();
            ops_.store_value(at(dst_, off), value_reg(v), vec(regs_.scratch), tail(v));
            if (plan_.has_indices) store_indices(v, vec(regs_.idx[v]), fix);
        }
    }

    void store_indices(int v, const Vmm& idx, bool fix) {
        const std::int64_t first_lane = static_cast<std::int64_t>(v) * plan_.lanes;
        const std::int64_t table_entry = plan_.wide_index_math ? 8 : 4;
        lea(big_offset_, ptr[rip + channel_table_]);
        const Address table_lo = ptr[big_offset_ + static_cast<std::int32_t>(first_lane * table_entry)];
        const Address table_hi = ptr[big_offset_ + static_cast<std::int32_t>((first_lane + 8) * table_entry)];
        const Address dst_lo = ptr[indices_ + static_cast<std::int32_t>(first_lane * index_elem())];
        const Address dst_hi = ptr[indices_ + static_cast<std::int32_t>((first_lane + 8) * index_elem())];
        const int valid = tail(v) ? last_lanes_ : plan_.lanes;
        ops_.store_indices(dst_lo, dst_hi, idx, vec(regs_.chan_base), table_lo, table_hi, vec(regs_.minus_one),
                           vec(regs_.scratch), tail(v), fix, valid, tap_count_);
    }

    // Empty windows: the lowest value and index -1, for `count` outputs from the current dst position.
    void store_empty_outputs(const Reg64& counter, std::int64_t count) {
        if (count <= 0) return;
        Label loop;
        mov(counter, count);
        L(loop);
        for (int v = 0; v < vectors_; ++v) {
            const std::int64_t off = static_cast<std::int64_t>(v) * plan_.lanes * elem();
            ops_.store_value(at(dst_, off), vec(regs_.empty_value), vec(regs_.scratch), tail(v));
            if (plan_.has_indices) store_minus_one(v);
        }
        add_imm(dst_, plan_.dst_out_stride_w);
        if (plan_.has_indices) add_imm(indices_, plan_.dst_out_stride_w / elem() * index_elem());
        dec(counter);
        jnz(loop, T_NEAR);
    }

    void store_minus_one(int v) {
        // -1 in every lane: the index store with an all-ones fix mask would also do; a plain store is clearer.
        const std::int64_t first_lane = static_cast<std::int64_t>(v) * plan_.lanes;
        const int valid = tail(v) ? last_lanes_ : plan_.lanes;
        for (std::int64_t lane = 0; lane < valid; ++lane) {
            const std::int64_t off = (first_lane + lane) * index_elem();
            if (plan_.index_dtype == DType::s64) mov(qword[indices_ + static_cast<std::int32_t>(off)], -1);
            else mov(dword[indices_ + static_cast<std::int32_t>(off)], -1);
        }
    }

    void load_constants() {
        // Empty-window value in the store domain (raw bits for f16).
        switch (plan_.dtype) {
            case DType::f32: case DType::bf16: mov(eax, 0xFF800000u); vpbroadcastd(vec(regs_.empty_value), eax); break;
            case DType::f16: mov(eax, 0xFC00u); vpbroadcastd(vec(regs_.empty_value), eax); break;
            case DType::s8: mov(eax, 0xFFFFFF80u); vpbroadcastd(vec(regs_.empty_value), eax); break;
            case DType::u8: xor_(eax, eax); vpbroadcastd(vec(regs_.empty_value), eax); break;
            case DType::s32: mov(eax, 0x80000000u); vpbroadcastd(vec(regs_.empty_value), eax); break;
            case DType::f64: mov(rax, 0xFFF0000000000000ull); vpbroadcastq(vec(regs_.empty_value), rax); break;
            case DType::s64: mov(rax, 0x8000000000000000ull); vpbroadcastq(vec(regs_.empty_value), rax); break;
        }
        if (plan_.has_indices) {
            mov(rax, -1);
            vpbroadcastq(vec(regs_.minus_one), rax);
            mov(rax, ptr[args_ + offsetof(KernelArgs, channel_index_base)]);
            if (plan_.wide_index_math) vpbroadcastq(vec(regs_.chan_base), rax);
            else vpbroadcastd(vec(regs_.chan_base), eax);
        }
        if (vectors_ > 0 && last_lanes_ < plan_.lanes) ops_.set_tail_mask(last_lanes_, rax);
    }

    // One window: init from its first real tap, merge every real tap (outer loops at run time, width taps
    // [tap_begin, tap_end) unrolled or looped), store.
    void emit_window(const WidthRun& run) {
        const std::int64_t first_offset = run.tap_begin * plan_.src_tap_stride_w;
        mov(tap_index_, window_index_);
        add_imm(tap_index_, run.tap_begin * plan_.index_tap_step_w);
        init_from_first_tap(window_, first_offset);

        Label d_loop, h_loop;
        mov(d_ptr_, window_);
        mov(ptr[rsp + slot_d_index], window_index_);
        mov(big_offset_, ptr[rsp + slot_args]);
        mov(d_count_, ptr[big_offset_ + offsetof(KernelArgs, taps_d)]);
        L(d_loop);
        {
            mov(h_ptr_, d_ptr_);
            mov(h_index_, ptr[rsp + slot_d_index]);
            mov(big_offset_, ptr[rsp + slot_args]);
            mov(h_count_, ptr[big_offset_ + offsetof(KernelArgs, taps_h)]);
            L(h_loop);
            {
                const std::int64_t taps = run.tap_end - run.tap_begin;
                if (plan_.unroll_width_taps) {
                    for (std::int64_t t = run.tap_begin; t < run.tap_end; ++t) {
                        mov(tap_index_, h_index_);
                        add_imm(tap_index_, t * plan_.index_tap_step_w);
                        merge_tap(h_ptr_, t * plan_.src_tap_stride_w);
                    }
                } else {
                    Label w_loop;
                    mov(tap_ptr_, h_ptr_);
                    add_imm(tap_ptr_, first_offset);
                    mov(tap_index_, h_index_);
                    add_imm(tap_index_, run.tap_begin * plan_.index_tap_step_w);
                    mov(tap_count_, taps);
                    L(w_loop);
                    merge_tap(tap_ptr_, 0);
                    add_imm(tap_ptr_, plan_.src_tap_stride_w);
                    add_imm(tap_index_, plan_.index_tap_step_w);
                    dec(tap_count_);
                    jnz(w_loop, T_NEAR);
                }
                add_imm(h_ptr_, plan_.src_tap_stride_h);
                add_imm(h_index_, plan_.index_tap_step_h);
                dec(h_count_);
                jnz(h_loop, T_NEAR);
            }
            add_imm(d_ptr_, plan_.src_tap_stride_d);
            mov(tap_index_, ptr[rsp + slot_d_index]);
            add_imm(tap_index_, plan_.index_tap_step_d);
            mov(ptr[rsp + slot_d_index], tap_index_);
            dec(d_count_);
            jnz(d_loop, T_NEAR);
        }
        store_block(true);
    }

    void emit_run(const WidthRun& run) {
        const std::int64_t count = run.out_end - run.out_begin;
        if (run.tap_begin == run.tap_end) {
            store_empty_outputs(ow_count_, count);
            add_imm(window_, count * plan_.src_out_stride_w);
            add_imm(window_index_, count * plan_.index_out_step_w);
            return;
        }
        Label ow_loop;
        mov(ow_count_, count);
        L(ow_loop);
        emit_window(run);
        add_imm(dst_, plan_.dst_out_stride_w);
        if (plan_.has_indices) add_imm(indices_, plan_.dst_out_stride_w / elem() * index_elem());
        add_imm(window_, plan_.src_out_stride_w);
        add_imm(window_index_, plan_.index_out_step_w);
        dec(ow_count_);
        jnz(ow_loop, T_NEAR);
    }

    void generate() {
        for (const Reg64& r : {rbx, rbp, r12, r13, r14, r15}) push(r);
        sub(rsp, frame_bytes);
        mov(ptr[rsp + slot_args], args_);
        load_constants();
        mov(dst_, ptr[args_ + offsetof(KernelArgs, dst)]);
        mov(indices_, ptr[args_ + offsetof(KernelArgs, indices)]);

        Label empty_row, done;
        mov(rax, ptr[args_ + offsetof(KernelArgs, taps_h)]);
        imul(rax, ptr[args_ + offsetof(KernelArgs, taps_d)]);
        test(rax, rax);
        jz(empty_row, T_NEAR);

        // window_ = the element at w = -pad (the first tap of output 0, possibly in the padding: only real taps
        // are ever read); window_index_ likewise.
        mov(window_, ptr[args_ + offsetof(KernelArgs, src)]);
        add_imm(window_, -plan_.pad_w * plan_.src_step_w);
        mov(window_index_, ptr[args_ + offsetof(KernelArgs, index_base)]);
        add_imm(window_index_, -plan_.pad_w * plan_.index_mult_w);
        for (const WidthRun& run : plan_.width_runs) emit_run(run);
        jmp(done, T_NEAR);

        L(empty_row);
        store_empty_outputs(ow_count_, plan_.out_width);

        L(done);
        add(rsp, frame_bytes);
        for (const Reg64& r : {r15, r14, r13, r12, rbp, rbx}) pop(r);
        vzeroupper();
        ret();

        emit_channel_table();
    }

    // Per-lane channel index offsets: lane j of the block is channel (first + j), j * channel_index_stride.
    void emit_channel_table() {
        align(64);
        L(channel_table_);
        const std::int64_t entries = static_cast<std::int64_t>(vectors_) * plan_.lanes + 8;
        for (std::int64_t j = 0; j < entries; ++j) {
            const std::int64_t value = j * plan_.channel_index_stride;
            if (plan_.wide_index_math) dq(static_cast<std::uint64_t>(value));
            else dd(static_cast<std::uint32_t>(value));
        }
    }

    const KernelPlan& plan_;
    Ops ops_;
    std::int64_t block_channels_;
    int vectors_;
    int last_lanes_;
    VectorRoles regs_;
    Label channel_table_;
};

template <typename Ops>
class NxcKernel final : public CompiledKernel {
public:
    explicit NxcKernel(const KernelPlan& plan) : plan_(plan), full_(plan_, plan_.channel_block) {
        if (plan_.channel_tail > 0) tail_ = std::make_unique<NxcEmitter<Ops>>(plan_, plan_.channel_tail);
    }
    KernelFn full_block() const override { return full_.entry(); }
    KernelFn tail_block() const override { return tail_ ? tail_->entry() : nullptr; }
    std::size_t code_size() const override { return full_.getSize() + (tail_ ? tail_->getSize() : 0); }
    std::vector<CodeRegion> code_regions() const override {
        std::vector<CodeRegion> regions{{"full", full_.getCode(), full_.getSize()}};
        if (tail_) regions.push_back({"tail", tail_->getCode(), tail_->getSize()});
        return regions;
    }

private:
    KernelPlan plan_;  // the emitters keep references into it
    NxcEmitter<Ops> full_;
    std::unique_ptr<NxcEmitter<Ops>> tail_;
};

}  // namespace

std::unique_ptr<CompiledKernel> compile_nxc(const KernelPlan& plan) {
    if (plan.isa != Isa::avx512) throw Error("jit:" + std::string(to_string(plan.isa)) + ": the nxc emitter for this ISA is not built yet");
    if (plan.has_indices && plan.index_lanes_64 && plan.compare != CompareType::f64 && plan.compare != CompareType::s64)
        throw Error("jit: spatial size beyond INT32_MAX with 32-bit lanes: 64-bit index lanes are not emitted yet");
    return std::make_unique<NxcKernel<Avx512Ops>>(plan);
}

}  // namespace pooljit::jit
