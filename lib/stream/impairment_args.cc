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

const arg_table& impairment_arg_keys()
{
    // clang-format off
    static const arg_table t("emulator impairments", [] {
        std::vector<arg_key> keys = {
            arg_key::integer("fault_seed", 0, UINT32_MAX, "1", "", "the random faults' seed"),
            arg_key::number("loss", 0, 1, "0", "a probability", "probability that a WRITE message is lost"),
            arg_key::integer("loss_burst", 1, 4096, "1", "messages", "messages lost in a row, each time one is lost"),
            arg_key::number("duplicate", 0, 1, "0", "a probability", "probability that a message is sent twice"),
            arg_key::number("corrupt", 0, 1, "0", "a probability", "probability that a packet's payload is corrupted"),
            arg_key::number("delay", 0, 1, "0", "a probability", "probability that a message is sent late"),
            arg_key::integer("delay_messages", 0, 31, "4", "messages", "messages by which a delayed message is late"),
        };
        for (const auto& [key, kind] : targeted)
            keys.push_back(arg_key::list(key, 0, UINT64_MAX, "message indices", "the messages to inject into").depending("0…2⁶⁴−1"));
        return keys;
    }());
    // clang-format on
    return t;
}

emulated_impairments parse_impairment_args(const device_args& args)
{
    const arg_table& k = impairment_arg_keys();
    auto ppm = [&args, &k](const char* key) {
        return static_cast<uint32_t>(std::lround(args.get_double(k[key]) * 1e6));
    };
    emulated_impairments im;
    im.seed = static_cast<uint32_t>(args.get_uint(k["fault_seed"]));
    im.loss_ppm = ppm("loss");
    im.loss_burst = static_cast<uint32_t>(args.get_uint(k["loss_burst"]));
    im.duplicate_ppm = ppm("duplicate");
    im.corrupt_ppm = ppm("corrupt");
    im.delay_ppm = ppm("delay");
    im.delay_messages = static_cast<uint32_t>(args.get_uint(k["delay_messages"]));
    for (const auto& [key, kind] : targeted)
        for (const uint64_t message : args.get_uint_list(k[key]))
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
