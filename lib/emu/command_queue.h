/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_EMU_COMMAND_QUEUE_H
#define INCLUDED_RDMA_EMU_COMMAND_QUEUE_H

#include "device_clock.h"
#include <condition_variable>
#include <array>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace gr {
namespace rdma {
namespace emu {

class rf_channel;

/*!
 * What an RX engine asks of the command queue: before it computes samples, execute the
 * commands for its channel and stream that are due by the time of the last of them, so
 * that a command at device time T acts on the first sample taken at or after T however
 * late the queue's own thread wakes.
 */
class timed_commands
{
public:
    virtual ~timed_commands() = default;
    //! Execute now the queued commands for RF channel / RX stream \p stream whose time
    //! is at or before device time \p upto_ns, in queue order.
    virtual void run_due(unsigned stream, uint64_t upto_ns) = 0;
};

/*!
 * What a timed STOP acts on: RX stream s's run (rx_engine implements it).
 */
class stoppable_stream
{
public:
    virtual ~stoppable_stream() = default;
    //! End the run before its first sample taken at or after device time \p at_ns, as
    //! a finite burst that ended there; nothing if it does not run. Must not block.
    virtual void stop_at(uint64_t at_ns) = 0;
};

/*!
 * The command queue (docs/radio.md, "Command queue"): register writes that execute at
 * a device time, in time order (equal times in push order), at most `capacity` waiting.
 * Its thread, "emu-cmd", sleeps until the first command's time, as the device clock
 * says: a clock set or a PPS edge that applies a set wakes it to look again (no busy
 * wait). RX engines also run what is due for their samples (timed_commands), so a
 * command never reaches its samples late. Commands act on RF channels (tune, gain,
 * bandwidth, antenna) and on RX streams (STOP, through stop_at(), which never blocks:
 * an engine may execute a STOP for itself).
 *
 * Lock order: the register file's lock, then this queue's, then a channel's or an
 * engine's thread lock. Nothing here waits for the register file.
 */
class command_queue : public timed_commands
{
public:
    static constexpr unsigned capacity = 64;

    //! A staged command (CMD_TIME, CMD_ADDR, CMD_DATA).
    struct command {
        uint64_t time_ns = 0; //!< 0: as soon as pushed
        uint32_t address = 0;
        uint64_t data = 0;
    };

    //! \p channels[s] (none without CAP_RF): RF channel s; \p streams: how many RX
    //! streams there are, each connect()ed before the first command is pushed.
    command_queue(const device_clock& clock,
                  std::vector<rf_channel*> channels,
                  unsigned streams);
    ~command_queue();
    command_queue(const command_queue&) = delete;
    command_queue& operator=(const command_queue&) = delete;

    /*!
     * Which RF channel or RX stream command \p c acts on, and whether it may be queued:
     * regs::cmd::error::none, not_timeable or bad_value. The register file asks first,
     * for the ownership check.
     */
    uint32_t check(const command& c, unsigned& stream) const;
    //! PUSH: returns regs::cmd::error (none: queued, or executed at once when untimed
    //! or late); CMD_STATUS.ERROR then reads it.
    uint32_t push(const command& c);
    //! CLEAR: drop the queued commands for the streams whose bit is set in \p streams.
    void clear(uint32_t streams);
    //! A push refused before it reached the queue (not owner): CMD_STATUS.ERROR.
    void refuse(uint32_t error);
    //! The clock was set: times now mean another oscillator instant.
    void clock_changed();
    //! RX stream \p s's run, which a STOP command stops (its engine is made after the
    //! queue: it runs the commands due for its samples).
    void connect(unsigned s, stoppable_stream* stream);

    uint32_t status() const; //!< CMD_STATUS
    uint32_t executed() const;
    uint32_t late() const;

    void run_due(unsigned stream, uint64_t upto_ns) override;

private:
    struct entry {
        command c;
        unsigned stream = 0;
        uint64_t sequence = 0; // push order among equal times
    };

    void execute(const command& c, unsigned stream, bool timed); // d_mutex held
    void run(unsigned stream_or_all, uint64_t upto_ns);          // d_mutex held
    void loop();

    static constexpr unsigned all_streams = ~0u;

    const device_clock& d_clock;
    const std::vector<rf_channel*> d_channels;
    std::vector<stoppable_stream*> d_streams; // guarded by d_mutex; its size is fixed

    mutable std::mutex d_mutex;
    std::condition_variable d_wake;
    // All guarded by d_mutex. The queue in execution order, at most capacity.
    std::array<entry, capacity> d_queue{};
    unsigned d_queued = 0;
    uint64_t d_next_sequence = 0;
    uint32_t d_error = 0;
    uint32_t d_executed = 0;
    uint32_t d_late = 0;
    bool d_poked = false;
    bool d_shutdown = false;
    std::thread d_thread; // last: it uses everything above
};

} // namespace emu
} // namespace rdma
} // namespace gr

#endif
