// The refusals of the table host that say more than a code and a message:
//   - a table that lives elsewhere: UNAVAILABLE with a trix.v1.TableLocation in the
//     status's payload, which the gRPC layer sends as the error's details (a
//     google.rpc.Status in grpc-status-details-bin), so a client reconnects there;
//   - a refused action: the seat's current prompt in the payload, which a Play
//     stream's ActResult carries again;
//   - a quarantined table: FAILED_PRECONDITION "table quarantined: <reason>".
#ifndef TRIX_SERVICES_TABLE_REFUSALS_H_
#define TRIX_SERVICES_TABLE_REFUSALS_H_

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "services/table/store/instance_registry.h"
#include "trix/v1/table.pb.h"

namespace trix::table {

inline constexpr char kLocationType[] = "type.googleapis.com/trix.v1.TableLocation";
inline constexpr char kPromptType[] = "type.googleapis.com/trix.v1.Prompt";

// Where `table_id` lives, as LocateTable answers it.
v1::TableLocation LocationOf(const std::string& table_id, const table::TableHome& home);
// UNAVAILABLE: the table is not (or no longer) hosted here; `why` says why. The
// location rides along.
absl::Status MovedError(const v1::TableLocation& location, absl::string_view why);
std::optional<v1::TableLocation> LocationIn(const absl::Status& status);

absl::Status QuarantinedError(absl::string_view reason);
// Whether `status` is QuarantinedError's.
bool IsQuarantined(const absl::Status& status);

// INVALID_ARGUMENT unless `table_id` has the form CreateTable gives table ids (a
// UUID): a malformed id is refused before any lookup, so that a flood of made-up
// ids costs no database query.
absl::Status CheckTableId(absl::string_view table_id);

// `status` with the seat's prompt attached (for a refused action).
absl::Status WithPrompt(absl::Status status, const v1::Prompt& prompt);
std::optional<v1::Prompt> PromptIn(const absl::Status& status);

}  // namespace trix::table

#endif  // TRIX_SERVICES_TABLE_REFUSALS_H_
