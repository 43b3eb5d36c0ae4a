#include "services/pg/array.h"

#include <limits>

#include "engine/check.h"

namespace trix::pg {
namespace {

// PostgreSQL counts timestamps from 2000-01-01, 946684800 s after the Unix epoch.
constexpr int64_t kPgEpochUnixMicros = int64_t{946684800} * 1000000;

}  // namespace

void PgArray::Expect(bool type_ok, const char* what) const {
  TRIX_CHECK(type_ok) << "PgArray: " << what << " added to an array of type oid "
                      << static_cast<unsigned>(type_);
}

void PgArray::AppendBigEndian(uint64_t value, int bytes) {
  for (int shift = 8 * (bytes - 1); shift >= 0; shift -= 8) {
    elements_.push_back(static_cast<char>((value >> shift) & 0xff));
  }
}

void PgArray::AddString(absl::string_view value) {
  Expect(type_ == PgType::kText || type_ == PgType::kBytea, "a string");
  // The server caps a field at 1 GB; the length prefix is an int32 either way.
  Expect(value.size() < (size_t{1} << 30), "a string over 1 GB");
  AppendInt32(static_cast<int32_t>(value.size()));
  elements_.append(value.data(), value.size());
  ++count_;
}

void PgArray::AddInt(int64_t value) {
  int bytes = 0;
  switch (type_) {
    case PgType::kInt2:
      Expect(value >= std::numeric_limits<int16_t>::min() &&
                 value <= std::numeric_limits<int16_t>::max(),
             "an int outside int2");
      bytes = 2;
      break;
    case PgType::kInt4:
      Expect(value >= std::numeric_limits<int32_t>::min() &&
                 value <= std::numeric_limits<int32_t>::max(),
             "an int outside int4");
      bytes = 4;
      break;
    case PgType::kInt8:
      bytes = 8;
      break;
    default:
      Expect(false, "an int");
  }
  AppendInt32(bytes);
  AppendBigEndian(static_cast<uint64_t>(value), bytes);
  ++count_;
}

void PgArray::AddBool(bool value) {
  Expect(type_ == PgType::kBool, "a bool");
  AppendInt32(1);
  elements_.push_back(value ? 1 : 0);
  ++count_;
}

void PgArray::AddTime(absl::Time value) {
  Expect(type_ == PgType::kTimestampTz, "a time");
  AppendInt32(8);
  AppendBigEndian(static_cast<uint64_t>(ToPgMicros(value)), 8);
  ++count_;
}

void PgArray::AddNull() {
  AppendInt32(-1);
  has_null_ = true;
  ++count_;
}

pqxx::binarystring PgArray::Finish() const {
  PgArray header(type_);
  // A one-dimensional array: ndim, has-null flag, element type, then the one
  // dimension's length and lower bound (1, as SQL arrays count).
  header.AppendInt32(1);
  header.AppendInt32(has_null_ ? 1 : 0);
  header.AppendInt32(static_cast<int32_t>(type_));
  header.AppendInt32(count_);
  header.AppendInt32(1);
  std::string out = std::move(header.elements_);
  out += elements_;
  return pqxx::binarystring(out);
}

int64_t ToPgMicros(absl::Time time) {
  // absl saturates infinite times to the int64 limits, which the server reads as
  // +/-infinity; finite times far out of range are rejected by the server.
  const int64_t unix_micros = absl::ToUnixMicros(time);
  if (unix_micros < std::numeric_limits<int64_t>::min() + kPgEpochUnixMicros) {
    return std::numeric_limits<int64_t>::min();
  }
  if (unix_micros == std::numeric_limits<int64_t>::max()) return unix_micros;
  return unix_micros - kPgEpochUnixMicros;
}

}  // namespace trix::pg
