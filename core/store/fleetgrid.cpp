// SPDX-License-Identifier: MIT
#include "core/store/fleetgrid.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ws {

namespace {

// numpy.median: the mean of the two middle values for an even count.
double medianOf(std::vector<double> v)
{
    if (v.empty())
        return 0;
    const size_t mid = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
    const double hi = v[mid];
    if (v.size() % 2 != 0)
        return hi;
    const double lo = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
    return (lo + hi) / 2;
}

} // namespace

RobustFlags robustFlags(const std::vector<double>& values, double k, double minRel, bool higherIsWorse)
{
    RobustFlags out;
    out.flags.assign(values.size(), 0);
    std::vector<double> present;
    for (double v : values)
        if (v >= 0)
            present.push_back(v);
    if (present.empty())
        return out;
    out.median = medianOf(present);
    for (double& v : present)
        v = std::abs(v - out.median);
    out.mad = medianOf(std::move(present));
    for (size_t i = 0; i < values.size(); ++i) {
        if (values[i] < 0)
            continue;
        const double worse = higherIsWorse ? values[i] - out.median : out.median - values[i];
        out.flags[i] = worse > k * out.mad && worse > minRel * std::abs(out.median) ? 1 : 0;
    }
    return out;
}

void flagFleetGrid(FleetStepGrid& grid, double k, double minRel)
{
    const size_t rows = grid.ranks.size();
    const size_t cols = grid.steps.size();
    grid.median.assign(cols, 0.0);
    grid.straggler.assign(rows * cols, 0);
    std::vector<double> column(rows);
    for (size_t c = 0; c < cols; ++c) {
        for (size_t r = 0; r < rows; ++r)
            column[r] = grid.at(r, c);
        const RobustFlags f = robustFlags(column, k, minRel, grid.metric.higherIsWorse);
        grid.median[c] = f.median;
        for (size_t r = 0; r < rows; ++r)
            grid.straggler[grid.cell(r, c)] = f.flags[r];
    }
    std::vector<double> summary(rows, -1.0);
    for (size_t r = 0; r < rows; ++r) {
        std::vector<double> own;
        for (size_t c = 0; c < cols; ++c)
            if (grid.at(r, c) >= 0)
                own.push_back(grid.at(r, c));
        if (own.empty())
            continue;
        double s = 0;
        if (grid.metric.columns == FleetColumns::Steps)
            s = medianOf(own);
        else
            for (double v : own)
                s += v; // Kernels: the rank's total; Value: its one value
        summary[r] = s;
        grid.ranks[r].summary = s;
    }
    const RobustFlags f = robustFlags(summary, k, minRel, grid.metric.higherIsWorse);
    for (size_t r = 0; r < rows; ++r)
        grid.ranks[r].straggler = f.flags[r] != 0;
}

std::string fleetSummaryTitle(const FleetMetric& metric)
{
    switch (metric.columns) {
    case FleetColumns::Steps: { // "Median step time"
        std::string t = metric.title;
        if (!t.empty() && t[0] >= 'A' && t[0] <= 'Z')
            t[0] = static_cast<char>(t[0] - 'A' + 'a');
        return "Median " + t;
    }
    case FleetColumns::Kernels:
        return "Total";
    case FleetColumns::Value:
        break;
    }
    return metric.title;
}

int fleetMedianRow(const FleetStepGrid& grid, size_t row, size_t col)
{
    if (row >= grid.ranks.size() || col >= grid.steps.size())
        return -1;
    const double median = grid.median[col];
    int best = -1;
    double bestDistance = std::numeric_limits<double>::infinity();
    for (size_t r = 0; r < grid.ranks.size(); ++r) {
        const double v = grid.at(r, col);
        if (r == row || v < 0 || grid.ranks[r].session == grid.ranks[row].session)
            continue;
        const double d = std::abs(v - median);
        if (d < bestDistance) {
            bestDistance = d;
            best = static_cast<int>(r);
        }
    }
    return best;
}

} // namespace ws
