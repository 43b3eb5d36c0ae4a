// Binary-format PostgreSQL arrays, so one statement can carry a whole batch of rows.
//
// Group commit writes every log entry of a batch with one
//   INSERT INTO game_log SELECT * FROM unnest($1::text[], $2::int8[], ...)
// libpqxx 6.4 cannot bind a container as a parameter, and a text array literal
// would need quoting rules for every element and hex-escaping for bytea. The binary
// wire format that the server's array_recv reads needs neither: a small header,
// then each element as its byte length and its raw bytes (integers big-endian).
// The finished array is bound as a pqxx::binarystring, which libpqxx sends in
// binary format; the `$n::type[]` cast in the SQL tells the server what to expect,
// and the element type written here must match it or the server rejects the call.
//
//   PgArray ids(PgType::kText), idxs(PgType::kInt8);
//   ids.AddString("g1");
//   idxs.AddInt(7);
//   tx.exec_prepared("append_log", ids.Finish(), idxs.Finish());
#ifndef TRIX_SERVICES_PG_ARRAY_H_
#define TRIX_SERVICES_PG_ARRAY_H_

#include <cstdint>
#include <pqxx/binarystring>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace trix::pg {

// Element types, by their PostgreSQL type OID (pg_type.oid; fixed since 7.x).
enum class PgType : uint32_t {
  kBool = 16,
  kBytea = 17,
  kInt8 = 20,
  kInt2 = 21,
  kInt4 = 23,
  kText = 25,
  kTimestampTz = 1184,
};

// A one-dimensional array being built. Adding an element of the wrong kind for the
// array's type is a programming error and aborts.
class PgArray {
 public:
  explicit PgArray(PgType type) : type_(type) {}

  void AddString(absl::string_view value);  // kText (valid UTF-8) or kBytea
  void AddInt(int64_t value);               // kInt2, kInt4 or kInt8; must fit
  void AddBool(bool value);                 // kBool
  void AddTime(absl::Time value);           // kTimestampTz, microsecond precision
  void AddNull();                           // any type

  int size() const { return count_; }
  // The complete array in array_recv's format, ready to bind.
  pqxx::binarystring Finish() const;

 private:
  void Expect(bool type_ok, const char* what) const;
  void AppendInt32(int32_t value) { AppendBigEndian(static_cast<uint32_t>(value), 4); }
  void AppendBigEndian(uint64_t value, int bytes);

  PgType type_;
  int count_ = 0;
  bool has_null_ = false;
  std::string elements_;  // each: int32 length (-1 for NULL), then the bytes
};

// Microseconds since 2000-01-01 00:00 UTC: the server's binary timestamptz.
int64_t ToPgMicros(absl::Time time);

}  // namespace trix::pg

#endif  // TRIX_SERVICES_PG_ARRAY_H_
