// SPDX-License-Identifier: MIT
#pragma once

#include "core/metrics/knowndifferences.h"
#include "core/metrics/sectioncatalog.h"
#include "ui/panels/metrictablemodel.h"

#include <QList>
#include <QString>

#include <memory>
#include <string>
#include <vector>

namespace ws {

class PanelData;
struct ShownKernel;

// The section files the details panels take their rows from: the directory
// SectionCatalog::defaultDirectory() names ($WS_SECTIONS_DIR, the installed share folder, or the
// source tree's resources/sections), read once on first use. One catalog for the whole
// process, like the files it is read from.
class PanelSections {
public:
    // Null when the files could not be read; error() then names the file and what is wrong.
    static std::shared_ptr<const SectionCatalog> catalog();
    static QString error();
    // Replaces the catalog (a folder of one's own, a test's); null reads the default again.
    static void set(std::shared_ptr<const SectionCatalog> catalog);
    // known-differences.tsv beside the default section files; null when it could not be read,
    // and knownDifferencesError() then names the file and what is wrong.
    static std::shared_ptr<const KnownDifferences> knownDifferences();
    static QString knownDifferencesError();
    // Replaces them (a test's); null reads the default file again.
    static void setKnownDifferences(std::shared_ptr<const KnownDifferences> differences);
};

// Per shown kernel, the known-difference note (KnownDifferences::note) of the first of `metrics`
// that differed from ncu on the fidelity suite in the cache control the kernel's profile run
// used; empty where none did or the kernel has no profile.
std::vector<QString> knownDifferenceNotes(
    const std::vector<std::string>& metrics, const QList<ShownKernel>& shown, const PanelData* data);

// The rows of one details panel ("launch", "throughput", "scheduler", "memory"): a heading per
// `panel` block of the catalog and under it one row per line, with one value per shown kernel,
// rendered from what the line says (label, unit, digits, divide, from, else, tip). Without a
// catalog, one heading row that says why.
std::vector<MetricRow> sectionRows(const std::string& panel, const QList<ShownKernel>& shown, const PanelData* data);

} // namespace ws
