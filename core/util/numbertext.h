// SPDX-License-Identifier: MIT
#pragma once

#include <string>

namespace ws {

// The shortest decimal text that reads back as exactly `value` (std::to_chars without a
// precision): 0.257696, not %.17g's 0.25769599999999998. Fixed notation from 1e-4 to 1e15,
// scientific outside; "0" for both zeros; "nan", "inf", "-inf". For CSV exports, where a reader
// must get the stored double back and a person must be able to read it.
std::string shortestText(double value);

} // namespace ws
