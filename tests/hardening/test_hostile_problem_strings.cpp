// Hostile problem strings: malformed lines, lines of a million characters, random bytes and random edits of
// valid lines. parse_problem must return a descriptor or throw pooljit::Error, never crash, hang or throw
// anything else; a line that parses must print to a fixed point, and its create() must either succeed cheaply
// (no allocation sized by the tensor) or throw pooljit::Error.
#include "tests/hardening/alloc_watch.hpp"
#include "tests/hardening/hostile_util.hpp"

#include <pooljit/pooljit.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <exception>
#include <random>
#include <string>
#include <typeinfo>
#include <vector>

namespace pj = pooljit;

using pooljit::test::hostile::Watchdog;

// ---- Problem strings --------------------------------------------------------------------------------------

// At most 200 characters of `text`, for failure messages about 10^6-character lines.
std::string clip(const std::string& text) { return text.size() <= 200 ? text : text.substr(0, 200) + "..."; }

// parse_problem either returns a descriptor or throws pooljit::Error; a parsed descriptor prints to a line that
// parses and prints the same (empty strides, pads and dilations print as their defaults, so the descriptors
// themselves may differ), and create() of it either succeeds cheaply or throws pooljit::Error.
void expect_parse_is_safe(const std::string& line, const std::string& what) {
    pj::AnyPoolDesc desc;
    try {
        desc = pj::parse_problem(line);
    } catch (const pj::Error&) {
        return;
    } catch (const std::exception& e) {
        ADD_FAILURE() << what << ": parse_problem threw a " << typeid(e).name() << ": " << clip(e.what());
        return;
    }
    const std::string printed = pj::to_string(desc);
    try {
        EXPECT_EQ(pj::to_string(pj::parse_problem(printed)), printed) << what << ": printing is not a fixed point";
    } catch (const std::exception& e) {
        ADD_FAILURE() << what << ": the printed line '" << clip(printed) << "' does not parse: " << clip(e.what());
    }
    try {
        const alloc_watch::Scope watch;
        (void)pj::create(desc);
        EXPECT_LE(watch.largest_request(), alloc_watch::refused_above) << what << ": " << clip(printed);
    } catch (const pj::Error&) {
    } catch (const std::exception& e) {
        ADD_FAILURE() << what << ": create(" << clip(printed) << ") threw a " << typeid(e).name() << ": " << clip(e.what());
    }
}

TEST(HostileProblemString, MalformedLines) {
    const std::string huge_number(30, '9');
    const std::vector<std::string> lines{
        "",
        " ",
        "\n",
        "maxpool",
        "adaptivemaxpool",
        "maxpool k=3x3",
        "maxpool src=1x1x4x4",
        "maxpool src=1x1x4x4 k=",
        "maxpool src= k=3x3",
        "maxpool src=1x1x4x4 k",
        "maxpool src=1x1x4x4 =3x3",
        "maxpool src=1x1x4x4 k=3x3 k=2x2",
        "maxpool src=1x1x4x4 src=1x1x4x4 k=3x3",
        "maxpool src=1x1x4x4 k=3x3 dt=f32 dt=f16",
        "maxpool src=1x1x4x4 k==3x3",
        "maxpool src=1x1x4x4 k=3xx3",
        "maxpool src=1x1x4x4 k=x3",
        "maxpool src=1x1x4x4 k=3x",
        "maxpool src=1x1x4x4 k=3x3x",
        "maxpool src=1x1x4x4 k=+3x3",
        "maxpool src=1x1x4x4 k=0x3",
        "maxpool src=1x1x4x4 k=-3x3",
        "maxpool src=1x1x4x4 k=3.0x3",
        "maxpool src=1x1x4x4 k=0x03x3",
        "maxpool src=1x1x4x4 k=3x3 s=" + huge_number + "x1",
        "maxpool src=1x1x" + huge_number + "x4 k=3x3",
        "maxpool src=1x1x9223372036854775807x4 k=3x3",
        "maxpool src=1x1x9223372036854775808x4 k=3x3",
        "maxpool src=1x1x-9223372036854775808x4 k=3x3",
        "maxpool src=1x1x4x4 k=3x3 pb=9223372036854775807x0",
        "maxpool src=1x1x4x4 k=3x3 axis=1x2 idx=s64",
        "maxpool src=1x1x4x4 k=3x3 axis= idx=s64",
        "maxpool src=1x1x4x4 k=3x3 axis=9223372036854775807 idx=s64",
        "maxpool src=1x1x4x4 k=3x3 axis=1",
        "maxpool src=1x1x4x4 k=3x3 order=col",
        "maxpool src=1x1x4x4 k=3x3 dt=f128",
        "maxpool src=1x1x4x4 k=3x3 dt=",
        "maxpool src=1x1x4x4 k=3x3 layout=nhwc",
        "maxpool src=1x1x4x4 k=3x3 pad=same",
        "maxpool src=1x1x4x4 k=3x3 round=up",
        "maxpool src=1x1x4x4 k=3x3 nan=yes",
        "maxpool src=1x1x4x4 k=3x3 idx=u8",
        "maxpool src=1x1x4x4 k=3x3 unknown=1",
        "MAXPOOL src=1x1x4x4 k=3x3",
        "maxpool\tsrc=1x1x4x4\tk=3x3\r\n",
        std::string("maxpool src=1x1x4x4\0 k=3x3", 26),
        std::string("maxpool src=1x1x4\0x4 k=3x3", 26),
        "maxpool src=1x1x4x4 k=3x3 # comment",
        "# maxpool src=1x1x4x4 k=3x3",
        "adaptivemaxpool src=1x1x4x4 out=0x2",
        "adaptivemaxpool src=1x1x4x4 out=" + huge_number,
        "adaptivemaxpool src=1x1x4x4 out=2x2 out=2x2",
        "adaptivemaxpool src=1x1x4x4 out=2x2 k=3x3",
        "adaptivemaxpool src=1x1x4x4 out=2x2 idx=",
        "maxpool src=1x1x4x4 k=3x3 \xff\xfe=\x80",
        "\xef\xbb\xbfmaxpool src=1x1x4x4 k=3x3",
    };
    for (std::size_t i = 0; i < lines.size(); ++i) expect_parse_is_safe(lines[i], "line " + std::to_string(i));
}

TEST(HostileProblemString, MillionCharacterLines) {
    const std::size_t n = 1000000;
    std::vector<std::string> lines;
    lines.push_back("maxpool src=1x1x4x4 k=" + std::string(n, '3'));
    lines.push_back("maxpool src=1x1x4x4 k=" + std::string(n, 'x'));
    lines.push_back("maxpool " + std::string(n, ' ') + "src=1x1x4x4 k=3x3");
    lines.push_back(std::string(n, 'm'));
    std::string many_dims = "maxpool k=1x1 src=1";
    while (many_dims.size() < n) many_dims += "x1";
    lines.push_back(many_dims);
    std::string many_tokens = "maxpool src=1x1x4x4 k=3x3";
    while (many_tokens.size() < n) many_tokens += " s=1x1";
    lines.push_back(many_tokens);
    std::string many_keys = "maxpool src=1x1x4x4 k=3x3";
    for (int i = 0; many_keys.size() < n; ++i) many_keys += " key" + std::to_string(i) + "=1";
    lines.push_back(many_keys);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const Watchdog watchdog("parse of a 10^6-character line", std::chrono::seconds(30));
        expect_parse_is_safe(lines[i], "long line " + std::to_string(i));
    }
}

TEST(HostileProblemString, RandomBytesAndMutations) {
    std::mt19937_64 rng(2024);
    const std::string valid[] = {
        "maxpool dt=f32 layout=nxc src=2x5x9x9 k=3x3 s=2x2 d=1x1 pb=1x1 pe=1x1 pad=explicit round=floor nan=propagate idx=s64 axis=0 order=row",
        "adaptivemaxpool dt=f16 layout=ncx src=1x3x12x12 out=5x5 idx=s32",
    };
    const std::string alphabet = "maxpoldtsrcke=x0123456789 -_\t\n";
    for (int i = 0; i < 3000; ++i) {
        std::string line;
        const int kind = static_cast<int>(rng() % 4);
        if (kind == 0) {  // random bytes
            line.resize(rng() % 200);
            for (char& c : line) c = static_cast<char>(rng());
        } else if (kind == 1) {  // random text from the problem-string alphabet
            line = rng() % 2 ? "maxpool " : "adaptivemaxpool ";
            const std::size_t length = rng() % 120;
            for (std::size_t j = 0; j < length; ++j) line += alphabet[rng() % alphabet.size()];
        } else {  // a valid line with a few bytes replaced, inserted or deleted
            line = valid[rng() % 2];
            const int edits = 1 + static_cast<int>(rng() % 4);
            for (int e = 0; e < edits && !line.empty(); ++e) {
                const std::size_t at = rng() % line.size();
                switch (rng() % 3) {
                    case 0: line[at] = alphabet[rng() % alphabet.size()]; break;
                    case 1: line.insert(at, 1, static_cast<char>(rng())); break;
                    default: line.erase(at, 1); break;
                }
            }
        }
        expect_parse_is_safe(line, "random line " + std::to_string(i));
        if (HasFailure()) {
            ADD_FAILURE() << "first failing random line (" << line.size() << " bytes): '" << clip(line) << "'";
            return;
        }
    }
}
