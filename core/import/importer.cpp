// SPDX-License-Identifier: MIT
#include "core/import/importer.h"

#include "core/import/gzipfile.h"
#include "core/import/kinetoimporter.h"
#include "core/import/ncuimporter.h"
#include "core/import/nsysimporter.h"
#include "core/import/protonimporter.h"
#include "core/store/sessionerror.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace ws {

namespace {

constexpr std::pair<std::string_view, ImportFormat> kNames[] = {
    {"auto", ImportFormat::Auto},
    {"nsys-sqlite", ImportFormat::NsysSqlite},
    {"kineto", ImportFormat::Kineto},
    {"ncu-csv", ImportFormat::NcuCsv},
    {"proton", ImportFormat::Proton},
    // Accepted spellings besides the canonical ones.
    {"nsys", ImportFormat::NsysSqlite},
    {"sqlite", ImportFormat::NsysSqlite},
    {"chrome", ImportFormat::Kineto},
    {"chrome-trace", ImportFormat::Kineto},
    {"pytorch", ImportFormat::Kineto},
    {"ncu", ImportFormat::NcuCsv},
    {"hatchet", ImportFormat::Proton},
};

std::string_view skipSpace(std::string_view s)
{
    if (s.substr(0, 3) == "\xEF\xBB\xBF") // UTF-8 byte order mark
        s.remove_prefix(3);
    while (!s.empty() && (s.front() == ' ' || s.front() == '\n' || s.front() == '\r' || s.front() == '\t'))
        s.remove_prefix(1);
    return s;
}

bool contains(std::string_view s, std::string_view what)
{
    return s.find(what) != std::string_view::npos;
}

} // namespace

std::unique_ptr<Importer> createImporter(ImportFormat format)
{
    switch (format) {
    case ImportFormat::NsysSqlite:
        return std::make_unique<NsysImporter>();
    case ImportFormat::Kineto:
        return std::make_unique<KinetoImporter>();
    case ImportFormat::NcuCsv:
        return std::make_unique<NcuImporter>();
    case ImportFormat::Proton:
        return std::make_unique<ProtonImporter>();
    case ImportFormat::Auto:
        break;
    }
    return nullptr;
}

const char* importFormatName(ImportFormat format)
{
    for (const auto& [name, f] : kNames) {
        if (f == format)
            return name.data();
    }
    return "auto";
}

std::optional<ImportFormat> parseImportFormat(std::string_view name)
{
    for (const auto& [n, f] : kNames) {
        if (n == name)
            return f;
    }
    return std::nullopt;
}

std::optional<ImportFormat> detectImportFormat(std::string_view head, std::string_view fileName)
{
    if (head.substr(0, 16) == std::string_view("SQLite format 3\0", 16))
        return ImportFormat::NsysSqlite;
    if (fileName.size() >= 8 && fileName.substr(fileName.size() - 8) == ".ncu-rep")
        return ImportFormat::NcuCsv;
    const std::string_view text = skipSpace(head);
    if (!text.empty() && (text.front() == '{' || text.front() == '[')) {
        // Hatchet trees are nodes of {"children", "frame", "metrics"}; Chrome traces have
        // "traceEvents" or events with "ph".
        const bool hatchet = contains(text, "\"frame\"") && contains(text, "\"metrics\"");
        const bool chrome = contains(text, "\"traceEvents\"") || contains(text, "\"ph\"");
        if (hatchet && !chrome)
            return ImportFormat::Proton;
        return ImportFormat::Kineto;
    }
    if (contains(head, "\"ID\",\"Process ID\"") || contains(head, "==PROF==") || contains(head, "==WARNING=="))
        return ImportFormat::NcuCsv;
    return std::nullopt;
}

ImportFormat detectImportFormat(const std::string& path)
{
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f)
        throw SessionError(SessionError::Kind::NotFound, path, std::string("cannot open: ") + std::strerror(errno));
    std::string head(64 * 1024, '\0');
    head.resize(std::fread(head.data(), 1, head.size(), f));
    std::fclose(f);
    if (const auto format = detectImportFormat(head, path))
        return *format;
    throw SessionError(SessionError::Kind::BadInput, path,
        "unknown format: not an nsys SQLite export, PyTorch/Chrome trace JSON, ncu CSV or Proton "
        "hatchet file (pass --format to say which it is)");
}

SessionData importSession(
    const std::string& path, ImportFormat format, const ImportOptions& options, ImportFormat* resolved)
{
    if (isGzipFile(path)) {
        // Inflate first (the first third of the progress bar), then parse the text in memory.
        ImportOptions inner = options;
        const auto share = [&](double from, double span) {
            return ProgressCallback([&options, from, span](double f, const char* phase) {
                if (options.progress)
                    options.progress(from + span * f, phase);
            });
        };
        const std::string text = readGzipFile(path, share(0.0, 0.33), options.cancel);
        if (format == ImportFormat::Auto) {
            const auto detected
                = detectImportFormat(std::string_view(text).substr(0, 64 * 1024), withoutGzipSuffix(path));
            if (!detected)
                throw SessionError(SessionError::Kind::BadInput, path,
                    "unknown format inside the gzip file: not a PyTorch/Chrome trace JSON, ncu CSV or Proton "
                    "hatchet file (pass --format to say which it is)");
            format = *detected;
        }
        if (format == ImportFormat::NsysSqlite)
            throw SessionError(SessionError::Kind::BadInput, path,
                "a gzip-compressed SQLite export cannot be read in place: decompress it first (gunzip)");
        inner.progress = share(0.33, 0.67);
        if (resolved)
            *resolved = format;
        return createImporter(format)->importBytes(text, path, inner);
    }
    if (format == ImportFormat::Auto)
        format = detectImportFormat(path);
    if (resolved)
        *resolved = format;
    return createImporter(format)->importFile(path, options);
}

} // namespace ws
