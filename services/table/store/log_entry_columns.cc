#include "services/table/store/log_entry_columns.h"

namespace trix::table {

void LogEntryColumns::Add(const table::LogEntry& entry) {
  idx_.AddInt(entry.index);
  seat_.AddInt(entry.seat);
  request_id_.AddString(entry.request_id);
  payload_.AddString(entry.payload);
  response_.AddString(entry.response);
  time_.AddTime(entry.time);
}

LogEntryColumns::Arrays LogEntryColumns::Finish() const {
  return {idx_.Finish(),     seat_.Finish(),     request_id_.Finish(),
          payload_.Finish(), response_.Finish(), time_.Finish()};
}

}  // namespace trix::table
