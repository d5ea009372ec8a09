# SPDX-License-Identifier: MIT
# The CUDA toolkit is optional: without it the viewer, CLI (minus recording) and tests build.
set(WS_HAVE_CUPTI OFF)
set(WS_HAVE_NVCC OFF)
find_package(CUDAToolkit QUIET)
if(CUDAToolkit_FOUND AND TARGET CUDA::cupti AND NOT WS_SANITIZE)
  set(WS_HAVE_CUPTI ON)
  message(STATUS "Warpscope: CUDA ${CUDAToolkit_VERSION} with CUPTI: building the recorder")
else()
  message(STATUS "Warpscope: no CUDA toolkit with CUPTI (or sanitizer build): recorder not built")
endif()
if(CUDAToolkit_FOUND AND CUDAToolkit_NVCC_EXECUTABLE AND EXISTS "${CUDAToolkit_NVCC_EXECUTABLE}" AND NOT WS_SANITIZE)
  set(WS_HAVE_NVCC ON)
endif()
