// Type declarations of @flockstep/client (index.mjs). Units: metres, seconds, radians (CCW from +x).

/** The protocol this SDK speaks (Join.protocol_version). */
export const PROTOCOL_VERSION: 2;

export interface Vec2 {
  x: number;
  y: number;
}

export type Role = 'player' | 'spectator';
export type AgentKind = 'player' | 'flock' | 'pursuer' | 'patrol' | 'wanderer';
export type BehaviourState =
  | 'none' | 'seeking' | 'intercepting' | 'los_fallback' | 'fleeing' | 'avoiding' | 'patrolling' | 'hiding' | 'captured';
/** Close.Code of the server, or 'connection_lost' when the socket ended without one. */
export type CloseCode =
  | 'normal' | 'shutdown' | 'malformed' | 'too_big' | 'rate_limited' | 'too_slow' | 'room_full' | 'timeout'
  | 'bad_resume' | 'unknown_room' | 'unspecified' | 'connection_lost';

export interface WorldInfo {
  name: string;
  description: string;
  width: number;
  height: number;
  /** Torus world: positions wrap at the borders. */
  wrap: boolean;
  tickRateHz: number;
  obstacles: Array<Vec2 & { radius: number }>;
  walls: Array<{ a: Vec2; b: Vec2 }>;
  /** Behaviour groups (Agent.group indexes this array). */
  groups: Array<{ name: string; technique: string; count: number }>;
}

export interface Welcome {
  playerId: number;
  /** The craft's agent id; 0 for spectators. */
  entityId: number;
  role: Role;
  tickRateHz: number;
  snapshotRateHz: number;
  serverTick: number;
  resumeToken: Uint8Array;
  resumeWindowMs: number;
  maxInputFrames: number;
  room: string;
  protocolVersion: number;
  world: WorldInfo;
}

/** One agent, dequantised (the own craft exact). */
export interface Agent {
  id: number;
  kind: AgentKind;
  /** Index into WorldInfo.groups; -1 for players. */
  group: number;
  position: Vec2;
  velocity: Vec2;
  heading: number;
  angularVelocity: number;
  /** Agent it chases or follows; 0 = none. */
  targetId: number;
  /** Point it steers to (intercept point, hiding spot, waypoint, wander target). */
  aim: Vec2;
  state: BehaviourState;
  spawnTick: number;
}

export interface CraftState {
  position: Vec2;
  velocity: Vec2;
  heading: number;
  angularVelocity: number;
}

/** What the newest snapshot did to the own-craft prediction (players). */
export interface PredictionReport {
  /** The server's input was still buffered and the prediction was compared with it. */
  compared: boolean;
  /** Compared, and the bits differed: a misprediction (replayed from the server's state). */
  corrected: boolean;
  /** Position difference at that input, m. */
  errorM: number;
  /** Inputs replayed on top of the server's state. */
  replayed: number;
  /** The craft respawned (captured): not compared. */
  respawned: boolean;
  /** Mispredictions so far. */
  corrections: number;
  /** Predicted craft after the newest input. */
  state: CraftState | null;
}

export interface Snapshot {
  serverTick: number;
  /** Tick of the snapshot this one was coded against; 0 = a full snapshot. */
  baselineTick: number;
  /** sim state hash (decimal string) once per second, else null. */
  stateHash: string | null;
  /** Players: newest input the server applied. */
  lastInputSequence: number;
  inputHeldTicks: number;
  inputSlips: number;
  /** Every agent in this client's area of interest, sorted by id. */
  agents: Agent[];
  /** Players: the own craft (server state, exact); null for spectators or while not in the world. */
  own: Agent | null;
  /** Players with a craft in view: the reconciliation of the prediction. */
  prediction?: PredictionReport;
  /** Size of the frame on the wire, bytes. */
  bytes: number;
}

export interface Events {
  serverTick: number;
  captures: Array<{ playerId: number; entityId: number; pursuerId: number; tick: number; survivedTicks: number }>;
  respawns: Array<{ playerId: number; entityId: number; tick: number }>;
  scores: Array<{ playerId: number; displayName: string; aliveTicks: number; bestTicks: number; captures: number; bot: boolean }>;
  presence: Array<{ playerId: number; entityId: number; displayName: string; joined: boolean; bot: boolean }>;
}

export interface GroupUpdate {
  serverTick: number;
  group: number;
  name: string;
  count: number;
}

/** One behaviour's part of a SteeringTrace: its raw output before the weight. */
export interface BehaviourOutput {
  /** Scenario-file name ("separation", "dynamic_seek", ...). */
  type: string;
  weight: number;
  /** It produced an output this step (false: skipped by the combiner, or nothing to say). */
  evaluated: boolean;
  /** N (vehicle model) or m/s^2 (steering model). */
  linear: Vec2;
  /** rad/s^2. */
  angular: number;
}

/** An inspected agent's steering in one step, as the server computed it (inspect()). */
export interface SteeringTrace {
  /** The snapshot tick this step produced. */
  serverTick: number;
  agentId: number;
  /** WorldSpec group index; -1: the agent is gone. */
  group: number;
  /** false: the room traces its 16 agents already; nothing else is set. */
  available: boolean;
  /** The group's composition order; empty for one-controller models (craft, tile, kinematic). */
  behaviours: BehaviourOutput[];
  /** The combined steering (same unit as the behaviours'). */
  linear: Vec2;
  angular: number;
}

export interface CloseInfo {
  code: CloseCode;
  /** The server's reason, or the WebSocket's. */
  reason: string;
  /** WebSocket close code (1000 normal, 1007 malformed, 1008 policy, 1013 room full, ...). */
  wsCode: number;
}

/** A reconnection attempt is about to start (after delayMs). */
export interface ReconnectAttempt {
  /** 1 for the first attempt after a loss. */
  attempt: number;
  delayMs: number;
  /** Why the previous connection (or attempt) ended. */
  lost: CloseInfo;
}

/** One room of GET /api/rooms. */
export interface RoomInfo {
  /** What join({ room }) takes. */
  name: string;
  title: string;
  description: string;
  /** A room starts when someone joins it; false: not running now. */
  running: boolean;
  players: number;
  spectators: number;
  agents: number;
  tick: number;
}

export interface RoomList {
  /** The room a join without `room` enters. */
  defaultRoom: string;
  /** Rooms that may run at once. */
  maxRooms: number;
  rooms: RoomInfo[];
}

/** Automatic reconnection (connect's `reconnect` option); see RECONNECT_DEFAULTS. */
export interface ReconnectPolicy {
  enabled: boolean;
  /** Wait before the first attempt, ms; attempt n waits initialDelayMs * factor^(n-1), at most maxDelayMs. */
  initialDelayMs: number;
  maxDelayMs: number;
  factor: number;
  /** Attempts before giving up (a player also stops when its resume window is over). */
  maxAttempts: number;
}

export declare const RECONNECT_DEFAULTS: Readonly<ReconnectPolicy>;

export interface ConnectOptions {
  /** Another WebSocket class (tests, proxies); default: `ws` under node, the global one in browsers. */
  WebSocket?: unknown;
  /** false: never reconnect; an object: overrides of RECONNECT_DEFAULTS. Default: on. */
  reconnect?: boolean | Partial<ReconnectPolicy>;
}

export interface ClientEvents {
  welcome: Welcome;
  snapshot: Snapshot;
  events: Events;
  groupUpdate: GroupUpdate;
  steeringTrace: SteeringTrace;
  pong: { rttMs: number; serverTick: number };
  /** The connection was lost and a new one is being opened. */
  reconnecting: ReconnectAttempt;
  /** Resumed on a new connection: the new Welcome (a player's entityId is the same craft). */
  reconnected: Welcome;
  /** The client ended (close(), a server refusal, or reconnection gave up). */
  close: CloseInfo;
  error: Error;
}

export interface JoinOptions {
  role: Role;
  /** 1-32 bytes of UTF-8 without control characters. */
  name: string;
  /** Scenario name (listRooms()); '' or absent = the server's default room. */
  room?: string;
  /** Spectators: stream only the agents inside this rectangle from the start (see setView). */
  view?: { min: Vec2; max: Vec2 };
}

export interface InputControl {
  /** [-1, 1]: -1 full left (CCW), +1 full right. */
  turn?: number;
  /** [0, 1]: thrust fraction. */
  throttle?: number;
}

export interface JoinRefused extends Error {
  close: CloseInfo;
}

export declare class FlockstepClient {
  on<K extends keyof ClientEvents>(type: K, fn: (value: ClientEvents[K]) => void): () => void;
  off<K extends keyof ClientEvents>(type: K, fn: (value: ClientEvents[K]) => void): void;
  once<K extends keyof ClientEvents>(type: K, fn: (value: ClientEvents[K]) => void): () => void;
  readonly welcome: Welcome | null;
  readonly lastSnapshot: Snapshot | null;
  /** Why the client ended; null while connected or reconnecting. */
  readonly closed: CloseInfo | null;
  /** A lost connection is being reopened. */
  readonly reconnecting: boolean;
  /** Players: the predicted own craft after the newest sendInput(). */
  readonly prediction: CraftState | null;
  /** Resolves with the Welcome; rejects with a JoinRefused when the server refuses. */
  join(options: JoinOptions): Promise<Welcome>;
  /** Once per simulation tick: records the input, predicts, sends every unacknowledged input. Returns its sequence (0: not a joined player on an open connection). */
  sendInput(control?: InputControl): number;
  /** Spectators: stream only the agents inside this rectangle (world metres; sides over 100 km are clamped). Throws for players or a bad rectangle. */
  setView(view: { min: Vec2; max: Vec2 }): void;
  /** A steeringTrace event with each snapshot for this agent (0 stops). Throws for a non-uint32 id. */
  inspect(agentId: number): void;
  /** Rejects when the connection closes (or is lost) before the answer. */
  ping(): Promise<{ rttMs: number; serverTick: number }>;
  /** The rooms of this client's server. */
  listRooms(): Promise<RoomList>;
  /** Drop the connection and resume on a new one now (same craft within the resume window). */
  reconnect(): Promise<Welcome>;
  close(): void;
}

/** Open a WebSocket to `ws://host:port/ws` and load the wasm core. */
export declare function connect(url: string, options?: ConnectOptions): Promise<FlockstepClient>;

/** The server's rooms: `url` is its WebSocket URL or http(s) address. */
export declare function listRooms(
  url: string,
  options?: { fetch?: (url: string) => Promise<{ ok: boolean; status: number; json(): Promise<unknown> }> },
): Promise<RoomList>;
