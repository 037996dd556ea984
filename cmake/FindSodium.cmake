# libsodium (Debian's libsodium-dev), found by path so that a prefix of unpacked .deb files works
# too (scripts/make-gpu-deps.sh; its pkg-config files would name /usr). Defines Sodium::Sodium.
find_path(Sodium_INCLUDE_DIR sodium.h)
find_library(Sodium_LIBRARY NAMES sodium)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Sodium REQUIRED_VARS Sodium_LIBRARY Sodium_INCLUDE_DIR
  REASON_FAILURE_MESSAGE "every reader hashes the keys it takes from a file with libsodium's SipHash: install \
Debian's libsodium-dev (scripts/setup.sh does), or name its prefix in CMAKE_PREFIX_PATH")
if(Sodium_FOUND AND NOT TARGET Sodium::Sodium)
  add_library(Sodium::Sodium UNKNOWN IMPORTED)
  set_target_properties(Sodium::Sodium PROPERTIES IMPORTED_LOCATION "${Sodium_LIBRARY}"
                                                  INTERFACE_INCLUDE_DIRECTORIES "${Sodium_INCLUDE_DIR}")
endif()
mark_as_advanced(Sodium_INCLUDE_DIR Sodium_LIBRARY)
