// Exceptions of the polyfuse runtime API. Every error the API throws derives from
// polyfuse::Error; what() is a complete message for a person.
#pragma once

#include <stdexcept>
#include <string>

namespace polyfuse {

// Base of every exception the API throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The .tc program or the options are wrong. what() holds every diagnostic rendered as
// "file:line:col: error: message" with the source line and a caret.
class SourceError : public Error {
 public:
  using Error::Error;
};

// NVRTC (or, for the emulator backend, the host compiler) rejected the generated source.
// what() names the kernel, the file the generated source was written to, the compiler
// log and the offending source lines.
class CompileError : public Error {
 public:
  CompileError(const std::string& message, std::string log, std::string source_path)
      : Error(message), log_(std::move(log)), source_path_(std::move(source_path)) {}
  // The compiler's log, unchanged.
  const std::string& log() const { return log_; }
  // Where the generated source was written for inspection ("" if it could not be).
  const std::string& source_path() const { return source_path_; }

 private:
  std::string log_;
  std::string source_path_;
};

// Launch arguments do not match the kernel: wrong count, a buffer too small, a size
// value that differs from the bound one, a read-only buffer for an output.
class ArgumentError : public Error {
 public:
  using Error::Error;
};

// A CUDA driver call failed. what() names the call, the kernel and the CUDA error.
class CudaError : public Error {
 public:
  CudaError(const std::string& message, std::string call, int code)
      : Error(message), call_(std::move(call)), code_(code) {}
  // The driver function that failed, e.g. "cuLaunchKernel".
  const std::string& call() const { return call_; }
  // Its CUresult.
  int code() const { return code_; }

 private:
  std::string call_;
  int code_;
};

// There is no usable CUDA device: libcuda.so.1 is missing, or it reports no device.
// what() starts with "no CUDA device".
class NoDeviceError : public Error {
 public:
  using Error::Error;
};

// The emulator backend found a bad access, a divergent barrier or a deadlock.
class EmulatorError : public Error {
 public:
  using Error::Error;
};

}  // namespace polyfuse
