# Writes the git revision of SOURCE_DIR into OUTPUT as
#   #define TILETUNE_GIT_REVISION "<short hash>"
# ("unknown" when SOURCE_DIR is not the top of a git checkout or git is
# missing). Run by the TileTuneGitRevision target on every build; the file
# is rewritten only when the revision changed, so a new HEAD recompiles the
# one source that includes it (lib/Support/Version.cpp) and nothing else.
#   cmake -DSOURCE_DIR=... -DOUTPUT=... [-DGIT_EXECUTABLE=...] -P GitRevision.cmake
set(revision "unknown")
if(GIT_EXECUTABLE)
  execute_process(
    COMMAND "${GIT_EXECUTABLE}" rev-parse --show-toplevel
    WORKING_DIRECTORY "${SOURCE_DIR}"
    OUTPUT_VARIABLE toplevel RESULT_VARIABLE toplevel_rc
    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  get_filename_component(source_real "${SOURCE_DIR}" REALPATH)
  if(toplevel_rc EQUAL 0)
    get_filename_component(toplevel_real "${toplevel}" REALPATH)
  endif()
  # A source tree that is not a checkout itself (e.g. an unpacked archive
  # inside some other repository) has no revision of its own.
  if(toplevel_rc EQUAL 0 AND toplevel_real STREQUAL source_real)
    execute_process(
      COMMAND "${GIT_EXECUTABLE}" rev-parse --short=12 HEAD
      WORKING_DIRECTORY "${SOURCE_DIR}"
      OUTPUT_VARIABLE head RESULT_VARIABLE head_rc
      OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(head_rc EQUAL 0 AND head MATCHES "^[0-9a-f]+$")
      set(revision "${head}")
    endif()
  endif()
endif()
set(content "#define TILETUNE_GIT_REVISION \"${revision}\"\n")
set(old "")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
endif()
if(NOT old STREQUAL content)
  file(WRITE "${OUTPUT}" "${content}")
endif()
