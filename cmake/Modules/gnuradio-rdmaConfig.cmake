find_package(PkgConfig)

PKG_CHECK_MODULES(PC_GR_RDMA gnuradio-rdma)

FIND_PATH(
    GR_RDMA_INCLUDE_DIRS
    NAMES gnuradio/rdma/api.h
    HINTS $ENV{RDMA_DIR}/include
        ${PC_RDMA_INCLUDEDIR}
    PATHS ${CMAKE_INSTALL_PREFIX}/include
          /usr/local/include
          /usr/include
)

FIND_LIBRARY(
    GR_RDMA_LIBRARIES
    NAMES gnuradio-rdma
    HINTS $ENV{RDMA_DIR}/lib
        ${PC_RDMA_LIBDIR}
    PATHS ${CMAKE_INSTALL_PREFIX}/lib
          ${CMAKE_INSTALL_PREFIX}/lib64
          /usr/local/lib
          /usr/local/lib64
          /usr/lib
          /usr/lib64
          )

include("${CMAKE_CURRENT_LIST_DIR}/gnuradio-rdmaTarget.cmake")

INCLUDE(FindPackageHandleStandardArgs)
FIND_PACKAGE_HANDLE_STANDARD_ARGS(GR_RDMA DEFAULT_MSG GR_RDMA_LIBRARIES GR_RDMA_INCLUDE_DIRS)
MARK_AS_ADVANCED(GR_RDMA_LIBRARIES GR_RDMA_INCLUDE_DIRS)
