// The AVX-512 trait: how each vector operation the emitters need is spelled on AVX-512 (F, BW, VL, DQ).
// Masks live in opmask registers; tails are masked loads and stores (faults suppressed on masked lanes).
#pragma once

#include "jit/plan.hpp"

#include <xbyak/xbyak.h>

namespace pooljit::jit {

class Avx512Ops {
public:
    using Vmm = Xbyak::Zmm;
    static constexpr int vector_bytes = 64;

    Avx512Ops(Xbyak::CodeGenerator& g, const KernelPlan& plan) : g_(g), plan_(plan) {}

    static Vmm vmm(int i) { return Vmm(i); }

    // Mask of the lanes that a partial vector holds; full vectors use no mask.
    void set_tail_mask(int valid_lanes, const Xbyak::Reg64& scratch) {
        g_.mov(scratch, (std::uint64_t{1} << valid_lanes) - 1);
        g_.kmovq(tail_, scratch);
    }

    // dst (compare type) <- memory elements of plan.dtype, widened.
    void load_value(const Vmm& dst, const Xbyak::Address& src, bool tail) {
        const Vmm d = tail ? Vmm(dst.getIdx()) | tail_ | Xbyak::util::T_z : dst;
        switch (plan_.dtype) {
            case DType::f32: g_.vmovups(d, src); break;
            case DType::f64: g_.vmovupd(d, src); break;
            case DType::s32: g_.vmovdqu32(d, src); break;
            case DType::s64: g_.vmovdqu64(d, src); break;
            case DType::s8: g_.vpmovsxbd(d, src); break;
            case DType::u8: g_.vpmovzxbd(d, src); break;
            case DType::f16: g_.vcvtph2ps(d, src); break;
            case DType::bf16:
                g_.vpmovzxwd(d, src);
                g_.vpslld(dst, dst, 16);
                break;
        }
    }

    // f16 only: the raw 16-bit patterns, zero-extended to 32-bit lanes.
    void load_raw(const Vmm& dst, const Xbyak::Address& src, bool tail) {
        g_.vpmovzxwd(tail ? Vmm(dst.getIdx()) | tail_ | Xbyak::util::T_z : dst, src);
    }

    // take <- lanes where `fresh` replaces `acc` (DESIGN.md section 3: strict greater; NaN by policy).
    void compute_take(const Vmm& fresh, const Vmm& acc) {
        constexpr std::uint8_t ord_q = 7, nge_uq = 9, nle = 6;
        switch (plan_.compare) {
            case CompareType::f32:
            case CompareType::f64: {
                // propagate: a NaN replaces an ordered accumulator, nothing replaces a NaN one.
                // ignore: a NaN never replaces; a real value replaces a NaN first element.
                const Vmm& ordered_side = plan_.nan == NanPolicy::propagate ? acc : fresh;
                const bool f64 = plan_.compare == CompareType::f64;
                if (f64) {
                    g_.vcmppd(take_, ordered_side, ordered_side, ord_q);
                    g_.vcmppd(take_ | take_, acc, fresh, nge_uq);
                } else {
                    g_.vcmpps(take_, ordered_side, ordered_side, ord_q);
                    g_.vcmpps(take_ | take_, acc, fresh, nge_uq);
                }
                break;
            }
            case CompareType::s32: g_.vpcmpd(take_, fresh, acc, nle); break;
            case CompareType::u32: g_.vpcmpud(take_, fresh, acc, nle); break;
            case CompareType::s64: g_.vpcmpq(take_, fresh, acc, nle); break;
        }
    }

    void blend_take(const Vmm& acc, const Vmm& fresh) {
        if (plan_.compare == CompareType::f64 || plan_.compare == CompareType::s64) g_.vmovdqa64(acc | take_, fresh);
        else g_.vmovdqa32(acc | take_, fresh);
    }

    // idx lanes under take <- the scalar index (32- or 64-bit lanes as the plan tracks them).
    void blend_take_index(const Vmm& idx, const Xbyak::Reg64& index) {
        if (plan_.index_lanes_64) g_.vpbroadcastq(idx | take_, index);
        else g_.vpbroadcastd(idx | take_, index.cvt32());
    }

    void broadcast_index(const Vmm& idx, const Xbyak::Reg64& index) {
        if (plan_.index_lanes_64) g_.vpbroadcastq(idx, index);
        else g_.vpbroadcastd(idx, index.cvt32());
    }

    // Lanes of a float accumulator that hold NaN (an all-NaN window under nan=ignore) -> fix_.
    void find_nan_lanes(const Vmm& acc) {
        constexpr std::uint8_t unord_q = 3;
        if (plan_.compare == CompareType::f64) g_.vcmppd(fix_, acc, acc, unord_q);
        else g_.vcmpps(fix_, acc, acc, unord_q);
    }

    void move_under_fix(const Vmm& dst, const Vmm& src, bool lanes_64) {
        if (lanes_64) g_.vmovdqa64(dst | fix_, src);
        else g_.vmovdqa32(dst | fix_, src);
    }

    // Store-domain register (raw bits for f16, the compare value otherwise) -> memory elements of plan.dtype.
    void store_value(const Xbyak::Address& dst, const Vmm& value, const Vmm& scratch, bool tail) {
        auto at = [&](const Xbyak::Address& a) { return tail ? a | tail_ : a; };
        switch (plan_.dtype) {
            case DType::f32: g_.vmovups(at(dst), value); break;
            case DType::f64: g_.vmovupd(at(dst), value); break;
            case DType::s32: g_.vmovdqu32(at(dst), value); break;
            case DType::s64: g_.vmovdqu64(at(dst), value); break;
            case DType::s8: case DType::u8: g_.vpmovdb(at(dst), value); break;
            case DType::f16: g_.vpmovdw(at(dst), value); break;
            case DType::bf16:
                g_.vpsrld(scratch, value, 16);
                g_.vpmovdw(at(dst), scratch);
                break;
        }
    }

    // Final indices: spatial part (idx, 32- or 64-bit lanes) + channel part (chan_base broadcast + a table of
    // per-lane channel offsets), -1 on lanes in fix_ when `fix`, stored as plan.index_dtype.
    // `table` points at this vector's first per-lane offset (64-bit entries for s64 output, 32-bit for s32).
    void store_indices(const Xbyak::Address& dst_lo, const Xbyak::Address& dst_hi, const Vmm& idx, const Vmm& chan_base,
                       const Xbyak::Address& table_lo, const Xbyak::Address& table_hi, const Vmm& minus_one,
                       const Vmm& t0, bool tail, bool fix, int valid_lanes, const Xbyak::Reg64& scratch) {
        const bool out64 = plan_.index_dtype == DType::s64;
        if (plan_.index_lanes_64 || !out64) {
            // Same lane count in and out.
            if (plan_.index_lanes_64) {
                g_.vpaddq(t0, idx, chan_base);
                g_.vpaddq(t0, t0, table_lo);
            } else {
                g_.vpaddd(t0, idx, chan_base);
                g_.vpaddd(t0, t0, table_lo);
            }
            if (fix) move_under_fix(t0, minus_one, plan_.index_lanes_64);
            const Xbyak::Address a = tail ? dst_lo | tail_ : dst_lo;
            if (out64) g_.vmovdqu64(a, t0);
            else if (plan_.index_lanes_64) g_.vpmovqd(a, t0);
            else g_.vmovdqu32(a, t0);
            return;
        }
        // 32-bit lanes, 64-bit output: two halves of 8 lanes.
        for (int half = 0; half < 2; ++half) {
            const int lanes_here = std::min(8, valid_lanes - half * 8);
            if (lanes_here <= 0) break;
            if (half == 0) g_.vpmovsxdq(t0, Xbyak::Ymm(idx.getIdx()));
            else {
                g_.vextracti32x8(Xbyak::Ymm(t0.getIdx()), idx, 1);
                g_.vpmovsxdq(t0, Xbyak::Ymm(t0.getIdx()));
            }
            g_.vpaddq(t0, t0, chan_base);
            g_.vpaddq(t0, t0, half == 0 ? table_lo : table_hi);
            if (fix) {
                if (half == 1) g_.kshiftrw(fix_, fix_, 8);
                g_.vmovdqa64(t0 | fix_, minus_one);
            }
            const Xbyak::Address& a = half == 0 ? dst_lo : dst_hi;
            if (lanes_here < 8) {
                g_.mov(scratch, (std::uint64_t{1} << lanes_here) - 1);
                g_.kmovq(half_tail_, scratch);
                g_.vmovdqu64(a | half_tail_, t0);
            } else {
                g_.vmovdqu64(a, t0);
            }
        }
    }

private:
    Xbyak::CodeGenerator& g_;
    const KernelPlan& plan_;
    const Xbyak::Opmask take_{1}, fix_{3}, half_tail_{4}, tail_{7};
};

}  // namespace pooljit::jit
