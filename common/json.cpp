#include "common/json.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace tut {

Json& Json::push(Json value) {
  if (type_ == Type::null) type_ = Type::array;
  if (type_ != Type::array) throw std::logic_error("Json::push on a non-array");
  items_.push_back(std::move(value));
  return items_.back();
}

Json& Json::set(const std::string& key, Json value) {
  if (type_ == Type::null) type_ = Type::object;
  if (type_ != Type::object) throw std::logic_error("Json::set on a non-object");
  for (auto& member : members_) {
    if (member.first == key) {
      member.second = std::move(value);
      return member.second;
    }
  }
  members_.emplace_back(key, std::move(value));
  return members_.back().second;
}

const Json& Json::at(const std::string& key) const {
  for (const auto& member : members_) {
    if (member.first == key) return member.second;
  }
  throw std::out_of_range("Json: no member '" + key + "'");
}

bool Json::contains(const std::string& key) const {
  for (const auto& member : members_) {
    if (member.first == key) return true;
  }
  return false;
}

std::string json_quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string Json::dump(int indent) const {
  std::string out;
  write(out, indent, 0);
  return out;
}

void Json::write(std::string& out, int indent, int depth) const {
  const auto newline = [&](int d) {
    if (indent > 0) out += "\n" + std::string(static_cast<std::size_t>(indent * d), ' ');
  };
  switch (type_) {
    case Type::null: out += "null"; break;
    case Type::boolean: out += bool_ ? "true" : "false"; break;
    case Type::number: {
      if (integer_) {
        out += std::to_string(int_);
      } else if (!std::isfinite(number_)) {
        out += "null";
      } else {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.6g", number_);
        out += buf;
      }
      break;
    }
    case Type::string: out += json_quote(string_); break;
    case Type::array: {
      out += "[";
      for (std::size_t i = 0; i < items_.size(); ++i) {
        if (i > 0) out += ",";
        newline(depth + 1);
        items_[i].write(out, indent, depth + 1);
      }
      if (!items_.empty()) newline(depth);
      out += "]";
      break;
    }
    case Type::object: {
      out += "{";
      for (std::size_t i = 0; i < members_.size(); ++i) {
        if (i > 0) out += ",";
        newline(depth + 1);
        out += json_quote(members_[i].first) + (indent > 0 ? ": " : ":");
        members_[i].second.write(out, indent, depth + 1);
      }
      if (!members_.empty()) newline(depth);
      out += "}";
      break;
    }
  }
}

}  // namespace tut
