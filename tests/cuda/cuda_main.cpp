// Main of test_cuda. Suites that need a GPU are not run on a machine without
// one: the binary prints "SKIPPED: <reason>" and exits kSkipCode, which CTest
// (SKIP_RETURN_CODE) reports as skipped, never passed. Suite "cuda_nodevice"
// always runs: it checks the documented no-GPU error.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <string>

#include "core/exec/cuda/backend_cuda.h"

constexpr int kSkipCode = 77;

int main(int argc, char** argv) {
  bool only_nodevice = false;
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--test-suite=cuda_nodevice") only_nodevice = true;
  std::string why;
  if (!only_nodevice && !microddp::cuda_device_available(&why)) {
    std::printf("SKIPPED: no CUDA device was found: %s\n", why.c_str());
    return kSkipCode;
  }
  doctest::Context ctx(argc, argv);
  return ctx.run();
}
