#include "services/common/logging.h"

#include <memory>
#include <mutex>

#include "spdlog/pattern_formatter.h"
#include "spdlog/sinks/stdout_sinks.h"
#include "spdlog/spdlog.h"

namespace trix::service {
namespace {

constexpr char kLoggerName[] = "mamlaka";

std::mutex& InitMutex() {
  static std::mutex* mu = new std::mutex;
  return *mu;
}

void InitLocked(const std::string& service, const std::string& level) {
  spdlog::drop(kLoggerName);
  auto logger = spdlog::stderr_logger_mt(kLoggerName);
  const std::string quoted = nlohmann::json(service).dump();
  logger->set_formatter(std::make_unique<spdlog::pattern_formatter>(
      "{\"time\":\"%Y-%m-%dT%H:%M:%S.%eZ\",\"level\":\"%l\",\"service\":" + quoted +
          ",%v}",
      spdlog::pattern_time_type::utc));
  logger->set_level(spdlog::level::from_str(level));
  logger->flush_on(spdlog::level::warn);
}

std::shared_ptr<spdlog::logger> Logger() {
  if (auto logger = spdlog::get(kLoggerName)) return logger;
  std::lock_guard<std::mutex> lock(InitMutex());
  if (auto logger = spdlog::get(kLoggerName)) return logger;
  InitLocked("mamlaka", "info");
  return spdlog::get(kLoggerName);
}

void Log(spdlog::level::level_enum level, absl::string_view message,
         const LogFields& fields) {
  auto logger = Logger();
  if (!logger->should_log(level)) return;
  // The pattern writes the opening of the object; this is the rest, without its
  // own braces, so every field lands in one flat object.
  nlohmann::json body = nlohmann::json::object();
  body["msg"] = std::string(message);
  for (const auto& [key, value] : fields) body[key] = value;
  std::string text = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  text = text.substr(1, text.size() - 2);
  logger->log(level, "{}", text);
}

}  // namespace

void InitLogging(const std::string& service, const std::string& level) {
  std::lock_guard<std::mutex> lock(InitMutex());
  InitLocked(service, level);
}

void LogDebug(absl::string_view message, const LogFields& fields) {
  Log(spdlog::level::debug, message, fields);
}
void LogInfo(absl::string_view message, const LogFields& fields) {
  Log(spdlog::level::info, message, fields);
}
void LogWarn(absl::string_view message, const LogFields& fields) {
  Log(spdlog::level::warn, message, fields);
}
void LogError(absl::string_view message, const LogFields& fields) {
  Log(spdlog::level::err, message, fields);
}

}  // namespace trix::service
