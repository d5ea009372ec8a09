# SPDX-License-Identifier: MIT
# Compiler flags shared by every target of ours (not by third-party code).
add_library(ws_flags INTERFACE)
target_compile_options(ws_flags INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast
     -Wcast-align -Woverloaded-virtual -Wimplicit-fallthrough>)
if(WS_WARNINGS_AS_ERRORS)
  target_compile_options(ws_flags INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
endif()
if(WS_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
find_program(WS_CCACHE ccache)
if(WS_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  # The test suites use precompiled headers (tests/CMakeLists.txt): ccache caches their compiles
  # only with this sloppiness (its manual, "Precompiled headers").
  set(CMAKE_CXX_COMPILER_LAUNCHER ${CMAKE_COMMAND} -E env CCACHE_SLOPPINESS=pch_defines,time_macros ${WS_CCACHE})
  set(CMAKE_C_COMPILER_LAUNCHER ${WS_CCACHE})
endif()
