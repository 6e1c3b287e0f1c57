// Reading an event log's bytes: the codecs Spark writes event logs with, through the Java stream
// framings Spark wraps them in (lz4-java blocks, snappy-java chunks, compress-lzf chunks), chosen by suffix.
#pragma once

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace planlint::eventlog {

enum class Codec : std::uint8_t { none, gzip, zstd, lz4, snappy, lzf };

// By file suffix, as Spark's EventLogFileReader does: ".lz4", ".lzf", ".snappy", ".zstd" (and ".zst"),
// ".gz"; an ".inprogress" suffix is looked through.
Codec codec_for_path(std::string_view path);
// The codec the first bytes of a file show (gzip's, zstd's, lz4-java's, snappy-java's and
// compress-lzf's magic numbers; none for JSON text); nullopt when they show none of these.
std::optional<Codec> codec_for_content(std::string_view head);
std::string_view to_string(Codec codec);

// Decompressed bytes of one file, in chunks. read() appends the next chunk to `out` and returns
// false at the end; error() then says why the end came early ("" for a clean end). A stream cut
// short (an in-progress log) yields everything before the cut, then the error.
class ByteStream {
 public:
  virtual ~ByteStream() = default;
  ByteStream() = default;
  ByteStream(const ByteStream&) = delete;
  ByteStream& operator=(const ByteStream&) = delete;
  ByteStream(ByteStream&&) = delete;
  ByteStream& operator=(ByteStream&&) = delete;
  virtual bool read(std::string& out) = 0;
  [[nodiscard]] const std::string& error() const { return error_; }

 protected:
  std::string error_;
};

// nullptr and `error` set when the file cannot be opened.
std::unique_ptr<ByteStream> open_stream(const std::string& path, Codec codec, std::string& error);

// The framings, for tests and benchmarks that build such files (Spark's writers are Java only).
std::string frame_lz4_block(std::string_view data, std::size_t block_size = std::size_t{64} * 1024);
std::string frame_snappy_java(std::string_view data, std::size_t block_size = std::size_t{32} * 1024);
std::string frame_lzf(std::string_view data);

}  // namespace planlint::eventlog
