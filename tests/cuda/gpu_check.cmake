# MICRODDP_GPU_CHECK_ONLY=ON (scripts/gpu-check.sh): a build of only what the
# GPU check needs, for a bare CUDA machine with CMake, ninja, a C++20
# compiler, nvcc and NCCL but none of our Debian packages.
# Included by the top-level CMakeLists.txt, which then returns.
#   kernels/cpu + kernels/cuda  (kernels/CMakeLists.txt, needs nothing else)
#   microddp_core               (a subset of core/*.cpp: no yaml-cpp lessons,
#                                no Eigen DDP, no MPI, no bench/printer)
#   core/exec/cuda                 (the CUDA and NCCL backends)
#   test_cuda, gpu_bench        (tests/cuda)
# Header-only dependencies come from MICRODDP_GPU_DEPS (default .gpu-deps/,
# filled by `scripts/gpu-check.sh --prepare` on a machine that has the Debian
# packages, then carried): include/fmt (its compiled part built here from
# gpu_check_fmt.cpp, so no libfmt), include/nlohmann, include/doctest. NCCL: NCCL_INCLUDE_DIR and
# NCCL_LIBRARY (the script finds them), else NCCL_HOME / the CUDA toolkit.
set(MICRODDP_GPU_DEPS "${PROJECT_SOURCE_DIR}/.gpu-deps" CACHE PATH
    "folder with include/{fmt,nlohmann,doctest} for MICRODDP_GPU_CHECK_ONLY")
foreach(h fmt/format.h nlohmann/json.hpp doctest/doctest.h)
  if(NOT EXISTS "${MICRODDP_GPU_DEPS}/include/${h}")
    message(FATAL_ERROR "MICRODDP_GPU_CHECK_ONLY: ${MICRODDP_GPU_DEPS}/include/${h} is missing; "
                        "run scripts/gpu-check.sh --prepare on a machine with libfmt-dev, "
                        "nlohmann-json3-dev and doctest-dev, and carry .gpu-deps")
  endif()
endforeach()
if(MICRODDP_CUDA STREQUAL "AUTO")
  set(MICRODDP_CUDA ON)  # the whole point of this mode
endif()

find_package(Threads REQUIRED)
# The carried headers, ahead of any system copy. fmt 9.1 (Debian 12): its
# compiled part from tests/cuda/gpu_check_fmt.cpp, once; any other version:
# FMT_HEADER_ONLY (correct, but every file compiles ~15 s longer).
file(STRINGS "${MICRODDP_GPU_DEPS}/include/fmt/core.h" _fmtv REGEX "^#define FMT_VERSION ")
string(REGEX MATCH "[0-9]+" _fmtv "${_fmtv}")
if(_fmtv GREATER_EQUAL 90100 AND _fmtv LESS 90200)
  add_library(microddp_gpu_deps STATIC ${PROJECT_SOURCE_DIR}/tests/cuda/gpu_check_fmt.cpp)
  target_include_directories(microddp_gpu_deps SYSTEM PUBLIC "${MICRODDP_GPU_DEPS}/include")
else()
  add_library(microddp_gpu_deps INTERFACE)
  target_include_directories(microddp_gpu_deps SYSTEM INTERFACE "${MICRODDP_GPU_DEPS}/include")
  target_compile_definitions(microddp_gpu_deps INTERFACE FMT_HEADER_ONLY=1)
endif()

add_subdirectory(kernels)  # microddp_kernels, microddp_cuda_kernels, MICRODDP_HAVE_CUDA
if(NOT MICRODDP_HAVE_CUDA)
  message(FATAL_ERROR "MICRODDP_GPU_CHECK_ONLY needs nvcc (MICRODDP_CUDA=${MICRODDP_CUDA})")
endif()

set(_core ${PROJECT_SOURCE_DIR}/core)
# The layers the CUDA backends and the GPU bench need: ir, algorithms, the
# executor core and threads backend, the Chrome export, the cost model and
# calibration (no lessons, DDP, MPI or record files: no yaml-cpp, no MPI).
file(GLOB_RECURSE _core_srcs CONFIGURE_DEPENDS
  ${_core}/ir/*.cpp ${_core}/algorithms/*.cpp ${_core}/exec/threads/*.cpp ${_core}/model/calibrate/*.cpp)
add_library(microddp_core STATIC ${_core_srcs}
  ${_core}/exec/rank_program.cpp ${_core}/record/chrome_trace.cpp ${_core}/model/cost_model.cpp
  ${_core}/model/cost_params.cpp)
target_include_directories(microddp_core PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(microddp_core PUBLIC microddp_kernels Threads::Threads microddp_gpu_deps)

find_package(CUDAToolkit REQUIRED)
find_path(NCCL_INCLUDE_DIR nccl.h HINTS $ENV{NCCL_HOME}/include ${CUDAToolkit_INCLUDE_DIRS})
find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2 HINTS $ENV{NCCL_HOME}/lib ${CUDAToolkit_LIBRARY_DIR})
if(NOT NCCL_INCLUDE_DIR OR NOT NCCL_LIBRARY)
  message(FATAL_ERROR "MICRODDP_GPU_CHECK_ONLY: NCCL not found (nccl.h: ${NCCL_INCLUDE_DIR}, "
                      "libnccl: ${NCCL_LIBRARY}); set NCCL_HOME or NCCL_INCLUDE_DIR and NCCL_LIBRARY")
endif()
add_library(microddp_cuda STATIC ${_core}/exec/cuda/backend_cuda.cpp ${_core}/exec/cuda/cuda_runner_steps.cpp
  ${_core}/exec/cuda/cuda_lines.cpp
  ${_core}/exec/cuda/nccl_library.cpp)
target_include_directories(microddp_cuda PRIVATE ${NCCL_INCLUDE_DIR})
target_link_libraries(microddp_cuda PUBLIC microddp_core microddp_cuda_kernels CUDA::cudart ${NCCL_LIBRARY})
target_compile_definitions(microddp_cuda PUBLIC MICRODDP_HAVE_CUDA=1)
message(STATUS "microddp: GPU check only (deps ${MICRODDP_GPU_DEPS}; NCCL ${NCCL_LIBRARY}; "
               "nvcc ${CMAKE_CUDA_COMPILER_VERSION})")

enable_testing()
set(_t ${PROJECT_SOURCE_DIR}/tests)
add_executable(test_cuda ${_t}/cuda/cuda_main.cpp ${_t}/cuda/test_cuda.cpp)
target_include_directories(test_cuda PRIVATE ${_t})
target_link_libraries(test_cuda PRIVATE microddp_cuda)
foreach(s cuda_nodevice cuda_kernels cuda_backend cuda_protocols nccl)
  add_test(NAME cuda.${s} COMMAND test_cuda --test-suite=${s} --force-colors=0)
  set_tests_properties(cuda.${s} PROPERTIES LABELS "cuda" TIMEOUT 600 SKIP_RETURN_CODE 77)
endforeach()
add_executable(gpu_bench ${_t}/cuda/gpu_bench.cpp)
target_link_libraries(gpu_bench PRIVATE microddp_cuda)
