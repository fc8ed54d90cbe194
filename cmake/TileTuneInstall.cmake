# What `cmake --install <build> --prefix P` puts under P (docs/Embedding.md,
# "CMake package and the example"):
#
#   include/tiletune/...            the public headers and their tablegen
#                                   outputs (the list: include/tiletune/
#                                   CMakeLists.txt)
#   lib/libTileTune*.a              the libraries (+ libtiletune_cuda_runtime.so)
#   lib/cmake/tiletune/             TileTuneConfig.cmake, its version file and
#                                   the imported targets TileTune::<Lib>, one per
#                                   library, and TileTune::TileTune (all)
#   bin/                            tiletune, tiletune-opt, tiletune-run
#                                   (+ tiletune-gpu-runtime-check)
#   lib/python3/dist-packages/tiletune   the Python package (when built;
#                                   TILETUNE_INSTALL_PYTHONDIR)
#
# add_mlir_library() already installs each MLIR-side archive (component
# <name>, export set MLIRTargets, which this project never installs); the
# rules below install every library once more into the same place, adding
# it to the TileTuneTargets export set that the package is made of.

include(CMakePackageConfigHelpers)

set(TILETUNE_INSTALL_LIBDIR "lib${LLVM_LIBDIR_SUFFIX}")
set(TILETUNE_INSTALL_PACKAGEDIR "${TILETUNE_INSTALL_LIBDIR}/cmake/tiletune")
set(TILETUNE_INSTALL_PYTHONDIR "${TILETUNE_INSTALL_LIBDIR}/python3/dist-packages"
  CACHE STRING "Where the tiletune Python package is installed, relative to the prefix")

# The libraries of the package, in dependency order. The imported target of
# TileTune<X> is TileTune::<X> (TileTuneDialect: TileTune::Dialect).
set(TILETUNE_PACKAGE_LIBRARIES
  TileTuneSupport
  TileTuneSpace
  TileTuneMeasure
  TileTuneSearch
  TileTuneDatabase
  TileTuneTuner
  TileTuneDialect
  TileTuneTransforms
  TileTuneExecution
  TileTuneGPU
  TileTuneProblem
  TileTuneMeasureKernel
  TileTuneMeasureCPU
  TileTuneMeasureGPU
  TileTuneInit
  TileTuneDriver
  TileTuneTuningPasses
  )
if(TARGET TileTuneMeasureMPI)
  # Before the driver, which links it.
  list(FIND TILETUNE_PACKAGE_LIBRARIES TileTuneDriver _tiletune_driver_at)
  list(INSERT TILETUNE_PACKAGE_LIBRARIES ${_tiletune_driver_at}
    TileTuneMeasureMPI)
endif()
if(TARGET tiletune_cuda_runtime)
  list(APPEND TILETUNE_PACKAGE_LIBRARIES tiletune_cuda_runtime)
  set_target_properties(tiletune_cuda_runtime PROPERTIES EXPORT_NAME CudaRuntime)
endif()

# Guard: a static library added under lib/ must be listed above (or the
# package would miss it and its dependents would not link). Fails at
# configure time. (Shared libraries and plugins are installed on their own.)
function(tiletune_collect_library_targets dir out)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  set(found "")
  foreach(t IN LISTS targets)
    get_target_property(type ${t} TYPE)
    if(type STREQUAL "STATIC_LIBRARY")
      list(APPEND found ${t})
    endif()
  endforeach()
  foreach(sub IN LISTS subdirs)
    tiletune_collect_library_targets(${sub} subfound)
    list(APPEND found ${subfound})
  endforeach()
  set(${out} ${found} PARENT_SCOPE)
endfunction()
tiletune_collect_library_targets(${PROJECT_SOURCE_DIR}/lib _tiletune_libs)
foreach(lib IN LISTS _tiletune_libs)
  if(NOT lib IN_LIST TILETUNE_PACKAGE_LIBRARIES)
    message(FATAL_ERROR "Library ${lib} (lib/) is not in "
      "TILETUNE_PACKAGE_LIBRARIES (cmake/TileTuneInstall.cmake)")
  endif()
endforeach()

foreach(lib IN LISTS TILETUNE_PACKAGE_LIBRARIES)
  if(lib MATCHES "^TileTune(.+)$")
    set_target_properties(${lib} PROPERTIES EXPORT_NAME ${CMAKE_MATCH_1})
  endif()
  # Consumers find our headers in the install tree; in the build tree the
  # include directories are global (top-level CMakeLists.txt).
  target_include_directories(${lib} INTERFACE
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
endforeach()
# Consumers compile our headers (and MLIR's) as C++17 at least.
target_compile_features(TileTuneSupport INTERFACE cxx_std_17)

# TileTune::TileTune: every library, except the GPU runtime, which GPU
# measurement opens by path at run time (nothing links it).
set(_tiletune_all_libraries ${TILETUNE_PACKAGE_LIBRARIES})
list(REMOVE_ITEM _tiletune_all_libraries tiletune_cuda_runtime)
add_library(TileTuneAll INTERFACE)
target_link_libraries(TileTuneAll INTERFACE ${_tiletune_all_libraries})
set_target_properties(TileTuneAll PROPERTIES EXPORT_NAME TileTune)

install(TARGETS ${TILETUNE_PACKAGE_LIBRARIES} TileTuneAll
  EXPORT TileTuneTargets
  ARCHIVE DESTINATION ${TILETUNE_INSTALL_LIBDIR} COMPONENT tiletune-libraries
  LIBRARY DESTINATION ${TILETUNE_INSTALL_LIBDIR} COMPONENT tiletune-libraries)
install(EXPORT TileTuneTargets
  NAMESPACE TileTune::
  FILE TileTuneTargets.cmake
  DESTINATION ${TILETUNE_INSTALL_PACKAGEDIR}
  COMPONENT tiletune-libraries)

# Tools.
set(TILETUNE_INSTALL_TOOLS tiletune tiletune-opt tiletune-run)
if(TARGET tiletune-gpu-runtime-check)
  list(APPEND TILETUNE_INSTALL_TOOLS tiletune-gpu-runtime-check)
endif()
install(TARGETS ${TILETUNE_INSTALL_TOOLS}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT tiletune-tools)

# The Python package: the extension module and the pure-Python files.
if(TARGET TileTunePython)
  install(TARGETS TileTunePython
    LIBRARY DESTINATION ${TILETUNE_INSTALL_PYTHONDIR}/tiletune
    COMPONENT tiletune-python)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/tiletune/
    DESTINATION ${TILETUNE_INSTALL_PYTHONDIR}/tiletune
    COMPONENT tiletune-python
    FILES_MATCHING PATTERN "*.py")
  set(TILETUNE_PACKAGE_HAS_PYTHON ON)
else()
  set(TILETUNE_PACKAGE_HAS_PYTHON OFF)
endif()

# The package: config, version file (0.x: only the same minor version is
# compatible) and the exported targets above. Generated into a folder of the
# build tree that find_package() does not search (it derives prefixes from
# PATH, and build/bin is there in the suite): the config is for installs only.
set(_tiletune_package_build_dir ${PROJECT_BINARY_DIR}/cmake/package)
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/TileTuneConfig.cmake.in
  ${_tiletune_package_build_dir}/TileTuneConfig.cmake
  INSTALL_DESTINATION ${TILETUNE_INSTALL_PACKAGEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_BINDIR
    TILETUNE_INSTALL_PYTHONDIR)
write_basic_package_version_file(
  ${_tiletune_package_build_dir}/TileTuneConfigVersion.cmake
  VERSION ${TILETUNE_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${_tiletune_package_build_dir}/TileTuneConfig.cmake
  ${_tiletune_package_build_dir}/TileTuneConfigVersion.cmake
  DESTINATION ${TILETUNE_INSTALL_PACKAGEDIR}
  COMPONENT tiletune-libraries)

# A staged install inside the build tree (build/staged-install), refreshed
# by check-tiletune: test/Package builds examples/embedding against it.
set(TILETUNE_STAGED_INSTALL_DIR ${PROJECT_BINARY_DIR}/staged-install)
set(_tiletune_install_deps ${TILETUNE_PACKAGE_LIBRARIES} ${TILETUNE_INSTALL_TOOLS}
  TileTuneDialectIncGen TileTuneTransformsIncGen TileTuneGPUIncGen
  TileTuneTuningPassIncGen)
if(TARGET TileTunePython)
  list(APPEND _tiletune_install_deps TileTunePython)
endif()
add_custom_target(tiletune-staged-install
  COMMAND ${CMAKE_COMMAND} --install ${PROJECT_BINARY_DIR}
    --prefix ${TILETUNE_STAGED_INSTALL_DIR}
  DEPENDS ${_tiletune_install_deps}
  WORKING_DIRECTORY ${PROJECT_BINARY_DIR}
  COMMENT "Installing into ${TILETUNE_STAGED_INSTALL_DIR}"
  VERBATIM)
