#!/usr/bin/env python3
"""Writes the seed corpus of real encoded client messages (tests/fuzz/corpus/). Run from anywhere;
the output is committed, so fuzzing starts from messages the server really accepts (and a few it
refuses) instead of from nothing. The encodings are the ClientMessage wire format of
proto/flockstep/v1/messages.proto, spelled out by hand so the script needs no protobuf module."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field_varint(num, v):
    return varint(num << 3) + varint(v)


def field_bytes(num, b):
    return varint((num << 3) | 2) + varint(len(b)) + b


def field_double(num, d):
    return varint((num << 3) | 1) + struct.pack('<d', d)


def join(role, name, token=b'', version=2):
    return field_bytes(1, field_varint(1, role) + field_bytes(2, name) + (field_bytes(3, token) if token else b'') +
                       field_varint(4, version))


def frame(seq, turn, throttle):
    return field_varint(1, seq) + field_double(2, turn) + field_double(3, throttle)


def inputs(frames):
    return field_bytes(2, b''.join(field_bytes(1, frame(*f)) for f in frames))


def ping(t):
    return field_bytes(3, field_varint(1, t))


def pong(t):
    return field_bytes(4, field_varint(1, t))


def close(code):
    return field_bytes(5, field_varint(1, code))


MESSAGES = {
    'join_player': join(1, b'ada'),
    'join_spectator': join(2, b'sam'),
    'join_resume': join(1, b'ada', bytes(range(16))),
    'join_utf8_name': join(1, 'h\u00e9l\u00e8ne \u2603'.encode()),
    'join_bad_role': join(7, b'x'),
    'join_old_protocol': join(1, b'x', version=1),
    'join_bad_utf8': join(1, b'bad\xc3\x28'),
    'input_one': inputs([(1, 0.0, 1.0)]),
    'input_window': inputs([(s, (s % 5 - 2) / 2.0, 0.75) for s in range(1, 9)]),
    'input_clamped': inputs([(3, 5.0, -2.0)]),
    'input_nan': inputs([(1, float('nan'), 1.0)]),
    'input_bad_order': inputs([(5, 0, 1), (4, 0, 1)]),
    'ping': ping(1_700_000_000_000_000),
    'pong': pong(123456789),
    'close': close(1),
}

HANDSHAKE = (b'GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n'
             b'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n')


def ws_frame(payload, opcode=2, fin=True):
    head = bytes([(0x80 if fin else 0) | opcode])
    n = len(payload)
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 65536:
        head += bytes([0x80 | 126]) + struct.pack('>H', n)
    else:
        head += bytes([0x80 | 127]) + struct.pack('>Q', n)
    key = b'\x12\x34\x56\x78'
    return head + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


SESSIONS = {
    'player_plays': [join(1, b'ada')] + [inputs([(s, 0.3, 1.0)]) for s in range(1, 6)] + [ping(5), pong(7)],
    'spectator_watches': [join(2, b'sam'), ping(1)],
    'player_clamped': [join(1, b'cheat'), inputs([(1, 9.0, 9.0)]), inputs([(2, -9.0, 0.5)])],
    'resume': [join(1, b'ada', bytes(16))],
    'input_first': [inputs([(1, 0, 1)])],
}


def main():
    d = os.path.join(HERE, 'corpus', 'client_codec')
    os.makedirs(d, exist_ok=True)
    for name, data in MESSAGES.items():
        with open(os.path.join(d, name), 'wb') as f:
            f.write(data)
    d = os.path.join(HERE, 'corpus', 'ws_session')
    os.makedirs(d, exist_ok=True)
    for name, msgs in SESSIONS.items():
        with open(os.path.join(d, name), 'wb') as f:
            f.write(HANDSHAKE + b''.join(ws_frame(m) for m in msgs))
    with open(os.path.join(d, 'fragmented_then_close'), 'wb') as f:
        m = join(1, b'frag')
        f.write(HANDSHAKE + ws_frame(m[:3], fin=False) + ws_frame(m[3:], opcode=0) +
                ws_frame(b'\x03\xe8', opcode=8))
    with open(os.path.join(d, 'text_frame'), 'wb') as f:
        f.write(HANDSHAKE + ws_frame(b'{"join":1}', opcode=1))
    with open(os.path.join(d, 'ping_control'), 'wb') as f:
        f.write(HANDSHAKE + ws_frame(b'hi', opcode=9) + ws_frame(join(2, b'w')))


if __name__ == '__main__':
    main()
