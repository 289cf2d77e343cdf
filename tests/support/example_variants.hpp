// The problems a strategy registry example stands for: itself, or in every data type (when it has no dt=) and
// every index option (when it has no idx=).
#pragma once

#include <string>
#include <vector>

namespace pooljit::test {

inline std::vector<std::string> variants_of(const std::string& line) {
    std::vector<std::string> typed;
    if (line.find(" dt=") != std::string::npos) {
        typed.push_back(line);
    } else {
        for (const char* dt : {"f32", "f64", "f16", "bf16", "s8", "u8", "s32", "s64"}) {
            std::string with = line;
            with.insert(with.find(' '), std::string(" dt=") + dt);
            typed.push_back(with);
        }
    }
    if (line.find(" idx=") != std::string::npos) return typed;
    const bool adaptive = line.rfind("adaptive", 0) == 0;
    const std::vector<std::string> index_options =
        adaptive ? std::vector<std::string>{"", " idx=s32", " idx=s64"}
                 : std::vector<std::string>{"", " idx=s64", " idx=s32 axis=2", " idx=s64 axis=1 nan=ignore", " idx=s32 order=col"};
    std::vector<std::string> all;
    for (const std::string& t : typed)
        for (const std::string& idx : index_options) all.push_back(t + idx);
    return all;
}

}  // namespace pooljit::test
