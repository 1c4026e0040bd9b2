/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "impairment_args.h"
#include "../regs/register_map.h"
#include <cmath>
#include <stdexcept>
#include <utility>

namespace gr {
namespace rdma {

namespace {

// drop=3:17:200 drops exactly those WRITE messages; the others inject their fault into
// exactly the messages listed (the emulator's fault table).
const std::pair<const char*, uint32_t> targeted[] = {
    { "drop", regs::fault::drop },
    { "corrupt_icrc", regs::fault::corrupt_icrc },
    { "corrupt_payload", regs::fault::corrupt_payload },
    { "bad_rkey", regs::fault::bad_rkey },
    { "bad_va", regs::fault::bad_va },
};

} // namespace

const std::set<std::string>& impairment_arg_keys()
{
    static const std::set<std::string> keys = [] {
        std::set<std::string> k = { "fault_seed", "loss",  "loss_burst",    "duplicate",
                                    "corrupt",    "delay", "delay_messages" };
        for (const auto& [key, kind] : targeted)
            k.insert(key);
        return k;
    }();
    return keys;
}

emulated_impairments parse_impairment_args(const device_args& args)
{
    auto ppm = [&args](const char* key) {
        return static_cast<uint32_t>(
            std::lround(args.get_double(key, 0, 0, 1, "a probability") * 1e6));
    };
    emulated_impairments im;
    im.seed = static_cast<uint32_t>(args.get_uint("fault_seed", 1, 0, UINT32_MAX));
    im.loss_ppm = ppm("loss");
    im.loss_burst =
        static_cast<uint32_t>(args.get_uint("loss_burst", 1, 1, 4096, "messages"));
    im.duplicate_ppm = ppm("duplicate");
    im.corrupt_ppm = ppm("corrupt");
    im.delay_ppm = ppm("delay");
    im.delay_messages =
        static_cast<uint32_t>(args.get_uint("delay_messages", 4, 0, 31, "messages"));
    for (const auto& [key, kind] : targeted)
        for (const uint64_t message :
             args.get_uint_list(key, 0, UINT64_MAX, "message indices"))
            im.faults.emplace_back(message, kind);
    if (im.faults.size() > regs::emu::max_faults)
        throw std::invalid_argument(
            "device args: drop=, corrupt_icrc=, corrupt_payload=, "
            "bad_rkey= and bad_va= list at most " +
            std::to_string(regs::emu::max_faults) + " messages in all");
    return im;
}

} // namespace rdma
} // namespace gr
