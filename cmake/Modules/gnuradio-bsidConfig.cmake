find_package(PkgConfig)

PKG_CHECK_MODULES(PC_GR_BSID gnuradio-bsid)

FIND_PATH(
    GR_BSID_INCLUDE_DIRS
    NAMES gnuradio/bsid/api.h
    HINTS $ENV{BSID_DIR}/include
        ${PC_BSID_INCLUDEDIR}
    PATHS ${CMAKE_INSTALL_PREFIX}/include
          /usr/local/include
          /usr/include
)

FIND_LIBRARY(
    GR_BSID_LIBRARIES
    NAMES gnuradio-bsid
    HINTS $ENV{BSID_DIR}/lib
        ${PC_BSID_LIBDIR}
    PATHS ${CMAKE_INSTALL_PREFIX}/lib
          ${CMAKE_INSTALL_PREFIX}/lib64
          /usr/local/lib
          /usr/local/lib64
          /usr/lib
          /usr/lib64
          )

include("${CMAKE_CURRENT_LIST_DIR}/gnuradio-bsidTarget.cmake")

INCLUDE(FindPackageHandleStandardArgs)
FIND_PACKAGE_HANDLE_STANDARD_ARGS(GR_BSID DEFAULT_MSG GR_BSID_LIBRARIES GR_BSID_INCLUDE_DIRS)
MARK_AS_ADVANCED(GR_BSID_LIBRARIES GR_BSID_INCLUDE_DIRS)
