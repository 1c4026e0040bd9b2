/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "probe_reads.h"
#include <spdlog/fmt/fmt.h>

namespace gr {
namespace rdma {
namespace app {

using status = axioe::status;

status try_read(axioe::client& c, uint32_t address, uint32_t* out, size_t count)
{
    try {
        c.read(address, out, count);
        return status::okay;
    } catch (const axioe::error& e) {
        return e.code();
    }
}

std::string refusal(status s)
{
    return fmt::format("{} ({})", axioe::to_string(s), axioe::describe(s));
}

void refused(report_node& section, status s)
{
    if (s == status::decerr) {
        section.set_summary("not reported by this device");
    } else if (s == status::not_owner) {
        section.set_summary("not readable: another host owns the stream");
    } else {
        section.set_summary("refused: " + refusal(s));
    }
    section.add_json("readable", "false");
    section.add_json("refused", json_string(axioe::to_string(s)));
}

} // namespace app
} // namespace rdma
} // namespace gr
