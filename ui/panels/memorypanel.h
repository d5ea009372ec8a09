// SPDX-License-Identifier: MIT
#pragma once

#include "ui/panels/detailspanel.h"

namespace ws {

// Memory chart: bytes moved and throughput at each level (L1/TEX, L2, DRAM read and write),
// against the device's peak bandwidths where the session has them, hit rates, and sectors per
// request of global loads and stores (4 is ideal for 4-byte words: above it, accesses are
// uncoalesced).
class MemoryPanel : public DetailsPanel {
    Q_OBJECT
public:
    explicit MemoryPanel(KernelFocus* focus, QWidget* parent = nullptr);

    QCustomPlot* bytesPlot() const { return m_bytes; }
    QCustomPlot* throughputPlot() const { return m_throughput; }
    QCustomPlot* hitRatePlot() const { return m_hits; }
    QCustomPlot* sectorsPlot() const { return m_sectors; }

protected:
    void rebuild() override;

private:
    QCustomPlot* m_bytes;
    QCustomPlot* m_throughput;
    QCustomPlot* m_hits;
    QCustomPlot* m_sectors;
};

} // namespace ws
