# The test bots.sdk_example_builds (cmake -P): installs the bot SDK component from
# the build tree into a fresh prefix, builds the example bot against that prefix
# only (as a bot developer would, outside the repository), and runs it.
# Inputs: BUILD_DIR, EXAMPLE_DIR, WORK_DIR, COMPONENT, GENERATOR, CXX_COMPILER.
cmake_minimum_required(VERSION 3.25)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} --component ${COMPONENT})

# Only the SDK: its libraries, headers and package, nothing of the servers.
file(GLOB_RECURSE installed RELATIVE ${prefix} ${prefix}/*)
foreach(expected include/bots/sdk/bot.h include/engine/cards.h include/proto/wire/wire.h
        include/trix/v1/table.grpc.pb.h)
  if(NOT expected IN_LIST installed)
    message(FATAL_ERROR "${expected} is not installed: ${installed}")
  endif()
endforeach()
foreach(file ${installed})
  if(file MATCHES "table_service|storage|/bin/|log\\.pb\\.h")
    message(FATAL_ERROR "not part of the SDK, but installed: ${file}")
  endif()
endforeach()

run(${CMAKE_COMMAND} -S ${EXAMPLE_DIR} -B ${WORK_DIR}/build -G ${GENERATOR}
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)

# The bot runs and knows its flags.
execute_process(COMMAND ${WORK_DIR}/build/lowest_bot --help
                OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT out MATCHES "--table" OR NOT out MATCHES "--token")
  message(FATAL_ERROR "lowest_bot --help does not show its flags:\n${out}")
endif()
message(STATUS "lowest_bot built against ${prefix} and runs")
