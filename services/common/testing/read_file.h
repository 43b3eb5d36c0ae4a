// A file's whole text, for tests that read what a process they started wrote (its
// log, its port file, its output). Header-only: any test includes it as it is.
//
//   const std::string log = ReadFile(dir + "/ratings.log");
#ifndef TRIX_SERVICES_COMMON_TESTING_READ_FILE_H_
#define TRIX_SERVICES_COMMON_TESTING_READ_FILE_H_

#include <fstream>
#include <sstream>
#include <string>

namespace trix {

// The text of the file at `path`; empty when there is none (yet).
inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace trix

#endif  // TRIX_SERVICES_COMMON_TESTING_READ_FILE_H_
