# The installable bot SDK, so that a bot is built outside this repository with
#   find_package(MamlakaBot REQUIRED)
#   target_link_libraries(my_bot PRIVATE MamlakaBot::sdk)
# Installed as the component `bot_sdk` alone (the servers have no install rules):
#   cmake --install build --component bot_sdk --prefix /opt/mamlaka
# It holds the SDK's static libraries and those it links (the engine, trix_check,
# the generated trix.v1 API and its translation, the header-only backoff), their
# headers under include/ with the paths used in this repository ("bots/sdk/bot.h",
# "engine/cards.h", "trix/v1/table.pb.h"), and lib/cmake/MamlakaBot: the exported
# targets (MamlakaBot::sdk, ::engine, ::check, ::wire, ::proto, ::backoff) and the
# package config, which finds Abseil, Protobuf and gRPC the way this build does.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(MAMLAKA_BOT_COMPONENT bot_sdk)
set(MAMLAKA_BOT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/MamlakaBot)

set_target_properties(trix_bot_sdk PROPERTIES EXPORT_NAME sdk)
set_target_properties(trix_engine PROPERTIES EXPORT_NAME engine)
set_target_properties(trix_check PROPERTIES EXPORT_NAME check)
set_target_properties(trix_wire PROPERTIES EXPORT_NAME wire)
set_target_properties(trix_proto PROPERTIES EXPORT_NAME proto)
set_target_properties(trix_backoff PROPERTIES EXPORT_NAME backoff)

install(TARGETS trix_bot_sdk trix_engine trix_check trix_wire trix_proto trix_backoff
  EXPORT MamlakaBotTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT ${MAMLAKA_BOT_COMPONENT}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT ${MAMLAKA_BOT_COMPONENT})

# Headers: the SDK's, the engine's (its value types are the SDK's), the wire
# translation, and the generated API (log.proto is the table service's own).
install(FILES bot.h bot_account.h seat.h seat_state.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/bots/sdk COMPONENT ${MAMLAKA_BOT_COMPONENT})
file(GLOB engine_headers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/engine/*.h)
install(FILES ${engine_headers}
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/engine COMPONENT ${MAMLAKA_BOT_COMPONENT})
install(FILES ${PROJECT_SOURCE_DIR}/proto/wire/wire.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/proto/wire COMPONENT ${MAMLAKA_BOT_COMPONENT})
install(FILES ${PROJECT_SOURCE_DIR}/services/common/backoff.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/services/common COMPONENT ${MAMLAKA_BOT_COMPONENT})
install(DIRECTORY ${TRIX_PROTO_OUT}/trix/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/trix COMPONENT ${MAMLAKA_BOT_COMPONENT}
  FILES_MATCHING PATTERN "*.pb.h" PATTERN "log.*" EXCLUDE)

install(EXPORT MamlakaBotTargets NAMESPACE MamlakaBot::
  DESTINATION ${MAMLAKA_BOT_CMAKE_DIR} COMPONENT ${MAMLAKA_BOT_COMPONENT})
configure_package_config_file(MamlakaBotConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/MamlakaBotConfig.cmake
  INSTALL_DESTINATION ${MAMLAKA_BOT_CMAKE_DIR})
# No release numbering yet: the SDK follows the API, trix.v1.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/MamlakaBotConfigVersion.cmake
  VERSION 0.1.0 COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/MamlakaBotConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/MamlakaBotConfigVersion.cmake
  DESTINATION ${MAMLAKA_BOT_CMAKE_DIR} COMPONENT ${MAMLAKA_BOT_COMPONENT})
