# Builds and runs the consumer project against pooljit. Run by ctest (see CMakeLists.txt) as
#   cmake -DMODE=add_subdirectory|find_package -DPOOLJIT_SOURCE_DIR=... -DPOOLJIT_BINARY_DIR=...
#         -DCONSUMER_SOURCE_DIR=... -DWORK_DIR=... [-DCONFIG=...] [-DGENERATOR=...] [-DMAKE_PROGRAM=...]
#         [-DCXX_COMPILER=...] -P run_consumer.cmake
# add_subdirectory: the consumer embeds the pooljit source tree. find_package: this build is installed into a
# prefix under WORK_DIR and the consumer finds it there, and only there.
cmake_minimum_required(VERSION 3.25)

foreach(var MODE POOLJIT_SOURCE_DIR POOLJIT_BINARY_DIR CONSUMER_SOURCE_DIR WORK_DIR)
  if(NOT ${var})
    message(FATAL_ERROR "run_consumer.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT CONFIG)
  set(CONFIG Release)
endif()

function(run_step what)
  message(STATUS "consumer (${MODE}): ${what}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc COMMAND_ECHO STDOUT)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "consumer (${MODE}): ${what} failed: ${rc}")
  endif()
endfunction()

set(consumer_build ${WORK_DIR}/build)
set(configure_args -S ${CONSUMER_SOURCE_DIR} -B ${consumer_build} -DCMAKE_BUILD_TYPE=${CONFIG})
if(GENERATOR)
  list(APPEND configure_args -G ${GENERATOR})
endif()
if(MAKE_PROGRAM)
  list(APPEND configure_args -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM})
endif()
if(CXX_COMPILER)
  list(APPEND configure_args -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
endif()

if(MODE STREQUAL "add_subdirectory")
  # Kept between runs: rebuilding the embedded library from scratch is the slow part.
  run_step("configure" ${CMAKE_COMMAND} ${configure_args} -DPOOLJIT_SOURCE_DIR=${POOLJIT_SOURCE_DIR})
elseif(MODE STREQUAL "find_package")
  set(prefix ${WORK_DIR}/prefix)
  file(REMOVE_RECURSE ${prefix} ${consumer_build})
  run_step("install into ${prefix}" ${CMAKE_COMMAND} --install ${POOLJIT_BINARY_DIR} --prefix ${prefix} --config ${CONFIG})
  run_step("configure" ${CMAKE_COMMAND} ${configure_args} -DPOOLJIT_SOURCE_DIR=
           -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON)
  # The point of the test is the installed package: a pooljit found anywhere else proves nothing.
  file(STRINGS ${consumer_build}/CMakeCache.txt found_dir REGEX "^pooljit_DIR:")
  string(REGEX REPLACE "^pooljit_DIR:[A-Z]+=" "" found_dir "${found_dir}")
  cmake_path(IS_PREFIX prefix "${found_dir}" NORMALIZE found_in_prefix)
  if(NOT found_in_prefix)
    message(FATAL_ERROR "consumer (find_package): pooljit was found in '${found_dir}', not under ${prefix}")
  endif()
else()
  message(FATAL_ERROR "run_consumer.cmake: MODE must be add_subdirectory or find_package, not '${MODE}'")
endif()

run_step("build" ${CMAKE_COMMAND} --build ${consumer_build} --config ${CONFIG} --parallel 2)

if(MODE STREQUAL "add_subdirectory")
  foreach(sub tests tools)
    if(EXISTS ${consumer_build}/pooljit-build/${sub})
      message(FATAL_ERROR "consumer (add_subdirectory): pooljit configured its ${sub} although it is not the top-level project")
    endif()
  endforeach()
endif()

set(consumer_exe ${consumer_build}/consumer)
if(EXISTS ${consumer_build}/${CONFIG}/consumer)  # multi-config generators
  set(consumer_exe ${consumer_build}/${CONFIG}/consumer)
endif()
run_step("run" ${consumer_exe})
