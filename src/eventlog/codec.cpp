// Decoders for Spark's event-log codecs. The algorithms are Debian's libraries; only the framings
// Spark's Java writers put around them are read here.
#include "eventlog/codec.hpp"

#include <fcntl.h>
#include <lz4.h>
#include <snappy.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <vector>

extern "C" {
#include <liblzf/lzf.h>
}

namespace planlint::eventlog {

namespace {

constexpr std::size_t kChunk = 1 << 20;
// lz4-java and snappy-java cap blocks far below this; a larger length is corruption, not data.
constexpr std::uint32_t kMaxBlock = 64U << 20;

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

struct FileCloser {
  void operator()(std::FILE* f) const {
    if (f != nullptr) std::fclose(f);  // NOLINT(cppcoreguidelines-owning-memory)
  }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

// The compressed bytes, pulled as the decoders need them.
class RawInput {
 public:
  explicit RawInput(File f) : file_(std::move(f)) {}
  // Reads up to `want` bytes more into the window (by default a read that starts at 4 KiB and
  // doubles up to kChunk, so that probing the head of a small file does not clear a megabyte);
  // false at end of file or on an error.
  bool fill(std::size_t want = 0) {
    if (want == 0) {
      want = next_read_;
      next_read_ = std::min(kChunk, next_read_ * 2);
    }
    if (pos_ > 0 && pos_ == buf_.size()) {
      buf_.clear();
      pos_ = 0;
    } else if (pos_ > kChunk) {
      buf_.erase(0, pos_);
      pos_ = 0;
    }
    std::size_t old = buf_.size();
    buf_.resize(old + want);
    std::size_t n = std::fread(buf_.data() + old, 1, want, file_.get());
    buf_.resize(old + n);
    if (n == 0 && std::ferror(file_.get()) != 0) error_ = std::strerror(errno);
    return n > 0;
  }
  // At least n unread bytes, reading more as needed; false if the file ends first.
  bool need(std::size_t n) {
    while (available() < n)
      if (!fill(std::max(kChunk, n - available()))) return false;
    return true;
  }
  [[nodiscard]] std::size_t available() const { return buf_.size() - pos_; }
  [[nodiscard]] const char* data() const { return buf_.data() + pos_; }
  void consume(std::size_t n) { pos_ += n; }
  [[nodiscard]] bool at_end() { return available() == 0 && !fill(); }
  [[nodiscard]] const std::string& error() const { return error_; }

 private:
  File file_;
  std::string buf_;
  std::size_t pos_ = 0;
  std::size_t next_read_ = std::size_t{4} << 10;
  std::string error_;
};

std::uint32_t le32(const char* p) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}
std::uint32_t be32(const char* p) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}
std::uint32_t be16(const char* p) {
  return (static_cast<std::uint32_t>(static_cast<unsigned char>(p[0])) << 8) | static_cast<unsigned char>(p[1]);
}
void put_le32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
}
void put_be32(std::string& out, std::uint32_t v) {
  for (int i = 3; i >= 0; --i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
}
void put_be16(std::string& out, std::uint32_t v) {
  out += static_cast<char>((v >> 8) & 0xFF);
  out += static_cast<char>(v & 0xFF);
}

class PlainStream final : public ByteStream {
 public:
  explicit PlainStream(File f) : in_(std::move(f)) {}
  bool read(std::string& out) override {
    if (in_.at_end()) {
      error_ = in_.error();
      return false;
    }
    out.append(in_.data(), in_.available());
    in_.consume(in_.available());
    return true;
  }

 private:
  RawInput in_;
};

class GzipStream final : public ByteStream {
 public:
  explicit GzipStream(File f) : in_(std::move(f)) {
    // 15 + 32: zlib or gzip headers, detected; several gzip members are read one after another.
    if (inflateInit2(&z_, 15 + 32) != Z_OK) error_ = "cannot initialise zlib";
  }
  ~GzipStream() override { inflateEnd(&z_); }
  GzipStream(const GzipStream&) = delete;
  GzipStream& operator=(const GzipStream&) = delete;
  GzipStream(GzipStream&&) = delete;
  GzipStream& operator=(GzipStream&&) = delete;

  bool read(std::string& out) override {
    if (!error_.empty() || done_) return false;
    if (in_.available() == 0 && !in_.fill()) {
      if (!in_.error().empty())
        error_ = in_.error();
      else if (mid_member_)
        error_ = "gzip stream is truncated";
      done_ = true;
      return false;
    }
    z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in_.data()));  // NOLINT
    z_.avail_in = static_cast<uInt>(in_.available());
    z_.next_out = reinterpret_cast<Bytef*>(buf_.data());  // NOLINT
    z_.avail_out = static_cast<uInt>(buf_.size());
    int rc = inflate(&z_, Z_NO_FLUSH);
    in_.consume(in_.available() - z_.avail_in);
    out.append(buf_.data(), buf_.size() - z_.avail_out);
    mid_member_ = true;
    if (rc == Z_STREAM_END) {
      mid_member_ = false;
      inflateReset(&z_);
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
      error_ = std::string("gzip data is corrupt: ") + (z_.msg != nullptr ? z_.msg : "inflate failed");
      return !out.empty();
    }
    return true;
  }

 private:
  RawInput in_;
  std::vector<char> buf_ = std::vector<char>(std::size_t{256} * 1024);
  z_stream z_{};
  bool mid_member_ = false;
  bool done_ = false;
};

class ZstdStream final : public ByteStream {
 public:
  explicit ZstdStream(File f) : in_(std::move(f)), ds_(ZSTD_createDStream()) {
    if (ds_ == nullptr) error_ = "cannot initialise zstd";
  }
  ~ZstdStream() override { ZSTD_freeDStream(ds_); }
  ZstdStream(const ZstdStream&) = delete;
  ZstdStream& operator=(const ZstdStream&) = delete;
  ZstdStream(ZstdStream&&) = delete;
  ZstdStream& operator=(ZstdStream&&) = delete;

  bool read(std::string& out) override {
    if (!error_.empty() || done_) return false;
    if (in_.available() == 0 && !in_.fill()) {
      if (!in_.error().empty())
        error_ = in_.error();
      else if (pending_ != 0)
        error_ = "zstd stream is truncated (the log may still be in progress)";
      done_ = true;
      return false;
    }
    std::vector<char> buf(ZSTD_DStreamOutSize());
    ZSTD_inBuffer ib{in_.data(), in_.available(), 0};
    ZSTD_outBuffer ob{buf.data(), buf.size(), 0};
    std::size_t rc = ZSTD_decompressStream(ds_, &ob, &ib);
    in_.consume(ib.pos);
    out.append(buf.data(), ob.pos);
    if (ZSTD_isError(rc) != 0U) {
      error_ = std::string("zstd data is corrupt: ") + ZSTD_getErrorName(rc);
      return ob.pos > 0;
    }
    pending_ = rc;
    return true;
  }

 private:
  RawInput in_;
  ZSTD_DStream* ds_;
  std::size_t pending_ = 0;
  bool done_ = false;
};

// The Java stream framings: a chunk at a time from the compressed bytes, until the end of the file
// or the first damaged chunk (which ends the stream with its error).
class ChunkedStream : public ByteStream {
 public:
  explicit ChunkedStream(File f) : in_(std::move(f)) {}
  bool read(std::string& out) final {
    if (!error_.empty()) return false;
    if (in_.at_end()) {
      error_ = in_.error();
      return false;
    }
    return read_chunk(out);
  }

 protected:
  virtual bool read_chunk(std::string& out) = 0;
  bool fail(std::string message) {
    error_ = std::move(message);
    return false;
  }
  RawInput
      in_;  // NOLINT(cppcoreguidelines-non-private-member-variables-in-classes,misc-non-private-member-variables-in-classes)
};

// lz4-java's LZ4BlockOutputStream: "LZ4Block", a token (method | level), compressed and original
// lengths and the xxhash32 (seed 0x9747b28c, low 28 bits) of the original, little endian; an empty
// block ends a stream, and streams may follow one another.
constexpr std::string_view kLz4Magic = "LZ4Block";
constexpr std::size_t kLz4Header = 8 + 1 + 4 + 4 + 4;
constexpr std::uint32_t kLz4Seed = 0x9747b28c;
constexpr unsigned kLz4Raw = 0x10;
constexpr unsigned kLz4Compressed = 0x20;

class Lz4BlockStream final : public ChunkedStream {
 public:
  explicit Lz4BlockStream(File f) : ChunkedStream(std::move(f)) {}

 private:
  bool read_chunk(std::string& out) override {
    if (!in_.need(kLz4Header)) return fail("lz4 stream is truncated inside a block header");
    const char* h = in_.data();
    if (std::string_view(h, 8) != kLz4Magic) return fail("not an lz4-java block stream (no LZ4Block magic)");
    unsigned method = static_cast<unsigned char>(h[8]) & 0xF0U;
    std::uint32_t clen = le32(h + 9);
    std::uint32_t dlen = le32(h + 13);
    std::uint32_t check = le32(h + 17);
    if (clen > kMaxBlock || dlen > kMaxBlock || (method != kLz4Raw && method != kLz4Compressed) ||
        (method == kLz4Raw && clen != dlen))
      return fail("lz4 block header is corrupt");
    if (!in_.need(kLz4Header + clen)) return fail("lz4 stream is truncated inside a block");
    const char* body = in_.data() + kLz4Header;
    std::size_t old = out.size();
    if (method == kLz4Raw) {
      out.append(body, dlen);
    } else {
      out.resize(old + dlen);
      int n = LZ4_decompress_safe(body, out.data() + old, static_cast<int>(clen), static_cast<int>(dlen));
      if (n != static_cast<int>(dlen)) {
        out.resize(old);
        return fail("lz4 block is corrupt");
      }
    }
    std::uint32_t h32 = XXH32(out.data() + old, dlen, kLz4Seed);
    if (dlen > 0 && check != (h32 & 0x0FFFFFFFU) && check != h32) {
      out.resize(old);
      return fail("lz4 block checksum mismatch");
    }
    in_.consume(kLz4Header + clen);
    return true;
  }
};

// snappy-java's SnappyOutputStream: a 16-byte header (0x82 "SNAPPY" 0, version and compatible
// version as big-endian ints), then chunks of a big-endian length and raw snappy data. Concatenated
// streams repeat the header.
constexpr std::array<unsigned char, 8> kSnappyMagic{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
constexpr std::size_t kSnappyHeader = 16;

class SnappyJavaStream final : public ChunkedStream {
 public:
  explicit SnappyJavaStream(File f) : ChunkedStream(std::move(f)) {}

 private:
  bool read_chunk(std::string& out) override {
    if (in_.available() >= kSnappyMagic.size() && std::memcmp(in_.data(), kSnappyMagic.data(), 8) == 0) {
      if (!in_.need(kSnappyHeader)) return fail("snappy stream is truncated inside its header");
      in_.consume(kSnappyHeader);
      header_seen_ = true;
      return true;
    }
    if (!header_seen_) return fail("not a snappy-java stream (no SNAPPY header)");
    if (!in_.need(4)) return fail("snappy stream is truncated inside a chunk length");
    std::uint32_t len = be32(in_.data());
    if (len > kMaxBlock) return fail("snappy chunk length is corrupt");
    if (!in_.need(4 + len)) return fail("snappy stream is truncated inside a chunk");
    const char* body = in_.data() + 4;
    std::size_t n = 0;
    if (!snappy::GetUncompressedLength(body, len, &n) || n > kMaxBlock) return fail("snappy chunk is corrupt");
    std::size_t old = out.size();
    out.resize(old + n);
    if (!snappy::RawUncompress(body, len, out.data() + old)) {
      out.resize(old);
      return fail("snappy chunk is corrupt");
    }
    in_.consume(4 + len);
    return true;
  }

  bool header_seen_ = false;
};

// compress-lzf's LZFOutputStream: chunks "ZV" 0 <len16> data (stored) or "ZV" 1 <clen16> <len16> data.
class LzfStream final : public ChunkedStream {
 public:
  explicit LzfStream(File f) : ChunkedStream(std::move(f)) {}

 private:
  bool read_chunk(std::string& out) override {
    if (!in_.need(5)) return fail("lzf stream is truncated inside a chunk header");
    const char* h = in_.data();
    if (h[0] != 'Z' || h[1] != 'V' || (h[2] != 0 && h[2] != 1)) return fail("not an lzf stream (no ZV chunk header)");
    if (h[2] == 0) {
      std::uint32_t len = be16(h + 3);
      if (!in_.need(5 + len)) return fail("lzf stream is truncated inside a chunk");
      out.append(in_.data() + 5, len);
      in_.consume(5 + len);
      return true;
    }
    if (!in_.need(7)) return fail("lzf stream is truncated inside a chunk header");
    std::uint32_t clen = be16(h + 3);
    std::uint32_t len = be16(h + 5);
    if (!in_.need(7 + clen)) return fail("lzf stream is truncated inside a chunk");
    std::size_t old = out.size();
    out.resize(old + len);
    unsigned n = lzf_decompress(in_.data() + 7, clen, out.data() + old, len);
    if (n != len) {
      out.resize(old);
      return fail("lzf chunk is corrupt");
    }
    in_.consume(7 + clen);
    return true;
  }
};

}  // namespace

Codec codec_for_path(std::string_view path) {
  if (ends_with(path, ".inprogress")) path.remove_suffix(std::string_view(".inprogress").size());
  if (ends_with(path, ".lz4")) return Codec::lz4;
  if (ends_with(path, ".lzf")) return Codec::lzf;
  if (ends_with(path, ".snappy")) return Codec::snappy;
  if (ends_with(path, ".zstd") || ends_with(path, ".zst")) return Codec::zstd;
  if (ends_with(path, ".gz")) return Codec::gzip;
  return Codec::none;
}

std::optional<Codec> codec_for_content(std::string_view head) {
  auto starts = [&](std::string_view magic) { return head.substr(0, magic.size()) == magic; };
  if (starts("\x1f\x8b")) return Codec::gzip;
  if (starts("\x28\xb5\x2f\xfd")) return Codec::zstd;
  if (starts(kLz4Magic)) return Codec::lz4;
  if (starts(std::string_view("\x82SNAPPY\0", 8))) return Codec::snappy;
  if (starts(std::string_view("ZV\0", 3)) || starts(std::string_view("ZV\1", 3))) return Codec::lzf;
  auto first = head.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && head[first] == '{') return Codec::none;
  return std::nullopt;
}

std::string_view to_string(Codec codec) {
  switch (codec) {
    case Codec::none:
      return "none";
    case Codec::gzip:
      return "gzip";
    case Codec::zstd:
      return "zstd";
    case Codec::lz4:
      return "lz4";
    case Codec::snappy:
      return "snappy";
    case Codec::lzf:
      return "lzf";
  }
  return "none";
}

std::unique_ptr<ByteStream> open_stream(const std::string& path, Codec codec, std::string& error) {
  // Opened without blocking, so that a FIFO nobody writes to reads as empty instead of hanging the
  // run; reads block again after the open (a FIFO with a writer, `<(zcat log.gz)`, is read whole).
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    error = std::strerror(errno);
    return nullptr;
  }
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    error = std::strerror(EISDIR);
    return nullptr;
  }
  if (int flags = ::fcntl(fd, F_GETFL); flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  File f(::fdopen(fd, "rb"));  // NOLINT(cppcoreguidelines-owning-memory)
  if (!f) {
    error = std::strerror(errno);
    ::close(fd);
    return nullptr;
  }
  switch (codec) {
    case Codec::none:
      return std::make_unique<PlainStream>(std::move(f));
    case Codec::gzip:
      return std::make_unique<GzipStream>(std::move(f));
    case Codec::zstd:
      return std::make_unique<ZstdStream>(std::move(f));
    case Codec::lz4:
      return std::make_unique<Lz4BlockStream>(std::move(f));
    case Codec::snappy:
      return std::make_unique<SnappyJavaStream>(std::move(f));
    case Codec::lzf:
      return std::make_unique<LzfStream>(std::move(f));
  }
  return nullptr;
}

std::string frame_lz4_block(std::string_view data, std::size_t block_size) {
  std::string out;
  auto block = [&](std::string_view piece) {
    out += kLz4Magic;
    std::string comp(static_cast<std::size_t>(LZ4_compressBound(static_cast<int>(piece.size()))), '\0');
    int n = piece.empty() ? 0
                          : LZ4_compress_default(piece.data(), comp.data(), static_cast<int>(piece.size()),
                                                 static_cast<int>(comp.size()));
    bool raw = n <= 0 || static_cast<std::size_t>(n) >= piece.size();
    out += static_cast<char>((raw ? kLz4Raw : kLz4Compressed) | 4U);
    put_le32(out, static_cast<std::uint32_t>(raw ? piece.size() : static_cast<std::size_t>(n)));
    put_le32(out, static_cast<std::uint32_t>(piece.size()));
    put_le32(out, piece.empty() ? 0 : XXH32(piece.data(), piece.size(), kLz4Seed) & 0x0FFFFFFFU);
    out.append(raw ? piece : std::string_view(comp.data(), static_cast<std::size_t>(n)));
  };
  for (std::size_t i = 0; i < data.size(); i += block_size) block(data.substr(i, block_size));
  block({});  // the end mark LZ4BlockOutputStream.finish() writes
  return out;
}

std::string frame_snappy_java(std::string_view data, std::size_t block_size) {
  std::string out(reinterpret_cast<const char*>(kSnappyMagic.data()), kSnappyMagic.size());  // NOLINT
  put_be32(out, 1);
  put_be32(out, 1);
  for (std::size_t i = 0; i < data.size(); i += block_size) {
    std::string comp;
    std::string_view piece = data.substr(i, block_size);
    snappy::Compress(piece.data(), piece.size(), &comp);
    put_be32(out, static_cast<std::uint32_t>(comp.size()));
    out += comp;
  }
  return out;
}

std::string frame_lzf(std::string_view data) {
  constexpr std::size_t kBlock = 0xFFFF;
  std::string out;
  for (std::size_t i = 0; i < data.size(); i += kBlock) {
    std::string_view piece = data.substr(i, kBlock);
    std::string comp(piece.size(), '\0');
    unsigned n = lzf_compress(piece.data(), static_cast<unsigned>(piece.size()), comp.data(),
                              static_cast<unsigned>(comp.size() - 1));
    out += "ZV";
    if (n == 0) {
      out += '\0';
      put_be16(out, static_cast<std::uint32_t>(piece.size()));
      out += piece;
    } else {
      out += '\1';
      put_be16(out, n);
      put_be16(out, static_cast<std::uint32_t>(piece.size()));
      out.append(comp.data(), n);
    }
  }
  return out;
}

}  // namespace planlint::eventlog
