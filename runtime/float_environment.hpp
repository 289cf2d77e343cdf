// The floating-point environment a kernel compares in. Max pooling selects an element by the specifications'
// order, in which a denormal is a value like any other; engines often run their threads with MXCSR's
// denormals-are-zero (DAZ) and flush-to-zero (FTZ) bits set (PyTorch's set_flush_denormal, ONNX Runtime's
// set_denormal_as_zero, OpenVINO's denormals hint), and then vmaxps, vcmpps and the reference's `>` see a denormal
// as 0 (a caller's DAZ changed 64 of 64 outputs of a 2x2 pool over denormals). A caller may also unmask an
// exception (feenableexcept(FE_INVALID)), which a NaN compare would then trap. So the work of an execute runs
// under MXCSR with DAZ and FTZ clear and every exception masked, and the caller's MXCSR comes back after.
#pragma once

#include <xmmintrin.h>

namespace pooljit::detail {

class ExactFloatCompares {
public:
    ExactFloatCompares() noexcept : caller_(_mm_getcsr()) {
        const unsigned exact = (caller_ & ~(denormals_are_zero | flush_to_zero)) | exception_masks;
        changed_ = exact != caller_;
        if (changed_) _mm_setcsr(exact);
    }
    ~ExactFloatCompares() {
        if (changed_) _mm_setcsr(caller_);  // the caller's bits, its exception flags as they were
    }
    ExactFloatCompares(const ExactFloatCompares&) = delete;
    ExactFloatCompares& operator=(const ExactFloatCompares&) = delete;

private:
    static constexpr unsigned denormals_are_zero = 1u << 6;
    static constexpr unsigned exception_masks = 0x3Fu << 7;  // invalid, denormal, divide, overflow, underflow, precision
    static constexpr unsigned flush_to_zero = 1u << 15;
    unsigned caller_;
    bool changed_;
};

}  // namespace pooljit::detail
