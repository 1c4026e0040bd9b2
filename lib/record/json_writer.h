/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_RDMA_RECORD_JSON_WRITER_H
#define INCLUDED_RDMA_RECORD_JSON_WRITER_H

#include <gnuradio/rdma/transport_api.h>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace rdma {

/*!
 * \brief A JSON text written front to back: objects, arrays, strings, numbers, booleans.
 *
 * Just what a SigMF meta file needs, in the layout Python's json.dump(indent=1) gives
 * (one member or element a line, one space of indent a level). Strings are escaped as
 * RFC 8259 asks; bytes that are not UTF-8 become U+FFFD, so the text is always valid
 * JSON whatever a user's parameters or an error message hold. Integers are written
 * exactly; doubles as the shortest text that reads back the same value, with ".0" on
 * whole numbers (as Python writes them; a reader keeps them floats), and null when
 * not finite (JSON has no NaN). The writer trusts its caller to nest properly (a key
 * before each member of an object, every begin matched by its end).
 */
class RDMA_TRANSPORT_API json_writer
{
public:
    void begin_object();
    void end_object();
    void begin_array();
    void end_array();
    //! The name of the next member of the current object.
    void key(const std::string& name);

    void value(const std::string& text);
    void value(const char* text) { value(std::string(text)); }
    void value(double number);
    void value(uint64_t number);
    void value(int64_t number);
    void value(int number) { value(static_cast<int64_t>(number)); }
    void value(bool flag);
    void null();

    //! The text so far (the whole document once the outermost end was written).
    const std::string& text() const { return d_out; }

    //! \p text as a JSON string literal, quotes included.
    static std::string quote(const std::string& text);
    //! \p number as JSON writes it here.
    static std::string number(double number);

private:
    void before_value();
    void close(char bracket);

    std::string d_out;
    // Per open object or array: does it have a member or element yet.
    std::vector<bool> d_nonempty;
    bool d_after_key = false;
};

} // namespace rdma
} // namespace gr

#endif
