#include "services/common/config.h"

#include <cstdlib>
#include <iostream>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace trix::service {
namespace {

absl::Status BadValue(absl::string_view name, absl::string_view text,
                      absl::string_view expected) {
  return absl::InvalidArgumentError(
      absl::StrCat("--", name, ": \"", text, "\" is not ", expected));
}

bool IsSecret(absl::string_view name) {
  return absl::StrContains(name, "token") || absl::StrContains(name, "password") ||
         absl::StrContains(name, "url");
}

}  // namespace

Config::Config(std::string program, std::string env_prefix)
    : program_(std::move(program)), env_prefix_(std::move(env_prefix)) {}

std::string Config::EnvName(const std::string& name) const {
  return env_prefix_ + absl::AsciiStrToUpper(name);
}

void Config::Add(Setting setting) {
  setting.default_text = setting.get();
  settings_.push_back(std::move(setting));
}

Config::Setting* Config::Find(absl::string_view name) {
  for (Setting& s : settings_) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

void Config::Bind(const std::string& name, std::string* value, std::string help) {
  Add({name, std::move(help), "", false,
       [value](absl::string_view text) {
         *value = std::string(text);
         return absl::OkStatus();
       },
       [value] { return *value; }});
}

void Config::Bind(const std::string& name, int* value, std::string help) {
  Add({name, std::move(help), "", false,
       [name, value](absl::string_view text) {
         if (!absl::SimpleAtoi(text, value)) return BadValue(name, text, "an integer");
         return absl::OkStatus();
       },
       [value] { return std::to_string(*value); }});
}

void Config::Bind(const std::string& name, int64_t* value, std::string help) {
  Add({name, std::move(help), "", false,
       [name, value](absl::string_view text) {
         if (!absl::SimpleAtoi(text, value)) return BadValue(name, text, "an integer");
         return absl::OkStatus();
       },
       [value] { return std::to_string(*value); }});
}

void Config::Bind(const std::string& name, bool* value, std::string help) {
  Add({name, std::move(help), "", true,
       [name, value](absl::string_view text) {
         if (!absl::SimpleAtob(text, value)) return BadValue(name, text, "true or false");
         return absl::OkStatus();
       },
       [value] { return std::string(*value ? "true" : "false"); }});
}

void Config::Bind(const std::string& name, double* value, std::string help) {
  Add({name, std::move(help), "", false,
       [name, value](absl::string_view text) {
         if (!absl::SimpleAtod(text, value)) return BadValue(name, text, "a number");
         return absl::OkStatus();
       },
       [value] { return absl::StrCat(*value); }});
}

void Config::Bind(const std::string& name, absl::Duration* value, std::string help) {
  Add({name, std::move(help), "", false,
       [name, value](absl::string_view text) {
         if (!absl::ParseDuration(text, value)) {
           return BadValue(name, text, "a duration such as 250ms or 5s");
         }
         return absl::OkStatus();
       },
       [value] { return absl::FormatDuration(*value); }});
}

absl::Status Config::Parse(int argc, const char* const* argv, EnvLookup env) {
  help_ = false;  // each call reads one whole command line
  if (!env) {
    env = [](const std::string& key) -> std::optional<std::string> {
      const char* v = std::getenv(key.c_str());
      if (v == nullptr) return std::nullopt;
      return std::string(v);
    };
  }
  for (Setting& s : settings_) {
    if (std::optional<std::string> text = env(EnvName(s.name))) {
      if (absl::Status status = s.set(*text); !status.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("environment ", EnvName(s.name), ": ", status.message()));
      }
    }
  }
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    if (!absl::ConsumePrefix(&arg, "--") && !absl::ConsumePrefix(&arg, "-")) {
      return absl::InvalidArgumentError(
          absl::StrCat("unexpected argument \"", arg, "\""));
    }
    if (arg == "help") {
      help_ = true;
      continue;
    }
    absl::string_view name = arg;
    std::optional<absl::string_view> text;
    if (size_t eq = arg.find('='); eq != absl::string_view::npos) {
      name = arg.substr(0, eq);
      text = arg.substr(eq + 1);
    }
    Setting* s = Find(name);
    if (s == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag --", name));
    }
    if (!text) {
      if (s->is_bool) {
        text = "true";
      } else if (i + 1 < argc) {
        text = argv[++i];
      } else {
        return absl::InvalidArgumentError(absl::StrCat("--", name, " needs a value"));
      }
    }
    if (absl::Status status = s->set(*text); !status.ok()) return status;
  }
  return absl::OkStatus();
}

std::optional<int> Config::ParseCommandLine(int argc, const char* const* argv) {
  if (absl::Status s = Parse(argc, argv); !s.ok()) {
    std::cerr << program_ << ": " << s.message() << "\n\n" << Usage();
    return 2;
  }
  if (help_) {
    std::cout << Usage();
    return 0;
  }
  return std::nullopt;
}

std::string Config::Usage() const {
  std::string out = absl::StrCat("Usage: ", program_, " [--flag=value ...]\n\n",
                                 "Each flag may also be set by its environment variable;"
                                 " a flag wins.\n\n");
  for (const Setting& s : settings_) {
    absl::StrAppend(&out, "  --", s.name, " (", EnvName(s.name), ", default \"",
                    s.default_text, "\")\n      ", s.help, "\n");
  }
  return out;
}

std::string Config::Describe() const {
  std::string out;
  for (const Setting& s : settings_) {
    const std::string value = s.get();
    absl::StrAppend(&out, out.empty() ? "" : " ", s.name, "=",
                    IsSecret(s.name) && !value.empty() ? "<set>" : value);
  }
  return out;
}

}  // namespace trix::service
