// SPDX-License-Identifier: MIT
#pragma once

#include <QColor>
#include <QPalette>
#include <QString>

#include <string_view>

namespace ws {

// Colours of the timeline. Event colours come from a hash of the name, so a kernel keeps its
// colour across zoom levels, sessions and machines. Mid lightness and saturation keep them
// readable on light and dark palettes; labels carry the meaning as well (never colour alone).
struct ColorScheme {
    // Communication (NCCL kernels, peer copies: analysis/commkernels.h) gets hues in
    // [kCommHueMin, kCommHueMax]; every other name keeps 20 degrees away from that band.
    static QRgb forName(std::string_view name);
    static constexpr int kCommHueMin = 285;
    static constexpr int kCommHueMax = 315;
    // Black or white, whichever reads better on `fill`.
    static QRgb textOn(QRgb fill);
    static bool isDark(const QPalette& palette);
    // The app's dark palette (`warpscope --dark`).
    static QPalette darkPalette();
    // The style sheet of a notice banner ("metrics not collected", source not found): amber on
    // light palettes, a dark amber with light text on dark ones.
    static QString bannerStyle(const QPalette& palette);

    // Backgrounds and overlays derived from the widget palette.
    explicit ColorScheme(const QPalette& palette);
    QColor background;
    QColor rowAlternate;
    QColor gpuIdle; // GPU rows: the background where the GPU did nothing is shaded
    QColor groupHeader;
    QColor text;
    QColor mutedText;
    QColor grid;
    QColor selectionFill;
    QColor selectionEdge;
    QColor highlight;
    QColor arrow;
    QColor hatch;
};

} // namespace ws
