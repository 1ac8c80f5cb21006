/// @file
/// @brief A minimal JSON value for writing result files (objects keep insertion order).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tut {

/// A JSON value: null, bool, number, string, array or object. Built in code, written by dump().
/// Non-finite numbers are written as null (JSON has no NaN or Infinity).
class Json {
 public:
  /// The kinds of JSON value.
  enum class Type { null, boolean, number, string, array, object };

  /// null
  Json() = default;
  /// true or false
  Json(bool b) : type_(Type::boolean), bool_(b) {}  // NOLINT: implicit on purpose
  /// a number
  Json(double d) : type_(Type::number), number_(d) {}  // NOLINT
  /// an integer number (written without a fraction)
  Json(int i) : type_(Type::number), number_(i), integer_(true), int_(i) {}  // NOLINT
  /// an integer number (written without a fraction)
  Json(std::int64_t i) : type_(Type::number), number_(static_cast<double>(i)), integer_(true), int_(i) {}  // NOLINT
  /// an integer number (written without a fraction)
  Json(std::uint64_t i) : Json(static_cast<std::int64_t>(i)) {}  // NOLINT
  /// a string
  Json(std::string s) : type_(Type::string), string_(std::move(s)) {}  // NOLINT
  /// a string
  Json(const char* s) : Json(std::string(s)) {}  // NOLINT

  /// An empty array.
  static Json array() { Json j; j.type_ = Type::array; return j; }
  /// An empty object.
  static Json object() { Json j; j.type_ = Type::object; return j; }

  /// The kind of value.
  Type type() const { return type_; }

  /// Appends to an array (a null value becomes an array first).
  Json& push(Json value);
  /// Sets a member of an object (a null value becomes an object first); replaces an existing key.
  Json& set(const std::string& key, Json value);
  /// Member lookup in an object; throws std::out_of_range if absent.
  const Json& at(const std::string& key) const;
  /// True if an object has the member.
  bool contains(const std::string& key) const;
  /// Number of array elements or object members.
  std::size_t size() const { return type_ == Type::array ? items_.size() : members_.size(); }

  /// Writes the value as text; `indent` spaces per level (0: one line).
  std::string dump(int indent = 2) const;

 private:
  void write(std::string& out, int indent, int depth) const;

  Type type_ = Type::null;
  bool bool_ = false;
  double number_ = 0.0;
  bool integer_ = false;
  std::int64_t int_ = 0;
  std::string string_;
  std::vector<Json> items_;
  std::vector<std::pair<std::string, Json>> members_;
};

/// Escapes a string for JSON (quotes included).
std::string json_quote(const std::string& s);

}  // namespace tut
