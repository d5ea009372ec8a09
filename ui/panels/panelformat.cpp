// SPDX-License-Identifier: MIT
#include "ui/panels/panelformat.h"

#include "ui/style/timeformat.h"

#include <algorithm>

#include <cmath>

namespace ws::panelformat {

namespace {

QString scaled(double v, const char* unit)
{
    struct Prefix {
        double factor;
        const char* name;
    };
    static constexpr Prefix kPrefixes[] = {{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "K"}};
    for (const Prefix& p : kPrefixes) {
        if (std::abs(v) >= p.factor)
            return QStringLiteral("%1 %2%3").arg(number(v / p.factor, 3), QLatin1String(p.name), QLatin1String(unit));
    }
    return QStringLiteral("%1 %2").arg(number(v, 3), QLatin1String(unit));
}

} // namespace

QString bytesPerSecond(double v)
{
    return scaled(v, "B/s");
}

QString bytes(double v)
{
    return scaled(v, "B");
}

QString flopsPerSecond(double v)
{
    return scaled(v, "FLOP/s");
}

QString flop(double v)
{
    return scaled(v, "FLOP");
}

QString number(double v, int digits)
{
    if (!std::isfinite(v))
        return QStringLiteral("—");
    if (v == std::floor(v) && std::abs(v) < 1e15)
        return formatCount(static_cast<qint64>(v));
    const double a = std::abs(v);
    if (a >= std::pow(10.0, digits - 1) && a < 1e15)
        return formatCount(static_cast<qint64>(std::llround(v)));
    // Enough decimals for `digits` significant digits, at most 4.
    const int magnitude = a > 0 ? static_cast<int>(std::floor(std::log10(a))) + 1 : 1;
    const int decimals = std::clamp(digits - magnitude, 0, 4);
    return QString::number(v, 'f', decimals);
}

QString optional(const std::optional<double>& v, int digits)
{
    return v ? number(*v, digits) : QStringLiteral("—");
}

QColor seriesColor(int index)
{
    static const QColor kColors[] = {
        QColor(0, 114, 178),   // blue
        QColor(213, 94, 0),    // vermillion
        QColor(0, 158, 115),   // bluish green
        QColor(204, 121, 167), // reddish purple
        QColor(230, 159, 0),   // orange
        QColor(86, 180, 233),  // sky blue
        QColor(120, 120, 120), // grey
    };
    const int n = static_cast<int>(std::size(kColors));
    return kColors[((index % n) + n) % n];
}

} // namespace ws::panelformat
