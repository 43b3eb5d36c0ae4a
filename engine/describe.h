// Human-readable text for engine events: one line each, for logs, the command-line
// tools and the local demo's table view.
//
//   for (const Event& e : game.events()) std::cout << DescribeEvent(e) << "\n";
#ifndef TRIX_ENGINE_DESCRIBE_H_
#define TRIX_ENGINE_DESCRIBE_H_

#include <string>

#include "engine/game.h"

namespace trix::engine {

std::string DescribeEvent(const Event& event);

}  // namespace trix::engine

#endif  // TRIX_ENGINE_DESCRIBE_H_
