// SPDX-License-Identifier: MIT
#include "launcher/cubindisassembler.h"

#include "core/source/sassdisassembly.h"

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <signal.h>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace ws {

namespace {

namespace fs = std::filesystem;

constexpr const char* kToolHeader = "# tool: ";
// A disassembler that hangs must not hang the profile run: big cubins take seconds, not minutes.
constexpr int kTimeoutS = 120;

bool executable(const fs::path& p)
{
    std::error_code ec;
    return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

std::string readAll(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream buf;
    buf << in.rdbuf();
    return buf.str();
}

std::string joined(const std::vector<std::string>& argv)
{
    std::string s;
    for (size_t i = 0; i < argv.size(); ++i) {
        // The cubin path is the last argument; the tool line names the program by file name.
        if (i + 1 == argv.size())
            break;
        s += (s.empty() ? "" : " ") + (i == 0 ? fs::path(argv[i]).filename().string() : argv[i]);
    }
    return s;
}

} // namespace

std::string CubinDisassembler::findTool(const std::string& name)
{
    std::string envName = "WS_";
    for (char c : name)
        envName += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (const char* e = std::getenv(envName.c_str()); e && *e)
        return executable(e) ? std::string(e) : std::string();
    std::vector<fs::path> dirs;
    if (const char* path = std::getenv("PATH")) {
        std::stringstream in(path);
        std::string d;
        while (std::getline(in, d, ':'))
            if (!d.empty())
                dirs.emplace_back(d);
    }
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
        if (const char* e = std::getenv(var); e && *e)
            dirs.push_back(fs::path(e) / "bin");
    }
    dirs.emplace_back("/usr/local/cuda/bin");
    for (const auto& d : dirs) {
        if (executable(d / name))
            return (d / name).string();
    }
    return {};
}

bool CubinDisassembler::run(const std::vector<std::string>& argv, const std::string& outPath, std::string& error)
{
    const int out = ::open(outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0) {
        error = "cannot create " + outPath + ": " + std::strerror(errno);
        return false;
    }
    const std::string errPath = outPath + ".stderr";
    const int err = ::open(errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    std::vector<char*> args;
    args.reserve(argv.size() + 1);
    for (const auto& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::dup2(out, STDOUT_FILENO);
        if (err >= 0)
            ::dup2(err, STDERR_FILENO);
        ::execv(args[0], args.data());
        ::_exit(127);
    }
    ::close(out);
    if (err >= 0)
        ::close(err);
    if (pid < 0) {
        error = std::string("fork: ") + std::strerror(errno);
        return false;
    }
    int status = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kTimeoutS);
    while (true) {
        const pid_t r = ::waitpid(pid, &status, WNOHANG);
        if (r == pid)
            break;
        if (r < 0) {
            error = std::string("waitpid: ") + std::strerror(errno);
            return false;
        }
        if (std::chrono::steady_clock::now() > deadline) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            error = joined(argv) + " did not finish in " + std::to_string(kTimeoutS) + " s";
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    std::string stderrText = readAll(errPath);
    std::error_code ec;
    fs::remove(errPath, ec);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        while (!stderrText.empty() && (stderrText.back() == '\n' || stderrText.back() == '\r'))
            stderrText.pop_back();
        error = joined(argv) + " failed"
            + (WIFEXITED(status) ? " (exit " + std::to_string(WEXITSTATUS(status)) + ")" : std::string(" (signal)"))
            + (stderrText.empty() ? "" : ": " + stderrText.substr(0, 300));
        return false;
    }
    return true;
}

CubinDisassembler::Result CubinDisassembler::disassemble(const std::string& cubinPath)
{
    Result r;
    const std::string cache = cubinPath + ".sass";
    // A disassembly made earlier (on the GPU machine, kept with --keep-raw) is reused as is.
    if (std::error_code ec; fs::is_regular_file(cache, ec)) {
        std::string text = readAll(cache);
        const size_t nl = text.find('\n');
        if (text.rfind(kToolHeader, 0) == 0 && nl != std::string::npos) {
            r.tool = text.substr(std::strlen(kToolHeader), nl - std::strlen(kToolHeader));
            r.text = text.substr(nl + 1);
            r.ok = !SassDisassembly::parse(r.text).empty();
            if (r.ok)
                return r;
        }
    }
    const std::string nvdisasm = findTool("nvdisasm");
    const std::string cuobjdump = findTool("cuobjdump");
    std::vector<std::vector<std::string>> attempts;
    if (!nvdisasm.empty()) {
        attempts.push_back({nvdisasm, "-c", "-gi", cubinPath});
        attempts.push_back({nvdisasm, "-c", "-g", cubinPath});
    }
    if (!cuobjdump.empty())
        attempts.push_back({cuobjdump, "-sass", cubinPath});
    if (attempts.empty()) {
        r.error = "neither nvdisasm nor cuobjdump was found (PATH, $CUDA_HOME/bin, /usr/local/cuda/bin; or set "
                  "WS_NVDISASM): the session has sampled PCs and CUPTI's source lines but no SASS text";
        return r;
    }
    const std::string tmp = cache + ".tmp";
    for (const auto& argv : attempts) {
        std::string why;
        if (!run(argv, tmp, why)) {
            r.error += (r.error.empty() ? "" : "; ") + why;
            continue;
        }
        std::string text = readAll(tmp);
        if (SassDisassembly::parse(text).empty()) {
            r.error += (r.error.empty() ? "" : "; ") + joined(argv) + " printed no function";
            continue;
        }
        r.ok = true;
        r.tool = joined(argv);
        r.text = std::move(text);
        std::ofstream out(cache, std::ios::binary | std::ios::trunc);
        out << kToolHeader << r.tool << '\n' << r.text;
        break;
    }
    std::error_code ec;
    fs::remove(tmp, ec);
    return r;
}

} // namespace ws
