# Cross build of the portable planlint binary for Linux aarch64 (arm64) on an x86-64 Debian 12 machine:
# Debian's cross GCC (g++-aarch64-linux-gnu), the arm64 build dependencies that scripts/cross-deps.sh
# unpacks, and (PLANLINT_GLIBC_SYSROOT) the arm64 glibc 2.31 that scripts/glibc-sysroot.sh fetches.
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/cross-aarch64.cmake \
#     -DPLANLINT_CROSS_DEPS=$PWD/third_party/deps-arm64 -DPLANLINT_PORTABLE=ON \
#     -DPLANLINT_GLIBC_SYSROOT=$PWD/third_party/glibc-2.31-arm64
# The binary runs here under qemu-user (qemu-aarch64), which CMake uses to run it at build time.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(PLANLINT_CROSS_DEPS "${CMAKE_CURRENT_LIST_DIR}/../third_party/deps-arm64" CACHE PATH
  "Debian's arm64 build dependencies, unpacked (scripts/cross-deps.sh)")
# Libraries, headers and package files from the unpacked dependencies and the cross compiler's own
# folder only; programs (pkg-config, bash) from this machine.
set(CMAKE_FIND_ROOT_PATH ${PLANLINT_CROSS_DEPS} /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(ENV{PKG_CONFIG_LIBDIR} "${PLANLINT_CROSS_DEPS}/usr/lib/aarch64-linux-gnu/pkgconfig:${PLANLINT_CROSS_DEPS}/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${PLANLINT_CROSS_DEPS}")
set(PLANLINT_TESTS OFF CACHE BOOL "Build the test suite (it runs on the build machine)")
set(PLANLINT_BENCH OFF CACHE BOOL "Build benchmarks")
set(PLANLINT_TIDY_TEST OFF CACHE BOOL "clang-tidy test")
# What runs the binary at build time (the man page is made from its --help).
find_program(PLANLINT_QEMU qemu-aarch64)
if(PLANLINT_QEMU)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${PLANLINT_QEMU})
endif()
