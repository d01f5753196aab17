# Copyright 2026 gr-bsid authors.
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Finds pybind11 for the Python core module, in both builds. Debian ships a
# CMake package (pybind11-dev); a pip install only answers to
# `python -m pybind11 --cmakedir`.

if(NOT pybind11_FOUND)
    find_package(pybind11 CONFIG QUIET)
endif()
if(NOT pybind11_FOUND AND PYTHON_EXECUTABLE)
    execute_process(
        COMMAND ${PYTHON_EXECUTABLE} -m pybind11 --cmakedir
        OUTPUT_VARIABLE _bsid_pybind11_dir
        OUTPUT_STRIP_TRAILING_WHITESPACE
        RESULT_VARIABLE _bsid_pybind11_rc
        ERROR_QUIET)
    if(_bsid_pybind11_rc EQUAL 0)
        find_package(pybind11 CONFIG QUIET PATHS ${_bsid_pybind11_dir} NO_DEFAULT_PATH)
    endif()
endif()
if(NOT pybind11_FOUND)
    message(FATAL_ERROR "pybind11 not found: install pybind11-dev (Debian/Ubuntu) "
                        "or the pybind11 Python package for ${PYTHON_EXECUTABLE}")
endif()
message(STATUS "pybind11 ${pybind11_VERSION} for ${PYTHON_EXECUTABLE}")
