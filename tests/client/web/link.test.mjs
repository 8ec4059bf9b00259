// The links to a moment (client/web/link.js): what a query string opens, what a Link control
// writes, and that the two agree. Plain node, no browser: node --test tests/client/web/link.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { kMaxAgentId, kMaxRoomNameBytes, momentLink, parseMoment } from '../../../client/web/link.js';

const BASE = 'http://127.0.0.1:8080/index.html?spectate=1#room=arena';

test('a recording at a tick, following an agent with the inspector open', () => {
  const m = parseMoment('?replay=%2Frec%2Farena.fsrec&tick=1234&follow=77&inspect=1');
  assert.deepEqual(m, { replay: '/rec/arena.fsrec', room: null, tick: 1234, follow: 77, inspect: true, errors: [] });
});

test('a live room following an agent', () => {
  const m = parseMoment('?room=gallery&follow=5');
  assert.deepEqual(m, { replay: null, room: 'gallery', tick: null, follow: 5, inspect: false, errors: [] });
});

test('nothing asked: nothing opened, no error', () => {
  assert.deepEqual(parseMoment(''), { replay: null, room: null, tick: null, follow: null, inspect: false, errors: [] });
});

test('bad values are named and ignored; the rest still opens', () => {
  for (const [q, field] of [
    ['tick=-1', 'tick'], ['tick=1e3', 'tick'], ['tick=0x10', 'tick'], ['tick=12.5', 'tick'], ['tick=', 'tick'],
    ['tick=99999999999999999', 'tick'],
    ['follow=0', 'follow'], ['follow=abc', 'follow'], [`follow=${kMaxAgentId + 1}`, 'follow'],
    ['inspect=yes', 'inspect'],
  ]) {
    const m = parseMoment(`?replay=a.fsrec&${q}`);
    assert.equal(m.replay, 'a.fsrec', q);
    assert.equal(m.errors.length, 1, `${q}: ${JSON.stringify(m.errors)}`);
    assert.ok(m.errors[0].startsWith(field + ':'), `${q}: ${m.errors[0]}`);
    assert.equal(m[field === 'inspect' ? 'tick' : field], null, q);
  }
  const long = parseMoment(`?room=${'r'.repeat(kMaxRoomNameBytes + 1)}&follow=3`);
  assert.equal(long.room, null);
  assert.equal(long.follow, 3);
  assert.match(long.errors[0], /^room:/);
  // 22 three-byte characters are 66 bytes: over the wire's limit though only 22 characters.
  assert.equal(parseMoment(`?room=${encodeURIComponent('€'.repeat(22))}`).room, null);
  assert.equal(parseMoment('?replay=').errors[0], 'replay: empty recording address');
});

test('a tick without a recording is refused: a live room has no tick to open at', () => {
  const m = parseMoment('?room=arena&tick=10');
  assert.equal(m.room, 'arena');
  assert.equal(m.tick, null);
  assert.match(m.errors[0], /^tick: only a recording/);
});

test('the largest valid values pass', () => {
  const m = parseMoment(`?replay=x&tick=${Number.MAX_SAFE_INTEGER}&follow=${kMaxAgentId}&inspect=0`);
  assert.equal(m.tick, Number.MAX_SAFE_INTEGER);
  assert.equal(m.follow, kMaxAgentId);
  assert.equal(m.inspect, false);
  assert.deepEqual(m.errors, []);
});

test('a link drops the page\'s own query and hash, and round-trips', () => {
  const moments = [
    { replay: '/api/admin/recordings/arena-1.fslog', tick: 0, follow: 12, inspect: true },
    { replay: 'https://example.org/a b&c.fsrec?x=1', tick: 600, follow: 0, inspect: false },
    { room: 'slides_hide', follow: 4294967295, inspect: true },
    { room: 'café & co', follow: 9, inspect: false },
  ];
  for (const m of moments) {
    const link = momentLink(BASE, m);
    const u = new URL(link);
    assert.equal(u.origin + u.pathname, 'http://127.0.0.1:8080/index.html');
    assert.equal(u.hash, '');
    assert.ok(!u.searchParams.has('spectate'), link);
    const back = parseMoment(u.search);
    assert.deepEqual(back.errors, [], link);
    assert.equal(back.replay, m.replay || null, link);
    assert.equal(back.room, m.room || null, link);
    assert.equal(back.tick, m.replay ? m.tick : null, link);
    assert.equal(back.follow, m.follow || null, link);
    assert.equal(back.inspect, !!(m.follow && m.inspect), link);
  }
});

test('inspect without an agent is not written; a link needs a recording or a room', () => {
  assert.equal(new URL(momentLink(BASE, { room: 'arena', follow: 0, inspect: true })).search, '?room=arena');
  assert.throws(() => momentLink(BASE, { follow: 3 }), /needs a recording/);
});
