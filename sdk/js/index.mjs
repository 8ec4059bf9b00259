// @flockstep/client: a client for Flockstep servers (docs/protocol.md, protocol 3).
//
// This file only moves bytes between a WebSocket and the wasm core (flockstep_core.js, built
// from sdk/js/src/sdk_core.cpp): the core is the project's own C++ codec (envelopes, bit-packed
// delta snapshots, baselines and acks) and the viewer's own-craft prediction, so the SDK has no
// second implementation of either. It also keeps a connection alive: when the socket is lost it
// opens a new one and resumes with the Welcome's token (same craft, same life) after an
// exponential backoff. Types: index.d.ts; usage: README.md. The package's CommonJS and browser
// files are built from this one (scripts/package.mjs).

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
export const PROTOCOL_VERSION = 3;

/**
 * Reconnection policy defaults. Delays grow as initialDelayMs * factor^attempt up to
 * maxDelayMs; a player also stops once its resume window (Welcome.resumeWindowMs) has passed,
 * since the server has released the craft by then.
 */
export const RECONNECT_DEFAULTS = Object.freeze({ enabled: true, initialDelayMs: 100, maxDelayMs: 5000, factor: 2, maxAttempts: 10 });

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** http(s)://host:port/api/rooms for a ws(s):// or http(s):// server URL. */
function roomsUrl(url) {
  const u = new URL(url);
  if (u.protocol === 'ws:') u.protocol = 'http:';
  else if (u.protocol === 'wss:') u.protocol = 'https:';
  else if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`@flockstep/client: not a server URL: ${url}`);
  u.pathname = '/api/rooms';
  u.search = '';
  u.hash = '';
  return u.href;
}

/**
 * The server's rooms (GET /api/rooms): `url` is the WebSocket URL (`ws://host:port/ws`) or the
 * server's http(s) address. Resolves with { defaultRoom, maxRooms, rooms: RoomInfo[] }.
 * @param {string} url
 * @param {{ fetch?: typeof fetch }} [options]
 */
export async function listRooms(url, options = {}) {
  const doFetch = options.fetch ?? globalThis.fetch;
  if (typeof doFetch !== 'function') throw new Error('@flockstep/client: no fetch() (node >= 18 or a browser)');
  const href = roomsUrl(url);
  const res = await doFetch(href);
  if (!res.ok) throw new Error(`@flockstep/client: GET ${href}: HTTP ${res.status}`);
  const j = await res.json();
  if (!j || !Array.isArray(j.rooms)) throw new Error(`@flockstep/client: GET ${href}: not a room list`);
  return {
    defaultRoom: String(j.default ?? ''),
    maxRooms: Number(j.max_rooms ?? 0),
    rooms: j.rooms.map((r) => ({
      name: String(r.name), title: String(r.title ?? ''), description: String(r.description ?? ''),
      running: Boolean(r.running), players: Number(r.players ?? 0), spectators: Number(r.spectators ?? 0),
      agents: Number(r.agents ?? 0), tick: Number(r.tick ?? 0),
    })),
  };
}

/**
 * Open a WebSocket to a Flockstep server (`ws://host:port/ws`) and load the wasm core.
 * Resolves once the socket is open; then call join().
 * @param {string} url
 * @param {{ WebSocket?: any, reconnect?: boolean | Partial<typeof RECONNECT_DEFAULTS> }} [options]
 * @returns {Promise<FlockstepClient>}
 */
export async function connect(url, options = {}) {
  const [module, WS] = await Promise.all([loadCore(), options.WebSocket ?? webSocketClass()]);
  if (module.protocolVersion !== PROTOCOL_VERSION)
    throw new Error(`@flockstep/client: wasm core speaks protocol ${module.protocolVersion}, index.mjs ${PROTOCOL_VERSION}`);
  const policy = options.reconnect === false ? { ...RECONNECT_DEFAULTS, enabled: false }
    : { ...RECONNECT_DEFAULTS, ...(typeof options.reconnect === 'object' ? options.reconnect : {}) };
  const core = new module.Core();
  // The backoff, the attempts, the resume window and which refusals are final: the core's
  // ReconnectPolicy (client/core), with these numbers.
  core.setReconnectPolicy(policy.initialDelayMs, policy.factor, policy.maxDelayMs, Math.max(1, policy.maxAttempts));
  const client = new FlockstepClient(url, WS, core, policy);
  await client._open();
  return client;
}

/**
 * One client: a connection to a server that is reopened and resumed when it is lost.
 * Events: welcome, snapshot, events, groupUpdate, steeringTrace, pong, reconnecting, reconnected,
 * close, error.
 */
export class FlockstepClient {
  #url;
  #WS;
  #ws = null;
  #core;
  #policy;
  #listeners = new Map();
  #joinOptions = null;  // what join() was called with (a reconnect sends it again)
  #welcome = null;
  #live = false;        // the current socket has its Welcome
  #snapshot = null;
  #closed = null;
  #userClosed = false;
  #serverClose = null;  // the server's Close message on the current socket
  #join = null;         // { resolve, reject } while waiting for a Welcome
  #pings = [];          // { resolve, reject } of ping(), oldest first
  #reconnecting = null; // promise of the running reconnection
  #lostAt = 0;

  /** Use connect(). */
  constructor(url, WS, core, policy) {
    this.#url = url;
    this.#WS = WS;
    this.#core = core;
    this.#policy = policy;
  }

  /** Opens a new socket (connect() and reconnections); resolves once it is open. */
  _open() {
    const ws = new this.#WS(this.#url);
    ws.binaryType = 'arraybuffer';
    this.#ws = ws;
    this.#live = false;
    this.#serverClose = null;
    return new Promise((resolve, reject) => {
      ws.onopen = () => {
        ws.onerror = (ev) => { if (ws === this.#ws) this.#emit('error', new Error(ev?.message ?? 'WebSocket error')); };
        ws.onclose = (ev) => this.#onClose(ws, ev.code, ev.reason);
        ws.onmessage = (ev) => { if (ws === this.#ws) this.#onMessage(ev.data); };
        resolve();
      };
      ws.onerror = (ev) => reject(new Error(`@flockstep/client: cannot connect to ${this.#url}: ${ev?.message ?? ev?.error?.message ?? 'error'}`));
    });
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

  /** The Welcome of the current connection (null before join() resolved). */
  get welcome() { return this.#welcome; }
  /** The newest decoded snapshot (null before the first). */
  get lastSnapshot() { return this.#snapshot; }
  /** Why the client ended (null while it is connected or reconnecting). */
  get closed() { return this.#closed; }
  /** True while a lost connection is being reopened. */
  get reconnecting() { return this.#reconnecting !== null; }
  /** Players: the predicted own craft after the newest sendInput(); null otherwise. */
  get prediction() { return this.#closed ? null : this.#core.prediction(); }

  /**
   * Join as a player (gets a craft) or spectator, in `room` (scenario name; '' = the default room).
   * Spectators may pass `view` (world rectangle): only the agents inside it are streamed.
   * Resolves with the Welcome; rejects with the server's reason when it refuses (unknown room,
   * room full, bad name, ...): the error's `close` field is the CloseInfo.
   */
  join({ role, name, room = '', view = null }) {
    if (this.#closed) return Promise.reject(new Error(`@flockstep/client: connection closed: ${this.#closed.reason}`));
    if (this.#join || this.#joinOptions) return Promise.reject(new Error('@flockstep/client: join() once per client'));
    const bytes = this.#core.join(String(role), String(name), String(room), '');
    if (!bytes) return Promise.reject(new Error(`@flockstep/client: role must be 'player' or 'spectator', got ${role}`));
    if (view) this.setView(view);
    this.#joinOptions = { role: String(role), name: String(name), room: String(room) };
    return this.#sendJoin(bytes);
  }

  /**
   * Players: this tick's control, turn in [-1, 1] (+1 full right), throttle in [0, 1] (clamped).
   * Call it once per simulation tick (welcome.tickRateHz): each call steps the own-craft
   * prediction one tick and sends every input the server has not acknowledged yet (a lost
   * message costs nothing). Returns the input's sequence number, or 0 when not a joined player
   * on an open connection (closed, or reconnecting).
   */
  sendInput({ turn = 0, throttle = 0 } = {}) {
    if (this.#closed || !this.#live) return 0;
    const r = this.#core.input(Number(turn), Number(throttle));
    if (!r) return 0;
    if (r.reply) this.#send(r.reply);
    return r.sequence;
  }

  /**
   * Spectators: receive only the agents inside this rectangle (world metres), from the next
   * acknowledged snapshot on; kept until replaced, and sent again after a reconnection. Throws
   * for players (their area is the circle around the craft) and for rectangles the server would
   * refuse (NaN/Inf, min > max).
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
    this.#send(bytes);
  }

  /** Round trip to the server: resolves with { rttMs, serverTick }; rejects if the connection closes first. */
  ping() {
    if (this.#closed || this.#userClosed) return Promise.reject(new Error('@flockstep/client: connection closed'));
    if (!this.#ws || this.#ws.readyState !== 1) return Promise.reject(new Error('@flockstep/client: not connected (reconnecting)'));
    const bytes = this.#core.ping(Date.now() * 1000);
    return new Promise((resolve, reject) => {
      this.#pings.push({ resolve, reject });
      this.#send(bytes);
    });
  }

  /** The rooms of this client's server (see listRooms()). */
  listRooms() { return listRooms(this.#url); }

  /**
   * Drop the current connection and open a new one now, resuming with the Welcome's token (a
   * player gets the same craft back within the resume window). Resolves with the new Welcome.
   * Also revives a client whose automatic reconnection gave up.
   */
  reconnect() {
    if (this.#userClosed) return Promise.reject(new Error('@flockstep/client: closed by close()'));
    if (!this.#joinOptions || !this.#welcome) return Promise.reject(new Error('@flockstep/client: reconnect() needs a joined client'));
    if (this.#reconnecting) return this.#reconnecting;
    const old = this.#ws;
    this.#ws = null;  // its close event is no longer ours
    this.#live = false;
    this.#rejectPings('reconnecting');
    this.#closed = null;
    // Let the old socket finish closing first (at most a second), so the server has usually
    // released the craft when the resume arrives; a "token in use" answer is retried anyway.
    const gone = !old || old.readyState === 3 ? Promise.resolve() : new Promise((resolve) => {
      const t = setTimeout(resolve, 1000);
      old.onclose = () => { clearTimeout(t); resolve(); };
      try {
        old.close(4000, 'reconnect');
      } catch {
        resolve();  // already closed
      }
    });
    this.#reconnecting = gone.then(() => {
      this.#reconnecting = null;
      return this.#runReconnect({ code: 'connection_lost', reason: 'reconnect()', wsCode: 4000 }, true);
    });
    return this.#reconnecting;
  }

  /** Leave: a Close message, then the WebSocket close. The close event follows. */
  close() {
    if (this.#closed || this.#userClosed) return;
    this.#userClosed = true;
    this.#rejectPings('closed by the client');  // no answer is read after close()
    const ws = this.#ws;
    if (!ws || ws.readyState !== 1) {
      this.#finish({ code: 'normal', reason: 'closed by the client', wsCode: 1000 });
      return;
    }
    try {
      ws.send(this.#core.leave());
    } catch {
      // already closing
    }
    ws.close(1000);
  }

  #send(bytes) {
    if (this.#ws && this.#ws.readyState === 1) this.#ws.send(bytes);
  }

  #sendJoin(bytes) {
    return new Promise((resolve, reject) => {
      this.#join = { resolve, reject };
      this.#send(bytes);
    });
  }

  #emit(type, value) {
    for (const fn of [...(this.#listeners.get(type) ?? [])]) fn(value);
  }

  #rejectPings(why) {
    const pending = this.#pings;
    this.#pings = [];
    for (const p of pending) p.reject(new Error(`@flockstep/client: ping lost: ${why}`));
  }

  #onMessage(data) {
    if (this.#closed) return;
    const r = this.#core.receive(data);
    if (r.reply) this.#send(r.reply);
    switch (r.type) {
      case 'welcome':
        this.#welcome = r.welcome;
        this.#live = true;
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
        this.#pings.shift()?.resolve(info);
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

  #onClose(ws, wsCode, wsReason) {
    if (ws !== this.#ws || this.#closed) return;
    this.#live = false;
    const reason = this.#serverClose?.reason || String(wsReason ?? '') || `WebSocket closed (${wsCode})`;
    const code = this.#serverClose?.code ?? (this.#userClosed ? 'normal' : 'connection_lost');
    const info = { code, reason, wsCode };
    this.#rejectPings(reason);
    // Reconnect only what was lost on the way: not a close the client asked for, not a server
    // refusal that a new connection would get again (the core's reconnect policy names those, the
    // same rule the viewer's core applies), not a join that never got its Welcome.
    const lost = !this.#userClosed && !this.#core.isFinalClose(code, reason) && this.#welcome && !this.#join;
    if (lost && this.#policy.enabled && !this.#reconnecting) {
      this.#runReconnect(info, false).catch(() => {});  // the close event reports a failure
      return;
    }
    if (this.#reconnecting) return;  // the running reconnection decides
    this.#finish(info);
  }

  /** Final close: reject what waits, free the core (unless it may be revived), emit close. */
  #finish(info) {
    if (this.#closed) return;
    this.#closed = info;
    this.#live = false;
    this.#rejectPings(info.reason);
    if (this.#join) {
      const err = new Error(`@flockstep/client: join refused (${info.code}): ${info.reason}`);
      err.close = info;
      this.#join.reject(err);
      this.#join = null;
    }
    // A lost connection can still be revived with reconnect(): keep the core for it.
    if (info.code !== 'connection_lost' || this.#userClosed) this.#core.delete();
    this.#emit('close', info);
  }

  /**
   * Open new sockets until one is resumed (resolves with its Welcome), waiting
   * initialDelayMs * factor^attempt (at most maxDelayMs) between tries; gives up after
   * maxAttempts tries, after a player's resume window, or when the server refuses the resume.
   */
  #runReconnect(lost, immediate) {
    const run = async () => {
      this.#lostAt = Date.now();
      const windowMs = this.#joinOptions.role === 'player' ? this.#welcome.resumeWindowMs : 0;  // 0: unbounded
      let last = lost;
      for (let attempt = 0; ; ++attempt) {
        // The core's policy decides: attempts left, the delay, the resume window, a final refusal
        // (a "resume token in use" answer is retried: the server may not have seen the old
        // connection end yet).
        const plan = this.#core.reconnectPlan(attempt, last.code, last.reason, Date.now() - this.#lostAt, windowMs);
        if (!plan.retry) break;
        const delayMs = immediate && attempt === 0 ? 0 : plan.delayMs;
        this.#emit('reconnecting', { attempt: attempt + 1, delayMs, lost: last });
        if (delayMs > 0) await sleep(delayMs);
        if (this.#userClosed) throw new Error('@flockstep/client: closed by close()');
        try {
          await this._open();
        } catch (err) {
          last = { code: 'connection_lost', reason: err.message, wsCode: 1006 };
          continue;
        }
        const o = this.#joinOptions;
        const token = o.role === 'player' ? this.#welcome.resumeToken : '';
        const ws = this.#ws;
        const closed = ws.onclose;
        const outcome = await new Promise((resolve) => {
          this.#join = { resolve: (welcome) => resolve({ welcome }), reject: (err) => resolve({ err }) };
          // Until the Welcome, a close of this socket ends this attempt (not the client).
          ws.onclose = (ev) => {
            ws.onclose = closed;
            const code = this.#serverClose?.code ?? 'connection_lost';
            const info = { code, reason: this.#serverClose?.reason || String(ev.reason ?? '') || `WebSocket closed (${ev.code})`, wsCode: ev.code };
            if (ws === this.#ws && this.#join) {
              this.#join = null;
              resolve({ closed: info });
            }
            closed?.(ev);
          };
          this.#send(this.#core.join(o.role, o.name, o.room, token));
        });
        ws.onclose = closed;
        if (outcome.welcome) {
          this.#emit('reconnected', outcome.welcome);
          return outcome.welcome;
        }
        last = outcome.closed ?? { code: 'connection_lost', reason: outcome.err?.message ?? 'no welcome', wsCode: 1006 };
      }
      throw Object.assign(new Error(`@flockstep/client: reconnection failed (${last.code}): ${last.reason}`), { close: last });
    };
    this.#reconnecting = run().then(
      (welcome) => { this.#reconnecting = null; return welcome; },
      (err) => {
        this.#reconnecting = null;
        this.#finish(err.close ?? { code: 'normal', reason: err.message, wsCode: 1000 });
        throw err;
      });
    return this.#reconnecting;
  }
}
