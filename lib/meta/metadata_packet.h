/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_META_METADATA_PACKET_H
#define INCLUDED_RDMA_META_METADATA_PACKET_H

#include <gnuradio/rdma/transport_api.h>
#include <cstddef>
#include <cstdint>

/*
 * Metadata packet codec (docs/metadata.md): what the device tells the host besides the
 * samples — stream start, periodic timestamps, stream end, device events — one 40-byte
 * big-endian record per UDP datagram, never inside the sample stream. Shared by the
 * device (emulator: encode) and the host (decode).
 *
 * Pure functions on caller buffers: no sockets, no allocation and no dependency on the
 * rest of the transport core, so that the fuzz target compiles this file alone. The
 * decoder reads nothing outside [data, data + len), whatever the content.
 */

namespace gr {
namespace rdma {
namespace meta {

constexpr uint32_t magic = 0x47524D44; // "GRMD"
constexpr uint8_t protocol_version = 1;
constexpr size_t packet_bytes = 40;

//! Byte offsets of the fields (all big-endian).
namespace offset {
constexpr size_t magic = 0;    // u32
constexpr size_t version = 4;  // u8
constexpr size_t type = 5;     // u8
constexpr size_t stream = 6;   // u8
constexpr size_t reserved = 7; // u8, 0
constexpr size_t sequence = 8; // u32
constexpr size_t sample = 12;  // u64
constexpr size_t time_ns = 20; // u64
constexpr size_t code = 28;    // u32
constexpr size_t value = 32;   // u64
} // namespace offset

enum class record_type : uint8_t {
    stream_start = 1, //!< sample 0 of a run is taken at time_ns (= RX_START_TIME)
    timestamp = 2,    //!< sample count `sample` was reached at time_ns
    stream_end = 3,   //!< a finite burst ended after `sample` samples
    event = 4,        //!< a device event: code, first sample, value
};
//! "stream_start", "timestamp", "stream_end", "event"; "unknown" otherwise.
const char* to_string(record_type t);

//! Device event codes (record_type::event). Codes not listed here are valid on the
//! wire: a host reports them as they are.
namespace event_code {
constexpr uint32_t zero_substituted =
    1; //!< value samples from `sample` were sent as zeros (RC)
constexpr uint32_t fault_injected =
    2; //!< value = regs::fault kind; sample: first of the message
constexpr uint32_t device_overflow =
    3; //!< reserved: the device lost value samples at `sample`
// TX streams (stream byte tx_stream_flag + t; docs/metadata.md, "TX records"). sample
// is an item index of the TX stream (items committed since START), time_ns as listed.
constexpr uint32_t tx_underflow = 16;  //!< item waited for, first zero's time, zeros
constexpr uint32_t tx_late = 17;       //!< piece's first item, its play time, samples
constexpr uint32_t tx_burst_ack = 18;  //!< END item, time after its last, played
constexpr uint32_t tx_time_error = 19; //!< START item, requested T, time taken up
constexpr uint32_t tx_lead = 20;       //!< next item to play, now, new lead in ns
constexpr uint32_t tx_seq_error = 21;  //!< first item re-read, now, packets missing
} // namespace event_code
//! "zero_substituted", "fault_injected", "device_overflow", "tx_underflow", "tx_late",
//! "tx_burst_ack", "tx_time_error", "tx_lead", "tx_seq_error"; "unknown" otherwise.
const char* event_name(uint32_t code);

//! Bit 7 of the stream byte: a TX stream (its index in bits 6..0). A host that knows
//! no TX records drops them as records of a stream it does not have.
constexpr uint8_t tx_stream_flag = 0x80;
inline constexpr bool is_tx_stream(uint8_t stream) { return stream & tx_stream_flag; }
inline constexpr uint8_t tx_stream_byte(unsigned tx_stream)
{
    return static_cast<uint8_t>(tx_stream_flag | (tx_stream & 0x7F));
}

//! One metadata record, fields in host byte order.
struct record {
    record_type type = record_type::timestamp;
    uint8_t stream = 0;    //!< RX stream index, or tx_stream_byte(t)
    uint32_t sequence = 0; //!< per device, +1 per packet, wraps
    uint64_t sample = 0;   //!< device sample index since sample 0 of the run
    uint64_t time_ns = 0;  //!< device time of that sample (ns since the epoch)
    uint32_t code = 0;     //!< events: event_code; 0 otherwise
    uint64_t value = 0;    //!< events: the event's value; 0 otherwise
};

//! Why a datagram did not decode.
enum class parse_status {
    ok,
    too_short,    //!< shorter than packet_bytes
    too_long,     //!< trailing bytes after the record
    bad_magic,    //!< not a gr-rdma metadata packet
    bad_version,  //!< a version this codec does not speak
    bad_type,     //!< not one of the four record types
    bad_reserved, //!< reserved byte not 0
};
const char* to_string(parse_status s);

//! Write \p r as a packet_bytes-byte datagram at \p out; returns packet_bytes.
RDMA_TRANSPORT_API size_t encode(const record& r, uint8_t* out);
//! Decode the datagram [data, data + len). Checks, in this order: length, magic,
//! version, type, reserved. \p out is written only on parse_status::ok.
parse_status parse(const uint8_t* data, size_t len, record& out);

/*!
 * Counts lost and duplicated packets from their sequence numbers (per device, +1 per
 * packet, wrapping at 2^32). The first packet seen sets the base. A packet that comes
 * late but within the last 64 fills the hole it left (it is no longer lost); one seen
 * before is a duplicate and should be dropped. A packet older than that window can only
 * come from a device that started counting afresh (a restart): it becomes the new base.
 */
class sequence_counter
{
public:
    enum class verdict {
        in_order,  //!< the next number
        after_gap, //!< numbers were skipped: counted lost until they come late
        late,      //!< behind the newest, not seen before
        duplicate, //!< seen before: drop it
        resync,    //!< far behind: the device restarted its count; a new base
    };

    verdict on_packet(uint32_t sequence);
    void reset() { *this = sequence_counter(); }

    uint64_t lost() const { return d_lost; }
    uint64_t duplicates() const { return d_duplicates; }
    //! Packets not dropped as duplicates.
    uint64_t accepted() const { return d_accepted; }
    uint64_t resyncs() const { return d_resyncs; }

    //! A jump ahead larger than this is no loss the device can have had (it is a
    //! forgery or a restart): a new base, like a count far behind, not max_jump lost.
    static constexpr uint32_t max_jump = 65536;

private:
    static constexpr uint32_t window = 64;
    bool d_started = false;
    uint32_t d_next = 0;    // one past the newest sequence number
    uint64_t d_seen = 0;    // bit i: d_next - 1 - i was seen
    uint64_t d_missing = 0; // bit i: d_next - 1 - i is counted lost
    uint64_t d_lost = 0;
    uint64_t d_duplicates = 0;
    uint64_t d_accepted = 0;
    uint64_t d_resyncs = 0;
};

} // namespace meta
} // namespace rdma
} // namespace gr

#endif
