// TRIX_CHECK: the one fatal check of the project, on in every build (release
// included; it is not assert). It is for invariants the code itself keeps — a
// broken one is a bug, and going on would corrupt a game or a secret. Anything a
// client, a bot or the database can cause is an absl::Status instead.
//
//   TRIX_CHECK(RAND_bytes(buf, n) == 1) << "no secure randomness";
//   TRIX_CHECK_OK(game.Apply(action)) << "table " << id;
//
// A failed check prints "FATAL file:line: check `cond` failed: <message>" (and the
// status for TRIX_CHECK_OK) to stderr and aborts. The message is built only when
// the check fails.
#ifndef TRIX_ENGINE_CHECK_H_
#define TRIX_ENGINE_CHECK_H_

#include <sstream>
#include <string>

#include "absl/base/optimization.h"
#include "absl/status/status.h"

namespace trix::check_internal {

// Collects the message of a failed check; its destructor prints it and aborts.
class Failure {
 public:
  Failure(const char* file, int line, const char* condition);
  Failure(const char* file, int line, const char* condition, const absl::Status& status);
  Failure(const Failure&) = delete;
  Failure& operator=(const Failure&) = delete;
  [[noreturn]] ~Failure();
  std::ostream& stream() { return message_; }

 private:
  std::string what_;  // where, which check, the status
  std::ostringstream message_;
};

// Lets the two branches of the check's ?: have the same type (void).
struct Voidify {
  void operator&(std::ostream&) {}
};

}  // namespace trix::check_internal

#define TRIX_CHECK(condition)                                   \
  ABSL_PREDICT_TRUE(condition)                                  \
  ? (void)0                                                     \
  : ::trix::check_internal::Voidify() &                         \
        ::trix::check_internal::Failure(__FILE__, __LINE__, #condition).stream()

// Checks that an absl::Status expression is OK (evaluated once).
#define TRIX_CHECK_OK(expression)                                               \
  for (const ::absl::Status trix_check_status_ = (expression);                  \
       ABSL_PREDICT_FALSE(!trix_check_status_.ok());)                           \
  ::trix::check_internal::Failure(__FILE__, __LINE__, #expression, trix_check_status_) \
      .stream()

#endif  // TRIX_ENGINE_CHECK_H_
