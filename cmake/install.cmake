# Installation: `cmake --install BUILD --prefix PREFIX` installs libpolyfuse (the runtime
# API with the compiler linked in), the emulator library it loads kernels against, the
# public headers, and a CMake package so that another project can write
#
#   find_package(polyfuse REQUIRED)
#   target_link_libraries(app PRIVATE polyfuse::polyfuse)
#
# Included at the end of the top-level CMakeLists.txt (the targets must exist).
if(NOT TARGET polyfuse_shared)
  return()
endif()
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The emulator library: libpolyfuse.so needs it, and kernels built by the emulator backend
# link against it; its headers are what those builds include.
set_target_properties(polyfuse_emu PROPERTIES INSTALL_RPATH "$ORIGIN")
install(TARGETS polyfuse_emu LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY "${PROJECT_SOURCE_DIR}/runtime/emu/include/polyfuse_emu"
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")

install(TARGETS polyfuse_shared EXPORT polyfuseTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/polyfuse"
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(EXPORT polyfuseTargets NAMESPACE polyfuse:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/polyfuse)

configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/polyfuseConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/polyfuseConfig.cmake" INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/polyfuse)
write_basic_package_version_file("${PROJECT_BINARY_DIR}/polyfuseConfigVersion.cmake"
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/polyfuseConfig.cmake" "${PROJECT_BINARY_DIR}/polyfuseConfigVersion.cmake"
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/polyfuse)
