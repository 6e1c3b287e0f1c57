// Results cache entries: flat binary files under DIR/xx/<128-bit key>, written atomically.
#include "lint/cache.hpp"

#include <unistd.h>
#include <xxhash.h>

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <set>
#include <stdexcept>

#include "lint/engine.hpp"
#include "pyspark/project.hpp"
#include "util/files.hpp"

namespace planlint::lint {

namespace fs = std::filesystem;

namespace {

// More lines than any file planlint reads (256 MiB of newlines would be 268 M): a bound on what an
// entry may ask to allocate.
constexpr std::size_t kMaxCachedLines = std::size_t{1} << 28;

constexpr int kFormat = 4;  // bump when the entry layout changes

// An entry is "PLCE", the format number, an XXH3-64 checksum of the payload, then the payload:
// little-endian u32 numbers and length-prefixed strings, written and read in one pass without a
// document tree (a warm run over 10,000 files decodes 100,000 findings). Any byte of a quoted line
// survives. A payload that is short, fails its checksum or holds an unknown value throws, and the
// file is linted again.
constexpr std::string_view kMagic = "PLCE";

class EntryWriter {
 public:
  void u32(std::uint64_t v) {
    if (v > 0xFFFFFFFFU) throw std::length_error("cache entry value out of range");
    for (int i = 0; i < 4; ++i) out_ += static_cast<char>((v >> (8 * i)) & 0xFFU);
  }
  void i32(int v) { u32(static_cast<std::uint32_t>(v)); }
  void str(std::string_view s) {
    u32(s.size());
    out_.append(s);
  }
  void location(const Location& l, const std::string& file) {
    // The entry's own file is most locations' path: stored as a flag, not once per location.
    bool own = l.path == file;
    u32(own ? 1 : 0);
    if (!own) str(l.path);
    for (auto v : {l.line, l.column, l.end_line, l.end_column}) u32(v);
    i32(l.cell);
    u32(l.cell_line);
    u32(l.cell_column);
  }
  std::string& bytes() { return out_; }

 private:
  std::string out_;
};

class EntryReader {
 public:
  explicit EntryReader(std::string_view in) : in_(in) {}
  std::uint32_t u32() {
    need(4);
    std::uint32_t v = 0;
    for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(in_[static_cast<std::size_t>(i)]);
    in_.remove_prefix(4);
    return v;
  }
  int i32() { return static_cast<int>(u32()); }
  // A count of items that each take at least `min_bytes`: never more than what is left could hold.
  std::size_t count(std::size_t min_bytes) {
    std::size_t n = u32();
    if (n > in_.size() / min_bytes) throw std::runtime_error("cache entry count is corrupt");
    return n;
  }
  std::string str() {
    std::size_t n = u32();
    need(n);
    std::string s(in_.substr(0, n));
    in_.remove_prefix(n);
    return s;
  }
  Location location(const std::string& file) {
    Location l;
    std::uint32_t own = u32();
    if (own > 1) throw std::runtime_error("cache entry location is corrupt");
    l.path = own == 1 ? file : str();
    l.line = u32();
    l.column = u32();
    l.end_line = u32();
    l.end_column = u32();
    l.cell = i32();
    l.cell_line = u32();
    l.cell_column = u32();
    return l;
  }
  [[nodiscard]] bool done() const { return in_.empty(); }

 private:
  void need(std::size_t n) const {
    if (in_.size() < n) throw std::runtime_error("cache entry is truncated");
  }
  std::string_view in_;
};

template <typename E>
E checked_enum(std::uint32_t v, E last) {
  if (v > static_cast<std::uint32_t>(last)) throw std::runtime_error("cache entry value is corrupt");
  return static_cast<E>(v);
}

void write_result(EntryWriter& w, const FileResult& r) {
  w.str(r.path);
  // Only the lines the reporters quote (findings, related locations, fix ranges) are kept: an entry
  // stays a fraction of its file, and a warm run decodes little.
  auto [file_lines, cell_lines] = quoted_lines(r);
  w.u32(r.lines.size());
  std::vector<std::uint32_t> kept;
  for (auto n : file_lines)
    if (n >= 1 && n <= r.lines.size()) kept.push_back(n);
  w.u32(kept.size());
  for (auto n : kept) {
    w.u32(n);
    w.str(r.lines[n - 1]);
  }
  w.u32(r.cell_lines.size());
  for (const auto& c : r.cell_lines) w.u32(c.size());
  std::vector<std::pair<int, std::uint32_t>> kept_cells;
  for (const auto& [c, n] : cell_lines)
    if (c >= 1 && static_cast<std::size_t>(c) <= r.cell_lines.size() && n >= 1 &&
        n <= r.cell_lines[static_cast<std::size_t>(c - 1)].size())
      kept_cells.emplace_back(c, n);
  w.u32(kept_cells.size());
  for (const auto& [c, n] : kept_cells) {
    w.i32(c);
    w.u32(n);
    w.str(r.cell_lines[static_cast<std::size_t>(c - 1)][n - 1]);
  }
  w.u32(r.diagnostics.size());
  for (const auto& d : r.diagnostics) {
    w.str(d.rule->id);
    w.u32(static_cast<std::uint32_t>(d.severity));
    w.location(d.location, r.path);
    w.str(d.message);
    w.u32(d.related.size());
    for (const auto& rl : d.related) {
      w.location(rl.location, r.path);
      w.str(rl.message);
    }
    w.u32(d.fix ? 1 : 0);
    if (d.fix) {
      w.str(d.fix->title);
      w.u32(static_cast<std::uint32_t>(d.fix->applicability));
      w.u32(d.fix->edits.size());
      for (const auto& e : d.fix->edits) {
        w.location(e.range, r.path);
        w.str(e.replacement);
        w.i32(e.cell);
        w.u32(e.start_byte);
        w.u32(e.end_byte);
      }
      w.str(d.fix->suggestion);
    }
    w.str(d.fingerprint);
  }
}

// The smallest encodings, to bound counts read from an entry before anything is allocated for them.
constexpr std::size_t kMinLocation = std::size_t{4} * 8;
constexpr std::size_t kMinDiagnostic = 4 + 4 + kMinLocation + 4 + 4 + 4 + 4;

FileResult read_result(EntryReader& in) {
  FileResult r;
  r.path = in.str();
  std::uint32_t line_count = in.u32();
  if (line_count > kMaxCachedLines) throw std::runtime_error("cache entry line count is corrupt");
  r.lines.resize(line_count);
  for (std::size_t k = in.count(8); k > 0; --k) {
    std::uint32_t n = in.u32();
    if (n < 1 || n > r.lines.size()) throw std::runtime_error("cache entry line is corrupt");
    r.lines.set(n - 1, in.str());
  }
  for (std::size_t k = in.count(4); k > 0; --k) {
    std::uint32_t size = in.u32();
    if (size > kMaxCachedLines) throw std::runtime_error("cache entry cell is corrupt");
    r.cell_lines.emplace_back(size);
  }
  for (std::size_t k = in.count(12); k > 0; --k) {
    int c = in.i32();
    std::uint32_t n = in.u32();
    if (c < 1 || static_cast<std::size_t>(c) > r.cell_lines.size() || n < 1 ||
        n > r.cell_lines[static_cast<std::size_t>(c - 1)].size())
      throw std::runtime_error("cache entry cell line is corrupt");
    r.cell_lines[static_cast<std::size_t>(c - 1)].set(n - 1, in.str());
  }
  std::size_t diagnostics = in.count(kMinDiagnostic);
  r.diagnostics.reserve(diagnostics);
  for (; diagnostics > 0; --diagnostics) {
    Diagnostic d;
    d.rule = find_rule(in.str());
    if (d.rule == nullptr) throw std::runtime_error("unknown rule in cache entry");
    d.severity = checked_enum(in.u32(), Severity::error);
    d.location = in.location(r.path);
    d.message = in.str();
    for (std::size_t k = in.count(kMinLocation + 4); k > 0; --k) {
      Location l = in.location(r.path);
      d.related.push_back({std::move(l), in.str()});
    }
    std::uint32_t has_fix = in.u32();
    if (has_fix > 1) throw std::runtime_error("cache entry fix is corrupt");
    if (has_fix == 1) {
      Fix fix;
      fix.title = in.str();
      fix.applicability = checked_enum(in.u32(), Applicability::safe);
      for (std::size_t k = in.count(kMinLocation + 16); k > 0; --k) {
        Edit e;
        e.range = in.location(r.path);
        e.replacement = in.str();
        e.cell = in.i32();
        e.start_byte = in.u32();
        e.end_byte = in.u32();
        fix.edits.push_back(std::move(e));
      }
      fix.suggestion = in.str();
      d.fix = std::move(fix);
    }
    d.fingerprint = in.str();
    r.diagnostics.push_back(std::move(d));
  }
  if (!in.done()) throw std::runtime_error("cache entry has trailing bytes");
  return r;
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += s + '\x1f';
  return out;
}

}  // namespace

std::string options_fingerprint(const LintOptions& o) {
  std::string t = joined(o.select) + '\x1e' + joined(o.extend_select) + '\x1e' + joined(o.ignore) + '\x1e';
  t +=
      std::to_string(static_cast<int>(o.min_impact)) + '\x1e' + fmt::format("{}", o.broadcast_threshold_bytes) + '\x1e';
  t += joined(o.small_tables) + '\x1e' + joined(o.large_tables) + '\x1e';
  for (auto n : o.tolerated_shuffle_partitions) t += std::to_string(n) + ',';
  t += '\x1e' + o.target_spark_version + '\x1e' + o.source_root +
       (o.databricks_project ? "\x1e"
                               "dbx"
                             : "");
  return t;
}

ResultCache::ResultCache(fs::path dir, std::string tool_version)
    : dir_(std::move(dir)), version_(std::move(tool_version)) {}

fs::path ResultCache::entry(const std::string& path, std::string_view content, const LintOptions& options) const {
  XXH3_state_t* state = XXH3_createState();
  XXH3_128bits_reset(state);
  std::string head = fmt::format("planlint {} cache {}", version_, kFormat);
  std::string opts = options_fingerprint(options);
  // A source file's findings also depend on the project modules and notebooks it imports or runs.
  const std::string deps =
      is_source_path(path) ? pyspark::project_index().dependency_key(path, content) : std::string();
  for (std::string_view part :
       {std::string_view(head), std::string_view(path), std::string_view(opts), content, std::string_view(deps)}) {
    std::uint64_t n = part.size();
    XXH3_128bits_update(state, &n, sizeof n);  // lengths keep ("ab", "c") and ("a", "bc") apart
    XXH3_128bits_update(state, part.data(), part.size());
  }
  XXH128_hash_t h = XXH3_128bits_digest(state);
  XXH3_freeState(state);
  std::string hex = fmt::format("{:016x}{:016x}", h.high64, h.low64);
  return dir_ / hex.substr(0, 2) / hex;
}

std::optional<FileResult> ResultCache::load(const fs::path& entry, const std::string& path) const {
  util::ReadResult file = util::read_file_bounded(entry.string());
  if (!file.error.empty()) {
    ++misses_;
    return std::nullopt;
  }
  try {
    std::string_view bytes(file.text);
    constexpr std::size_t kHeader = 4 + 4 + 8;
    if (bytes.size() < kHeader || bytes.substr(0, 4) != kMagic) throw std::runtime_error("not an entry");
    EntryReader header(bytes.substr(4, 12));
    if (header.u32() != kFormat) throw std::runtime_error("another format");
    std::uint64_t sum = header.u32();
    sum |= std::uint64_t{header.u32()} << 32;
    std::string_view payload = bytes.substr(kHeader);
    if (XXH3_64bits(payload.data(), payload.size()) != sum) throw std::runtime_error("checksum mismatch");
    EntryReader in(payload);
    FileResult r = read_result(in);
    if (r.path != path) throw std::runtime_error("not this entry");
    ++hits_;
    return r;
  } catch (const std::exception&) {  // a truncated or foreign file: linted again, and rewritten
    ++misses_;
    return std::nullopt;
  }
}

void ResultCache::store(const fs::path& target, const std::string& path, const FileResult& result) const {
  if (!result.io_error.empty()) return;
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  if (ec) return;
  if (!fs::exists(dir_ / "CACHEDIR.TAG", ec)) {
    std::ofstream(dir_ / "CACHEDIR.TAG") << "Signature: 8a477f597d28d172789f06886806bc55\n"
                                            "# planlint's results cache; safe to delete.\n";
    std::ofstream(dir_ / ".gitignore") << "*\n";
  }
  if (result.path != path) return;
  EntryWriter payload;
  try {
    write_result(payload, result);
  } catch (const std::length_error&) {  // a field past 4 GiB: not cached
    return;
  }
  EntryWriter header;
  header.u32(kFormat);
  std::uint64_t sum = XXH3_64bits(payload.bytes().data(), payload.bytes().size());
  header.u32(sum & 0xFFFFFFFFU);
  header.u32(sum >> 32);
  std::string bytes = std::string(kMagic) + header.bytes() + payload.bytes();
  // Unique per process and call: concurrent runs never write the same temporary file.
  fs::path tmp = target;
  tmp += fmt::format(".{}.{}.tmp", getpid(), serial_++);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {  // a full disk or a read-only folder: the run goes on without this entry
      out.close();
      fs::remove(tmp, ec);
      return;
    }
  }
  fs::rename(tmp, target, ec);
  if (ec) fs::remove(tmp, ec);
}

}  // namespace planlint::lint
