// Text from inputs made safe to show: control characters (C0, DEL, and C1 such as U+009B, the
// one-character CSI) as \xNN / \uNNNN, so that escape sequences in a file or an event log cannot
// retitle or clear the reader's terminal; and as Markdown, which GitHub would otherwise render.
#pragma once

#include <string>
#include <string_view>

namespace planlint::util {

// `s` appended to `out` with its control characters escaped; tabs stay, and newlines when
// `keep_newlines`.
void append_printable(std::string& out, std::string_view s, bool keep_newlines = false);
std::string printable(std::string_view s, bool keep_newlines = false);

// `s` as literal Markdown text on one line (a table cell, a heading): the characters Markdown or
// HTML would read (| \ ` * _ < > [ ] ! # ~ &) backslash-escaped or as entities, line breaks as spaces,
// control characters escaped as printable() does.
std::string markdown_text(std::string_view s);

// `s` as HTML text or attribute value: & < > " ' as entities, control characters escaped.
std::string html_text(std::string_view s);

}  // namespace planlint::util
