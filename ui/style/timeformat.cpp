// SPDX-License-Identifier: MIT
#include "ui/style/timeformat.h"

#include <QLocale>

#include <cmath>
#include <cstdlib>

namespace ws {

namespace {

struct Unit {
    double ns;
    const char* name;
};

Unit unitFor(double magnitude)
{
    if (magnitude < 1e3)
        return {1.0, "ns"};
    if (magnitude < 1e6)
        return {1e3, "µs"};
    if (magnitude < 1e9)
        return {1e6, "ms"};
    return {1e9, "s"};
}

} // namespace

QString formatDuration(TimeNs ns)
{
    const double mag = std::abs(static_cast<double>(ns));
    const Unit u = unitFor(mag);
    if (u.ns == 1.0)
        return QStringLiteral("%1 ns").arg(ns);
    const double v = static_cast<double>(ns) / u.ns;
    // Four significant digits: 1.234 ms, 12.35 ms, 123.5 ms.
    const int decimals = std::abs(v) < 10 ? 3 : (std::abs(v) < 100 ? 2 : 1);
    return QStringLiteral("%1 %2").arg(v, 0, 'f', decimals).arg(QString::fromUtf8(u.name));
}

QString formatTick(TimeNs relNs, TimeNs step)
{
    // The unit follows the larger of the value and the step, the decimals follow the step:
    // 534.45 ms rather than 534450 µs.
    const double mag = std::max(std::abs(static_cast<double>(relNs)), static_cast<double>(std::max<TimeNs>(step, 1)));
    const Unit u = unitFor(mag);
    int decimals = 0;
    for (double s = static_cast<double>(step) / u.ns; s < 1.0 - 1e-9 && decimals < 9; s *= 10)
        ++decimals;
    return QStringLiteral("%1 %2")
        .arg(static_cast<double>(relNs) / u.ns, 0, 'f', decimals)
        .arg(QString::fromUtf8(u.name));
}

QString formatCount(qint64 n)
{
    return QLocale(QLocale::English).toString(n);
}

QString formatBytes(qint64 bytes)
{
    const double b = static_cast<double>(bytes);
    if (std::abs(b) < 1024)
        return QStringLiteral("%1 B").arg(bytes);
    if (std::abs(b) < 1024.0 * 1024)
        return QStringLiteral("%1 KiB").arg(b / 1024, 0, 'f', 1);
    if (std::abs(b) < 1024.0 * 1024 * 1024)
        return QStringLiteral("%1 MiB").arg(b / (1024.0 * 1024), 0, 'f', 1);
    return QStringLiteral("%1 GiB").arg(b / (1024.0 * 1024 * 1024), 0, 'f', 2);
}

} // namespace ws
