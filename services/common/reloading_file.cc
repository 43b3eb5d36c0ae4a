#include "services/common/reloading_file.h"

#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "services/common/logging.h"

namespace trix::service {

absl::StatusOr<FileStamp> StampOf(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return absl::NotFoundError("cannot stat " + path);
  return FileStamp{.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 +
                               st.st_mtim.tv_nsec,
                   .size = static_cast<int64_t>(st.st_size),
                   .inode = static_cast<uint64_t>(st.st_ino)};
}

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError("cannot read " + path);
  std::stringstream contents;
  contents << in.rdbuf();
  if (in.bad()) return absl::InvalidArgumentError("cannot read " + path);
  return contents.str();
}

void LogReloadRefused(const std::string& path, const absl::Status& why) {
  LogError("a changed file was not taken; the previous contents stay in force",
           {{"file", path}, {"error", why.ToString()}});
}

void LogFileEmptied(const std::string& path, const absl::Status& why) {
  LogError("a file of keys or credentials is gone or empty; nothing it listed is "
           "trusted until it is back",
           {{"file", path}, {"error", why.ToString()}});
}

bool Blank(const std::string& contents) {
  return absl::StripAsciiWhitespace(contents).empty();
}

}  // namespace trix::service
