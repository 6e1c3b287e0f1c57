// Text and JSON dumps of a parsed plan document (`planlint parse FILE --dump`), used by tree goldens.
#pragma once

#include <string>

#include "plan/plan.hpp"

namespace planlint::plan {

std::string dump_text(const Document& doc);
std::string dump_json(const Document& doc);

}  // namespace planlint::plan
