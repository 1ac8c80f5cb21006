#include "common/check.hpp"

namespace tut {

std::string format_call_error(const char* file, int line, const char* call, const std::string& message) {
  return std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: " + message;
}

}  // namespace tut
