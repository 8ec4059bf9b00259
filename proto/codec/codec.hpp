#pragma once
/// \file codec.hpp
/// The codec: the only code that sees both sim types and generated protobuf types. Umbrella
/// header; see client_codec.hpp (client -> server, validation of untrusted bytes),
/// server_codec.hpp (server -> client) and group_fields.hpp (the behaviour parameter table).
#include "codec/client_codec.hpp"
#include "codec/group_fields.hpp"
#include "codec/server_codec.hpp"
#include "codec/status.hpp"
