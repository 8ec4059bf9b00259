// @flockstep/client: a client for Flockstep servers (docs/protocol.md, protocol 2).
//
// This file only moves bytes between a WebSocket and the wasm core (flockstep_core.js, built
// from sdk/js/src/sdk_core.cpp): the core is the project's own C++ codec (envelopes, bit-packed
// delta snapshots, baselines and acks) and the viewer's own-craft prediction, so the SDK has no
// second implementation of either. Types: index.d.ts; usage: README.md.

let corePromise = null;

/** The wasm module, instantiated once per process (page) and shared by every client. */
function loadCore() {
  corePromise ??= import('./flockstep_core.js').then((m) => (m.default ?? m)());
  return corePromise;
}

/** node: the `ws` package (node 20 has no global WebSocket); browsers: the global one. */
async function webSocketClass() {
  if (typeof process !== 'undefined' && process.versions?.node) {
    try {
      return (await import('ws')).default;
    } catch {
      // fall through to a global WebSocket (node >= 22)
    }
  }
  if (typeof globalThis.WebSocket === 'function') return globalThis.WebSocket;
  throw new Error('@flockstep/client: no WebSocket implementation (npm install ws)');
}

/** The protocol this SDK speaks (Join.protocol_version); the server refuses any other. */
export const PROTOCOL_VERSION = 2;

/**
 * Open a WebSocket to a Flockstep server (`ws://host:port/ws`) and load the wasm core.
 * Resolves once the socket is open; then call join().
 * @param {string} url
 * @param {{ WebSocket?: any }} [options] another WebSocket class (tests, proxies)
 * @returns {Promise<FlockstepClient>}
 */
export async function connect(url, options = {}) {
  const [module, WS] = await Promise.all([loadCore(), options.WebSocket ?? webSocketClass()]);
  if (module.protocolVersion !== PROTOCOL_VERSION)
    throw new Error(`@flockstep/client: wasm core speaks protocol ${module.protocolVersion}, index.mjs ${PROTOCOL_VERSION}`);
  const ws = new WS(url);
  ws.binaryType = 'arraybuffer';
  await new Promise((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = (ev) => reject(new Error(`@flockstep/client: cannot connect to ${url}: ${ev?.message ?? ev?.error?.message ?? 'error'}`));
  });
  return new FlockstepClient(ws, new module.Core());
}

/** One connection. Events: welcome, snapshot, events, groupUpdate, steeringTrace, pong, close, error. */
export class FlockstepClient {
  #ws;
  #core;
  #listeners = new Map();
  #welcome = null;
  #snapshot = null;
  #closed = null;
  #serverClose = null;
  #join = null;  // { resolve, reject } while waiting for the Welcome
  #pings = [];   // resolvers of ping()

  constructor(ws, core) {
    this.#ws = ws;
    this.#core = core;
    ws.onmessage = (ev) => this.#onMessage(ev.data);
    ws.onclose = (ev) => this.#onClose(ev.code, ev.reason);
    ws.onerror = (ev) => this.#emit('error', new Error(ev?.message ?? 'WebSocket error'));
  }

  /** Subscribe to an event; returns a function that unsubscribes. */
  on(type, fn) {
    if (!this.#listeners.has(type)) this.#listeners.set(type, new Set());
    this.#listeners.get(type).add(fn);
    return () => this.off(type, fn);
  }
  off(type, fn) { this.#listeners.get(type)?.delete(fn); }
  once(type, fn) {
    const off = this.on(type, (v) => { off(); fn(v); });
    return off;
  }

  /** The Welcome of this connection (null before join() resolved). */
  get welcome() { return this.#welcome; }
  /** The newest decoded snapshot (null before the first). */
  get lastSnapshot() { return this.#snapshot; }
  /** Why the connection ended (null while open). */
  get closed() { return this.#closed; }
  /** Players: the predicted own craft after the newest sendInput(); null otherwise. */
  get prediction() { return this.#closed ? null : this.#core.prediction(); }

  /**
   * Join as a player (gets a craft) or spectator, in `room` (scenario name; '' = the default room).
   * Resolves with the Welcome; rejects with the server's reason when it refuses (unknown room,
   * room full, bad name, ...): the error's `close` field is the CloseInfo.
   */
  join({ role, name, room = '' }) {
    if (this.#closed) return Promise.reject(new Error(`@flockstep/client: connection closed: ${this.#closed.reason}`));
    if (this.#join || this.#welcome) return Promise.reject(new Error('@flockstep/client: join() once per connection'));
    const bytes = this.#core.join(String(role), String(name), String(room));
    if (!bytes) return Promise.reject(new Error(`@flockstep/client: role must be 'player' or 'spectator', got ${role}`));
    return new Promise((resolve, reject) => {
      this.#join = { resolve, reject };
      this.#ws.send(bytes);
    });
  }

  /**
   * Players: this tick's control, turn in [-1, 1] (+1 full right), throttle in [0, 1] (clamped).
   * Call it once per simulation tick (welcome.tickRateHz): each call steps the own-craft
   * prediction one tick and sends every input the server has not acknowledged yet (a lost
   * message costs nothing). Returns the input's sequence number, or 0 when not a joined player.
   */
  sendInput({ turn = 0, throttle = 0 } = {}) {
    if (this.#closed || !this.#welcome) return 0;
    const r = this.#core.input(Number(turn), Number(throttle));
    if (!r) return 0;
    if (r.reply) this.#ws.send(r.reply);
    return r.sequence;
  }

  /**
   * Spectators: receive only the agents inside this rectangle (world metres), from the next
   * acknowledged snapshot on; kept until replaced. Throws for players (their area is the circle
   * around the craft) and for rectangles the server would refuse (NaN/Inf, min > max).
   */
  setView({ min, max }) {
    if (this.#closed) return;
    if (!this.#core.setView(Number(min.x), Number(min.y), Number(max.x), Number(max.y)))
      throw new Error('@flockstep/client: setView needs a spectator and a finite rectangle with min <= max');
  }

  /**
   * Ask for agent `agentId`'s per-behaviour steering breakdown: a `steeringTrace` event follows
   * with each snapshot (the server's own numbers for that tick); 0 stops. One agent per
   * connection; a room traces at most 16 (beyond that one trace with available = false).
   */
  inspect(agentId) {
    if (this.#closed || !this.#welcome) return;
    const bytes = this.#core.inspect(Number(agentId));
    if (!bytes) throw new Error(`@flockstep/client: inspect needs an agent id (uint32), got ${agentId}`);
    this.#ws.send(bytes);
  }

  /** Round trip to the server: resolves with { rttMs, serverTick }. */
  ping() {
    if (this.#closed) return Promise.reject(new Error('@flockstep/client: connection closed'));
    const bytes = this.#core.ping(Date.now() * 1000);
    this.#ws.send(bytes);
    return new Promise((resolve) => this.#pings.push(resolve));
  }

  /** Leave: a Close message, then the WebSocket close. The close event follows. */
  close() {
    if (this.#closed) return;
    try {
      this.#ws.send(this.#core.leave());
    } catch {
      // already closing
    }
    this.#ws.close(1000);
  }

  #emit(type, value) {
    for (const fn of [...(this.#listeners.get(type) ?? [])]) fn(value);
  }

  #onMessage(data) {
    if (this.#closed) return;
    const r = this.#core.receive(data);
    if (r.reply) this.#ws.send(r.reply);
    switch (r.type) {
      case 'welcome':
        this.#welcome = r.welcome;
        this.#join?.resolve(r.welcome);
        this.#join = null;
        this.#emit('welcome', r.welcome);
        break;
      case 'snapshot':
        r.snapshot.bytes = data.byteLength;
        this.#snapshot = r.snapshot;
        this.#emit('snapshot', r.snapshot);
        break;
      case 'events':
        this.#emit('events', r.events);
        break;
      case 'group_update':
        this.#emit('groupUpdate', { serverTick: r.serverTick, group: r.group, name: r.name, count: r.count });
        break;
      case 'steering_trace':
        this.#emit('steeringTrace', r.trace);
        break;
      case 'close':
        this.#serverClose = { code: r.code, reason: r.reason };
        break;
      case 'pong': {
        const info = { rttMs: Date.now() - r.echoTimeUs / 1000, serverTick: r.serverTick };
        this.#pings.shift()?.(info);
        this.#emit('pong', info);
        break;
      }
      case 'error': {
        const err = new Error(`@flockstep/client: ${r.detail}`);
        if (this.#join) {
          // An undecodable Welcome: nothing of this connection can be trusted.
          this.#join.reject(err);
          this.#join = null;
          this.#ws.close(1000);
        }
        this.#emit('error', err);
        break;
      }
      default:  // ping (answered above), baseline_missing (acked 0 above), stale
        break;
    }
  }

  #onClose(wsCode, wsReason) {
    if (this.#closed) return;
    const reason = this.#serverClose?.reason || String(wsReason ?? '') || `WebSocket closed (${wsCode})`;
    const code = this.#serverClose?.code ?? (wsCode === 1000 ? 'normal' : 'connection_lost');
    this.#closed = { code, reason, wsCode };
    this.#core.delete();
    if (this.#join) {
      const err = new Error(`@flockstep/client: join refused (${code}): ${reason}`);
      err.close = this.#closed;
      this.#join.reject(err);
      this.#join = null;
    }
    this.#emit('close', this.#closed);
  }
}
