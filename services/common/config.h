// Service configuration from command-line flags and environment variables.
//
// Each setting is bound to a variable the service owns; the variable's value at
// Bind() time is the default. A flag on the command line wins, then the environment
// variable <PREFIX><NAME> (upper case), then the default, so the same binary runs
// from a shell (flags) and from a Kubernetes manifest (environment) alike. Unknown
// flags and unparsable values are errors, never silently ignored.
//
//   ServiceOptions o;  // o.listen = "0.0.0.0:50051" is the default
//   Config config("table-service", "MAMLAKA_");
//   config.Bind("listen", &o.listen, "address:port to serve gRPC on");
//   config.Bind("lease_ttl", &o.lease_ttl, "how long a table's lease lasts");
//   if (std::optional<int> exit_code = config.ParseCommandLine(argc, argv)) {
//     return *exit_code;  // --help, or a bad flag (already reported)
//   }
#ifndef TRIX_SERVICES_COMMON_CONFIG_H_
#define TRIX_SERVICES_COMMON_CONFIG_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace trix::service {

class Config {
 public:
  // Returns the value of an environment variable, or nullopt when it is unset.
  using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;

  Config(std::string program, std::string env_prefix);

  // `name` is the flag's name (--name) and, upper-cased after the prefix, the
  // environment variable's. Durations read as "250ms", "5s", "2m".
  void Bind(const std::string& name, std::string* value, std::string help);
  void Bind(const std::string& name, int* value, std::string help);
  void Bind(const std::string& name, int64_t* value, std::string help);
  void Bind(const std::string& name, bool* value, std::string help);
  void Bind(const std::string& name, double* value, std::string help);
  void Bind(const std::string& name, absl::Duration* value, std::string help);

  // Reads the environment (through `env`, the process environment by default),
  // then the flags: "--name=value", "--name value", and "--name" for a bool.
  absl::Status Parse(int argc, const char* const* argv, EnvLookup env = nullptr);

  // Parse() for a program's main: on a bad setting prints it with the usage to
  // stderr and returns 2, on --help prints the usage and returns 0; otherwise
  // returns nullopt and the program goes on.
  std::optional<int> ParseCommandLine(int argc, const char* const* argv);

  // --help was given.
  bool help() const { return help_; }
  // The program's name, as given to the constructor.
  const std::string& program() const { return program_; }
  std::string Usage() const;
  // "name=value ..." of every setting, for the start-up log. Settings whose name
  // contains "token", "password" or "url" are shown as "<set>".
  std::string Describe() const;
  std::string EnvName(const std::string& name) const;

 private:
  struct Setting {
    std::string name;
    std::string help;
    std::string default_text;
    bool is_bool = false;
    std::function<absl::Status(absl::string_view)> set;
    std::function<std::string()> get;
  };
  void Add(Setting setting);
  Setting* Find(absl::string_view name);

  std::string program_;
  std::string env_prefix_;
  std::vector<Setting> settings_;
  bool help_ = false;
};

}  // namespace trix::service

#endif  // TRIX_SERVICES_COMMON_CONFIG_H_
