// SPDX-License-Identifier: MIT
#pragma once

#include <QColor>
#include <QString>

#include <optional>

namespace ws {

// Number formatting shared by the panels: every figure carries its unit.
namespace panelformat {

// "1.23 TB/s", "850 GB/s" (SI, factor 1000, as ncu prints bytes).
QString bytesPerSecond(double v);
// "1.23 GB", "4.5 MB", "512 B" (SI).
QString bytes(double v);
// "688 TFLOP/s", "1.2 GFLOP/s".
QString flopsPerSecond(double v);
// "1.1 TFLOP" etc.
QString flop(double v);
// Compact value with up to `digits` significant digits and grouping for large integers.
QString number(double v, int digits = 4);
// A value or an em dash when missing.
QString optional(const std::optional<double>& v, int digits = 4);

// Distinguishable series colours (Okabe-Ito, safe for colour-blind readers); the panels also
// label every series, so colour never carries meaning alone.
QColor seriesColor(int index);

} // namespace panelformat

} // namespace ws
