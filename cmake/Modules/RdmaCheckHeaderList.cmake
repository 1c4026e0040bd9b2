# Copyright 2026 gr-rdma authors
#
# SPDX-License-Identifier: GPL-3.0-or-later

# cmake -DDIR=<include/gnuradio/rdma> -DLISTED=<a;b.h> -P RdmaCheckHeaderList.cmake
# Fails when a header of DIR is not in LISTED (it would not be installed) or a listed
# header does not exist.
cmake_minimum_required(VERSION 3.8)
file(GLOB present RELATIVE ${DIR} ${DIR}/*.h ${DIR}/*.hpp)
set(missing "")
foreach(h ${present})
    if(NOT h IN_LIST LISTED)
        list(APPEND missing ${h})
    endif()
endforeach()
set(stale "")
foreach(h ${LISTED})
    if(NOT EXISTS ${DIR}/${h})
        list(APPEND stale ${h})
    endif()
endforeach()
if(missing)
    string(REPLACE ";" ", " missing "${missing}")
    message(FATAL_ERROR "public headers not installed: ${missing}; add them to "
                        "rdma_public_headers in ${DIR}/CMakeLists.txt")
endif()
if(stale)
    string(REPLACE ";" ", " stale "${stale}")
    message(FATAL_ERROR "rdma_public_headers in ${DIR}/CMakeLists.txt lists headers "
                        "that do not exist: ${stale}")
endif()
list(LENGTH present n)
message(STATUS "all ${n} public headers of ${DIR} are installed")
