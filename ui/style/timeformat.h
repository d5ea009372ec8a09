// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/records.h"

#include <QString>

namespace ws {

// "850 ns", "12.35 µs", "1.234 ms", "2.500 s": the unit follows the magnitude so every
// figure on screen carries one.
QString formatDuration(TimeNs ns);

// A ruler label for `relNs` (time since the session began), with just enough decimals to
// tell ticks `step` apart.
QString formatTick(TimeNs relNs, TimeNs step);

// 12,345,678
QString formatCount(qint64 n);

// 1.5 KiB, 3.2 MiB...
QString formatBytes(qint64 bytes);

} // namespace ws
