/* -*- c++ -*- */
/*
 * Copyright 2026 gr-rdma authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// What the end-to-end tests ask of an error: its message, and whether it names the fix.

#ifndef INCLUDED_RDMA_E2E_QA_ERRORS_H
#define INCLUDED_RDMA_E2E_QA_ERRORS_H

#include <string>

namespace gr {
namespace rdma {
namespace qa_errors {

inline bool contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

// The message \p f throws as \p E, or "" if it does not throw.
template <typename E, typename F>
std::string error_of(F&& f)
{
    try {
        f();
    } catch (const E& e) {
        return e.what();
    }
    return "";
}

} // namespace qa_errors
} // namespace rdma
} // namespace gr

#endif
