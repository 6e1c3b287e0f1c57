# Read by cpack for each generator (CPACK_PROJECT_CONFIG_FILE): the .deb installs under /usr, the
# release archive holds bin/, lib/planlint/ and share/ directly inside its top folder.
if(CPACK_GENERATOR STREQUAL "TGZ")
  set(CPACK_PACKAGING_INSTALL_PREFIX "")
endif()
