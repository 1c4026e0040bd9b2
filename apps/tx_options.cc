/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "app_flags.h"
#include "tx_options.h"
#include "util/device_args.h"
#include "util/parse_number.h"
#include <gnuradio/rdma/sample_format.h>
#include <sys/stat.h>
#include <cerrno>
#include <cmath>
#include <cstring>

namespace gr {
namespace rdma {
namespace app {

namespace {

double parse_range(const std::string& flag,
                   const std::string& value,
                   double low,
                   double high,
                   const std::string& unit,
                   bool low_open)
{
    const auto v = parse_double(value);
    if (!v || (low_open ? *v <= low : *v < low) || *v > high)
        bad_flag(flag,
                 value,
                 low_open ? unit + " above " + format_number(low) + ", at most " +
                                format_number(high)
                          : unit + " " + format_number(low) + ".." + format_number(high));
    return *v;
}

size_t item_bytes(const std::string& format)
{
    return item_size(parse_sample_format(format));
}

// A regular FILE's length in items; a FILE that cannot be played is a usage error.
uint64_t check_file(const tx_options& o)
{
    struct stat st {
    };
    if (::stat(o.signal.c_str(), &st) != 0)
        throw usage_error("--signal " + o.signal + ": " + std::strerror(errno) +
                          ": expected ramp, tone or a readable FILE of raw " + o.format +
                          " items");
    if (S_ISDIR(st.st_mode))
        throw usage_error("--signal " + o.signal +
                          " is a directory: expected ramp, tone or a FILE of raw " +
                          o.format + " items");
    if (!S_ISREG(st.st_mode))
        return 0; // a pipe or a device: its length is known at its end
    const uint64_t bytes = static_cast<uint64_t>(st.st_size);
    const size_t item = item_bytes(o.format);
    if (bytes == 0)
        throw usage_error("--signal " + o.signal + " is empty: nothing to transmit");
    if (bytes % item != 0)
        throw usage_error("--signal " + o.signal + " holds " + std::to_string(bytes) +
                          " bytes, not a whole number of " + o.format + " items (" +
                          std::to_string(item) + " bytes each): is --format right?");
    return bytes / item;
}

} // namespace

tx_options parse_tx_options(int argc, char** argv)
{
    tx_options o;
    bool wave_given = false, ampl_given = false;
    flag_reader flags(argc, argv);
    std::string flag;
    while (flags.next(flag)) {
        if (flag == "--help" || flag == "-h") {
            o.help = true;
        } else if (flag == "--json") {
            o.json = true;
        } else if (flag == "--repeat") {
            o.repeat = true;
        } else if (flag == "--args") {
            o.args = flags.value_of(flag);
        } else if (flag == "--format") {
            o.format = flags.value_of(flag);
            if (o.format != "sc16" && o.format != "fc32" && o.format != "sc8")
                bad_flag(flag, o.format, "fc32, sc16 or sc8 (the TX stream's formats)");
        } else if (flag == "--signal") {
            o.signal = flags.value_of(flag);
            if (o.signal.empty())
                bad_flag(flag, "''", "ramp, tone or a FILE");
        } else if (flag == "--rate") {
            // tx_stream's own limit, as gr-rdma-rx's.
            o.rate = parse_range(flag, flags.value_of(flag), 0, 4e9, "S/s", true);
        } else if (flag == "--duration") {
            o.duration =
                parse_range(flag, flags.value_of(flag), 0, 1e6, "seconds", false);
        } else if (flag == "--wave-freq") {
            o.wave_freq = parse_range(flag, flags.value_of(flag), -2e9, 2e9, "Hz", false);
            wave_given = true;
        } else if (flag == "--ampl") {
            o.ampl =
                parse_range(flag, flags.value_of(flag), 0, 1, "of full scale", false);
            ampl_given = true;
        } else if (flag == "--throttle") {
            o.throttle = parse_range(flag, flags.value_of(flag), 0, 4e9, "S/s", true);
        } else if (flag == "--timeout") {
            o.timeout = parse_range(flag, flags.value_of(flag), 0, 1e6, "seconds", false);
        } else {
            throw usage_error("unknown flag '" + flag + "' (--help lists them)");
        }
    }
    if (o.help)
        return o;

    o.from_file = o.signal != "ramp" && o.signal != "tone";
    if ((wave_given || ampl_given) && o.signal != "tone")
        throw usage_error(std::string(wave_given ? "--wave-freq" : "--ampl") +
                          " shapes the tone: add --signal tone");
    if (o.repeat && !o.from_file)
        throw usage_error("--repeat plays a FILE again from its start: --signal " +
                          o.signal + " never ends by itself (--duration ends it)");
    if (o.signal == "tone" && std::fabs(o.wave_freq) > o.rate / 2)
        throw usage_error("--wave-freq " + format_number(o.wave_freq) +
                          " is invalid: expected at most half of --rate (" +
                          format_number(o.rate / 2) + " Hz)");

    try {
        const device_args a = device_args::parse(o.args);
        o.tx_check = a.has("tx_check") && a.get("tx_check", "0") == "1";
    } catch (const std::invalid_argument& e) {
        throw usage_error(std::string("--args: ") + e.what());
    }
    // A FILE may hold a ramp (and the check then proves it arrived intact); a tone
    // never does.
    if (o.tx_check && o.signal == "tone")
        throw usage_error("tx_check=1 compares every played sample with the ramp: "
                          "with --signal tone drop tx_check=1 from --args, or send "
                          "--signal ramp");

    if (o.duration > 0) {
        const double n = std::round(o.rate * o.duration);
        if (n < 1)
            throw usage_error(
                "--duration " + format_number(o.duration) + " s at " +
                format_number(o.rate) +
                " S/s is no sample: nothing to transmit (0: until stopped)");
        o.samples = static_cast<uint64_t>(n);
    }
    if (o.from_file) {
        o.file_items = check_file(o);
        if (o.repeat && o.file_items == 0)
            throw usage_error("--repeat reads --signal " + o.signal +
                              " again from its start: it needs a regular FILE, not a "
                              "pipe or a device");
        if (o.file_items && !o.repeat)
            o.samples = o.samples ? std::min(o.samples, o.file_items) : o.file_items;
    }
    return o;
}

void print_tx_usage(FILE* to)
{
    std::fputs(
        "usage: gr-rdma-tx [--args ARGS] [--format fc32|sc16|sc8] [--signal "
        "ramp|tone|FILE]\n"
        "                  [--rate R] [--duration S] [--wave-freq HZ] [--ampl A]\n"
        "                  [--repeat] [--throttle R] [--timeout S] [--json]\n"
        "\n"
        "Transmits a signal to an RDMA SDR (default: the built-in emulator) without a\n"
        "flowgraph: it writes the samples straight into the registered TX ring, which "
        "the\n"
        "device reads by RDMA READ (docs/transmit.md), and reports what was played.\n"
        "SIGINT or SIGTERM (or SIGHUP, SIGQUIT, SIGUSR1/2) stops it and prints the\n"
        "report.\n"
        "\n"
        "  --args ARGS      device args (default type=emu; docs/device-args.md), e.g.\n"
        "                   type=emu,tx_check=1 to have the emulator check the ramp\n"
        "  --format F       sample format of the stream and of FILE: fc32 (default),\n"
        "                   sc16 or sc8\n"
        "  --signal S       ramp (default: item k encodes k, as the emulator checks "
        "it),\n"
        "                   tone, or FILE: raw interleaved items of --format\n"
        "  --rate R         sample rate in S/s, at most 4e9 (default 1e6)\n"
        "  --duration S     seconds to transmit, 0..1e6; 0 or none: until stopped (or "
        "the\n"
        "                   end of FILE)\n"
        "  --wave-freq HZ   tone: frequency, at most half of --rate (default 100e3)\n"
        "  --ampl A         tone: amplitude of full scale, 0..1 (default 0.5)\n"
        "  --repeat         FILE: from its start again at its end\n"
        "  --throttle R     the producer commits at most R S/s (a slow source: the "
        "device\n"
        "                   underflows, and reports it)\n"
        "  --timeout S      seconds to wait beyond the run's length (default 10)\n"
        "  --json           one JSON object on stdout\n"
        "\n"
        "Exit status: 0 the run ended (or a signal stopped it) and every sample "
        "provided\n"
        "is accounted for (provided = played intact + zero-substituted (late) + not\n"
        "played), and the device's ramp check (tx_check=1) found no mismatch; 1 the run\n"
        "failed (the report says why);\n"
        "2 a usage or configuration error (one line on stderr, nothing on stdout).\n",
        to);
}

} // namespace app
} // namespace rdma
} // namespace gr
