#pragma once
/// \file status.hpp
/// Result of decoding and validating untrusted bytes. No exceptions: the codec also builds with
/// Emscripten, where exception catching is off.
#include <cstdint>
#include <string>
#include <utility>

namespace flockstep::codec {

/// Outcome of a decode. Everything except kOk and kClamped means "drop the message and close the
/// connection"; kClamped means the message was applied with values forced into range and counts
/// as a violation (the server kicks after a configured number of them).
enum class Status : std::uint8_t {
  kOk = 0,
  kClamped,        ///< a value was out of range and was clamped (applied, counted as a violation)
  kMalformed,      ///< not a valid protobuf encoding of the expected envelope
  kEmpty,          ///< envelope without payload, or a payload the receiver does not accept
  kBadEnum,        ///< enum value outside the known range
  kNotFinite,      ///< NaN or infinity in a number
  kBadName,        ///< display name: invalid UTF-8, control characters, empty or too long
  kBadToken,       ///< resume token of the wrong size
  kTooManyFrames,  ///< more input frames in one message than allowed
  kBadSequence,    ///< input sequence numbers not strictly increasing, or zero
  kTooBig,         ///< more bytes than allowed
};

/// Short stable name of a status ("malformed", "not_finite", ...), used in logs and metric labels.
const char* to_string(Status s);

/// True when the message may be applied (possibly clamped).
constexpr bool usable(Status s) { return s == Status::kOk || s == Status::kClamped; }

/// Status plus a human-readable detail naming the offending field ("input.frames[3].turn is NaN").
struct Result {
  Status status = Status::kOk;
  std::string detail;  ///< empty when status == kOk
  bool ok() const { return status == Status::kOk; }
  bool usable() const { return codec::usable(status); }
};

/// A refusal with its detail: `return fail(Status::kMalformed, "input.turn is NaN");`.
inline Result fail(Status s, std::string detail) { return Result{s, std::move(detail)}; }

}  // namespace flockstep::codec
