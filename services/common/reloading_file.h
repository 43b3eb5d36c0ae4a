// A configuration file that is re-read when it changes, so that credentials and
// key sets rotate without a restart: a Kubernetes Secret update (which swaps a
// symlink), an editor's rename or an in-place rewrite all change the file's
// modification time, size or inode, which is what is compared.
//
// The file is looked at no more often than `recheck`, by the caller that needs its
// contents (no thread of its own). A change that does not parse is logged and the
// last good contents stay in force: a bad edit never locks everyone out. But a
// file deleted or emptied is taken as "nothing": T{} (no key, no credential) is
// in force until the file is back, and an error line says so, so that removing
// a file that lists secrets never leaves them trusted. A file that parses to an
// empty T (T has empty(): a list) is taken, with the same error line.
//
//   auto keys = ReloadingFile<KeySet>::Open(path, ParseKeySet);
//   std::shared_ptr<const KeySet> now = (*keys)->Get();
#ifndef TRIX_SERVICES_COMMON_RELOADING_FILE_H_
#define TRIX_SERVICES_COMMON_RELOADING_FILE_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace trix::service {

// What is compared to notice a change.
struct FileStamp {
  int64_t mtime_ns = 0;
  int64_t size = -1;
  uint64_t inode = 0;
  bool operator==(const FileStamp& o) const {
    return mtime_ns == o.mtime_ns && size == o.size && inode == o.inode;
  }
};

// The stamp of `path` (following symlinks); NOT_FOUND when it cannot be read.
absl::StatusOr<FileStamp> StampOf(const std::string& path);
// The whole file; NOT_FOUND / INVALID_ARGUMENT naming the file.
absl::StatusOr<std::string> ReadWholeFile(const std::string& path);
// Logs that a changed file was not taken (the old contents stay).
void LogReloadRefused(const std::string& path, const absl::Status& why);
// Logs that a file is gone or empty, so that nothing it listed is trusted now.
void LogFileEmptied(const std::string& path, const absl::Status& why);
// Whether `contents` hold nothing but white space.
bool Blank(const std::string& contents);

template <typename T>
class ReloadingFile {
 public:
  using Parse = std::function<absl::StatusOr<T>(const std::string& contents)>;

  // Reads and parses `path` now: the error (naming the file) when either fails.
  static absl::StatusOr<std::unique_ptr<ReloadingFile>> Open(
      std::string path, Parse parse, absl::Duration recheck = absl::Seconds(1)) {
    std::unique_ptr<ReloadingFile> file(
        new ReloadingFile(std::move(path), std::move(parse), recheck));
    absl::MutexLock lock(&file->mu_);
    if (absl::Status s = file->Load(); !s.ok()) return s;
    return file;
  }

  // The current contents, re-read first when the file changed.
  std::shared_ptr<const T> Get(absl::Time now = absl::Now()) const {
    absl::MutexLock lock(&mu_);
    if (now - checked_ >= recheck_) {
      checked_ = now;
      absl::StatusOr<FileStamp> stamp = StampOf(path_);
      if (!stamp.ok()) {
        Empty(FileStamp(), stamp.status());
      } else if (!(*stamp == stamp_)) {
        Reload(*stamp);
      }
    }
    return current_;
  }

  const std::string& path() const { return path_; }

 private:
  ReloadingFile(std::string path, Parse parse, absl::Duration recheck)
      : path_(std::move(path)), parse_(std::move(parse)), recheck_(recheck) {}

  // The changed file: taken, refused (the old contents stay) or empty.
  void Reload(const FileStamp& stamp) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    absl::StatusOr<std::string> contents = ReadWholeFile(path_);
    if (!contents.ok()) return Empty(FileStamp(), contents.status());
    if (Blank(*contents)) return Empty(stamp, absl::NotFoundError(path_ + " is empty"));
    if (absl::Status s = Load(); !s.ok()) {
      stamp_ = stamp;  // refused once, not at every call
      LogReloadRefused(path_, s);
    } else if (current_->empty()) {
      LogFileEmptied(path_, absl::NotFoundError(path_ + " lists nothing"));
    }
  }
  // Nothing is trusted from the file (`stamp`: the empty file's, or none).
  void Empty(const FileStamp& stamp, const absl::Status& why) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (emptied_ && stamp == stamp_) return;  // said once, not at every call
    emptied_ = true;
    stamp_ = stamp;
    current_ = std::make_shared<const T>();
    LogFileEmptied(path_, why);
  }

  absl::Status Load() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    absl::StatusOr<FileStamp> stamp = StampOf(path_);
    if (!stamp.ok()) return stamp.status();
    absl::StatusOr<std::string> contents = ReadWholeFile(path_);
    if (!contents.ok()) return contents.status();
    absl::StatusOr<T> parsed = parse_(*contents);
    if (!parsed.ok()) {
      return absl::Status(parsed.status().code(),
                          path_ + ": " + std::string(parsed.status().message()));
    }
    current_ = std::make_shared<const T>(*std::move(parsed));
    stamp_ = *stamp;
    emptied_ = false;
    return absl::OkStatus();
  }

  const std::string path_;
  const Parse parse_;
  const absl::Duration recheck_;
  mutable absl::Mutex mu_;
  mutable std::shared_ptr<const T> current_ ABSL_GUARDED_BY(mu_);
  mutable FileStamp stamp_ ABSL_GUARDED_BY(mu_);
  mutable absl::Time checked_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  mutable bool emptied_ ABSL_GUARDED_BY(mu_) = false;  // T{} is in force
};

}  // namespace trix::service

#endif  // TRIX_SERVICES_COMMON_RELOADING_FILE_H_
