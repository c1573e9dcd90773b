# The MPI suites: included from tests/CMakeLists.txt when the Open MPI
# backend is built. Each doctest suite of tests/mpi runs under
# mpirun -n N for N = 1..5 (label "mpi"); the fault drills and the
# hostfile path are extra entries.
file(GLOB MICRODDP_MPI_TEST_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/mpi/*.cpp)
add_executable(test_mpi ${MICRODDP_MPI_TEST_SOURCES})
target_include_directories(test_mpi PRIVATE ${DOCTEST_INCLUDE_DIR} ${PROJECT_SOURCE_DIR})
target_link_libraries(test_mpi PRIVATE microddp_core)

add_executable(test_mpi_fault ${CMAKE_CURRENT_SOURCE_DIR}/mpi/fault/fault_main.cpp)
target_include_directories(test_mpi_fault PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(test_mpi_fault PRIVATE microddp_core)

set(MICRODDP_MPIRUN ${MPIEXEC_EXECUTABLE} --allow-run-as-root --oversubscribe)
# Root in containers; a low timeout so a broken suite fails fast instead of
# hanging until CTest's TIMEOUT.
set(MICRODDP_MPI_ENV OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 MICRODDP_MPI_TIMEOUT=20
    OMPI_MCA_btl=self,vader OMPI_MCA_rmaps_base_oversubscribe=1)

set(mpi_suites "")
foreach(src ${MICRODDP_MPI_TEST_SOURCES})
  file(STRINGS ${src} lines REGEX "TEST_SUITE(_BEGIN)?\\(\"[^\"]+\"")
  foreach(line ${lines})
    string(REGEX MATCH "TEST_SUITE(_BEGIN)?\\(\"([^\"]+)\"" m "${line}")
    list(APPEND mpi_suites "${CMAKE_MATCH_2}")
  endforeach()
endforeach()
list(REMOVE_DUPLICATES mpi_suites)
foreach(n RANGE 1 5)
  foreach(s ${mpi_suites})
    add_test(NAME mpi.${s}.n${n}
             COMMAND ${MICRODDP_MPIRUN} -n ${n} $<TARGET_FILE:test_mpi> --test-suite=${s})
    set_tests_properties(mpi.${s}.n${n} PROPERTIES LABELS "mpi" TIMEOUT 120 ENVIRONMENT "${MICRODDP_MPI_ENV}"
                         PROCESSORS 2)
  endforeach()
endforeach()

# --mpi-algorithm ring reaches coll/tuned (checked through MPI_T).
add_test(NAME mpi.forced_ring.n2 COMMAND ${MICRODDP_MPIRUN} -n 2 $<TARGET_FILE:test_mpi> --test-suite=mpi_library)
set_tests_properties(mpi.forced_ring.n2 PROPERTIES LABELS "mpi" TIMEOUT 120 PROCESSORS 2
                     ENVIRONMENT "${MICRODDP_MPI_ENV};MICRODDP_TEST_MPI_ALLREDUCE_ALGORITHM=ring")

# Clock alignment by the ping-pong estimate alone (as across machines).
add_test(NAME mpi.pingpong_clock.n3 COMMAND ${MICRODDP_MPIRUN} -n 3 $<TARGET_FILE:test_mpi> --test-suite=mpi_trace)
set_tests_properties(mpi.pingpong_clock.n3 PROPERTIES LABELS "mpi" TIMEOUT 120 PROCESSORS 2
                     ENVIRONMENT "${MICRODDP_MPI_ENV};MICRODDP_MPI_CLOCK=pingpong")

# The hostfile path: this machine, named in a hostfile, with several slots.
add_test(NAME mpi.hostfile.n3
         COMMAND ${MPIEXEC_EXECUTABLE} --allow-run-as-root --hostfile ${CMAKE_CURRENT_SOURCE_DIR}/mpi/hostfile.example
                 -n 3 $<TARGET_FILE:test_mpi> --test-suite=mpi_trace)
set_tests_properties(mpi.hostfile.n3 PROPERTIES LABELS "mpi" TIMEOUT 120 PROCESSORS 2
                     ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_btl=self,vader")

# Fault drills: the job must end (CTest TIMEOUT well above the 2 s backend
# timeout) with the failed rank named; PASS_REGULAR_EXPRESSION checks the
# name, and the drill prints "finished although" if the run wrongly completed.
# The 2 s timeout is what "missing" means: on a loaded machine a healthy rank
# that happens to be that late is named too (ranks ascending), so the
# patterns ask for the victim among the named ranks, not for it alone.
set(fault_env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 MICRODDP_MPI_TIMEOUT=2 OMPI_MCA_btl=self,vader)
add_test(NAME mpi.fault.absent COMMAND ${MICRODDP_MPIRUN} -n 3 $<TARGET_FILE:test_mpi_fault> absent 2)
set_tests_properties(mpi.fault.absent PROPERTIES
  PASS_REGULAR_EXPRESSION "error: mpi backend: rank 0 waited 2 s for (rank 2|ranks ([0-9]+, )*2) to join"
  FAIL_REGULAR_EXPRESSION "finished although")
add_test(NAME mpi.fault.stuck COMMAND ${MICRODDP_MPIRUN} -n 4 $<TARGET_FILE:test_mpi_fault> stuck 1)
set_tests_properties(mpi.fault.stuck PROPERTIES
  PASS_REGULAR_EXPRESSION "error: mpi backend: rank [0-9]+ waited 2 s for (rank 1 at the barrier|ranks 1, .* at the barrier|the message from rank 1 )"
  FAIL_REGULAR_EXPRESSION "finished although")
add_test(NAME mpi.fault.die COMMAND ${MICRODDP_MPIRUN} -n 3 $<TARGET_FILE:test_mpi_fault> die 2)
set_tests_properties(mpi.fault.die PROPERTIES
  PASS_REGULAR_EXPRESSION "rank 2 with PID"
  FAIL_REGULAR_EXPRESSION "finished although")
set_tests_properties(mpi.fault.absent mpi.fault.stuck mpi.fault.die PROPERTIES
  LABELS "mpi" TIMEOUT 30 PROCESSORS 2 ENVIRONMENT "${fault_env}")

# A benchmark that prints (not a test): tests/mpi/bench/bench_allreduce.cpp.
add_executable(bench_mpi_allreduce ${CMAKE_CURRENT_SOURCE_DIR}/mpi/bench/bench_allreduce.cpp)
target_include_directories(bench_mpi_allreduce PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(bench_mpi_allreduce PRIVATE microddp_core)

# The command line and the app over MPI (tests/mpi/cli_mpi_test.sh): bench
# with Open MPI's own collective as reference rows, a saved MPI run replayed
# in microddp-viz under xvfb-run, and --reference nccl without a GPU.
set(mpirun_word "${MPIEXEC_EXECUTABLE} --allow-run-as-root --oversubscribe")
add_test(NAME mpi.cli.bench_reference
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/mpi/cli_mpi_test.sh bench_reference "${mpirun_word}"
                 $<TARGET_FILE:microddp> ${CMAKE_CURRENT_BINARY_DIR}/mpi_cli)
add_test(NAME mpi.cli.nccl_nogpu
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/mpi/cli_mpi_test.sh nccl_nogpu "${mpirun_word}" $<TARGET_FILE:microddp>)
add_test(NAME mpi.cli.repeat_steps
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/mpi/cli_mpi_test.sh repeat_steps "${mpirun_word}" $<TARGET_FILE:microddp>)
set(mpi_cli_tests mpi.cli.bench_reference mpi.cli.nccl_nogpu mpi.cli.repeat_steps)
if(MICRODDP_BUILD_APP)
  add_test(NAME mpi.cli.replay
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/mpi/cli_mpi_test.sh replay "${mpirun_word}" $<TARGET_FILE:microddp>
                   $<TARGET_FILE:microddp-viz> ${CMAKE_CURRENT_BINARY_DIR}/mpi_cli)
  list(APPEND mpi_cli_tests mpi.cli.replay)
endif()
set_tests_properties(${mpi_cli_tests} PROPERTIES LABELS "mpi;cli" TIMEOUT 180 PROCESSORS 2 SKIP_RETURN_CODE 77
                     ENVIRONMENT "${MICRODDP_MPI_ENV}")
