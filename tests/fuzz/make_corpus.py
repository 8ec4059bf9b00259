#!/usr/bin/env python3
"""Writes the seed corpus of real encoded messages (tests/fuzz/corpus/). Run from anywhere; the
output is committed, so fuzzing starts from messages a decoder really accepts (and a few it
refuses) instead of from nothing. The encodings are the wire formats of
proto/flockstep/v1/messages.proto and of the bit-packed agent records (docs/protocol.md,
"Quantised delta snapshots"), spelled out by hand so the script needs no protobuf module and no
build. Not the saved worlds of corpus/world_state/: those come from the C++ encoder itself
(FLOCKSTEP_UPDATE_WORLD_STATE_GOLDEN=1 build/release/tests/proto/flockstep_codec_tests
--gtest_filter='WorldState.Golden*', see docs/world-state.md)."""
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


def join(role, name, token=b"", version=3):
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


# ---- snapshots (what a client decodes): codec::decode_agents' bit layout ----
class Bits:
    """codec::BitWriter: MSB first, exp-Golomb codes of order k, signed values zigzag-mapped."""

    def __init__(self):
        self.bits = []

    def put(self, v, n):
        self.bits += [(v >> (n - 1 - i)) & 1 for i in range(n)]

    def ueg(self, u, k):
        x = (u >> k) + 1
        lg = x.bit_length() - 1
        self.put(0, lg)
        self.put(x, lg + 1)
        self.put(u & ((1 << k) - 1), k)

    def seg(self, v, k):
        self.ueg((v << 1) if v >= 0 else ((-v << 1) - 1), k)

    def bytes(self):
        b = self.bits + [0] * (-len(self.bits) % 8)
        return bytes(int(''.join(map(str, b[i:i + 8])), 2) for i in range(0, len(b), 8))


def bits_for(units):
    b = 1
    while (1 << b) <= units:
        b += 1
    return b


# The worlds of the fuzz targets (snapshot_codec_fuzz.cpp kWorlds; the receiver uses 0 and 2).
WORLDS = {0: (120, 120, True), 1: (120, 120, False), 2: (1000, 600, False), 3: (50, 30, True)}
ANGLE_BITS = 10


def new_agent(w, a, prev_id, world):
    """One entering agent (put_new_agent). `a` is a dict of QAgent fields; age = tick - spawn."""
    width, height, _ = WORLDS[world]
    w.ueg(a['id'] - prev_id - 1, 3)
    w.put(a.get('kind', 1), 3)
    w.seg(a.get('group', 0), 0)
    w.seg(a.get('age', 40), 8)
    w.put(a['x'], bits_for(width * 64))
    w.put(a['y'], bits_for(height * 64))
    w.ueg(a.get('speed', 0), 6)
    w.put(a.get('angle', 0), ANGLE_BITS)
    heading = a.get('heading')
    w.put(1 if heading is None else 0, 1)
    if heading is not None:
        w.put(heading, ANGLE_BITS)
    w.put(1 if a.get('angvel') else 0, 1)
    if a.get('angvel'):
        w.seg(a['angvel'], 4)
    aim = a.get('aim')
    w.put(1 if aim else 0, 1)
    if aim:
        w.seg(aim[0], 6)
        w.seg(aim[1], 6)
    w.put(1 if a.get('target') else 0, 1)
    if a.get('target'):
        w.put(a['target'], 32)
    w.put(a.get('state', 0), 4)


def records(world, removed=(), updates=(), dense=False, extras=(), entering=(), orders=(1, 2, 2, 3, 3), aim_order=0):
    """Agent records: removed baseline indices; updates (baseline index, (speed, angle[, heading],
    x, y) residuals); extras (update position, mask, values); entering agents."""
    w = Bits()
    w.ueg(len(removed), 4)
    prev = -1
    for r in removed:
        w.ueg(r - prev - 1, 0)
        prev = r
    for k in orders:
        w.put(k, 5)
    k_gap, k_speed, k_angle, k_heading, k_pos = orders
    w.put(aim_order, 5)  # k_aim
    w.put(0, 1)  # aim prediction: the offset is kept
    w.put(0, 1)  # aim changes in the extras list, not inline in the records
    w.put(1 if dense else 0, 1)
    w.ueg(len(updates), 4)
    prev = -1
    for idx, res in updates:
        if not dense:
            w.ueg(idx - prev - 1, k_gap)
        prev = idx
        w.seg(res[0], k_speed)
        w.seg(res[1], k_angle)
        if len(res) == 5:
            w.seg(res[2], k_heading)
        w.seg(res[-2], k_pos)
        w.seg(res[-1], k_pos)
    w.ueg(len(extras), 4)
    prev = -1
    for pos, mask, values in extras:
        w.ueg(pos - prev - 1, 0)
        prev = pos
        w.put(mask, 6)
        if mask & 16:  # state
            w.put(values['state'], 4)
        if mask & 8:  # target
            w.put(values['target'], 32)
    w.ueg(len(entering), 4)
    prev = -1
    for a in entering:
        new_agent(w, a, prev, world)
        prev = a['id']
    return w.bytes()


def flock(world, n, first_id=1):
    """n agents in a row across the world, moving, one craft-like (heading off its velocity)."""
    width, height, _ = WORLDS[world]
    out = []
    for i in range(n):
        a = {'id': first_id + i * 2, 'x': (i * 997 + 64) % (width * 64), 'y': (i * 613 + 128) % (height * 64),
             'speed': 20 + i, 'angle': (i * 101) % 1024, 'group': i % 3, 'age': 100 + i}
        if i == 1:
            a.update(kind=0, group=-1, heading=300, angvel=-12, aim=(4, -9))
        if i == 2:
            a.update(kind=2, target=1, state=3)
        out.append(a)
    return out


def snapshot_pair(world, n):
    """(full snapshot of n agents, a delta against it): one removed, updates, an extra, a newcomer."""
    agents = flock(world, n)
    full = records(world, entering=agents)
    # Baseline index 1 is the craft (not aligned: its records carry a heading residual).
    updates = [(0, (1, -1, 3, -2))] + ([(1, (0, 2, -1, 5, 5))] if n > 1 else []) + \
        [(i, (0, 0, i % 3 - 1, 1)) for i in range(3, n)]
    extras = [(len(updates) - 1, 16, {'state': 2})] if n > 3 else []
    delta = records(world, removed=[2] if n > 2 else [], updates=updates, extras=extras,
                    entering=[{'id': 2 * n + 10, 'x': 5, 'y': 9, 'speed': 3, 'angle': 7}])
    dense_updates = [(i, (0, 0, 0, 0) if i != 1 else (0, 0, 0, 0, 0)) for i in range(n)]
    dense = records(world, updates=dense_updates, dense=True)
    return full, delta, dense


def pb_delta(server_tick, baseline_tick, agents, count, own=None):
    """ServerMessage{delta_snapshot} (+ the player suffix with the own craft)."""
    body = field_varint(1, server_tick) + field_varint(2, baseline_tick) + field_bytes(4, agents) + \
        field_varint(5, count)
    out = field_bytes(10, body)
    if own is not None:
        vec = lambda x, y: field_double(1, x) + field_double(2, y)  # noqa: E731
        craft = field_varint(1, own) + field_bytes(2, vec(10.5, 20.25)) + field_bytes(3, vec(1, -2)) + \
            field_double(4, 0.5) + field_double(5, 0.1) + field_varint(6, 3)
        out += field_bytes(11, field_varint(1, 7) + field_bytes(4, craft))
    return out


def framed(msgs):
    return b''.join(struct.pack('<H', len(m)) + m for m in msgs)


def snapshot_seeds():
    """Seeds of fuzz_snapshot_codec ([world][gap-1][len A][A][B]) and fuzz_snapshot_receiver
    ([world][len][ServerMessage]...)."""
    codec, receiver = {}, {}
    for world in WORLDS:
        for n in (1, 4, 9):
            full, delta, dense = snapshot_pair(world, n)
            for name, b in (('delta', delta), ('dense', dense)):
                codec['w%d_n%d_%s' % (world, n, name)] = bytes([world, 2]) + struct.pack('<H', len(full)) + full + b
    empty = records(0)
    codec['empty_then_newcomer'] = bytes([0, 0]) + struct.pack('<H', len(empty)) + empty + \
        records(0, entering=[{'id': 1, 'x': 1, 'y': 1}])
    for world in (0, 2):
        rx_world = 0 if world == 0 else 2  # receiver bit 1 = 1000 x 600, bit 0 = wrap
        rx_world |= 1 if WORLDS[world][2] else 0
        full, delta, dense = snapshot_pair(world, 9)
        receiver['w%d_stream' % world] = bytes([rx_world]) + framed([
            pb_delta(1000, 0, full, 9), pb_delta(1003, 1000, delta, 9, own=1),
            pb_delta(1006, 1003, records(world), 9), pb_delta(1009, 1000, dense, 9)])
        receiver['w%d_missing_baseline' % world] = bytes([rx_world]) + framed([
            pb_delta(1000, 0, full, 9), pb_delta(1003, 999, delta, 9), pb_delta(1006, 0, full, 9)])
    receiver['plain_snapshot'] = bytes([1]) + framed([field_bytes(2, field_varint(1, 5) + field_bytes(
        2, field_varint(1, 3) + field_varint(2, 1) + field_bytes(3, field_double(1, 1.5) + field_double(2, 2.5))))])
    return codec, receiver


def main():
    codec, receiver = snapshot_seeds()
    for target, seeds in (('snapshot_codec', codec), ('snapshot_receiver', receiver)):
        d = os.path.join(HERE, 'corpus', target)
        os.makedirs(d, exist_ok=True)
        for name, data in seeds.items():
            with open(os.path.join(d, name), 'wb') as f:
                f.write(data)
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
