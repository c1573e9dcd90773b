# The cluster lab runs what it says (tests/cluster/lab_job_test.sh), one
# test per subcommand, label "cluster". refused and predict make no lab
# (also label "cli"); run, doctor, bench and calibrate each build a small
# lab (2-3 nodes) and skip (77) where namespaces, veths, bridges or tbf are
# not allowed. About 25 s in all on a 2-core VM.
set(lab_job_script ${CMAKE_CURRENT_LIST_DIR}/lab_job_test.sh)
foreach(mode refused predict)
  add_test(NAME cluster.job.${mode} COMMAND ${lab_job_script} ${mode} $<TARGET_FILE:microddp>)
  set_tests_properties(cluster.job.${mode} PROPERTIES LABELS "cluster;cli" TIMEOUT 60)
endforeach()
if(MICRODDP_HAVE_MPI)
  foreach(mode run doctor bench calibrate)
    add_test(NAME cluster.job.${mode} COMMAND ${lab_job_script} ${mode} $<TARGET_FILE:microddp>)
    set_tests_properties(cluster.job.${mode} PROPERTIES LABELS "cluster" TIMEOUT 180 PROCESSORS 2
                         SKIP_RETURN_CODE 77)
  endforeach()
endif()
