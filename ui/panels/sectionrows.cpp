// SPDX-License-Identifier: MIT
#include "ui/panels/sectionrows.h"

#include "core/compare/comparison.h"
#include "core/metrics/sessionmeta.h"
#include "ui/panels/detailspanel.h"
#include "ui/panels/kernelrecordvalues.h"

#include <QCoreApplication>
#include <QMutex>
#include <QMutexLocker>

#include <map>
#include <optional>

namespace ws {

namespace {

struct Loaded {
    QMutex mutex;
    bool tried = false;
    std::shared_ptr<const SectionCatalog> catalog;
    QString error;
    bool triedDifferences = false;
    std::shared_ptr<const KnownDifferences> differences;
    QString differencesError;
};

Loaded& loaded()
{
    static Loaded l;
    return l;
}

void loadDefault(Loaded& l)
{
    l.tried = true;
    const std::string dir = SectionCatalog::defaultDirectory(QCoreApplication::applicationFilePath().toStdString());
    try {
        l.catalog = std::make_shared<const SectionCatalog>(SectionCatalog::loadDirectory(dir));
        l.error.clear();
    } catch (const std::exception& e) {
        l.catalog.reset();
        l.error = QString::fromStdString(e.what());
    }
}

void loadDifferences(Loaded& l)
{
    l.triedDifferences = true;
    const std::string dir = SectionCatalog::defaultDirectory(QCoreApplication::applicationFilePath().toStdString());
    try {
        l.differences
            = std::make_shared<const KnownDifferences>(KnownDifferences::readFile(KnownDifferences::fileIn(dir)));
        l.differencesError.clear();
    } catch (const std::exception& e) {
        l.differences.reset();
        l.differencesError = QString::fromStdString(e.what());
    }
}

// The tooltip of a row without `tip=`: the metric's name and what the session says of it.
QString defaultTip(const PanelRow& row, const PanelData* data)
{
    if (row.derived)
        return QStringLiteral("%1 = %2").arg(
            QString::fromStdString(row.name), QString::fromStdString(row.expression.text()));
    QString name = QString::fromStdString(row.name);
    if (data)
        if (const MetricDef* d = data->metrics.definition(row.name))
            return QStringLiteral("%1\n%2 (section %3)")
                .arg(name, QString::fromStdString(d->description), QString::fromStdString(d->section));
    return name;
}

// One kernel's values as the rows of one panel read them: rows already built (by name, in base
// units, so a derived row can read the rows above it), then the profile and/or the kernel record
// as the row's `from` says.
class KernelLookup {
public:
    KernelLookup(const ShownKernel& k, const PanelData* data)
        : m_kernel(k)
        , m_record(KernelRecordValues::of(data, k))
    {
    }

    std::optional<double> number(const std::string& name, PanelRow::Source source) const
    {
        if (auto it = m_rows.find(name); it != m_rows.end())
            return it->second;
        if (source != PanelRow::Source::Record && m_kernel.profiled) {
            const auto& m = m_kernel.profiled->metrics;
            if (const auto v = m.get(name))
                return toBaseUnit(*v, m.unit(name));
        }
        if (source != PanelRow::Source::Profile)
            if (auto it = m_record.numbers.find(name); it != m_record.numbers.end())
                return it->second;
        return std::nullopt;
    }

    QString text(const std::string& name, PanelRow::Source source) const
    {
        if (source == PanelRow::Source::Profile)
            return {};
        const auto it = m_record.texts.find(name);
        return it == m_record.texts.end() ? QString() : QString::fromStdString(it->second);
    }

    std::optional<double> value(const PanelRow& row)
    {
        const MetricExpression::Lookup lookup
            = [&](const std::string& n) -> std::optional<double> { return number(n, row.source); };
        auto v = row.derived ? row.expression.evaluate(lookup) : number(row.name, row.source);
        if (!v && !row.fallback.text().empty())
            v = row.fallback.evaluate(lookup);
        if (v)
            m_rows[row.name] = *v;
        return v;
    }

private:
    const ShownKernel& m_kernel;
    KernelRecordValues m_record;
    std::map<std::string, double> m_rows;
};

} // namespace

std::shared_ptr<const SectionCatalog> PanelSections::catalog()
{
    Loaded& l = loaded();
    QMutexLocker lock(&l.mutex);
    if (!l.tried)
        loadDefault(l);
    return l.catalog;
}

QString PanelSections::error()
{
    Loaded& l = loaded();
    QMutexLocker lock(&l.mutex);
    if (!l.tried)
        loadDefault(l);
    return l.error;
}

void PanelSections::set(std::shared_ptr<const SectionCatalog> catalog)
{
    Loaded& l = loaded();
    QMutexLocker lock(&l.mutex);
    l.tried = catalog != nullptr;
    l.catalog = std::move(catalog);
    l.error.clear();
}

std::shared_ptr<const KnownDifferences> PanelSections::knownDifferences()
{
    Loaded& l = loaded();
    QMutexLocker lock(&l.mutex);
    if (!l.triedDifferences)
        loadDifferences(l);
    return l.differences;
}

QString PanelSections::knownDifferencesError()
{
    Loaded& l = loaded();
    QMutexLocker lock(&l.mutex);
    if (!l.triedDifferences)
        loadDifferences(l);
    return l.differencesError;
}

void PanelSections::setKnownDifferences(std::shared_ptr<const KnownDifferences> differences)
{
    Loaded& l = loaded();
    QMutexLocker lock(&l.mutex);
    l.triedDifferences = differences != nullptr;
    l.differences = std::move(differences);
    l.differencesError.clear();
}

std::vector<QString> knownDifferenceNotes(
    const std::vector<std::string>& metrics, const QList<ShownKernel>& shown, const PanelData* data)
{
    std::vector<QString> notes(static_cast<size_t>(shown.size()));
    const auto differences = PanelSections::knownDifferences();
    if (!differences || !data)
        return notes;
    for (qsizetype i = 0; i < shown.size(); ++i) {
        const ShownKernel& k = shown[i];
        if (!k.profiled)
            continue;
        const auto meta = data->measurementMeta(k.kernelId);
        const auto cache = meta.find(metakey::kProfileCacheControl);
        if (cache == meta.end())
            continue;
        for (const std::string& m : metrics) {
            if (const KnownDifference* d = differences->find(cache->second, m)) {
                notes[static_cast<size_t>(i)] = QString::fromStdString(KnownDifferences::note(*d));
                break;
            }
        }
    }
    return notes;
}

std::vector<MetricRow> sectionRows(const std::string& panel, const QList<ShownKernel>& shown, const PanelData* data)
{
    std::vector<MetricRow> rows;
    const auto catalog = PanelSections::catalog();
    if (!catalog) {
        MetricRow r;
        r.heading = true;
        r.label = QObject::tr("No rows: the section files could not be read (%1)").arg(PanelSections::error());
        rows.push_back(r);
        return rows;
    }
    std::vector<KernelLookup> kernels;
    kernels.reserve(static_cast<size_t>(shown.size()));
    for (const ShownKernel& k : shown)
        kernels.emplace_back(k, data);
    for (const PanelBlock* block : catalog->panelBlocks(panel)) {
        MetricRow heading;
        heading.heading = true;
        heading.label = QString::fromStdString(block->heading);
        rows.push_back(heading);
        for (const PanelRow& line : block->rows) {
            MetricRow r;
            r.label = QString::fromStdString(line.label);
            r.unit = QString::fromStdString(line.unit);
            r.tip = line.tip.empty() ? defaultTip(line, data) : QString::fromStdString(line.tip);
            r.digits = line.digits;
            // The compare window's rule, on the metric's name, else on the label ("Duration").
            r.preference = compare::metricPreference(line.name, line.unit);
            if (r.preference == 0)
                r.preference = compare::metricPreference(r.label.toLower().toStdString(), line.unit);
            bool anyText = false;
            std::vector<QString> texts;
            for (KernelLookup& k : kernels) {
                const auto v = k.value(line);
                r.values.push_back(v ? std::optional<double>(*v / line.divide) : std::nullopt);
                texts.push_back(v ? QString() : k.text(line.name, line.source));
                anyText = anyText || !texts.back().isEmpty();
            }
            if (anyText)
                r.texts = std::move(texts);
            // The record's figures are ours alone; only profiled values can differ from ncu's.
            if (line.source != PanelRow::Source::Record) {
                std::vector<std::string> inputs = line.derived ? line.expression.inputs() : std::vector<std::string>();
                inputs.insert(inputs.begin(), line.name);
                r.notes = knownDifferenceNotes(inputs, shown, data);
            }
            rows.push_back(r);
        }
    }
    return rows;
}

} // namespace ws
