// SPDX-License-Identifier: MIT
#include "core/import/gzipfile.h"

#include "core/store/sessionerror.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

namespace ws {

namespace {

struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

File openOrThrow(const std::string& path)
{
    File f(std::fopen(path.c_str(), "rb"));
    if (!f)
        throw SessionError(SessionError::Kind::NotFound, path, std::string("cannot open: ") + std::strerror(errno));
    return f;
}

} // namespace

bool isGzipFile(const std::string& path)
{
    const File f = openOrThrow(path);
    unsigned char magic[2] = {0, 0};
    return std::fread(magic, 1, 2, f.get()) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

std::string readGzipFile(const std::string& path, const ProgressCallback& progress, const CancellationToken& cancel)
{
    const File f = openOrThrow(path);
    std::fseek(f.get(), 0, SEEK_END);
    const long total = std::ftell(f.get());
    std::fseek(f.get(), 0, SEEK_SET);

    z_stream z {};
    // 15 + 32: a zlib or gzip header, detected automatically.
    if (inflateInit2(&z, 15 + 32) != Z_OK)
        throw SessionError(SessionError::Kind::BadInput, path, "cannot start gzip decompression");
    const auto end = std::unique_ptr<z_stream, decltype(&inflateEnd)>(&z, &inflateEnd);

    std::vector<unsigned char> in(1 << 20);
    std::string out;
    out.reserve(static_cast<size_t>(std::max(total, 0L)) * 4);
    long consumed = 0;
    int status = Z_OK;
    while (true) {
        if (cancel.isCancelled())
            throw SessionError(SessionError::Kind::Cancelled, path, "cancelled");
        const size_t n = std::fread(in.data(), 1, in.size(), f.get());
        if (n == 0)
            break;
        consumed += static_cast<long>(n);
        z.next_in = in.data();
        z.avail_in = static_cast<uInt>(n);
        while (z.avail_in > 0) {
            if (status == Z_STREAM_END) {
                // Another gzip member follows (concatenated files are valid gzip).
                if (inflateReset(&z) != Z_OK)
                    throw SessionError(SessionError::Kind::BadInput, path, "damaged gzip data");
            }
            const size_t before = out.size();
            out.resize(before + (1 << 20));
            z.next_out = reinterpret_cast<Bytef*>(out.data() + before);
            z.avail_out = 1 << 20;
            status = inflate(&z, Z_NO_FLUSH);
            out.resize(before + ((1 << 20) - z.avail_out));
            if (status != Z_OK && status != Z_STREAM_END && status != Z_BUF_ERROR)
                throw SessionError(SessionError::Kind::BadInput, path,
                    std::string("damaged gzip data: ") + (z.msg ? z.msg : "inflate failed"));
            if (status == Z_BUF_ERROR && z.avail_in > 0 && z.avail_out > 0)
                throw SessionError(SessionError::Kind::BadInput, path, "damaged gzip data");
        }
        if (progress && total > 0)
            progress(static_cast<double>(consumed) / static_cast<double>(total), "decompressing");
    }
    if (std::ferror(f.get()))
        throw SessionError(SessionError::Kind::NotFound, path, "read error while decompressing");
    if (status != Z_STREAM_END)
        throw SessionError(SessionError::Kind::BadInput, path, "the gzip data is truncated");
    return out;
}

std::string_view withoutGzipSuffix(std::string_view fileName)
{
    if (fileName.size() > 3 && fileName.substr(fileName.size() - 3) == ".gz")
        return fileName.substr(0, fileName.size() - 3);
    return fileName;
}

} // namespace ws
