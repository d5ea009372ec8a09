# SPDX-License-Identifier: MIT
# Install layout and Debian packages (included last from the root CMakeLists.txt).
#
#   <prefix>/bin/warpscope, warpscope-cli, warpscope-bench-workloads (CUDA builds)
#   <prefix>/lib/libwarpscope-inject.so, libwarpscope-profiler.so   (CUDA builds)
#   <prefix>/share/warpscope/sections/   every file of resources/sections
#   <prefix>/share/warpscope/demo/       the H200 demo session (the app also embeds it)
#   <prefix>/share/applications, icons, mime/packages, man/man1
#
# Nothing in it is found through the prefix it was configured with: warpscope-cli finds the
# collector libraries in <its dir>/../lib (findCollectorLibrary) and both programs find the
# section files in <their dir>/../share/warpscope/sections (SectionCatalog::defaultDirectory),
# so the prefix can be moved, and a .deb extracted anywhere runs (tests/install checks it).
#
# Two components, two .debs: `cli` (warpscope-cli, the recorder libraries, the sections) needs
# no Qt, so it installs on a headless GPU server; `gui` (warpscope) depends on it, because the
# app runs warpscope-cli for File > Run and reads the same sections.

set(WS_INSTALL_LIBDIR lib) # fixed: warpscope-cli looks in <bin>/../lib, not a multiarch dir
set(WS_INSTALL_DATADIR share/warpscope)

install(TARGETS warpscope-cli RUNTIME DESTINATION bin COMPONENT cli)
if(TARGET warpscope-bench-workloads)
  # cuBLAS comes from the CUDA toolkit, not from a Debian package: the toolkit found here, then
  # the usual location on GPU servers (as for the profiler library).
  set_target_properties(warpscope-bench-workloads PROPERTIES
    INSTALL_RPATH "${CUDAToolkit_LIBRARY_DIR};/usr/local/cuda/lib64")
  install(TARGETS warpscope-bench-workloads RUNTIME DESTINATION bin COMPONENT cli)
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/resources/sections/ DESTINATION ${WS_INSTALL_DATADIR}/sections COMPONENT cli)
if(EXISTS ${PROJECT_SOURCE_DIR}/resources/demo/h200-gemm-relu.wscope)
  install(FILES ${PROJECT_SOURCE_DIR}/resources/demo/h200-gemm-relu.wscope
          DESTINATION ${WS_INSTALL_DATADIR}/demo COMPONENT cli)
endif()

# Debian policy: each package's copyright file in /usr/share/doc/<package>.
install(FILES ${PROJECT_SOURCE_DIR}/resources/desktop/copyright DESTINATION share/doc/warpscope-cli COMPONENT cli)

if(TARGET warpscope)
  install(TARGETS warpscope RUNTIME DESTINATION bin COMPONENT gui)
  install(FILES ${PROJECT_SOURCE_DIR}/resources/desktop/copyright DESTINATION share/doc/warpscope COMPONENT gui)
  set(ws_desktop ${PROJECT_SOURCE_DIR}/resources/desktop)
  install(FILES ${ws_desktop}/warpscope.desktop DESTINATION share/applications COMPONENT gui)
  install(FILES ${ws_desktop}/warpscope.svg DESTINATION share/icons/hicolor/scalable/apps COMPONENT gui)
  install(FILES ${ws_desktop}/warpscope-256.png DESTINATION share/icons/hicolor/256x256/apps
          RENAME warpscope.png COMPONENT gui)
  # application/x-warpscope-session for *.wscope; the desktop entry's MimeType names it, so
  # double-clicking a session opens it in Warpscope.
  install(FILES ${ws_desktop}/warpscope-mime.xml DESTINATION share/mime/packages RENAME warpscope.xml COMPONENT gui)
endif()

# Man pages written from the built programs' own --help (cmake/manpage.py), at build time. Not in
# sanitizer builds: running the instrumented programs there proves nothing and can fail on leaks.
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_Interpreter_FOUND AND NOT WS_SANITIZE)
  set(ws_man_dir ${PROJECT_BINARY_DIR}/man)
  set(ws_sections_note "The section files (*.section) and known-differences.tsv are read from \
../share/warpscope/sections next to the program's directory (/usr/share/warpscope/sections for \
/usr/bin), or from $WS_SECTIONS_DIR when it is set.")
  set(ws_man_pages)
  macro(ws_man_page target summary)
    add_custom_command(OUTPUT ${ws_man_dir}/${target}.1.gz
      COMMAND ${CMAKE_COMMAND} -E make_directory ${ws_man_dir}
      COMMAND Python3::Interpreter ${PROJECT_SOURCE_DIR}/cmake/manpage.py --program $<TARGET_FILE:${target}>
              --name ${target} --version ${PROJECT_VERSION} --summary "${summary}" --output ${ws_man_dir}/${target}.1.gz
              --files "${ws_sections_note}" ${ARGN}
      DEPENDS ${target} ${PROJECT_SOURCE_DIR}/cmake/manpage.py
      COMMENT "Writing the man page of ${target}" VERBATIM)
    list(APPEND ws_man_pages ${ws_man_dir}/${target}.1.gz)
  endmacro()
  ws_man_page(warpscope-cli "record CUDA programs and analyse Warpscope sessions" --subcommands --see-also warpscope)
  install(FILES ${ws_man_dir}/warpscope-cli.1.gz DESTINATION share/man/man1 COMPONENT cli)
  if(TARGET warpscope)
    ws_man_page(warpscope "timeline and kernel analysis of CUDA sessions" --see-also warpscope-cli)
    install(FILES ${ws_man_dir}/warpscope.1.gz DESTINATION share/man/man1 COMPONENT gui)
  endif()
  add_custom_target(warpscope-man ALL DEPENDS ${ws_man_pages})
endif()

# ---- CPack: `cpack -G DEB` in the build directory writes warpscope-cli_<v>_<arch>.deb and
# warpscope_<v>_<arch>.deb.
set(WS_PACKAGE_MAINTAINER "Warpscope maintainers <maintainers@warpscope.invalid>"
    CACHE STRING "Maintainer field of the Debian packages")
set(CPACK_PACKAGE_NAME warpscope)
set(CPACK_PACKAGE_VENDOR Warpscope)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${WS_PACKAGE_MAINTAINER}")
set(CPACK_RESOURCE_FILE_README ${PROJECT_SOURCE_DIR}/README.md)
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL cli)
if(TARGET warpscope)
  list(APPEND CPACK_COMPONENTS_ALL gui)
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${WS_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_COMPRESSION_TYPE gzip) # xz of ~50 MB costs CI minutes on two cores

# The synopsis line of both packages is the project's DESCRIPTION; CPack indents these lines.
set(CPACK_DEBIAN_CLI_PACKAGE_NAME warpscope-cli)
set(CPACK_COMPONENT_CLI_DESCRIPTION "The recorder and command line: warpscope-cli records CUDA programs
(CUPTI activity, NVTX, metric sections, PC sampling, CUDA-event benchmarks) into one
SQLite session file (.wscope) and analyses sessions: nsys-compatible statistics,
compare, export, merge. It needs no Qt, so it installs on headless GPU servers;
recording needs the NVIDIA driver and the CUDA toolkit's CUPTI.")
set(CPACK_DEBIAN_GUI_PACKAGE_NAME warpscope)
set(CPACK_COMPONENT_GUI_DESCRIPTION "The desktop app: warpscope opens recorded CUDA sessions (.wscope) as a
zoomable timeline of API threads, NVTX ranges and GPU streams, with kernel ranking,
Nsight-Compute-style metric panels, roofline and before/after comparison, and runs
warpscope-cli to record and re-run. Double-clicking a .wscope file opens it.")
set(CPACK_COMPONENT_GUI_DEPENDS cli)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON) # so the Depends line names warpscope-cli (= version)

# Depends. warpscope: computed by dpkg-shlibdeps from what the binary links (versioned).
# warpscope-cli: written out, because dpkg-shlibdeps stops at the CUDA libraries its recorder
# libraries link (CUPTI, cuBLAS, libcuda: from the NVIDIA driver and toolkit, not from Debian,
# needed only to record); the list is dpkg-shlibdeps' answer for bin/warpscope-cli on Debian 12.
# tests/install/tst_install.py checks both against the packages owning every linked library.
set(CPACK_DEBIAN_CLI_PACKAGE_DEPENDS "libc6 (>= 2.34), libgcc-s1 (>= 3.0), libstdc++6 (>= 11), zlib1g (>= 1:1.1.4)")
set(CPACK_DEBIAN_GUI_PACKAGE_SHLIBDEPS ON)
include(CPack)

# tests/install/tst_install.py: cmake --install, cpack -G DEB, dpkg-deb -x into a scratch root,
# then the installed programs run from there (label `install`; uses the built tree, rebuilds
# nothing). Not in sanitizer builds, whose binaries are not what gets packaged.
if(WS_BUILD_TESTS AND Python3_Interpreter_FOUND AND NOT WS_SANITIZE)
  set(ws_install_test_args --build-dir ${PROJECT_BINARY_DIR} --source-dir ${PROJECT_SOURCE_DIR}
      --cmake ${CMAKE_COMMAND} --cpack ${CMAKE_CPACK_COMMAND} --version ${PROJECT_VERSION})
  if(TARGET warpscope)
    list(APPEND ws_install_test_args --gui)
  endif()
  add_test(NAME tst_install COMMAND Python3::Interpreter ${PROJECT_SOURCE_DIR}/tests/install/tst_install.py
           ${ws_install_test_args})
  set_tests_properties(tst_install PROPERTIES LABELS install TIMEOUT 600)
endif()
