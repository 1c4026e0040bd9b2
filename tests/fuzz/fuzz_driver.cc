/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// A small, deterministic stand-in for libFuzzer so that every build runs the fuzz
// targets under ctest: it feeds each seed file of a corpus directory, then a fixed
// number of mutations of them (bit flips, byte overwrites, truncation, extension,
// splices, random buffers). The sanitizers the target is built with do the checking.
//
//   fuzz_<target> <corpus-dir> [iterations] [seed]

#include <dirent.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

std::vector<std::vector<uint8_t>> load_corpus(const std::string& dir)
{
    std::vector<std::vector<uint8_t>> seeds;
    if (DIR* d = opendir(dir.c_str())) {
        while (dirent* e = readdir(d)) {
            if (e->d_name[0] == '.')
                continue;
            std::ifstream f(dir + "/" + e->d_name, std::ios::binary);
            seeds.emplace_back(std::istreambuf_iterator<char>(f),
                               std::istreambuf_iterator<char>());
        }
        closedir(d);
    }
    return seeds;
}

// Run on an exactly-sized heap copy so that AddressSanitizer sees any overrun.
void run(const std::vector<uint8_t>& input)
{
    std::vector<uint8_t> exact(input);
    exact.shrink_to_fit();
    LLVMFuzzerTestOneInput(exact.empty() ? nullptr : exact.data(), exact.size());
}

std::vector<uint8_t> mutate(std::vector<uint8_t> in,
                            const std::vector<std::vector<uint8_t>>& seeds,
                            std::mt19937_64& rng)
{
    auto pick = [&](size_t n) { return n ? static_cast<size_t>(rng() % n) : 0; };
    const int rounds = 1 + static_cast<int>(rng() % 4);
    for (int r = 0; r < rounds; r++) {
        switch (rng() % 7) {
        case 0: // flip a bit
            if (!in.empty())
                in[pick(in.size())] ^= static_cast<uint8_t>(1u << (rng() % 8));
            break;
        case 1: // overwrite a byte with an interesting value
            if (!in.empty()) {
                static const uint8_t values[] = { 0, 1, 0x7F, 0x80, 0xFF, 0x0B, 0x2B };
                in[pick(in.size())] = values[rng() % sizeof(values)];
            }
            break;
        case 2: // truncate
            in.resize(pick(in.size() + 1));
            break;
        case 3: // extend with random bytes
            for (size_t n = 1 + pick(64); n > 0; n--)
                in.push_back(static_cast<uint8_t>(rng()));
            break;
        case 4: // splice the tail of another seed
            if (!seeds.empty()) {
                const auto& other = seeds[pick(seeds.size())];
                const size_t cut = pick(in.size() + 1);
                const size_t from = pick(other.size() + 1);
                in.resize(cut);
                in.insert(in.end(), other.begin() + from, other.end());
            }
            break;
        case 5: // overwrite a 32-bit word
            if (in.size() >= 4) {
                const size_t at = pick(in.size() - 3);
                const uint32_t v = static_cast<uint32_t>(rng());
                for (int i = 0; i < 4; i++)
                    in[at + i] = static_cast<uint8_t>(v >> (8 * i));
            }
            break;
        default: // a fresh random buffer
            in.assign(pick(2048), 0);
            for (auto& b : in)
                b = static_cast<uint8_t>(rng());
        }
    }
    return in;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s <corpus-dir> [iterations] [seed]\n", argv[0]);
        return 2;
    }
    const long iterations = argc > 2 ? std::atol(argv[2]) : 100000;
    std::mt19937_64 rng(argc > 3 ? std::strtoull(argv[3], nullptr, 0) : 0x5EED);
    const auto seeds = load_corpus(argv[1]);
    if (seeds.empty()) {
        std::fprintf(stderr, "no seed inputs in %s\n", argv[1]);
        return 2;
    }
    for (const auto& s : seeds)
        run(s);
    run({});
    for (long i = 0; i < iterations; i++)
        run(mutate(seeds[rng() % seeds.size()], seeds, rng));
    std::printf("%zu seeds + %ld mutated inputs: no crash, no sanitizer report\n",
                seeds.size(),
                iterations);
    return 0;
}
