#include "gpp_tuning.hpp"

#include "gpp_json.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <utility>

namespace gpp::app {
namespace {

/// A parsed JSON value: just enough of JSON for the tuning file (objects keep their
/// keys' order; duplicate keys are refused).
struct Value {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  bool b = false;
  double n = 0;
  std::string s;
  std::vector<Value> items;
  std::vector<std::pair<std::string, Value>> members;

  const Value* get(const std::string& key) const {
    for (const auto& [k, v] : members)
      if (k == key) return &v;
    return nullptr;
  }
};

class Parser {
 public:
  explicit Parser(const std::string& t) : t_(t) {}
  Value document() {
    Value v = value(0);
    space();
    if (i_ != t_.size()) fail("text after the JSON value");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw Error("not valid JSON at byte " + std::to_string(i_) + ": " + what);
  }
  void space() {
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\n' || t_[i_] == '\r' || t_[i_] == '\t')) ++i_;
  }
  bool eat(char c) {
    space();
    if (i_ < t_.size() && t_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c)) fail(std::string("expected '") + c + "'");
  }
  bool word(const char* w) {
    const std::size_t n = std::strlen(w);
    if (t_.compare(i_, n, w) != 0) return false;
    i_ += n;
    return true;
  }
  std::string string() {
    expect('"');
    std::string o;
    while (true) {
      if (i_ >= t_.size()) fail("unterminated string");
      const char c = t_[i_++];
      if (c == '"') return o;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
      if (c != '\\') {
        o += c;
        continue;
      }
      if (i_ >= t_.size()) fail("unterminated string");
      const char e = t_[i_++];
      switch (e) {
        case '"': o += '"'; break;
        case '\\': o += '\\'; break;
        case '/': o += '/'; break;
        case 'b': o += '\b'; break;
        case 'f': o += '\f'; break;
        case 'n': o += '\n'; break;
        case 'r': o += '\r'; break;
        case 't': o += '\t'; break;
        case 'u': {
          if (i_ + 4 > t_.size()) fail("short \\u escape");
          const std::string hex = t_.substr(i_, 4);
          if (hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) fail("bad \\u escape");
          unsigned cp = unsigned(std::strtoul(hex.c_str(), nullptr, 16));
          i_ += 4;
          // Surrogate pairs are kept as U+FFFD: device names and decks are ASCII.
          if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xFFFD;
          if (cp < 0x80) {
            o += char(cp);
          } else if (cp < 0x800) {
            o += char(0xC0 | (cp >> 6));
            o += char(0x80 | (cp & 0x3F));
          } else {
            o += char(0xE0 | (cp >> 12));
            o += char(0x80 | ((cp >> 6) & 0x3F));
            o += char(0x80 | (cp & 0x3F));
          }
          break;
        }
        default: fail("bad escape");
      }
    }
  }
  Value value(int depth) {
    if (depth > 32) fail("nested too deeply");
    space();
    if (i_ >= t_.size()) fail("unexpected end");
    Value v;
    const char c = t_[i_];
    if (c == '{') {
      ++i_;
      v.kind = Value::Object;
      if (eat('}')) return v;
      do {
        space();
        std::string k = string();
        if (v.get(k)) fail("duplicate key \"" + k + "\"");
        expect(':');
        v.members.emplace_back(std::move(k), value(depth + 1));
      } while (eat(','));
      expect('}');
    } else if (c == '[') {
      ++i_;
      v.kind = Value::Array;
      if (eat(']')) return v;
      do v.items.push_back(value(depth + 1));
      while (eat(','));
      expect(']');
    } else if (c == '"') {
      v.kind = Value::String;
      v.s = string();
    } else if (word("true")) {
      v.kind = Value::Bool;
      v.b = true;
    } else if (word("false")) {
      v.kind = Value::Bool;
    } else if (word("null")) {
      v.kind = Value::Null;
    } else {
      const std::size_t start = i_;
      while (i_ < t_.size() && t_[i_] != '\0' && std::strchr("+-0123456789.eE", t_[i_])) ++i_;
      const std::string num = t_.substr(start, i_ - start);
      char* end = nullptr;
      v.kind = Value::Number;
      v.n = num.empty() ? NAN : std::strtod(num.c_str(), &end);
      if (num.empty() || *end || !std::isfinite(v.n)) {
        i_ = start;
        fail("unexpected character");
      }
    }
    return v;
  }
  const std::string& t_;
  std::size_t i_ = 0;
};

const char* kind_name(Value::Kind k) {
  static const char* names[] = {"null", "a boolean", "a number", "a string", "an array", "an object"};
  return names[k];
}

const Value& member(const Value& o, const std::string& key, Value::Kind kind, const std::string& where) {
  const Value* v = o.get(key);
  if (!v) throw Error(where + "no \"" + key + "\"");
  if (v->kind != kind) throw Error(where + "\"" + key + "\" is " + kind_name(v->kind) + ", not " + kind_name(kind));
  return *v;
}

int positive_int(const Value& v, const std::string& where) {
  if (v.kind != Value::Number || v.n != std::floor(v.n) || v.n < 1 || v.n > 1e9)
    throw Error(where + "is not a positive integer");
  return int(v.n);
}

std::string home_config_path() {
  const char* home = std::getenv("HOME");
  return home && *home ? std::string(home) + "/.config/gpp/tuning.json" : std::string();
}

bool is_file(const std::string& p) {
  struct stat st;
  return !p.empty() && ::stat(p.c_str(), &st) == 0;
}

}  // namespace

const TuningEntry* TuningFile::find(const std::string& device, const std::string& backend, const std::string& policy,
                                    const std::string& size_class) const {
  for (const auto& e : entries)
    if (e.device == device && e.backend == backend && e.policy == policy && e.size_class == size_class) return &e;
  return nullptr;
}

void TuningFile::merge(const TuningEntry& e) {
  for (auto& old : entries)
    if (old.device == e.device && old.backend == e.backend && old.policy == e.policy && old.size_class == e.size_class) {
      old = e;
      return;
    }
  entries.push_back(e);
}

TuningFile parse_tuning(const std::string& text, const std::string& path) {
  const std::string file = "tuning file " + path + ": ";
  Value doc;
  try {
    doc = Parser(text).document();
  } catch (const Error& e) {
    throw Error(file + e.what());
  }
  if (doc.kind != Value::Object) throw Error(file + "not a JSON object");
  const Value& version = member(doc, "schema_version", Value::Number, file);
  if (version.n != TuningFile::kSchemaVersion)
    throw Error(file + "schema_version " + format_double(version.n) + " is not one this gpp reads (1)");
  if (member(doc, "kind", Value::String, file).s != "gpp-tuning") throw Error(file + "\"kind\" is not \"gpp-tuning\"");
  TuningFile out;
  const Value& entries = member(doc, "entries", Value::Array, file);
  for (std::size_t i = 0; i < entries.items.size(); ++i) {
    const std::string where = file + "entries[" + std::to_string(i) + "]: ";
    const Value& e = entries.items[i];
    if (e.kind != Value::Object) throw Error(where + "not an object");
    TuningEntry t;
    t.device = member(e, "device", Value::String, where).s;
    t.backend = member(e, "backend", Value::String, where).s;
    t.policy = member(e, "policy", Value::String, where).s;
    t.size_class = member(e, "size_class", Value::String, where).s;
    if (t.size_class != "small" && t.size_class != "medium" && t.size_class != "large")
      throw Error(where + "size_class \"" + t.size_class + "\" is not small, medium or large");
    const PolicyEntry* policy = nullptr;
    try {
      policy = &find_policy(t.policy);
    } catch (const Error& err) {
      throw Error(where + err.what());
    }
    const Value& tun = member(e, "tunables", Value::Object, where);
    for (const auto& [k, v] : tun.members) {
      const std::string w = where + "tunables." + k + " ";
      if (k == "band_block") {
        t.tunables.band_block = positive_int(v, w);
      } else if (k == "ig_block") {
        t.tunables.ig_block = positive_int(v, w);
      } else if (k == "team_size") {
        t.tunables.team_size = positive_int(v, w);
      } else if (k == "vector_length") {
        t.tunables.vector_length = positive_int(v, w);
      } else if (k == "tile") {
        if (v.kind != Value::Array || v.items.empty()) throw Error(w + "is not an array of sizes");
        for (const Value& s : v.items) t.tunables.tile.push_back(positive_int(s, w));
      } else {
        throw Error(where + "unknown tunable \"" + k + "\" (band_block, ig_block, team_size, vector_length, tile)");
      }
    }
    try {
      check_tunables(*policy, t.tunables);
    } catch (const Error& err) {
      throw Error(where + err.what());
    }
    if (const Value* m = e.get("time_median_s"); m && m->kind == Value::Number) t.time_median_s = m->n;
    if (const Value* d = e.get("deck"); d && d->kind == Value::String) t.deck = d->s;
    if (const Value* d = e.get("date"); d && d->kind == Value::String) t.date = d->s;
    if (out.find(t.device, t.backend, t.policy, t.size_class))
      throw Error(where + "a second entry for " + t.policy + " on " + t.device + " (" + t.backend + "), " + t.size_class);
    out.entries.push_back(t);
  }
  return out;
}

TuningFile read_tuning_file(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) throw Error("tuning file " + path + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) throw Error("tuning file " + path + ": not a regular file");
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error("tuning file " + path + ": cannot read it: " + std::strerror(errno));
  const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  return parse_tuning(text, path);
}

void json_tunables(Json& j, const std::string& key, const Tunables& t) {
  j.begin_object(key);
  for (const auto& [name, v] : {std::pair<const char*, int>{"band_block", t.band_block}, {"ig_block", t.ig_block},
                                {"team_size", t.team_size}, {"vector_length", t.vector_length}})
    if (v > 0) j.value(name, v);
  if (!t.tile.empty()) {
    j.begin_array("tile");
    for (int v : t.tile) j.value("", v);
    j.end_array();
  }
  j.end_object();
}

std::string to_json(const TuningFile& f) {
  Json j;
  j.begin_object().value("schema_version", TuningFile::kSchemaVersion).value("kind", "gpp-tuning").begin_array("entries");
  for (const auto& e : f.entries) {
    j.begin_object()
        .value("device", e.device)
        .value("backend", e.backend)
        .value("policy", e.policy)
        .value("size_class", e.size_class);
    json_tunables(j, "tunables", e.tunables);
    j.value("time_median_s", e.time_median_s).value("deck", e.deck).value("date", e.date).end_object();
  }
  j.end_array().end_object();
  return j.str();
}

std::string default_tuning_path() {
  if (const char* env = std::getenv("GPP_TUNING_FILE"); env && *env) return env;
  const std::string home = home_config_path();
  return is_file(home) ? home : std::string();
}

std::string default_tuning_out_path() {
  if (const char* env = std::getenv("GPP_TUNING_FILE"); env && *env) return env;
  const std::string home = home_config_path();
  if (home.empty()) throw Error("no --tuning-out and neither $GPP_TUNING_FILE nor $HOME is set");
  // ~/.config and ~/.config/gpp, as `mkdir -p` would.
  for (std::size_t slash = home.find("/.config"); slash != std::string::npos; slash = home.find('/', slash + 1)) {
    const std::string dir = home.substr(0, slash);
    if (dir.size() > std::strlen(std::getenv("HOME")) && ::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
      throw Error("cannot create " + dir + ": " + std::strerror(errno));
  }
  return home;
}

}  // namespace gpp::app
