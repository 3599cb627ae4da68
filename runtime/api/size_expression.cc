#include "runtime/api/size_expression.h"

#include <cctype>
#include <stdexcept>

namespace polyfuse::api {
namespace {

// Recursive descent: sum := product (('+'|'-') product)*; product := unary (('*'|'/'|'%') unary)*;
// unary := '-' unary | primary; primary := number | name | '(' sum ')'.
class Parser {
 public:
  Parser(const std::string& text, const std::map<std::string, std::int64_t>& sizes) : text_(text), sizes_(sizes) {}

  std::int64_t parse() {
    const std::int64_t value = sum();
    skip_space();
    if (pos_ != text_.size()) fail("unexpected '" + text_.substr(pos_, 1) + "'");
    return value;
  }

 private:
  const std::string& text_;
  const std::map<std::string, std::int64_t>& sizes_;
  std::size_t pos_ = 0;

  [[noreturn]] void fail(const std::string& what) const {
    throw std::invalid_argument("size expression '" + text_ + "': " + what);
  }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool take(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::int64_t sum() {
    std::int64_t value = product();
    for (;;) {
      if (take('+')) value += product();
      else if (take('-')) value -= product();
      else return value;
    }
  }
  std::int64_t product() {
    std::int64_t value = unary();
    for (;;) {
      if (take('*')) {
        value *= unary();
      } else if (take('/') || take('%')) {
        const char op = text_[pos_ - 1];
        const std::int64_t divisor = unary();
        if (divisor == 0) fail("division by zero");
        value = op == '/' ? value / divisor : value % divisor;
      } else {
        return value;
      }
    }
  }
  std::int64_t unary() { return take('-') ? -unary() : primary(); }
  std::int64_t primary() {
    if (take('(')) {
      const std::int64_t value = sum();
      if (!take(')')) fail("missing ')'");
      return value;
    }
    skip_space();
    const std::size_t start = pos_;
    if (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
      return std::stoll(text_.substr(start, pos_ - start));
    }
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
    if (start == pos_) fail(pos_ < text_.size() ? "unexpected '" + text_.substr(pos_, 1) + "'" : "unexpected end");
    const std::string name = text_.substr(start, pos_ - start);
    const auto it = sizes_.find(name);
    if (it == sizes_.end()) fail("size '" + name + "' has no value");
    return it->second;
  }
};

}  // namespace

std::int64_t evaluate_size_expression(const std::string& expression, const std::map<std::string, std::int64_t>& sizes) {
  return Parser(expression, sizes).parse();
}

}  // namespace polyfuse::api
