// SPDX-License-Identifier: MIT
#include "launcher/targetlauncher.h"

#include "core/util/shellwords.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

extern char** environ;

namespace ws {

namespace fs = std::filesystem;

namespace {

std::string_view variableName(std::string_view entry)
{
    return entry.substr(0, entry.find('='));
}

} // namespace

TargetLauncher::TargetLauncher(std::vector<std::string> command)
    : m_command(std::move(command))
{
    if (m_command.empty())
        throw std::runtime_error("no program given");
    m_program = TargetProcess::resolve(m_command.front());
    for (char** e = environ; e && *e; ++e)
        m_environment.emplace_back(*e);
}

std::string TargetLauncher::commandLine() const
{
    return joinCommand(m_command);
}

void TargetLauncher::removeVariables(const std::function<bool(std::string_view)>& owned)
{
    std::erase_if(m_environment, [&](const std::string& e) { return owned(variableName(e)); });
}

void TargetLauncher::setVariable(std::string_view name, const std::string& value)
{
    removeVariables([name](std::string_view n) { return n == name; });
    m_environment.push_back(std::string(name) + "=" + value);
}

void TargetLauncher::start()
{
    m_process.start(m_program, m_command, m_environment);
}

ExitStatus TargetLauncher::wait()
{
    return m_process.wait();
}

std::string executablePath()
{
    std::error_code ec;
    const fs::path p = fs::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : p.string();
}

std::string findCollectorLibrary(const std::string& fileName, const char* overrideVariable, std::string* searched)
{
    std::vector<fs::path> candidates;
    if (const char* env = overrideVariable ? std::getenv(overrideVariable) : nullptr; env && *env)
        candidates.emplace_back(env);
    const fs::path exe = executablePath();
    if (!exe.empty()) {
        candidates.push_back(exe.parent_path().parent_path() / "lib" / fileName);
        candidates.push_back(exe.parent_path() / "lib" / fileName);
        candidates.push_back(exe.parent_path() / fileName);
    }
    std::string list;
    std::error_code ec;
    for (const auto& c : candidates) {
        list += (list.empty() ? "" : ", ") + c.string();
        if (fs::is_regular_file(c, ec))
            return fs::absolute(c, ec).lexically_normal().string();
    }
    if (searched)
        *searched = list;
    return {};
}

} // namespace ws
