# Copyright 2026 gr-bsid authors.
# SPDX-License-Identifier: GPL-3.0-or-later
#
# docs.installed: `cmake --install` into PREFIX, then every page and image of
# SOURCE_DIR/docs (and docs/blocks) must be under PREFIX/DOC_DIR/docs and
# README.md under PREFIX/DOC_DIR, and every relative link of an installed page
# to a page or an image (a section's page included) must resolve among the
# installed files.

file(REMOVE_RECURSE ${PREFIX})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX}
    RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cmake --install into ${PREFIX} failed (${rc})")
endif()
set(doc ${PREFIX}/${DOC_DIR})
file(GLOB pages RELATIVE ${SOURCE_DIR}/docs
    ${SOURCE_DIR}/docs/*.md ${SOURCE_DIR}/docs/*.png
    ${SOURCE_DIR}/docs/blocks/*.md ${SOURCE_DIR}/docs/blocks/*.png)
set(missing "")
foreach(p ${pages})
    if(NOT EXISTS ${doc}/docs/${p})
        list(APPEND missing docs/${p})
    endif()
endforeach()
if(NOT EXISTS ${doc}/README.md)
    list(APPEND missing README.md)
endif()
if(missing)
    message(FATAL_ERROR "not installed under ${doc}: ${missing}")
endif()
# relative links between the installed pages: [text](target) and
# ![alt](image), the #section stripped; absolute URLs are left alone
file(GLOB_RECURSE installed RELATIVE ${doc} ${doc}/*.md)
set(broken "")
foreach(page ${installed})
    get_filename_component(dir ${doc}/${page} DIRECTORY)
    file(READ ${doc}/${page} text)
    # (square brackets would nest in a CMake list: ] becomes >, and ; goes)
    string(REPLACE "]" ">" text "${text}")
    string(REPLACE "[" "<" text "${text}")
    string(REPLACE ";" "," text "${text}")
    string(REGEX MATCHALL ">\\([^)# ]+[)#]" links "${text}")
    foreach(l ${links})
        string(REGEX REPLACE "^>\\(([^)# ]+)[)#]$" "\\1" target "${l}")
        if(target MATCHES "^[a-z]+:" OR target MATCHES "^/")
            continue()
        endif()
        # links into the source tree (examples/, lib/, ...) from the README
        # and pages name files that are not docs; only .md and images count
        if(NOT target MATCHES "\\.(md|png)$")
            continue()
        endif()
        get_filename_component(abs ${dir}/${target} ABSOLUTE)
        if(NOT EXISTS ${abs})
            list(APPEND broken "${page} -> ${target}")
        endif()
    endforeach()
endforeach()
if(broken)
    message(FATAL_ERROR "links that do not resolve among the installed docs: ${broken}")
endif()
list(LENGTH pages n)
message(STATUS "docs.installed: README.md and ${n} pages and images under ${doc}; links resolve")
