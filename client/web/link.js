// Share a moment: the page's address that opens a recording at a tick, following an agent with
// the inspector open, or a live room following an agent. The one place that reads and writes
// these parameters: viewer-glue.js opens what parseMoment finds, and the "Link" controls (replay
// bar, inspector) write it with momentLink. Pure functions of strings, so node tests them
// (tests/client/web/link.test.mjs) without a browser.
//
//   ?replay=URL&tick=N&follow=ID&inspect=1   a recording (snapshots or an input log) at tick N
//   ?room=NAME&follow=ID&inspect=1           a live room, spectated, following agent ID

/** Agent ids are 32-bit on the wire (a generational handle, never 0). */
export const kMaxAgentId = 0xffffffff;
/** Ticks are integer counters; above 2^53 a JS number stops counting them exactly. */
export const kMaxTick = Number.MAX_SAFE_INTEGER;
/** Join.room's limit on the wire (proto/flockstep/v1/messages.proto), UTF-8 bytes. */
export const kMaxRoomNameBytes = 64;

// A whole number in [min, max] written in decimal digits only ("12", not "1e3", "0x1f" or "-0").
function wholeNumber(text, min, max) {
  if (!/^\d{1,16}$/.test(text)) return null;
  const v = Number(text);
  return v >= min && v <= max ? v : null;
}

/**
 * The moment a query string asks for: { replay, room, tick, follow, inspect, errors }.
 * replay / room: null when absent; tick / follow: null when absent or invalid; inspect: boolean.
 * Every parameter that is present but invalid is named in `errors` (and ignored), so a mistyped
 * link still opens what it can and says what it could not.
 */
export function parseMoment(search) {
  const p = new URLSearchParams(search);
  const m = { replay: null, room: null, tick: null, follow: null, inspect: false, errors: [] };
  if (p.has('replay')) {
    const url = p.get('replay').trim();
    if (url) m.replay = url;
    else m.errors.push('replay: empty recording address');
  }
  if (p.has('room')) {
    const room = p.get('room').trim();
    if (room && new TextEncoder().encode(room).length <= kMaxRoomNameBytes) m.room = room;
    else m.errors.push(`room: a name of 1-${kMaxRoomNameBytes} bytes expected, got "${room.slice(0, 80)}"`);
  }
  if (p.has('tick')) {
    m.tick = wholeNumber(p.get('tick'), 0, kMaxTick);
    if (m.tick === null) m.errors.push(`tick: a whole number >= 0 expected, got "${p.get('tick').slice(0, 40)}"`);
    else if (!m.replay) {
      m.errors.push('tick: only a recording (replay=) has ticks to open at');
      m.tick = null;
    }
  }
  if (p.has('follow')) {
    m.follow = wholeNumber(p.get('follow'), 1, kMaxAgentId);
    if (m.follow === null) m.errors.push(`follow: an agent id 1-${kMaxAgentId} expected, got "${p.get('follow').slice(0, 40)}"`);
  }
  if (p.has('inspect')) {
    const v = p.get('inspect');
    if (v === '1' || v === '0') m.inspect = v === '1';
    else m.errors.push(`inspect: 0 or 1 expected, got "${v.slice(0, 40)}"`);
  }
  return m;
}

/**
 * The link to a moment, on `base` (the page's address; its own query and hash are dropped).
 * moment: { replay } or { room }, with optional tick (replays), follow (agent id, 0 = none) and
 * inspect. Throws when neither a recording nor a room is given: there is nothing to open.
 */
export function momentLink(base, moment) {
  const u = new URL(base);
  u.search = '';
  u.hash = '';
  const p = new URLSearchParams();
  if (moment.replay) {
    p.set('replay', moment.replay);
    if (Number.isInteger(moment.tick) && moment.tick >= 0) p.set('tick', String(moment.tick));
  } else if (moment.room) {
    p.set('room', moment.room);
  } else {
    throw new Error('a link to a moment needs a recording (replay) or a room');
  }
  if (moment.follow) p.set('follow', String(moment.follow));
  if (moment.follow && moment.inspect) p.set('inspect', '1');
  u.search = p.toString();
  return u.toString();
}
