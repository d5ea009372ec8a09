// SPDX-License-Identifier: MIT
#include "ui/style/colorscheme.h"

#include "core/analysis/commkernels.h"

#include <cstdint>

namespace ws {

QRgb ColorScheme::forName(std::string_view name)
{
    // FNV-1a: stable across runs and platforms (std::hash is not).
    uint64_t h = 14695981039346656037ull;
    for (const char c : name) {
        h ^= static_cast<unsigned char>(c);
        h *= 1099511628211ull;
    }
    if (isCommunicationName(name)) {
        // One family, deep violet, so GPU-to-GPU communication stands out from compute.
        const int hue = kCommHueMin + static_cast<int>(h % (kCommHueMax - kCommHueMin + 1));
        const int sat = 235 - static_cast<int>((h >> 20) % 3) * 15; // 205..235
        const int val = 150 + static_cast<int>((h >> 28) % 3) * 20; // 150..190
        return QColor::fromHsv(hue, sat, val).rgb();
    }
    int hue = static_cast<int>(h % 360);
    // Compute keeps clear of the communication hues (moved into the blues below them).
    if (hue >= kCommHueMin - 20 && hue < kCommHueMax + 20)
        hue -= 70;
    const int sat = 110 + static_cast<int>((h >> 20) % 4) * 30; // 110..200
    const int val = 185 + static_cast<int>((h >> 28) % 3) * 20; // 185..225
    return QColor::fromHsv(hue, sat, val).rgb();
}

QRgb ColorScheme::textOn(QRgb fill)
{
    const double lum = 0.299 * qRed(fill) + 0.587 * qGreen(fill) + 0.114 * qBlue(fill);
    return lum > 140 ? qRgb(20, 20, 20) : qRgb(250, 250, 250);
}

QString ColorScheme::bannerStyle(const QPalette& palette)
{
    return isDark(palette)
        ? QStringLiteral("QLabel { background: #4a3b00; color: #ffe9a8; border: 1px solid #8a7020; padding: 4px; }")
        : QStringLiteral("QLabel { background: #fff4d6; color: #4a3b00; border: 1px solid #e0c060; padding: 4px; }");
}

QPalette ColorScheme::darkPalette()
{
    QPalette p;
    p.setColor(QPalette::Window, QColor(45, 45, 48));
    p.setColor(QPalette::WindowText, QColor(225, 225, 225));
    p.setColor(QPalette::Base, QColor(30, 30, 32));
    p.setColor(QPalette::AlternateBase, QColor(40, 40, 44));
    p.setColor(QPalette::Text, QColor(225, 225, 225));
    p.setColor(QPalette::Button, QColor(50, 50, 54));
    p.setColor(QPalette::ButtonText, QColor(225, 225, 225));
    p.setColor(QPalette::Highlight, QColor(60, 110, 200));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::PlaceholderText, QColor(150, 150, 150));
    p.setColor(QPalette::ToolTipBase, QColor(50, 50, 54));
    p.setColor(QPalette::ToolTipText, QColor(225, 225, 225));
    return p;
}

bool ColorScheme::isDark(const QPalette& palette)
{
    return palette.color(QPalette::Base).lightness() < 128;
}

ColorScheme::ColorScheme(const QPalette& palette)
{
    const bool dark = isDark(palette);
    background = palette.color(QPalette::Base);
    rowAlternate = dark ? background.lighter(112) : background.darker(104);
    gpuIdle = dark ? QColor(60, 45, 45) : QColor(246, 232, 232);
    groupHeader = dark ? background.lighter(135) : palette.color(QPalette::Window).darker(106);
    text = palette.color(QPalette::Text);
    mutedText = palette.color(QPalette::PlaceholderText);
    grid = dark ? QColor(255, 255, 255, 28) : QColor(0, 0, 0, 22);
    selectionFill = dark ? QColor(120, 170, 255, 45) : QColor(40, 110, 230, 40);
    selectionEdge = dark ? QColor(140, 190, 255) : QColor(30, 90, 200);
    highlight = dark ? QColor(255, 230, 90) : QColor(220, 20, 60);
    arrow = dark ? QColor(255, 200, 80) : QColor(200, 30, 30);
    hatch = dark ? QColor(0, 0, 0, 90) : QColor(255, 255, 255, 120);
}

} // namespace ws
